import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { BatchController, type ControllerOptions, type UploaderIdentity, type UploaderState } from '../controller/batch-controller';
import type { UploaderServices } from '../services/uploader-services';

/**
 * The page's one batch controller. It lives outside React, for the page's life: a session that
 * ends mid-batch sends the user to /login and unmounts the screen, and the batch (with the files
 * the browser gave it) must still be there when the same user signs in again. Another user or
 * ranch gets a new controller; the old one stops (its journal stays for its user).
 */
let current: { services: UploaderServices; controller: BatchController } | null = null;

export function controllerFor(services: UploaderServices, identity: UploaderIdentity, options: ControllerOptions): BatchController {
  const c = current?.controller;
  if (
    c &&
    current!.services === services &&
    c.identity.owner === identity.owner &&
    c.identity.ranchId === identity.ranchId &&
    c.identity.email === identity.email
  )
    return c;
  c?.dispose();
  const controller = new BatchController(services, identity, options);
  current = { services, controller };
  return controller;
}

/** The uploader's state and actions: a thin `useSyncExternalStore` adapter over the controller. */
export function useBatchController(
  services: UploaderServices,
  identity: UploaderIdentity,
  options: ControllerOptions,
): { controller: BatchController; state: UploaderState } {
  const { owner, email, ranchId } = identity;
  // The options (`?concurrency`, `?stall`) are fixed for the page: they do not make a new controller.
  // eslint-disable-next-line react-hooks/exhaustive-deps -- options are read once, on purpose (above)
  const controller = useMemo(() => controllerFor(services, { owner, email, ranchId }, options), [services, owner, email, ranchId]);
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  useEffect(() => {
    controller.attach();
    return () => controller.detach();
  }, [controller]);
  return { controller, state };
}

import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import { remoteNames, type ExposedModule, type RemoteModuleId, type RemoteModules, type RuntimeConfig } from '@trailsense/shared';

/** A remote's module could not be loaded (unreachable, or it did not export a component). */
export class RemoteLoadError extends Error {
  constructor(readonly moduleId: RemoteModuleId, cause?: unknown) {
    super(`The module ${moduleId} could not be loaded.`, { cause });
    this.name = 'RemoteLoadError';
  }
}

/** Registers every remote's manifest from the runtime config; nothing is fetched until a route needs it. */
export function registerRemotesFromConfig(config: RuntimeConfig): void {
  registerRemotes([
    { name: remoteNames.auth, entry: config.remotes.auth },
    { name: remoteNames.uploader, entry: config.remotes.uploader },
  ]);
}

type RemoteComponent<Id extends RemoteModuleId> = LazyExoticComponent<ComponentType<RemoteModules[Id]>>;

// Module scope on purpose: a lazy component created during render is a new component each time,
// and a failing remote would then be fetched again on every render (DESIGN.md).
const cache = new Map<string, RemoteComponent<RemoteModuleId>>();

/**
 * The lazy component for a remote module. One per module and retry attempt: a Retry asks for
 * attempt + 1, which loads afresh (the federation runtime does not cache a failed manifest).
 */
export function lazyRemote<Id extends RemoteModuleId>(id: Id, attempt: number): RemoteComponent<Id> {
  const key = `${id}#${attempt}`;
  let component = cache.get(key) as RemoteComponent<Id> | undefined;
  if (!component) {
    component = lazy(async () => {
      let loaded: ExposedModule<Id> | null;
      try {
        loaded = await loadRemote<ExposedModule<Id>>(id);
      } catch (error) {
        throw new RemoteLoadError(id, error);
      }
      if (!loaded || typeof loaded.default !== 'function') throw new RemoteLoadError(id);
      return loaded;
    });
    cache.set(key, component as RemoteComponent<RemoteModuleId>);
  }
  return component;
}

import { startTransition, Suspense, useEffect, useState, type ReactNode } from 'react';
import type { RemoteModuleId, RemoteModules } from '@trailsense/shared';
import { frameHydrated, hydratingFrame, lazyRemote, preloadRemote, remotesConfigured } from './remote-loader';
import { RemoteBoundary } from './remote-boundary';
import { routeFrames } from './route-frames';
import { LoadingState } from '../app/loading-state';

const labels: Record<RemoteModuleId, string> = {
  'auth/Login': 'the sign-in page',
  'auth/Profile': 'your profile',
  'auth/DeleteAccount': 'the account deletion page',
  'uploader/Uploader': 'the uploader',
};

export interface RemoteRouteProps<Id extends RemoteModuleId> {
  module: Id;
  props: RemoteModules[Id];
}

/** A route whose content is a remote's exposed module: loading state, error boundary, Retry. */
export function RemoteRoute<Id extends RemoteModuleId>({ module, props }: RemoteRouteProps<Id>) {
  const [attempt, setAttempt] = useState(0);
  // A page hydrating its prerendered frame draws the frame alone first, as the prerender did;
  // then the remote takes the frame's place as a transition, which keeps the frame on screen
  // (not the fallback's copy of it) until the remote is ready.
  const [remoteShown, setRemoteShown] = useState(() => !hydratingFrame());
  useEffect(() => {
    if (remoteShown) return;
    frameHydrated();
    startTransition(() => setRemoteShown(true));
  }, [remoteShown]);
  const label = labels[module];
  const fallback = routeFrames[module]?.() ?? <LoadingState label={`Loading ${label}…`} />;
  const frame = (content: ReactNode) => (
    <RemoteBoundary key={module} label={label} onRetry={() => setAttempt((n) => n + 1)}>
      <Suspense fallback={fallback}>{content}</Suspense>
    </RemoteBoundary>
  );
  // The prerender (no remotes configured, nothing to load at build time) writes the frame alone.
  if (!remotesConfigured()) return frame(fallback);
  if (!remoteShown) {
    // The remote downloads while the page hydrates, not after.
    preloadRemote(module);
    return frame(fallback);
  }
  const Remote = lazyRemote(module, attempt);
  /* The contract types each module's props; the lazy component's generic erases the link.
     lazyRemote returns the same component for a module and attempt on every render (it caches
     them), so the remote keeps its state; only a Retry makes a new one. */
  // eslint-disable-next-line react-hooks/static-components -- cached per module and attempt (above)
  return frame(<Remote {...(props as object)} />);
}

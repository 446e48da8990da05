import { Suspense, useState } from 'react';
import type { RemoteModuleId, RemoteModules } from '@trailsense/shared';
import { lazyRemote, remotesConfigured } from './remote-loader';
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
  const label = labels[module];
  const fallback = routeFrames[module]?.() ?? <LoadingState label={`Loading ${label}…`} />;
  // The prerender (no remotes configured, nothing to load at build time) writes the frame alone.
  if (!remotesConfigured()) return fallback;
  const Remote = lazyRemote(module, attempt);
  return (
    <RemoteBoundary key={module} label={label} onRetry={() => setAttempt((n) => n + 1)}>
      <Suspense fallback={fallback}>
        {/* The contract types each module's props; the lazy component's generic erases the link.
            lazyRemote returns the same component for a module and attempt on every render (it
            caches them), so the remote keeps its state; only a Retry makes a new one. */}
        {/* eslint-disable-next-line react-hooks/static-components -- cached per module and attempt (above) */}
        <Remote {...(props as object)} />
      </Suspense>
    </RemoteBoundary>
  );
}

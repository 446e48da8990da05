import type { ReactNode } from 'react';
import { sharedInstanceId } from '../instance';

export interface RemoteFrameProps {
  /** The remote's package name and version (build-time constants). */
  name: string;
  version: string;
  children: ReactNode;
}

/**
 * Wraps every screen a remote exposes. Its data attributes and the small release line tell
 * support (and the browser tests) which release of which remote is on screen, and which copy of
 * the shared package it uses: a different id from the page's `<html data-shared-instance>`
 * means the package was duplicated.
 */
export function RemoteFrame({ name, version, children }: RemoteFrameProps) {
  return (
    <div className="remote-frame" data-remote={name} data-remote-version={version} data-shared-instance={sharedInstanceId}>
      {children}
      <p className="remote-frame__release">
        {name.replace(/^@trailsense\//, '')} {version}
      </p>
    </div>
  );
}

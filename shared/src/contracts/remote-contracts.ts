import type { ComponentType } from 'react';

/** Props of auth-remote's `./Login` (route /login). */
export interface LoginProps {
  /** A safe same-site path to go to after sign-in, from the guard's `returnTo`. */
  returnTo?: string;
}

/** Props of auth-remote's `./Profile` (route /profile). */
export type ProfileProps = Record<string, never>;

/** Props of auth-remote's `./DeleteAccount` (route /delete). */
export type DeleteAccountProps = Record<string, never>;

/** Props of uploader-remote's `./Uploader` (route /uploader). */
export type UploaderProps = Record<string, never>;

/**
 * Every module a remote exposes, by its federated id, with its props. The shell type-checks
 * against this, never against a live remote.
 */
export interface RemoteModules {
  'auth/Login': LoginProps;
  'auth/Profile': ProfileProps;
  'auth/DeleteAccount': DeleteAccountProps;
  'uploader/Uploader': UploaderProps;
}

export type RemoteModuleId = keyof RemoteModules;

/** The federated name of each remote, as registered by the shell from `/config.json`. */
export const remoteNames = { auth: 'auth', uploader: 'uploader' } as const;

/** What a remote's exposed module must export. */
export interface ExposedModule<Id extends RemoteModuleId> {
  default: ComponentType<RemoteModules[Id]>;
}

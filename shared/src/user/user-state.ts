import type { UserAttributes } from './user-attributes';

/**
 * The auth status every app sees. `no-provider` is the context's default: a screen that shows it
 * is rendered outside the shell's UserProvider, i.e. it got its own copy of the shared package.
 */
export type UserState =
  | { status: 'configuring' }
  | { status: 'authenticated'; user: UserAttributes }
  | { status: 'unauthenticated' }
  | { status: 'no-provider' };

export type AuthStatus = UserState['status'];

/** What the user context exposes: the state, a refresh and a sign-out. */
export type UserContextValue = UserState & {
  /** Re-reads the session (e.g. after attributes changed). */
  refresh: () => Promise<void>;
  /** Signs out of this device (or all devices); the state becomes unauthenticated. */
  signOut: (options?: { global?: boolean }) => Promise<void>;
};

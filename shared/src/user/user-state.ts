import type { UserAttributes } from './user-attributes';

/**
 * The auth status every app sees. `no-provider` is the context's default: a screen that shows it
 * is rendered outside the shell's UserProvider, i.e. it got its own copy of the shared package.
 */
export type UserState =
  | { status: 'configuring' }
  | { status: 'authenticated'; user: UserAttributes }
  | { status: 'unauthenticated'; reason?: SignOutReason }
  | { status: 'no-provider' };

/**
 * Why a session ended, when it ended on this page: the shell sends the browser to /login after a
 * sign-out, but not after the account was deleted (the deletion screen confirms it instead).
 */
export type SignOutReason = 'signed-out' | 'session-ended' | 'account-deleted';

export type AuthStatus = UserState['status'];

/** What the user context exposes: the state, a refresh, sign-out and account deletion. */
export type UserContextValue = UserState & {
  /** Re-reads the session; `forceRefresh` fetches new tokens (e.g. after attributes changed). */
  refresh: (options?: { forceRefresh?: boolean }) => Promise<void>;
  /**
   * Signs out of this device (or all devices); the state becomes unauthenticated. A global sign-out
   * that fails throws, and the session stays as it was.
   */
  signOut: (options?: { global?: boolean }) => Promise<void>;
  /** Deletes the signed-in user's account, then the state is unauthenticated ('account-deleted'). Throws on failure. */
  deleteAccount: () => Promise<void>;
};

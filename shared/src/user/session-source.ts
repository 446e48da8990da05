import type { UserAttributes } from './user-attributes';

/** Auth events the user context reacts to (a subset of Amplify Hub's `auth` channel). */
export type AuthEvent = 'signedIn' | 'signedOut' | 'tokenRefresh' | 'tokenRefreshFailure';

/**
 * Where the user context gets sessions from. The apps use the Amplify source; component tests
 * pass a fake, so no test needs to mock Amplify itself.
 */
export interface SessionSource {
  /** The signed-in user, or null; refreshes an expired session first (or always, with forceRefresh). */
  currentUser(options?: { forceRefresh?: boolean }): Promise<UserAttributes | null>;
  signOut(options?: { global?: boolean }): Promise<void>;
  /** Deletes the signed-in user's account and ends the session. */
  deleteAccount(): Promise<void>;
  /** Subscribes to auth events; returns the unsubscribe function. */
  onAuthEvent(listener: (event: AuthEvent) => void): () => void;
}

import { Hub } from 'aws-amplify/utils';

/** Why the signed-in session ended. */
export type SessionEndReason = 'signed-out' | 'session-ended';

/** The part of a `StorageEvent` that tells another tab's sign-out. */
export interface StorageChange {
  key: string | null;
  newValue: string | null;
}

/**
 * Whether a change to localStorage, made by another tab, ended this app client's session.
 * Amplify removes `CognitoIdentityServiceProvider.<client>.LastAuthUser` only when it clears the
 * session (sign-out, or a session the pool refused); a token refresh rewrites the tokens but
 * never removes that key. `key: null` is `localStorage.clear()`.
 */
export function isStoredSessionRemoved(change: StorageChange, clientId: string): boolean {
  if (change.key === null) return true;
  return change.newValue === null && change.key === `CognitoIdentityServiceProvider.${clientId}.LastAuthUser`;
}

/**
 * Calls back when another tab of this browser ends this app client's session (the storage event;
 * Amplify itself does not follow other tabs).
 */
export function onStoredSessionRemoved(clientId: string, listener: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.storageArea === window.localStorage && isStoredSessionRemoved(event, clientId)) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

/**
 * Calls back when the session ends: a sign-out or a refused refresh in this tab (Amplify's Hub),
 * or a sign-out in another tab of the same browser (the storage event, which Amplify itself does
 * not follow: without this, a tab keeps uploading with its cached credentials for up to an hour
 * after the user signed out elsewhere).
 */
export function watchSessionEnd(clientId: string, listener: (why: SessionEndReason) => void): () => void {
  const stopHub = Hub.listen('auth', ({ payload }) => {
    if (payload.event === 'signedOut') listener('signed-out');
    else if (payload.event === 'tokenRefresh_failure') listener('session-ended');
  });
  const stopStorage = onStoredSessionRemoved(clientId, () => listener('signed-out'));
  return () => {
    stopHub();
    stopStorage();
  };
}

import { Amplify } from 'aws-amplify';
import { deleteUser, signOut } from 'aws-amplify/auth';
import { Hub } from 'aws-amplify/utils';
import { userFromIdTokenClaims } from './user-attributes';
import type { AuthEvent, SessionSource } from './session-source';

const hubEvents: Record<string, AuthEvent> = {
  signedIn: 'signedIn',
  signedOut: 'signedOut',
  tokenRefresh: 'tokenRefresh',
  tokenRefresh_failure: 'tokenRefreshFailure',
  signInWithRedirect: 'signedIn',
};

/**
 * Sessions from the configured Amplify instance. Attributes come from the id token's claims, so
 * reading the user costs no network call unless the tokens need a refresh.
 */
export const amplifySessionSource: SessionSource = {
  async currentUser(options) {
    // getTokens (unlike fetchAuthSession) does not also fetch identity-pool credentials.
    const tokens = await Amplify.getTokens({ forceRefresh: options?.forceRefresh ?? false });
    const claims = tokens?.idToken?.payload;
    return claims ? userFromIdTokenClaims(claims as Record<string, unknown>) : null;
  },
  async signOut(options) {
    await signOut(options?.global ? { global: true } : undefined);
  },
  async deleteAccount() {
    await deleteUser();
  },
  onAuthEvent(listener) {
    return Hub.listen('auth', ({ payload }) => {
      const event = hubEvents[payload.event];
      if (event) listener(event);
    });
  },
};

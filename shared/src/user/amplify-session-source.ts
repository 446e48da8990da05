import { Amplify } from 'aws-amplify';
import { deleteUser, signOut } from 'aws-amplify/auth';
import { Hub } from 'aws-amplify/utils';
import { globalSignOut, GlobalSignOutError, userPoolEndpointOf } from './global-sign-out';
import { onStoredSessionRemoved } from './session-end';
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
    return claims ? userFromIdTokenClaims(claims) : null;
  },
  async signOut(options) {
    if (options?.global) {
      // Every device first, and only then this one: a failure leaves this session as it was (global-sign-out.ts).
      const cognito = Amplify.getConfig().Auth?.Cognito;
      const accessToken = (await Amplify.getTokens({ forceRefresh: false }))?.accessToken?.toString();
      if (!cognito?.userPoolId || !accessToken) throw new GlobalSignOutError('UserUnAuthenticatedException', 'You are signed out.');
      await globalSignOut(userPoolEndpointOf({ userPoolId: cognito.userPoolId, userPoolEndpoint: cognito.userPoolEndpoint }), accessToken);
    }
    await signOut();
  },
  async deleteAccount() {
    const sub = (await Amplify.getTokens({ forceRefresh: false }))?.idToken?.payload.sub;
    await deleteUser();
    // The account is gone: so is its record of uploads on this device (the upload journal).
    if (typeof sub === 'string') {
      // Loaded here, not with the module: the sign-in page needs the session, not the journal.
      const { journalOwners } = await import('../uploads/journal-owners');
      await journalOwners()
        .forgetOwner(sub)
        .catch((error: unknown) => console.error('Could not remove the upload journal of the deleted account', error));
    }
  },
  onAuthEvent(listener) {
    const stopHub = Hub.listen('auth', ({ payload }) => {
      const event = hubEvents[payload.event];
      if (event) listener(event);
    });
    // A sign-out in another tab removes the stored session; Amplify does not follow other tabs.
    const clientId = Amplify.getConfig().Auth?.Cognito?.userPoolClientId;
    const stopStorage = clientId ? onStoredSessionRemoved(clientId, () => listener('signedOut')) : () => undefined;
    return () => {
      stopHub();
      stopStorage();
    };
  },
};

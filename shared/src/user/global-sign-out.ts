/**
 * Cognito's GlobalSignOut, called directly. Amplify's `signOut({ global: true })` catches a failed
 * GlobalSignOut and clears this device's tokens anyway, so a member who pressed "Sign out of all
 * devices" on a bad connection would believe a lost phone was signed out while its session lives
 * on (docs/product.md#profile-page). Here a failure throws, and nothing is cleared until it succeeds.
 */

/** GlobalSignOut did not happen: `name` is Cognito's error type (`NotAuthorizedException`, …) or `NetworkError`. */
export class GlobalSignOutError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** The user pool's endpoint: the configured one (the sandbox's gateway), else the region's, from the pool id. */
export function userPoolEndpointOf(cognito: { userPoolId: string; userPoolEndpoint?: string }): string {
  if (cognito.userPoolEndpoint) return cognito.userPoolEndpoint;
  const region = cognito.userPoolId.split('_')[0] ?? '';
  return `https://cognito-idp.${region}.amazonaws.com/`;
}

/** Ends every session of the access token's user (refresh tokens revoked, access tokens refused); throws GlobalSignOutError. */
export async function globalSignOut(endpoint: string, accessToken: string, fetchFn: typeof fetch = fetch): Promise<void> {
  let response: Response;
  try {
    response = await fetchFn(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.GlobalSignOut' },
      body: JSON.stringify({ AccessToken: accessToken }),
    });
  } catch {
    throw new GlobalSignOutError('NetworkError', 'Network Error');
  }
  if (response.ok) return;
  const body = (await response.json().catch(() => ({}))) as { __type?: unknown; message?: unknown };
  const type = typeof body.__type === 'string' && body.__type ? body.__type.split('#').pop()! : `HTTP${response.status}`;
  const message = typeof body.message === 'string' && body.message ? body.message : `The sign-in service answered ${response.status}.`;
  throw new GlobalSignOutError(type, message);
}

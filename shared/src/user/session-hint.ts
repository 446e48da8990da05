import { jwtDecode } from 'jwt-decode';
import { userFromIdTokenClaims, type UserAttributes } from './user-attributes';

/**
 * What the browser's stored tokens say about the visitor, read synchronously and without Amplify,
 * so that the first render (and the header) is right before Amplify is downloaded. Amplify v6
 * keeps a Cognito session in localStorage under `CognitoIdentityServiceProvider.<client id>.*`.
 *
 * - `signed-out`: no stored session; Amplify could not have one either.
 * - `signed-in`: an unexpired stored id token with readable claims (Amplify still confirms).
 * - `unknown`: a stored session that needs a refresh, or whose claims cannot be read: only
 *   Amplify can tell.
 */
export type SessionHint = { kind: 'signed-out' } | { kind: 'signed-in'; user: UserAttributes } | { kind: 'unknown' };

/** The part of `Storage` the hint reads. */
export type HintStorage = Pick<Storage, 'getItem' | 'key' | 'length'>;

const PREFIX = 'CognitoIdentityServiceProvider';

/** The session hint for one app client of the user pool. Never throws. */
export function readSessionHint(storage: HintStorage | null | undefined, clientId: string): SessionHint {
  try {
    if (!storage) return { kind: 'signed-out' };
    const base = `${PREFIX}.${clientId}`;
    const username = storage.getItem(`${base}.LastAuthUser`);
    if (!username) return { kind: 'signed-out' };
    const stored = (name: string) => storage.getItem(`${base}.${username}.${name}`);
    const refreshToken = stored('refreshToken');
    const idToken = stored('idToken');
    if (!refreshToken && !idToken) return { kind: 'signed-out' };
    const claims = idToken ? jwtClaims(idToken) : null;
    if (!claims) return { kind: 'unknown' };
    // An expired id token: without a refresh token the session is over; with one, only a refresh
    // (by Amplify, against the user pool) can tell whether it still holds.
    // Amplify judges expiry by the client's clock corrected by the drift it measured at sign-in.
    const exp = typeof claims.exp === 'number' ? claims.exp : undefined;
    const drift = Number(stored('clockDrift') ?? 0) || 0;
    if (exp !== undefined && exp * 1000 <= Date.now() + drift) return refreshToken ? { kind: 'unknown' } : { kind: 'signed-out' };
    const user = userFromIdTokenClaims(claims);
    return user ? { kind: 'signed-in', user } : { kind: 'unknown' };
  } catch {
    // Storage can throw (disabled cookies, privacy modes): ask Amplify instead of guessing.
    return { kind: 'unknown' };
  }
}

/**
 * Whether any app client has a stored session. The prerendered pages inline this function's
 * source as a script that runs before first paint, so it must stay self-contained: no imports,
 * no module-level names.
 */
export function hasStoredSession(storage: HintStorage | null | undefined): boolean {
  try {
    if (!storage) return false;
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      const match = key && /^CognitoIdentityServiceProvider\.([^.]+)\.LastAuthUser$/.exec(key);
      if (!match) continue;
      const user = storage.getItem(key);
      const base = `CognitoIdentityServiceProvider.${match[1]}.${user}`;
      if (user && (storage.getItem(`${base}.refreshToken`) || storage.getItem(`${base}.idToken`))) return true;
    }
    return false;
  } catch {
    return false;
  }
}

/** The payload of a JWT, or null when it is not one. The signature is not checked: this is a hint. */
function jwtClaims(token: string): Record<string, unknown> | null {
  try {
    const claims = jwtDecode<unknown>(token);
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
  } catch {
    // jwtDecode throws when the token has no second part or it is not base64url-encoded JSON.
    return null;
  }
}

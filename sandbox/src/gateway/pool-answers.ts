/**
 * cognito-local's answers in Cognito's words (user-pool.ts): its errors as Cognito names them, code
 * destinations masked, and its tokens as Cognito's are — the result's lifetime and type, and the
 * `origin_jti` that names the refresh token they come from.
 */
import { readFileSync } from 'node:fs';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { CognitoError, UnsupportedError } from 'cognito-local/lib/errors';
import { TOKEN_VALIDITY } from './cognito-local';
import type { CognitoLocal } from './cognito-local';
import { CognitoFault, INCORRECT_CREDENTIALS } from './errors';

/** Cognito's masked destination, e.g. s***@t***. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain.slice(0, 1)}***`;
}

/** Cognito answers with a masked destination; the full address only goes to the log. */
function maskDelivery(result: unknown): unknown {
  const details = (result as { CodeDeliveryDetails?: { Destination?: unknown } } | undefined)?.CodeDeliveryDetails;
  if (details && typeof details.Destination === 'string' && details.Destination.includes('@')) details.Destination = maskEmail(details.Destination);
  return result;
}

/** Calls a cognito-local target, answering as Cognito where cognito-local says something else. */
export async function forwardTo(cognito: CognitoLocal, target: string, body: Record<string, unknown>): Promise<unknown> {
  try {
    return maskDelivery(await cognito.call(target, body));
  } catch (err) {
    if (err instanceof CognitoFault) throw err;
    if (err instanceof CognitoError) {
      // cognito-local reports a wrong password as InvalidPasswordException; Cognito does not tell
      // a wrong password from a policy problem that way.
      if (err.code === 'InvalidPasswordException' || (err.code === 'NotAuthorizedException' && target === 'InitiateAuth')) {
        throw new CognitoFault('NotAuthorizedException', INCORRECT_CREDENTIALS);
      }
      throw new CognitoFault(err.code, err.message);
    }
    if (err instanceof UnsupportedError) throw new CognitoFault('UnsupportedOperationException', `The sandbox does not support ${err.message}`);
    // A TypeError inside a target means a request without the fields it needs.
    if (err instanceof TypeError) throw new CognitoFault('InvalidParameterException', `Invalid request for ${target}: ${err.message}`);
    throw err;
  }
}

let signingKey: Promise<CryptoKey | Uint8Array> | undefined;
/** cognito-local's private key, which signed its tokens (the pool's JWKS publishes its public half). */
function cognitoLocalKey(): Promise<CryptoKey | Uint8Array> {
  signingKey ??= importJWK(
    (JSON.parse(readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.private.json'), 'utf8')) as { jwk: JWK }).jwk,
    'RS256',
  );
  return signingKey;
}

/** A token's `jti`, or undefined when it has none or is no JWT. */
export function jtiOf(token: string): string | undefined {
  try {
    const jti = decodeJwt(token).jti;
    return typeof jti === 'string' ? jti : undefined;
  } catch {
    return undefined;
  }
}

/** The result's ExpiresIn and TokenType as Cognito's, and no undefined fields. */
export function withTokenDefaults(result: unknown): unknown {
  const r = result as { AuthenticationResult?: Record<string, unknown> };
  if (r?.AuthenticationResult) {
    r.AuthenticationResult = { ...r.AuthenticationResult, ExpiresIn: TOKEN_VALIDITY.idAndAccessMinutes * 60, TokenType: 'Bearer' };
    for (const [k, v] of Object.entries(r.AuthenticationResult)) if (v === undefined) delete r.AuthenticationResult[k];
  }
  return result;
}

/**
 * Cognito's access and id tokens name the refresh token they come from (`origin_jti`); Amplify's
 * signOut calls RevokeToken only when the access token has one. cognito-local's have none, so the
 * gateway re-signs them with it, with the same key and claims otherwise.
 */
export async function withOrigin(result: unknown, originJti: string | undefined): Promise<unknown> {
  const r = (result as { AuthenticationResult?: Record<string, unknown> } | undefined)?.AuthenticationResult;
  if (!r || !originJti) return result;
  const key = await cognitoLocalKey();
  for (const name of ['AccessToken', 'IdToken']) {
    const token = r[name];
    if (typeof token !== 'string') continue;
    r[name] = await new SignJWT({ ...decodeJwt(token), origin_jti: originJti }).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'CognitoLocal' }).sign(key);
  }
  return result;
}

/** Tokens from a sign-in: their origin is the refresh token minted with them. */
export function signInResult(result: unknown): Promise<unknown> {
  const refreshToken = (result as { AuthenticationResult?: { RefreshToken?: unknown } } | undefined)?.AuthenticationResult?.RefreshToken;
  return withOrigin(withTokenDefaults(result), typeof refreshToken === 'string' ? jtiOf(refreshToken) : undefined);
}

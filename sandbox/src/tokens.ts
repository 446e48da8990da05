/**
 * JWT checks shared by the gateway (access tokens, identity-pool logins) and the product API (id
 * tokens). Signature and expiry via jose; the claims Cognito's own checks look at: issuer,
 * token_use, and the app client (aud for id tokens, client_id for access tokens).
 */
import { errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';

export type TokenUse = 'id' | 'access';

export type TokenCheck = { ok: true; claims: JWTPayload & Record<string, unknown> } | { ok: false; reason: 'expired' | 'invalid'; detail: string };

export async function checkToken(token: string, keys: JWTVerifyGetKey, expect: { issuer: string; clientId: string; use: TokenUse }): Promise<TokenCheck> {
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: expect.issuer,
      algorithms: ['RS256'],
      ...(expect.use === 'id' ? { audience: expect.clientId } : {}),
    });
    if (payload['token_use'] !== expect.use) {
      return { ok: false, reason: 'invalid', detail: `token_use is ${String(payload['token_use'])}, expected ${expect.use}` };
    }
    if (expect.use === 'access' && payload['client_id'] !== expect.clientId) {
      return { ok: false, reason: 'invalid', detail: 'token was issued to another app client' };
    }
    if (typeof payload.sub !== 'string') return { ok: false, reason: 'invalid', detail: 'token has no sub' };
    return { ok: true, claims: payload };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: 'expired', detail: 'token has expired' };
    return { ok: false, reason: 'invalid', detail: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * cognito-local's refresh tokens are JWTs with only an issuer and expiry to check (Cognito's are
 * opaque); whether one is still valid for a user is the pool's business (revocation, sign-out).
 */
export async function checkRefreshToken(token: string, keys: JWTVerifyGetKey, issuer: string): Promise<TokenCheck> {
  try {
    const { payload } = await jwtVerify(token, keys, { issuer, algorithms: ['RS256'] });
    return { ok: true, claims: payload };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: 'expired', detail: 'token has expired' };
    return { ok: false, reason: 'invalid', detail: err instanceof Error ? err.message : String(err) };
  }
}

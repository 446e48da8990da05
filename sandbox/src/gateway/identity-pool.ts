/**
 * The identity pool (AWSCognitoIdentityService): GetId and GetCredentialsForIdentity for users of
 * our user pool. The identity id is derived from the pool id and the user's sub, so it is stable
 * across restarts and resets without storage. Each GetCredentialsForIdentity issues credentials of
 * its own (an `ASIA…` access key id, a secret, a session token), recorded with the identity id,
 * the principal tags from the verified id token by PRINCIPAL_TAGS and the expiry for the S3 piece,
 * which verifies each request's SigV4 signature with that secret and refuses what the authenticated
 * role's policy would (src/s3.ts, src/sigv4.ts, src/s3-access.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { PRINCIPAL_TAGS } from '@trailsense/infra/upload-access';
import type { SessionRegistry } from '../sessions';
import { checkToken } from '../tokens';
import { CognitoFault, MISSING_AUTHENTICATION } from './errors';

/** Lifetime of the temporary credentials, as Cognito's default (1 hour): Amplify refreshes before. */
export const CREDENTIALS_TTL_SECONDS = 3600;

const KEY_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A temporary access key id as STS issues them: `ASIA` and 16 upper-case letters or digits. */
export function temporaryAccessKeyId(): string {
  return `ASIA${[...randomBytes(16)].map((b) => KEY_ID_ALPHABET[b % 32]).join('')}`;
}

/** `region:uuid`, a v5-style uuid from sha256(identityPoolId | sub): the same user, the same id. */
export function identityIdFor(identityPoolId: string, sub: string): string {
  const region = identityPoolId.split(':')[0] ?? 'us-east-2';
  const bytes = createHash('sha256').update(`${identityPoolId}|${sub}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${region}:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface IdentityPoolDeps {
  identityPoolId: string;
  clientId: string;
  issuer: string;
  keys: JWTVerifyGetKey;
  /** Where issued sessions are recorded for the S3 piece (none: not recorded). */
  sessions?: SessionRegistry;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /**
   * The pool's server-side token check (the identity pool's `ServerSideTokenCheck`): why the user
   * pool no longer vouches for a verified id token — its user signed out everywhere or was
   * deleted — or undefined when it does. None: every verified token is taken.
   */
  serverSideTokenCheck?: (claims: JWTPayload & { sub: string }) => Promise<string | undefined>;
}

/** The principal tags the identity pool maps from an id token's claims (a missing or empty claim: no tag). */
export function principalTagsFor(claims: JWTPayload): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const [tag, claim] of Object.entries(PRINCIPAL_TAGS)) {
    const value = claims[claim];
    if (typeof value === 'string' && value !== '') tags[tag] = value;
  }
  return tags;
}

export function createIdentityPool(deps: IdentityPoolDeps) {
  // Amplify names the login by the id token's issuer without its scheme (as for AWS, where the
  // issuer is https://cognito-idp.<region>.amazonaws.com/<pool>).
  const providerName = deps.issuer.replace(/^\w+:\/\//, '');

  const now = deps.now ?? (() => Date.now());

  async function claimsFromLogins(body: Record<string, unknown>): Promise<JWTPayload & { sub: string }> {
    const logins = body['Logins'];
    if (logins === null || typeof logins !== 'object' || Object.keys(logins).length === 0) {
      throw new CognitoFault('NotAuthorizedException', 'Unauthenticated access is not supported for this identity pool.');
    }
    const token = (logins as Record<string, unknown>)[providerName];
    if (typeof token !== 'string') throw new CognitoFault('NotAuthorizedException', `Invalid login token. Only ${providerName} logins are accepted.`);
    const check = await checkToken(token, deps.keys, { issuer: deps.issuer, clientId: deps.clientId, use: 'id' });
    if (!check.ok)
      throw new CognitoFault('NotAuthorizedException', check.reason === 'expired' ? 'Invalid login token. Token expired.' : 'Invalid login token.');
    const claims = check.claims as JWTPayload & { sub: string };
    const refused = await deps.serverSideTokenCheck?.(claims);
    if (refused) throw new CognitoFault('NotAuthorizedException', `Invalid login token. ${refused}`);
    return claims;
  }

  function checkPool(body: Record<string, unknown>): void {
    const id = body['IdentityPoolId'];
    if (id !== deps.identityPoolId) throw new CognitoFault('ResourceNotFoundException', `IdentityPool '${String(id)}' not found.`);
  }

  /** Answers one AWSCognitoIdentityService operation. */
  return async function handle(operation: string, body: Record<string, unknown>): Promise<unknown> {
    switch (operation) {
      case 'GetId': {
        checkPool(body);
        return { IdentityId: identityIdFor(deps.identityPoolId, (await claimsFromLogins(body)).sub) };
      }
      case 'GetCredentialsForIdentity': {
        const identityId = body['IdentityId'];
        if (typeof identityId !== 'string') throw new CognitoFault('InvalidParameterException', 'Missing required parameter IdentityId');
        const claims = await claimsFromLogins(body);
        const expected = identityIdFor(deps.identityPoolId, claims.sub);
        if (identityId !== expected) throw new CognitoFault('NotAuthorizedException', 'Logins do not match the identity.');
        const sessionToken = randomBytes(32).toString('base64');
        const expiration = Math.floor(now() / 1000) + CREDENTIALS_TTL_SECONDS;
        const accessKeyId = temporaryAccessKeyId();
        const secretAccessKey = randomBytes(30).toString('base64');
        deps.sessions?.add({ accessKeyId, secretAccessKey, token: sessionToken, identityId, tags: principalTagsFor(claims), expiresAtSeconds: expiration });
        return {
          IdentityId: identityId,
          Credentials: { AccessKeyId: accessKeyId, SecretKey: secretAccessKey, SessionToken: sessionToken, Expiration: expiration },
        };
      }
      default:
        // GetId and GetCredentialsForIdentity are the only calls the product makes without IAM
        // credentials; the rest (ListIdentities, DescribeIdentityPool, …) need a signature.
        throw MISSING_AUTHENTICATION;
    }
  };
}

/** What the server-side token check reads from the user pool. */
export interface UserPoolStanding {
  /** Whether the user (by sub) still exists and is enabled. */
  userActive(sub: string): Promise<boolean>;
  /** When the user last signed out everywhere (seconds), if ever. */
  signedOutAt(sub: string): number | undefined;
  /** Whether a refresh token (by id) has been revoked. */
  isTokenRevoked(jti: string): boolean;
}

/**
 * The identity pool's `ServerSideTokenCheck` against the user pool: an id token whose user was
 * deleted or disabled, whose refresh token was revoked (`origin_jti`: sign-out, GlobalSignOut), or
 * issued before the user's last GlobalSignOut is no longer good for credentials, though its
 * signature and expiry still hold.
 */
export function serverSideTokenCheck(pool: UserPoolStanding): (claims: JWTPayload & { sub: string }) => Promise<string | undefined> {
  return async (claims) => {
    if (!(await pool.userActive(claims.sub))) return 'User does not exist.';
    const origin = claims['origin_jti'];
    if (typeof origin === 'string' && pool.isTokenRevoked(origin)) return 'Token has been revoked.';
    const signedOut = pool.signedOutAt(claims.sub);
    if (signedOut !== undefined && (claims.iat ?? 0) < signedOut) return 'Token has been revoked.';
    return undefined;
  };
}

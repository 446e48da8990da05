/**
 * The user-pool operations the gateway answers itself, or fixes on the way to cognito-local:
 * SRP sign-in, refresh via GetTokensFromRefreshToken, GlobalSignOut, ResendConfirmationCode, the
 * password policy, access-token checks, and Cognito's messages for wrong credentials.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import type { CryptoKey, JWK, JWTVerifyGetKey } from 'jose';
import { CognitoError, UnsupportedError } from 'cognito-local/lib/errors';
import { attributeValue } from 'cognito-local/lib/services/userPoolService';
import type { SandboxDb } from '../db';
import { checkRefreshToken, checkToken } from '../tokens';
import { ctx, PASSWORD_POLICY, TOKEN_VALIDITY } from './cognito-local';
import type { CognitoLocal, DeliveredCode, User } from './cognito-local';
import { createCodeLedger, newCode } from './codes';
import type { CodePurpose } from './codes';
import { CognitoFault, INCORRECT_CREDENTIALS, MISSING_AUTHENTICATION } from './errors';
import { createLockout, PASSWORD_ATTEMPTS_EXCEEDED } from './lockout';
import { assertPasswordPolicy } from './password-policy';
import { parseClientA, startChallenge, verifyClaim } from './srp';

/** Operations whose AccessToken Cognito checks (signature, expiry, revocation) before anything else. */
const ACCESS_TOKEN_OPERATIONS = new Set([
  'GetUser',
  'UpdateUserAttributes',
  'DeleteUserAttributes',
  'DeleteUser',
  'ChangePassword',
  'GlobalSignOut',
  'GetUserAttributeVerificationCode',
  'VerifyUserAttribute',
  'SetUserMFAPreference',
  'SetUserSettings',
  'VerifySoftwareToken',
  'ListDevices',
  'GetDevice',
  'ForgetDevice',
  'UpdateDeviceStatus',
  'ConfirmDevice',
]);

/**
 * The user-pool operations the product uses (docs/product.md "Identity provider", plus what Amplify
 * calls for devices, MFA and attribute verification) — the ones Cognito answers to a caller holding
 * no IAM credentials. Everything else (AdminSetUserPassword, ListUsers, UpdateUserPoolClient, …) is
 * an IAM-signed call on AWS; the gateway verifies no signatures, so it refuses them all.
 */
export const PUBLIC_OPERATIONS = new Set([
  'InitiateAuth',
  'RespondToAuthChallenge',
  'GetTokensFromRefreshToken',
  'ConfirmDevice',
  'SignUp',
  'ConfirmSignUp',
  'ResendConfirmationCode',
  'ForgotPassword',
  'ConfirmForgotPassword',
  'ChangePassword',
  'GetUser',
  'UpdateUserAttributes',
  'DeleteUserAttributes',
  'DeleteUser',
  'GetUserAttributeVerificationCode',
  'VerifyUserAttribute',
  'SetUserSettings',
  'SetUserMFAPreference',
  'AssociateSoftwareToken',
  'VerifySoftwareToken',
  'GetDevice',
  'ListDevices',
  'ForgetDevice',
  'UpdateDeviceStatus',
  'GlobalSignOut',
  'RevokeToken',
]);

/** The attributes the web app client may write (its WriteAttributes); the rest are the operator's. */
export const CLIENT_WRITE_ATTRIBUTES = new Set(['name', 'phone_number', 'email']);
const UNAUTHORIZED_ATTRIBUTE = 'A client attempted to write unauthorized attribute';

/** Refuses a UserAttributes list naming an attribute outside the client's write attributes. */
function assertWritableAttributes(body: Record<string, unknown>, key: string): { Name: string; Value?: unknown }[] {
  const list = body[key];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new CognitoFault('InvalidParameterException', `${key} must be a list`);
  const attributes = list as { Name?: unknown; Value?: unknown }[];
  for (const a of attributes) {
    if (a === null || typeof a !== 'object' || typeof a.Name !== 'string') throw new CognitoFault('InvalidParameterException', `${key} entries need a Name`);
    if (!CLIENT_WRITE_ATTRIBUTES.has(a.Name)) throw new CognitoFault('NotAuthorizedException', UNAUTHORIZED_ATTRIBUTE);
  }
  return attributes as { Name: string; Value?: unknown }[];
}

/**
 * A second app client, for tests only: the web client allows SRP and refresh only (as in
 * production), this one also USER_PASSWORD_AUTH. It exists in the gateway alone and its tokens are
 * minted for the web client, so the API and the identity pool take them as the site's.
 */
export const PASSWORD_AUTH_TEST_CLIENT_ID = 'sandboxpasswordtestclient0';

let signingKey: Promise<CryptoKey | Uint8Array> | undefined;
/** cognito-local's private key, which signed its tokens (the pool's JWKS publishes its public half). */
function cognitoLocalKey(): Promise<CryptoKey | Uint8Array> {
  signingKey ??= importJWK(
    (JSON.parse(readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.private.json'), 'utf8')) as { jwk: JWK }).jwk,
    'RS256',
  );
  return signingKey;
}

function jtiOf(token: string): string | undefined {
  try {
    const jti = decodeJwt(token).jti;
    return typeof jti === 'string' ? jti : undefined;
  } catch {
    return undefined;
  }
}

/** A pending PASSWORD_VERIFIER challenge, keyed by its SECRET_BLOCK. */
interface SrpSession {
  /** USER_ID_FOR_SRP (the internal username, a uuid) or, for an unknown user, what was typed. */
  userId: string;
  username: string;
  known: boolean;
  password: string;
  A: bigint;
  B: bigint;
  b: bigint;
  v: bigint;
  expires: number;
}

const SRP_SESSION_MS = 3 * 60 * 1000;
const MAX_SRP_SESSIONS = 1000;

function str(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function record(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = body[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function required(body: Record<string, unknown>, key: string): string {
  const value = str(body, key);
  if (!value) throw new CognitoFault('InvalidParameterException', `Missing required parameter ${key}`);
  return value;
}

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

export interface UserPoolDeps {
  cognito: CognitoLocal;
  db: SandboxDb;
  userPoolId: string;
  clientId: string;
  issuer: string;
  keys: JWTVerifyGetKey;
  onCode: (code: DeliveredCode) => void;
  /** The clock of the password lockout and of revocations (milliseconds); Date.now unless a test injects one. */
  now?: () => number;
}

export function createUserPool(deps: UserPoolDeps) {
  const poolName = deps.userPoolId.split('_')[1] ?? '';
  const sessions = new Map<string, SrpSession>();
  const lockout = createLockout({ now: deps.now ?? Date.now });
  const nowMs = deps.now ?? Date.now;
  const codes = createCodeLedger({ now: nowMs });

  /** Records a code just sent to the user named in the request (cognito-local stores the code on the user). */
  async function codeSent(body: Record<string, unknown>, purpose: CodePurpose): Promise<void> {
    const user = await findUser(required(body, 'Username'));
    if (user) codes.sent(user.Username, purpose);
  }

  /**
   * A confirmation with a code, as Cognito limits it: an expired code or one mistyped too often is
   * refused before it is compared; a mistyped one counts; a used one is gone (codes.ts).
   */
  async function withCode(body: Record<string, unknown>, purpose: CodePurpose, confirm: () => Promise<unknown>): Promise<unknown> {
    const user = await findUser(required(body, 'Username'));
    if (!user) return confirm();
    codes.assertUsable(user.Username, purpose);
    try {
      const result = await confirm();
      codes.used(user.Username);
      return result;
    } catch (err) {
      if (err instanceof CognitoFault && err.type === 'CodeMismatchException') codes.mistyped(user.Username, purpose);
      throw err;
    }
  }

  /** Revokes a refresh token by its id, in the database: a restart keeps refusing it. */
  function revoke(jti: string | undefined): void {
    if (jti) deps.db.revokeToken(jti, Math.floor(nowMs() / 1000));
  }

  /**
   * Cognito's access and id tokens name the refresh token they come from (`origin_jti`); Amplify's
   * signOut calls RevokeToken only when the access token has one. cognito-local's have none, so the
   * gateway re-signs them with it, with the same key and claims otherwise.
   */
  async function withOrigin(result: unknown, originJti: string | undefined): Promise<unknown> {
    const r = (result as { AuthenticationResult?: Record<string, unknown> } | undefined)?.AuthenticationResult;
    if (!r || !originJti) return result;
    const key = await cognitoLocalKey();
    for (const name of ['AccessToken', 'IdToken']) {
      const token = r[name];
      if (typeof token !== 'string') continue;
      r[name] = await new SignJWT({ ...decodeJwt(token), origin_jti: originJti })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'CognitoLocal' })
        .sign(key);
    }
    return result;
  }

  /** Tokens from a sign-in: their origin is the refresh token minted with them. */
  function signInResult(result: unknown): Promise<unknown> {
    const refreshToken = (result as { AuthenticationResult?: { RefreshToken?: unknown } } | undefined)?.AuthenticationResult?.RefreshToken;
    return withOrigin(withTokenDefaults(result), typeof refreshToken === 'string' ? jtiOf(refreshToken) : undefined);
  }

  /** The web client, or (for sign-in only) the test client. */
  function checkClient(body: Record<string, unknown>, allowTestClient = false): void {
    const clientId = required(body, 'ClientId');
    if (clientId !== deps.clientId && !(allowTestClient && clientId === PASSWORD_AUTH_TEST_CLIENT_ID))
      throw new CognitoFault('ResourceNotFoundException', `User pool client ${clientId} does not exist.`);
  }

  /** cognito-local's answers where Cognito says something else. */
  async function forward(target: string, body: Record<string, unknown>): Promise<unknown> {
    try {
      return maskDelivery(await deps.cognito.call(target, body));
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

  function withTokenDefaults(result: unknown): unknown {
    const r = result as { AuthenticationResult?: Record<string, unknown> };
    if (r?.AuthenticationResult) {
      r.AuthenticationResult = { ...r.AuthenticationResult, ExpiresIn: TOKEN_VALIDITY.idAndAccessMinutes * 60, TokenType: 'Bearer' };
      for (const [k, v] of Object.entries(r.AuthenticationResult)) if (v === undefined) delete r.AuthenticationResult[k];
    }
    return result;
  }

  async function findUser(username: string): Promise<User | null> {
    return deps.cognito.pool.getUserByUsername(ctx, username);
  }

  async function checkAccessToken(body: Record<string, unknown>): Promise<void> {
    const token = required(body, 'AccessToken');
    const check = await checkToken(token, deps.keys, { issuer: deps.issuer, clientId: deps.clientId, use: 'access' });
    if (!check.ok) throw new CognitoFault('NotAuthorizedException', check.reason === 'expired' ? 'Access Token has expired' : 'Invalid Access Token');
    const signedOut = deps.db.signedOutAt(check.claims.sub as string);
    const origin = check.claims['origin_jti'];
    if (typeof origin === 'string' && deps.db.isTokenRevoked(origin)) throw new CognitoFault('NotAuthorizedException', 'Access Token has been revoked');
    if (signedOut !== undefined && (check.claims.iat ?? 0) < signedOut) throw new CognitoFault('NotAuthorizedException', 'Access Token has been revoked');
  }

  function pruneSessions(now: number): void {
    for (const [key, s] of sessions) if (s.expires < now) sessions.delete(key);
    while (sessions.size >= MAX_SRP_SESSIONS) sessions.delete(sessions.keys().next().value as string);
  }

  async function srpStart(body: Record<string, unknown>): Promise<unknown> {
    const params = record(body, 'AuthParameters');
    const username = str(params, 'USERNAME');
    if (!username) throw new CognitoFault('InvalidParameterException', 'Missing required parameter USERNAME');
    const A = parseClientA(str(params, 'SRP_A') ?? '');
    if (A === undefined) throw new CognitoFault('InvalidParameterException', 'Invalid SRP_A');
    const user = await findUser(username);
    if (user && user.Enabled === false) throw new CognitoFault('NotAuthorizedException', 'User is disabled.');
    // PreventUserExistenceErrors=ENABLED (Cognito's default for new app clients): an unknown user
    // gets a challenge like anyone else and fails at the verifier with the same message.
    const userId = user?.Username ?? username;
    const password = user?.Password ?? randomBytes(16).toString('hex');
    const challenge = startChallenge(poolName, userId, password);
    const secretBlock = randomBytes(64).toString('base64');
    const now = Date.now();
    pruneSessions(now);
    sessions.set(secretBlock, { userId, username, known: !!user, password, A, B: challenge.B, b: challenge.b, v: challenge.v, expires: now + SRP_SESSION_MS });
    return {
      ChallengeName: 'PASSWORD_VERIFIER',
      ChallengeParameters: {
        SALT: challenge.saltHex,
        SECRET_BLOCK: secretBlock,
        SRP_B: challenge.B.toString(16),
        USERNAME: userId,
        USER_ID_FOR_SRP: userId,
      },
    };
  }

  async function srpVerify(body: Record<string, unknown>): Promise<unknown> {
    const responses = record(body, 'ChallengeResponses');
    const secretBlock = str(responses, 'PASSWORD_CLAIM_SECRET_BLOCK');
    const signature = str(responses, 'PASSWORD_CLAIM_SIGNATURE');
    const timestamp = str(responses, 'TIMESTAMP');
    if (!secretBlock || !signature || !timestamp) {
      throw new CognitoFault('InvalidParameterException', 'PASSWORD_CLAIM_SECRET_BLOCK, PASSWORD_CLAIM_SIGNATURE and TIMESTAMP are required');
    }
    const session = sessions.get(secretBlock);
    sessions.delete(secretBlock); // one attempt per challenge, as Cognito
    if (!session || session.expires < Date.now()) throw new CognitoFault('NotAuthorizedException', INCORRECT_CREDENTIALS);
    const given = str(responses, 'USERNAME');
    if (given && given !== session.userId && given !== session.username) throw new CognitoFault('NotAuthorizedException', INCORRECT_CREDENTIALS);
    const ok = verifyClaim({ poolName, userId: session.userId, A: session.A, B: session.B, b: session.b, v: session.v, secretBlock, timestamp, signature });
    if (session.known && lockout.isLocked(session.userId)) throw new CognitoFault('NotAuthorizedException', PASSWORD_ATTEMPTS_EXCEEDED);
    if (!ok || !session.known) {
      if (session.known) lockout.fail(session.userId);
      throw new CognitoFault('NotAuthorizedException', INCORRECT_CREDENTIALS);
    }
    lockout.succeed(session.userId);
    // Proven: let cognito-local mint the tokens (and apply its user-status checks) via the
    // password flow, with the password the proof was made against.
    return signInResult(
      await forward('InitiateAuth', {
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: deps.clientId,
        AuthParameters: { USERNAME: session.userId, PASSWORD: session.password },
      }),
    );
  }

  /** USER_PASSWORD_AUTH, for the test client only; wrong passwords count towards the lockout. */
  async function passwordAuth(body: Record<string, unknown>): Promise<unknown> {
    if (body['ClientId'] !== PASSWORD_AUTH_TEST_CLIENT_ID)
      throw new CognitoFault('InvalidParameterException', 'USER_PASSWORD_AUTH flow not enabled for this client');
    const params = record(body, 'AuthParameters');
    const user = await findUser(required(params, 'USERNAME'));
    if (user && lockout.isLocked(user.Username)) throw new CognitoFault('NotAuthorizedException', PASSWORD_ATTEMPTS_EXCEEDED);
    try {
      const result = await signInResult(await forward('InitiateAuth', { ...body, ClientId: deps.clientId }));
      if (user) lockout.succeed(user.Username);
      return result;
    } catch (err) {
      if (user && err instanceof CognitoFault && err.message === INCORRECT_CREDENTIALS) lockout.fail(user.Username);
      throw err;
    }
  }

  async function refresh(refreshToken: string): Promise<unknown> {
    const check = await checkRefreshToken(refreshToken, deps.keys, deps.issuer);
    if (!check.ok) throw new CognitoFault('NotAuthorizedException', check.reason === 'expired' ? 'Refresh Token has expired' : 'Invalid Refresh Token');
    const jti = typeof check.claims.jti === 'string' ? check.claims.jti : undefined;
    if (jti && deps.db.isTokenRevoked(jti)) throw new CognitoFault('NotAuthorizedException', 'Refresh Token has been revoked');
    try {
      return await withOrigin(
        withTokenDefaults(
          await deps.cognito.call('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: deps.clientId, AuthParameters: { REFRESH_TOKEN: refreshToken } }),
        ),
        jti,
      );
    } catch (err) {
      if (err instanceof CognitoError && err.code === 'NotAuthorizedException') throw new CognitoFault('NotAuthorizedException', 'Invalid Refresh Token');
      throw err;
    }
  }

  async function resendConfirmationCode(body: Record<string, unknown>): Promise<unknown> {
    const username = required(body, 'Username');
    const user = await findUser(username);
    if (!user) throw new CognitoFault('UserNotFoundException', 'Username/client id combination not found.');
    if (user.UserStatus !== 'UNCONFIRMED') throw new CognitoFault('InvalidParameterException', 'User is already confirmed.');
    const email = attributeValue('email', user.Attributes) ?? username;
    const code = newCode();
    await deps.cognito.pool.saveUser(ctx, { ...user, ConfirmationCode: code });
    codes.sent(user.Username, 'sign-up');
    deps.onCode({ destination: email, source: 'ResendCode', code, at: new Date() });
    return { CodeDeliveryDetails: { AttributeName: 'email', DeliveryMedium: 'EMAIL', Destination: maskEmail(email) } };
  }

  /**
   * Cognito marks the email verified when a sign-up is confirmed with the code sent to it;
   * cognito-local only confirms the user. Without this, every new account would look unverified.
   */
  async function confirmSignUp(body: Record<string, unknown>): Promise<unknown> {
    const result = await forward('ConfirmSignUp', body);
    const user = await findUser(required(body, 'Username'));
    if (user) {
      const others = (user.Attributes ?? []).filter((a) => a.Name !== 'email_verified');
      await deps.cognito.pool.saveUser(ctx, { ...user, Attributes: [...others, { Name: 'email_verified', Value: 'true' }] });
    }
    return result;
  }

  async function globalSignOut(body: Record<string, unknown>): Promise<unknown> {
    const token = required(body, 'AccessToken');
    const sub = (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;
    const user = await findUser(sub);
    if (!user) throw new CognitoFault('UserNotFoundException', 'User does not exist.');
    for (const t of user.RefreshTokens ?? []) revoke(jtiOf(t));
    await deps.cognito.pool.saveUser(ctx, { ...user, RefreshTokens: [] });
    deps.db.recordSignOut(sub, Math.floor(Date.now() / 1000));
    return {};
  }

  /** UpdateUserAttributes for the client's write attributes; a changed email is unverified again, as on Cognito. */
  async function updateUserAttributes(body: Record<string, unknown>): Promise<unknown> {
    const attributes = assertWritableAttributes(body, 'UserAttributes');
    const token = required(body, 'AccessToken');
    const sub = (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;
    const before = await findUser(sub);
    const result = await forward('UpdateUserAttributes', body);
    const newEmail = attributes.find((a) => a.Name === 'email')?.Value;
    const after = await findUser(sub);
    if (before && after && typeof newEmail === 'string' && newEmail !== attributeValue('email', before.Attributes)) {
      const others = (after.Attributes ?? []).filter((a) => a.Name !== 'email_verified');
      await deps.cognito.pool.saveUser(ctx, { ...after, Attributes: [...others, { Name: 'email_verified', Value: 'false' }] });
    }
    return result;
  }

  /** Answers one AWSCognitoIdentityProviderService operation. */
  return async function handle(operation: string, body: Record<string, unknown>): Promise<unknown> {
    if (!PUBLIC_OPERATIONS.has(operation)) throw MISSING_AUTHENTICATION;
    if (ACCESS_TOKEN_OPERATIONS.has(operation)) await checkAccessToken(body);
    switch (operation) {
      case 'InitiateAuth': {
        checkClient(body, true);
        const flow = str(body, 'AuthFlow');
        if (flow === 'USER_SRP_AUTH') return srpStart(body);
        if (flow === 'USER_PASSWORD_AUTH') return passwordAuth(body);
        if (flow === 'REFRESH_TOKEN_AUTH' || flow === 'REFRESH_TOKEN') {
          return refresh(str(record(body, 'AuthParameters'), 'REFRESH_TOKEN') ?? required({}, 'REFRESH_TOKEN'));
        }
        throw new CognitoFault('InvalidParameterException', `${flow ?? 'AuthFlow'} flow is not enabled for this client`);
      }
      case 'RespondToAuthChallenge': {
        checkClient(body);
        const challenge = required(body, 'ChallengeName');
        if (challenge === 'PASSWORD_VERIFIER') return srpVerify(body);
        // The gateway issues no other challenge (MFA is off and there is no admin-created user with
        // a temporary password), so no Session can be one it issued.
        throw new CognitoFault('NotAuthorizedException', 'Invalid session for the user.');
      }
      case 'GetTokensFromRefreshToken':
        checkClient(body);
        return refresh(required(body, 'RefreshToken'));
      case 'GlobalSignOut':
        return globalSignOut(body);
      case 'RevokeToken': {
        checkClient(body);
        const token = required(body, 'Token');
        const result = await forward(operation, body);
        revoke(jtiOf(token));
        return result;
      }
      case 'ResendConfirmationCode':
        checkClient(body);
        return resendConfirmationCode(body);
      case 'SignUp':
        checkClient(body);
        assertWritableAttributes(body, 'UserAttributes');
        assertPasswordPolicy(body['Password'], PASSWORD_POLICY.MinimumLength);
        return forward(operation, body).then(async (result) => {
          await codeSent(body, 'sign-up');
          return result;
        });
      case 'ForgotPassword':
        checkClient(body);
        return forward(operation, body).then(async (result) => {
          await codeSent(body, 'password-reset');
          return result;
        });
      case 'ConfirmSignUp':
        checkClient(body);
        return withCode(body, 'sign-up', () => confirmSignUp(body));
      case 'ConfirmForgotPassword':
        checkClient(body);
        required(body, 'Username');
        required(body, 'ConfirmationCode');
        assertPasswordPolicy(body['Password'], PASSWORD_POLICY.MinimumLength);
        return withCode(body, 'password-reset', () => forward(operation, body));
      case 'VerifyUserAttribute':
        required(body, 'AttributeName');
        required(body, 'Code');
        return forward(operation, body);
      case 'UpdateUserAttributes':
        return updateUserAttributes(body);
      case 'DeleteUserAttributes': {
        const names = body['UserAttributeNames'];
        if (Array.isArray(names) && names.some((n) => typeof n !== 'string' || !CLIENT_WRITE_ATTRIBUTES.has(n))) {
          throw new CognitoFault('NotAuthorizedException', UNAUTHORIZED_ATTRIBUTE);
        }
        return forward(operation, body);
      }
      case 'ChangePassword':
        assertPasswordPolicy(body['ProposedPassword'], PASSWORD_POLICY.MinimumLength);
        return forward(operation, body);
      default:
        return forward(operation, body);
    }
  };
}

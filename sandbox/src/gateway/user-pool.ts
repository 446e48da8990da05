/**
 * The user-pool operations the gateway answers itself, or fixes on the way to cognito-local:
 * SRP sign-in (srp-sign-in.ts), refresh via GetTokensFromRefreshToken, GlobalSignOut, the codes
 * (code-flows.ts), the password policy, access-token checks, and Cognito's messages for wrong
 * credentials (pool-answers.ts). This module decides which operation is answered and how.
 */
import { randomBytes } from 'node:crypto';
import type { JWTVerifyGetKey } from 'jose';
import { CognitoError } from 'cognito-local/lib/errors';
import { attributeValue } from 'cognito-local/lib/services/userPoolService';
import type { SandboxDb } from '../db';
import { checkRefreshToken, checkToken } from '../tokens';
import { ctx, PASSWORD_POLICY, WEB_CLIENT_AUTH_FLOWS } from './cognito-local';
import type { CognitoLocal, DeliveredCode, User } from './cognito-local';
import { createCodeFlows } from './code-flows';
import { CognitoFault, INCORRECT_CREDENTIALS, MISSING_AUTHENTICATION } from './errors';
import { createLockout, PASSWORD_ATTEMPTS_EXCEEDED } from './lockout';
import { assertPasswordPolicy } from './password-policy';
import { forwardTo, jtiOf, signInResult, withOrigin, withTokenDefaults } from './pool-answers';
import { assertDeletableAttributes, assertWritableAttributes, record, required, str, verifiedSub } from './request-body';
import type { Body } from './request-body';
import { createPasskeys } from './passkeys';
import { createSrpSignIn } from './srp-sign-in';
import { createUserAuth } from './user-auth';
import { SITE_RELYING_PARTY } from './webauthn';
import type { RelyingParty } from './webauthn';

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
  'StartWebAuthnRegistration',
  'CompleteWebAuthnRegistration',
  'ListWebAuthnCredentials',
  'DeleteWebAuthnCredential',
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
  'StartWebAuthnRegistration',
  'CompleteWebAuthnRegistration',
  'ListWebAuthnCredentials',
  'DeleteWebAuthnCredential',
]);

/**
 * A second app client, for tests only: the web client allows SRP and refresh only (as in
 * production), this one also USER_PASSWORD_AUTH. It exists in the gateway alone and its tokens are
 * minted for the web client, so the API and the identity pool take them as the site's.
 */
export const PASSWORD_AUTH_TEST_CLIENT_ID = 'sandboxpasswordtestclient0';

export interface UserPoolDeps {
  cognito: CognitoLocal;
  db: SandboxDb;
  userPoolId: string;
  clientId: string;
  issuer: string;
  keys: JWTVerifyGetKey;
  onCode: (code: DeliveredCode) => void;
  /** The clock of the password lockout, revocations, codes and sign-in sessions (milliseconds); Date.now unless a test injects one. */
  now?: () => number;
  /** The passkeys' relying party: the site's (webauthn.ts SITE_RELYING_PARTY) unless a test names another. */
  relyingParty?: RelyingParty;
}

export function createUserPool(deps: UserPoolDeps) {
  const nowMs = deps.now ?? Date.now;
  const findUser = (username: string): Promise<User | null> => deps.cognito.pool.getUserByUsername(ctx, username);
  const forward = (target: string, body: Body) => forwardTo(deps.cognito, target, body);
  const { srp, passwordSignIn, passkeys, userAuth } = createSignIns(deps, findUser, forward, nowMs);
  const codes = createCodeFlows({ cognito: deps.cognito, findUser, forward, onCode: deps.onCode, now: nowMs });
  const sessions = createSessionOperations(deps, findUser, nowMs);

  /** USER_PASSWORD_AUTH, for the test client only. */
  function passwordAuth(body: Body): Promise<unknown> {
    if (body['ClientId'] !== PASSWORD_AUTH_TEST_CLIENT_ID)
      throw new CognitoFault('InvalidParameterException', 'USER_PASSWORD_AUTH flow not enabled for this client');
    return passwordSignIn(record(body, 'AuthParameters'));
  }

  /** UpdateUserAttributes for the client's write attributes; a changed email is unverified again, as on Cognito. */
  async function updateUserAttributes(body: Body): Promise<unknown> {
    const attributes = assertWritableAttributes(body, 'UserAttributes');
    const sub = verifiedSub(required(body, 'AccessToken'));
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

  /** The web client, or (for sign-in only) the test client. */
  function checkClient(body: Body, allowTestClient = false): void {
    const clientId = required(body, 'ClientId');
    if (clientId !== deps.clientId && !(allowTestClient && clientId === PASSWORD_AUTH_TEST_CLIENT_ID))
      throw new CognitoFault('ResourceNotFoundException', `User pool client ${clientId} does not exist.`);
  }

  /** InitiateAuth by its flow. */
  function initiateAuth(body: Body): Promise<unknown> {
    checkClient(body, true);
    const flow = str(body, 'AuthFlow');
    if (flow === 'USER_SRP_AUTH') return srp.start(body);
    if (flow === 'USER_PASSWORD_AUTH') return passwordAuth(body);
    // The web client's ExplicitAuthFlows (cognito-local.ts) allow choice-based sign-in; the test client's too.
    if (flow === 'USER_AUTH' && WEB_CLIENT_AUTH_FLOWS.includes('ALLOW_USER_AUTH')) return userAuth.initiate(body);
    if (flow === 'REFRESH_TOKEN_AUTH' || flow === 'REFRESH_TOKEN') {
      return sessions.refresh(str(record(body, 'AuthParameters'), 'REFRESH_TOKEN') ?? required({}, 'REFRESH_TOKEN'));
    }
    throw new CognitoFault('InvalidParameterException', `${flow ?? 'AuthFlow'} flow is not enabled for this client`);
  }

  /** RespondToAuthChallenge: the challenges the gateway issues (SRP's, and choice-based sign-in's: user-auth.ts). */
  function respondToAuthChallenge(body: Body): Promise<unknown> {
    checkClient(body);
    const challenge = required(body, 'ChallengeName');
    if (challenge === 'PASSWORD_VERIFIER') return srp.verify(body);
    if (challenge === 'SELECT_CHALLENGE') return userAuth.select(body);
    if (challenge === 'EMAIL_OTP') return userAuth.answerEmailOtp(body);
    if (challenge === 'WEB_AUTHN') return userAuth.answerWebAuthn(body);
    // The gateway issues no other challenge (MFA is off and there is no admin-created user with
    // a temporary password), so no Session can be one it issued.
    throw new CognitoFault('NotAuthorizedException', 'Invalid session for the user.');
  }

  /** Answers one AWSCognitoIdentityProviderService operation. */
  async function handle(operation: string, body: Body): Promise<unknown> {
    if (!PUBLIC_OPERATIONS.has(operation)) throw MISSING_AUTHENTICATION;
    if (ACCESS_TOKEN_OPERATIONS.has(operation)) await sessions.checkAccessToken(body);
    switch (operation) {
      case 'InitiateAuth':
        return initiateAuth(body);
      case 'RespondToAuthChallenge':
        return respondToAuthChallenge(body);
      case 'GetTokensFromRefreshToken':
        checkClient(body);
        return sessions.refresh(required(body, 'RefreshToken'));
      case 'GlobalSignOut':
        return sessions.globalSignOut(body);
      case 'RevokeToken': {
        checkClient(body);
        const token = required(body, 'Token');
        const result = await forward(operation, body);
        sessions.revoke(jtiOf(token));
        return result;
      }
      case 'ResendConfirmationCode':
        checkClient(body);
        return codes.resendConfirmationCode(body);
      case 'SignUp':
        checkClient(body);
        assertWritableAttributes(body, 'UserAttributes');
        assertPasswordPolicy(body['Password'], PASSWORD_POLICY.MinimumLength);
        return codes.signUp(body);
      case 'ForgotPassword':
        checkClient(body);
        return codes.forgotPassword(body);
      case 'ConfirmSignUp':
        checkClient(body);
        return codes.confirmSignUp(body);
      case 'ConfirmForgotPassword':
        checkClient(body);
        required(body, 'Username');
        required(body, 'ConfirmationCode');
        assertPasswordPolicy(body['Password'], PASSWORD_POLICY.MinimumLength);
        return codes.confirmForgotPassword(body);
      case 'VerifyUserAttribute':
        required(body, 'AttributeName');
        required(body, 'Code');
        return forward(operation, body);
      case 'UpdateUserAttributes':
        return updateUserAttributes(body);
      case 'DeleteUserAttributes':
        assertDeletableAttributes(body['UserAttributeNames']);
        return forward(operation, body);
      case 'ChangePassword':
        assertPasswordPolicy(body['ProposedPassword'], PASSWORD_POLICY.MinimumLength);
        return forward(operation, body);
      case 'StartWebAuthnRegistration':
        return passkeys.start(body);
      case 'CompleteWebAuthnRegistration':
        return passkeys.complete(body);
      case 'ListWebAuthnCredentials':
        return passkeys.list(body);
      case 'DeleteWebAuthnCredential':
        return passkeys.remove(body);
      default:
        return forward(operation, body);
    }
  }
  // The control route's (a browser test's expired code): user-auth.ts expireFor.
  return Object.assign(handle, { expireSignIns: (username: string) => userAuth.expireFor(username) });
}

/**
 * The sign-ins: SRP (srp-sign-in.ts), a password (USER_PASSWORD_AUTH, USER_AUTH's PASSWORD) with the
 * lockout, and choice-based sign-in (user-auth.ts) with passkeys (passkeys.ts).
 */
function createSignIns(
  deps: UserPoolDeps,
  findUser: (username: string) => Promise<User | null>,
  forward: (target: string, body: Body) => Promise<unknown>,
  nowMs: () => number,
) {
  const lockout = createLockout({ now: nowMs });
  const srp = createSrpSignIn({
    poolName: deps.userPoolId.split('_')[1] ?? '',
    findUser,
    lockout,
    // Proven: let cognito-local mint the tokens (and apply its user-status checks) via the
    // password flow, with the password the proof was made against.
    tokensFor: async (userId, password) =>
      signInResult(
        await forward('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: deps.clientId, AuthParameters: { USERNAME: userId, PASSWORD: password } }),
      ),
  });
  const rp = deps.relyingParty ?? SITE_RELYING_PARTY;
  const passkeys = createPasskeys({ cognito: deps.cognito, findUser, rp, now: nowMs });
  const userAuth = createUserAuth({
    findUser,
    rp,
    now: nowMs,
    onCode: deps.onCode,
    passwordSignIn: (username, password) => passwordSignIn({ USERNAME: username, PASSWORD: password }),
    srpStart: async (username, srpA) => ({
      ...((await srp.start({ AuthParameters: { USERNAME: username, SRP_A: srpA } })) as Record<string, unknown>),
      Session: randomBytes(48).toString('base64'),
    }),
    // The user has proven who they are another way: cognito-local mints the tokens through the
    // password flow, with the stored password, as for SRP.
    tokensFor: async (user) =>
      signInResult(
        await forward('InitiateAuth', {
          AuthFlow: 'USER_PASSWORD_AUTH',
          ClientId: deps.clientId,
          AuthParameters: { USERNAME: user.Username, PASSWORD: user.Password },
        }),
      ),
    passkeyUsed: passkeys.used,
  });

  /** A password sign-in (USER_PASSWORD_AUTH, USER_AUTH's PASSWORD); wrong passwords count towards the lockout. */
  async function passwordSignIn(params: Body): Promise<unknown> {
    const user = await findUser(required(params, 'USERNAME'));
    if (user && lockout.isLocked(user.Username)) throw new CognitoFault('NotAuthorizedException', PASSWORD_ATTEMPTS_EXCEEDED);
    try {
      const result = await signInResult(
        await forward('InitiateAuth', {
          AuthFlow: 'USER_PASSWORD_AUTH',
          ClientId: deps.clientId,
          AuthParameters: { USERNAME: params['USERNAME'], PASSWORD: required(params, 'PASSWORD') },
        }),
      );
      if (user) lockout.succeed(user.Username);
      return result;
    } catch (err) {
      if (user && err instanceof CognitoFault && err.message === INCORRECT_CREDENTIALS) lockout.fail(user.Username);
      throw err;
    }
  }

  return { srp, passwordSignIn, passkeys, userAuth };
}

/**
 * What a signed-in session's tokens are worth: access tokens checked (signature, expiry, client,
 * revocation, global sign-out), refresh tokens exchanged unless revoked, and the revocations,
 * kept in the database so that a restart goes on refusing them.
 */
function createSessionOperations(deps: UserPoolDeps, findUser: (username: string) => Promise<User | null>, nowMs: () => number) {
  /** Revokes a refresh token by its id, in the database: a restart keeps refusing it. */
  function revoke(jti: string | undefined): void {
    if (jti) deps.db.revokeToken(jti, Math.floor(nowMs() / 1000));
  }

  async function checkAccessToken(body: Body): Promise<void> {
    const token = required(body, 'AccessToken');
    const check = await checkToken(token, deps.keys, { issuer: deps.issuer, clientId: deps.clientId, use: 'access' });
    if (!check.ok) throw new CognitoFault('NotAuthorizedException', check.reason === 'expired' ? 'Access Token has expired' : 'Invalid Access Token');
    const signedOut = deps.db.signedOutAt(check.claims.sub as string);
    const origin = check.claims['origin_jti'];
    if (typeof origin === 'string' && deps.db.isTokenRevoked(origin)) throw new CognitoFault('NotAuthorizedException', 'Access Token has been revoked');
    if (signedOut !== undefined && (check.claims.iat ?? 0) < signedOut) throw new CognitoFault('NotAuthorizedException', 'Access Token has been revoked');
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

  async function globalSignOut(body: Body): Promise<unknown> {
    const sub = verifiedSub(required(body, 'AccessToken'));
    const user = await findUser(sub);
    if (!user) throw new CognitoFault('UserNotFoundException', 'User does not exist.');
    for (const t of user.RefreshTokens ?? []) revoke(jtiOf(t));
    await deps.cognito.pool.saveUser(ctx, { ...user, RefreshTokens: [] });
    deps.db.recordSignOut(sub, Math.floor(Date.now() / 1000));
    return {};
  }

  return { revoke, checkAccessToken, refresh, globalSignOut };
}

/**
 * What the gateway must refuse, as Cognito refuses it: each test
 * drives the gateway over HTTP with Cognito's JSON protocol and checks Cognito's refusal.
 */
import { decodeJwt } from 'jose';
import type { Sandbox } from '../src/index';
import { PASSWORD_AUTH_TEST_CLIENT_ID } from '../src/gateway/user-pool';
import { SEED_USERS } from '../src/seed';
import { cognitoCall, passwordTokens, startTestSandbox, stopTestSandbox } from './support/sandbox';

let sandbox: Sandbox;
/** While set, the user pool's clock stands still here: a lockout cannot lapse between two calls on a slow machine. */
let heldAt: number | undefined;
beforeAll(async () => {
  sandbox = await startTestSandbox({ authClock: () => heldAt ?? Date.now() });
});
afterAll(() => stopTestSandbox(sandbox));

const USER_POOL = 'AWSCognitoIdentityProviderService';
const call = (operation: string, body: unknown) => cognitoCall(sandbox.config, `${USER_POOL}.${operation}`, body);
const clientId = () => sandbox.config.auth.userPoolClientId;

function seedUser(ranchId: string | undefined) {
  const user = SEED_USERS.find((u) => u.ranchId === ranchId);
  if (!user) throw new Error(`no seed user with ranch ${String(ranchId)}`);
  return user;
}

/** Signs up and confirms a fresh user; returns its tokens. */
async function freshUser(email: string, password: string) {
  expect((await call('SignUp', { ClientId: clientId(), Username: email, Password: password, UserAttributes: [{ Name: 'email', Value: email }] })).status).toBe(
    200,
  );
  const code = sandbox.lastCode(email)!;
  expect((await call('ConfirmSignUp', { ClientId: clientId(), Username: email, ConfirmationCode: code })).status).toBe(200);
  return passwordTokens(sandbox.config, email, password);
}

it('answers a ClientId no header can carry with a 400 and keeps answering', async () => {
  for (const bad of ['caf\u20ac', 'line\nbreak', '\u{1F600}']) {
    const res = await call('InitiateAuth', { ClientId: bad, AuthFlow: 'USER_SRP_AUTH', AuthParameters: { USERNAME: 'a@b.example', SRP_A: '1' } });
    expect(res).toEqual({ status: 400, json: { __type: 'ResourceNotFoundException', message: `User pool client ${bad} does not exist.` } });
  }
  expect((await fetch(`${sandbox.config.auth.userPoolEndpoint}/health`)).status).toBe(200);
  const next = await call('InitiateAuth', { ClientId: 'nobody', AuthFlow: 'USER_SRP_AUTH' });
  expect(next).toEqual({ status: 400, json: { __type: 'ResourceNotFoundException', message: 'User pool client nobody does not exist.' } });
});

it('refuses operations that need IAM credentials, as Cognito refuses an unsigned call', async () => {
  const subscriber = seedUser('cedar-creek');
  const poolId = sandbox.config.auth.userPoolId;
  const refused = { status: 400, json: { __type: 'MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' } };
  expect(await call('ListUsers', { UserPoolId: poolId })).toEqual(refused);
  expect(await call('AdminSetUserPassword', { UserPoolId: poolId, Username: subscriber.email, Password: 'taken over!', Permanent: true })).toEqual(refused);
  expect(
    await call('AdminUpdateUserAttributes', {
      UserPoolId: poolId,
      Username: subscriber.email,
      UserAttributes: [{ Name: 'custom:ranchid', Value: 'pine-hollow' }],
    }),
  ).toEqual(refused);
  expect(await call('UpdateUserPoolClient', { UserPoolId: poolId, ClientId: clientId(), ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'] })).toEqual(refused);
  expect(await call('AdminCreateUser', { UserPoolId: poolId, Username: 'intruder@trailsense.example' })).toEqual(refused);
  // Nothing changed: the subscriber still signs in with the seeded password.
  await expect(passwordTokens(sandbox.config, subscriber.email, subscriber.password)).resolves.toHaveProperty('AccessToken');
});

it('requires a matching code for ConfirmForgotPassword and VerifyUserAttribute', async () => {
  const free = seedUser('mesquite-flats');
  const missingCode = await call('ConfirmForgotPassword', { ClientId: clientId(), Username: free.email, Password: 'taken over!' });
  expect(missingCode).toEqual({ status: 400, json: { __type: 'InvalidParameterException', message: 'Missing required parameter ConfirmationCode' } });
  const noCodeSent = await call('ConfirmForgotPassword', { ClientId: clientId(), Username: free.email, Password: 'taken over!', ConfirmationCode: '000000' });
  expect(noCodeSent).toEqual({ status: 400, json: { __type: 'CodeMismatchException', message: 'Incorrect confirmation code' } });
  const { AccessToken } = await passwordTokens(sandbox.config, free.email, free.password);
  const missingVerify = await call('VerifyUserAttribute', { AccessToken, AttributeName: 'email' });
  expect(missingVerify).toEqual({ status: 400, json: { __type: 'InvalidParameterException', message: 'Missing required parameter Code' } });
  const wrongVerify = await call('VerifyUserAttribute', { AccessToken, AttributeName: 'email', Code: '000000' });
  expect(wrongVerify).toEqual({ status: 400, json: { __type: 'CodeMismatchException', message: 'Incorrect confirmation code' } });
  // The password is unchanged.
  await expect(passwordTokens(sandbox.config, free.email, free.password)).resolves.toHaveProperty('IdToken');
});

it('answers challenges only for sessions the gateway issued', async () => {
  const subscriber = seedUser('cedar-creek');
  const invalid = { status: 400, json: { __type: 'NotAuthorizedException', message: 'Invalid session for the user.' } };
  for (const [ChallengeName, ChallengeResponses] of [
    ['SMS_MFA', { USERNAME: subscriber.email, SMS_MFA_CODE: '123456' }],
    ['NEW_PASSWORD_REQUIRED', { USERNAME: subscriber.email, NEW_PASSWORD: 'taken over!' }],
    ['SOFTWARE_TOKEN_MFA', { USERNAME: subscriber.email, SOFTWARE_TOKEN_MFA_CODE: '123456' }],
  ] as const) {
    expect(await call('RespondToAuthChallenge', { ClientId: clientId(), ChallengeName, Session: 'made-up', ChallengeResponses })).toEqual(invalid);
  }
});

it('lets the client write name, phone_number and email only, and unverifies a changed email', async () => {
  const unauthorized = { status: 400, json: { __type: 'NotAuthorizedException', message: 'A client attempted to write unauthorized attribute' } };
  const { AccessToken } = await passwordTokens(sandbox.config, seedUser(undefined).email, seedUser(undefined).password);
  expect(await call('UpdateUserAttributes', { AccessToken, UserAttributes: [{ Name: 'custom:ranchid', Value: 'cedar-creek' }] })).toEqual(unauthorized);
  expect(await call('UpdateUserAttributes', { AccessToken, UserAttributes: [{ Name: 'email_verified', Value: 'true' }] })).toEqual(unauthorized);
  expect(await call('DeleteUserAttributes', { AccessToken, UserAttributeNames: ['custom:ranchid'] })).toEqual(unauthorized);
  for (const extra of [
    { Name: 'custom:ranchid', Value: 'cedar-creek' },
    { Name: 'sub', Value: '00000000-0000-0000-0000-000000000000' },
    { Name: 'email_verified', Value: 'true' },
  ]) {
    const email = `chooser.${extra.Name.replace(/\W/g, '')}@trailsense.example`;
    const up = await call('SignUp', {
      ClientId: clientId(),
      Username: email,
      Password: 'long enough',
      UserAttributes: [{ Name: 'email', Value: email }, extra],
    });
    expect(up).toEqual(unauthorized);
  }

  const tokens = await freshUser('mover@trailsense.example', 'long enough');
  const moved = await call('UpdateUserAttributes', { AccessToken: tokens.AccessToken, UserAttributes: [{ Name: 'email', Value: 'moved@trailsense.example' }] });
  expect(moved.status).toBe(200);
  const user = await call('GetUser', { AccessToken: tokens.AccessToken });
  const attributes = Object.fromEntries((user.json['UserAttributes'] as { Name: string; Value: string }[]).map((a) => [a.Name, a.Value]));
  expect(attributes).toMatchObject({ email: 'moved@trailsense.example', email_verified: 'false' });
});

it('allows USER_PASSWORD_AUTH only on the test client, and locks a user out after 5 wrong passwords', async () => {
  const lapsed = seedUser('pine-hollow');
  const web = await call('InitiateAuth', {
    ClientId: clientId(),
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: lapsed.email, PASSWORD: lapsed.password },
  });
  expect(web).toEqual({ status: 400, json: { __type: 'InvalidParameterException', message: 'USER_PASSWORD_AUTH flow not enabled for this client' } });
  const attempt = (password: string) =>
    call('InitiateAuth', {
      ClientId: PASSWORD_AUTH_TEST_CLIENT_ID,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: lapsed.email, PASSWORD: password },
    });
  heldAt = Date.now();
  try {
    for (let i = 0; i < 5; i++) {
      expect(await attempt('wrong password')).toEqual({ status: 400, json: { __type: 'NotAuthorizedException', message: 'Incorrect username or password.' } });
    }
    // Locked out now, even with the right password (a second of the held clock; lockout.test.ts covers its timing).
    expect(await attempt(lapsed.password)).toEqual({ status: 400, json: { __type: 'NotAuthorizedException', message: 'Password attempts exceeded' } });
  } finally {
    heldAt = undefined;
  }
});

it('names the refresh token in the tokens it issues, and RevokeToken ends that refresh token', async () => {
  const subscriber = seedUser('cedar-creek');
  const tokens = await passwordTokens(sandbox.config, subscriber.email, subscriber.password);
  const origin = decodeJwt(tokens.RefreshToken).jti;
  expect(decodeJwt(tokens.AccessToken).origin_jti).toBe(origin);
  expect(decodeJwt(tokens.IdToken).origin_jti).toBe(origin);
  const refreshed = await call('GetTokensFromRefreshToken', { ClientId: clientId(), RefreshToken: tokens.RefreshToken });
  expect(decodeJwt((refreshed.json['AuthenticationResult'] as { AccessToken: string }).AccessToken).origin_jti).toBe(origin);

  expect(await call('RevokeToken', { ClientId: clientId(), Token: tokens.RefreshToken })).toEqual({ status: 200, json: {} });
  const revoked = { status: 400, json: { __type: 'NotAuthorizedException', message: 'Refresh Token has been revoked' } };
  expect(await call('GetTokensFromRefreshToken', { ClientId: clientId(), RefreshToken: tokens.RefreshToken })).toEqual(revoked);
  expect(await call('InitiateAuth', { ClientId: clientId(), AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken } })).toEqual(
    revoked,
  );
  expect(await call('GetUser', { AccessToken: tokens.AccessToken })).toEqual({
    status: 400,
    json: { __type: 'NotAuthorizedException', message: 'Access Token has been revoked' },
  });
});

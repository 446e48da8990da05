/**
 * The identity pool checks a login with the user pool (ServerSideTokenCheck), over the wire: an id
 * token still within its 15 minutes gets no credentials once its user signed out everywhere or was
 * deleted. And the tokens last 15 minutes, as production's (infra/src/stacks/identity-stack.ts).
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Sandbox } from '../src/index';
import { cognitoCall, passwordTokens, startTestSandbox, stopTestSandbox } from './support/sandbox';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => stopTestSandbox(sandbox));

const PASSWORD = 'server side check';

/** A new confirmed user with tokens from a sign-in. */
async function newUser(): Promise<{ email: string; tokens: Awaited<ReturnType<typeof passwordTokens>> }> {
  const email = `checked-${randomUUID()}@trailsense.example`;
  const config = sandbox.config;
  const signUp = await cognitoCall(config, 'AWSCognitoIdentityProviderService.SignUp', {
    ClientId: config.auth.userPoolClientId,
    Username: email,
    Password: PASSWORD,
    UserAttributes: [{ Name: 'email', Value: email }],
  });
  expect(signUp.status).toBe(200);
  const confirm = await cognitoCall(config, 'AWSCognitoIdentityProviderService.ConfirmSignUp', {
    ClientId: config.auth.userPoolClientId,
    Username: email,
    ConfirmationCode: sandbox.lastCode(email),
  });
  expect(confirm.status).toBe(200);
  return { email, tokens: await passwordTokens(config, email, PASSWORD) };
}

/** GetId then GetCredentialsForIdentity with this id token: the status and body of the second (or of GetId when it fails). */
async function credentialsFor(idToken: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const config = sandbox.config;
  const logins = { [(decodeJwt(idToken).iss as string).replace(/^\w+:\/\//, '')]: idToken };
  const id = await cognitoCall(config, 'AWSCognitoIdentityService.GetId', { IdentityPoolId: config.auth.identityPoolId, Logins: logins });
  if (id.status !== 200) return id;
  return cognitoCall(config, 'AWSCognitoIdentityService.GetCredentialsForIdentity', { IdentityId: id.json['IdentityId'], Logins: logins });
}

it('gives no credentials for an id token issued before its user signed out everywhere', async () => {
  const { tokens } = await newUser();
  expect((await credentialsFor(tokens.IdToken)).status).toBe(200);
  const signOut = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.GlobalSignOut', { AccessToken: tokens.AccessToken });
  expect(signOut.status).toBe(200);
  expect(await credentialsFor(tokens.IdToken)).toEqual({
    status: 400,
    json: { __type: 'NotAuthorizedException', message: 'Invalid login token. Token has been revoked.' },
  });
});

it('gives credentials for a sign-in after the sign-out', async () => {
  const { email, tokens } = await newUser();
  await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.GlobalSignOut', { AccessToken: tokens.AccessToken });
  // GlobalSignOut's time has one-second resolution: a token from the same second would be refused too.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const again = await passwordTokens(sandbox.config, email, PASSWORD);
  expect((await credentialsFor(again.IdToken)).status).toBe(200);
});

it('gives no credentials for an id token of a deleted user', async () => {
  const { tokens } = await newUser();
  expect((await credentialsFor(tokens.IdToken)).status).toBe(200);
  const deleted = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.DeleteUser', { AccessToken: tokens.AccessToken });
  expect(deleted.status).toBe(200);
  expect(await credentialsFor(tokens.IdToken)).toEqual({
    status: 400,
    json: { __type: 'NotAuthorizedException', message: 'Invalid login token. User does not exist.' },
  });
});

it('mints access and id tokens that last 15 minutes, as production’s', async () => {
  const { tokens } = await newUser();
  for (const token of [tokens.AccessToken, tokens.IdToken]) {
    const { iat, exp } = decodeJwt(token);
    expect((exp ?? 0) - (iat ?? 0)).toBe(15 * 60);
  }
  const answer = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.InitiateAuth', {
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    ClientId: sandbox.config.auth.userPoolClientId,
    AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken },
  });
  expect(answer.status).toBe(200);
  expect((answer.json['AuthenticationResult'] as { ExpiresIn: number }).ExpiresIn).toBe(900);
});

/**
 * The user pool and identity pool, driven by the real aws-amplify v6 client (SRP sign-in and all).
 */
import {
  confirmResetPassword,
  confirmSignUp,
  deleteUser,
  fetchAuthSession,
  fetchUserAttributes,
  resendSignUpCode,
  resetPassword,
  signIn,
  signOut,
  signUp,
  updatePassword,
  updateUserAttributes,
} from 'aws-amplify/auth';
import { decodeJwt } from 'jose';
import type { Sandbox } from '../src/index';
import { cognitoCall, configureAmplify, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';

const subscriber = seedUser('subscriber@trailsense.example');
const noRanch = seedUser('noranch@trailsense.example');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  configureAmplify(sandbox);
});
afterAll(() => stopTestSandbox(sandbox));
afterEach(() => signOut().catch(() => undefined));

async function signInError(username: string, password: string): Promise<{ name: string; message: string }> {
  try {
    await signIn({ username, password });
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
  throw new Error('sign-in unexpectedly succeeded');
}

describe('user pool through Amplify', () => {
  it('signs a seed user in with SRP and puts custom:ranchid in the id token', async () => {
    const result = await signIn({ username: subscriber.email, password: subscriber.password });
    expect(result).toEqual({ isSignedIn: true, nextStep: { signInStep: 'DONE' } });
    const { tokens } = await fetchAuthSession();
    const claims = tokens!.idToken!.payload;
    expect(claims['custom:ranchid']).toBe('cedar-creek');
    expect(claims.email).toBe(subscriber.email);
    expect(claims.iss).toBe(`${sandbox.config.auth.userPoolEndpoint}/${sandbox.config.auth.userPoolId}`);
  });

  it("refuses a wrong password with Cognito's message", async () => {
    expect(await signInError(subscriber.email, 'not-the-password')).toEqual({
      name: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
  });

  it('answers an unknown user exactly like a wrong password (user existence is not revealed)', async () => {
    expect(await signInError('nobody@trailsense.example', 'whatever-123')).toEqual({
      name: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
  });

  it('signs up with a code from the log, resends, confirms, then signs in', async () => {
    const email = 'new.hunter@trailsense.example';
    const password = 'simplepass';
    const up = await signUp({ username: email, password, options: { userAttributes: { email, name: 'New Hunter', phone_number: '+12345678900' } } });
    expect(up.nextStep.signUpStep).toBe('CONFIRM_SIGN_UP');
    expect(sandbox.codes(email)).toHaveLength(1);
    // Amplify turns the gateway's UserNotConfirmedException into a next step.
    expect(await signIn({ username: email, password })).toMatchObject({ isSignedIn: false, nextStep: { signInStep: 'CONFIRM_SIGN_UP' } });

    await resendSignUpCode({ username: email });
    const codes = sandbox.codes(email);
    expect(codes.map((c) => c.source)).toEqual(['SignUp', 'ResendCode']);
    await expect(confirmSignUp({ username: email, confirmationCode: '000000' === codes[1]!.code ? '111111' : '000000' })).rejects.toThrow();
    const confirmed = await confirmSignUp({ username: email, confirmationCode: sandbox.lastCode(email)! });
    expect(confirmed.isSignUpComplete).toBe(true);

    expect((await signIn({ username: email, password })).isSignedIn).toBe(true);
    const attrs = await fetchUserAttributes();
    // Confirming with the emailed code verifies the email, as on AWS.
    expect(attrs).toMatchObject({ email, name: 'New Hunter', phone_number: '+12345678900', email_verified: 'true' });
    expect(attrs['custom:ranchid']).toBeUndefined();
  });

  it('enforces the password policy (8 characters, no classes) on sign-up', async () => {
    await expect(
      signUp({ username: 'short@trailsense.example', password: 'short7!', options: { userAttributes: { email: 'short@trailsense.example' } } }),
    ).rejects.toMatchObject({
      name: 'InvalidPasswordException',
    });
  });

  it('resets a forgotten password with a code, after which only the new password works', async () => {
    const email = 'lapsed@trailsense.example';
    const step = await resetPassword({ username: email });
    expect(step.nextStep.resetPasswordStep).toBe('CONFIRM_RESET_PASSWORD_WITH_CODE');
    const code = sandbox.lastCode(email)!;
    expect(code).toMatch(/^\d{6}$/);
    await expect(confirmResetPassword({ username: email, confirmationCode: code, newPassword: 'short' })).rejects.toMatchObject({
      name: 'InvalidPasswordException',
    });
    await confirmResetPassword({ username: email, confirmationCode: code, newPassword: 'brand new password' });
    expect((await signInError(email, 'PineHollow2024')).name).toBe('NotAuthorizedException');
    expect((await signIn({ username: email, password: 'brand new password' })).isSignedIn).toBe(true);
  });

  it('refreshes tokens with forceRefresh (GetTokensFromRefreshToken)', async () => {
    await signIn({ username: subscriber.email, password: subscriber.password });
    const before = (await fetchAuthSession()).tokens!;
    const after = (await fetchAuthSession({ forceRefresh: true })).tokens!;
    expect(after.idToken!.toString()).not.toBe(before.idToken!.toString());
    expect(after.accessToken.toString()).not.toBe(before.accessToken.toString());
    expect(after.idToken!.payload['custom:ranchid']).toBe('cedar-creek');
  });

  it('gets identity-pool credentials of its own (an ASIA… key), with a stable identity id per user', async () => {
    await signIn({ username: subscriber.email, password: subscriber.password });
    const first = await fetchAuthSession();
    expect(first.identityId).toMatch(/^us-east-2:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.credentials?.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(first.credentials?.sessionToken).toBeTruthy();
    expect(first.credentials?.expiration?.getTime()).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
    await signOut();

    await signIn({ username: noRanch.email, password: noRanch.password });
    const other = await fetchAuthSession();
    expect(other.identityId).not.toBe(first.identityId);
    await signOut();

    await signIn({ username: subscriber.email, password: subscriber.password });
    expect((await fetchAuthSession()).identityId).toBe(first.identityId);
  });

  it('changes the password, updates attributes and deletes the account', async () => {
    const email = 'short.lived@trailsense.example';
    await signUp({ username: email, password: 'first password', options: { userAttributes: { email } } });
    await confirmSignUp({ username: email, confirmationCode: sandbox.lastCode(email)! });
    await signIn({ username: email, password: 'first password' });

    await expect(updatePassword({ oldPassword: 'first password', newPassword: 'tiny' })).rejects.toMatchObject({ name: 'InvalidPasswordException' });
    await updatePassword({ oldPassword: 'first password', newPassword: 'second password' });
    await updateUserAttributes({ userAttributes: { name: 'Renamed', phone_number: '+15550109999' } });
    expect((await fetchUserAttributes()).name).toBe('Renamed');
    // As on AWS, the id token carries the standard attributes, so the next token shows the edit.
    const refreshed = (await fetchAuthSession({ forceRefresh: true })).tokens?.idToken?.payload;
    expect(refreshed).toMatchObject({ name: 'Renamed', phone_number: '+15550109999', phone_number_verified: false });
    await signOut();
    expect((await signInError(email, 'first password')).name).toBe('NotAuthorizedException');
    await signIn({ username: email, password: 'second password' });

    await deleteUser();
    expect(await signInError(email, 'second password')).toEqual({ name: 'NotAuthorizedException', message: 'Incorrect username or password.' });
  });

  it('revokes access tokens on global sign-out', async () => {
    await signIn({ username: subscriber.email, password: subscriber.password });
    const { tokens } = await fetchAuthSession();
    const accessToken = tokens!.accessToken.toString();
    const ok = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.GetUser', { AccessToken: accessToken });
    expect(ok.status).toBe(200);
    // The revocation has one-second resolution (token iat); make sure the sign-out is later.
    await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)));
    await signOut({ global: true });
    const after = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.GetUser', { AccessToken: accessToken });
    expect(after).toEqual({ status: 400, json: { __type: 'NotAuthorizedException', message: 'Access Token has been revoked' } });
    expect(decodeJwt(accessToken).token_use).toBe('access');
  });
});

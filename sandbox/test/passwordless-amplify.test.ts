/**
 * Choice-based sign-in through the real aws-amplify v6 client, as the site will call it:
 * signIn with authFlowType USER_AUTH (a first-factor choice, or a preferred challenge) and
 * confirmSignIn with the choice and the e-mailed code. Passkeys need a browser's
 * navigator.credentials, which Node has not: test/passwordless.test.ts drives those over the wire.
 */
import { confirmSignIn, fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import type { Sandbox } from '../src/index';
import { configureAmplify, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';

const free = seedUser('free@trailsense.example');
const subscriber = seedUser('subscriber@trailsense.example');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  configureAmplify(sandbox);
});
afterAll(() => stopTestSandbox(sandbox));
afterEach(() => signOut().catch(() => undefined));

describe('USER_AUTH through Amplify', () => {
  it('offers the first factors, sends a code for EMAIL_OTP and signs in with it', async () => {
    const first = await signIn({ username: free.email, options: { authFlowType: 'USER_AUTH' } });
    expect(first).toEqual({
      isSignedIn: false,
      nextStep: { signInStep: 'CONTINUE_SIGN_IN_WITH_FIRST_FACTOR_SELECTION', availableChallenges: ['EMAIL_OTP', 'PASSWORD', 'PASSWORD_SRP'] },
    });
    const chosen = await confirmSignIn({ challengeResponse: 'EMAIL_OTP' });
    expect(chosen).toEqual({
      isSignedIn: false,
      nextStep: { signInStep: 'CONFIRM_SIGN_IN_WITH_EMAIL_CODE', codeDeliveryDetails: { deliveryMedium: 'EMAIL', destination: 'f***@t***' } },
    });
    const code = sandbox.lastCode(free.email)!;
    await expect(confirmSignIn({ challengeResponse: code === '000000' ? '111111' : '000000' })).rejects.toMatchObject({ name: 'CodeMismatchException' });
    expect(await confirmSignIn({ challengeResponse: code })).toEqual({ isSignedIn: true, nextStep: { signInStep: 'DONE' } });
    expect((await fetchAuthSession()).tokens?.idToken?.payload['custom:ranchid']).toBe('mesquite-flats');
  });

  it('goes straight to the code with preferredChallenge EMAIL_OTP', async () => {
    const first = await signIn({ username: subscriber.email, options: { authFlowType: 'USER_AUTH', preferredChallenge: 'EMAIL_OTP' } });
    expect(first.nextStep.signInStep).toBe('CONFIRM_SIGN_IN_WITH_EMAIL_CODE');
    expect((await confirmSignIn({ challengeResponse: sandbox.lastCode(subscriber.email)! })).isSignedIn).toBe(true);
  });

  it('signs in with SRP through USER_AUTH (preferredChallenge PASSWORD_SRP), and with a password chosen later', async () => {
    expect(await signIn({ username: free.email, password: free.password, options: { authFlowType: 'USER_AUTH', preferredChallenge: 'PASSWORD_SRP' } })).toEqual(
      {
        isSignedIn: true,
        nextStep: { signInStep: 'DONE' },
      },
    );
    await signOut();
    await signIn({ username: free.email, options: { authFlowType: 'USER_AUTH' } });
    expect((await confirmSignIn({ challengeResponse: 'PASSWORD_SRP' })).nextStep.signInStep).toBe('CONFIRM_SIGN_IN_WITH_PASSWORD');
    expect(await confirmSignIn({ challengeResponse: free.password })).toEqual({ isSignedIn: true, nextStep: { signInStep: 'DONE' } });
  });

  it('refuses a wrong password chosen in the first-factor selection', async () => {
    await signIn({ username: free.email, options: { authFlowType: 'USER_AUTH' } });
    await confirmSignIn({ challengeResponse: 'PASSWORD' });
    await expect(confirmSignIn({ challengeResponse: 'not the password' })).rejects.toMatchObject({
      name: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
  });
});

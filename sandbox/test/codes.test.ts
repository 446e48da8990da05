/**
 * Confirmation and reset codes as Cognito limits them (src/gateway/codes.ts): five wrong tries,
 * then LimitExceededException until a new code; sign-up codes expire after 24 hours and reset
 * codes after 1 hour; codes from crypto.randomInt. Over HTTP against the sandbox, and (for the
 * expiry, which needs a clock) against the gateway's real user pool on a fake clock.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet } from 'jose';
import type { JWK } from 'jose';
import { openDb } from '../src/db';
import { ATTEMPT_LIMIT_EXCEEDED, CODE_LIFETIME_MS, EXPIRED_CODE } from '../src/gateway/codes';
import { startCognitoLocal, writePoolFiles } from '../src/gateway/cognito-local';
import type { DeliveredCode } from '../src/gateway/cognito-local';
import { CognitoFault } from '../src/gateway/errors';
import { createUserPool } from '../src/gateway/user-pool';
import type { Sandbox } from '../src/index';
import { cognitoCall, startTestSandbox, stopTestSandbox, tempDataDir } from './support/sandbox';

const WRONG = { __type: 'CodeMismatchException' };
const LIMIT = { __type: 'LimitExceededException', message: ATTEMPT_LIMIT_EXCEEDED };

describe('over HTTP', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => stopTestSandbox(sandbox));

  const call = async (operation: string, body: Record<string, unknown>) => {
    const { json } = await cognitoCall(sandbox.config, `AWSCognitoIdentityProviderService.${operation}`, {
      ClientId: sandbox.config.auth.userPoolClientId,
      ...body,
    });
    return json;
  };
  const wrongCode = (right: string) => String((Number(right) + 1) % 1_000_000).padStart(6, '0');

  it('refuses a sign-up code after five wrong ones, even the right one, until a new code is sent', async () => {
    const email = 'mistyped@trailsense.example';
    await call('SignUp', { Username: email, Password: 'five wrong codes', UserAttributes: [{ Name: 'email', Value: email }] });
    const code = sandbox.lastCode(email)!;
    for (let i = 0; i < 5; i++) expect(await call('ConfirmSignUp', { Username: email, ConfirmationCode: wrongCode(code) })).toMatchObject(WRONG);
    expect(await call('ConfirmSignUp', { Username: email, ConfirmationCode: code })).toEqual(LIMIT);
    await call('ResendConfirmationCode', { Username: email });
    const fresh = sandbox.lastCode(email)!;
    expect(fresh).not.toBe(code);
    expect(await call('ConfirmSignUp', { Username: email, ConfirmationCode: fresh })).toEqual({});
  });

  it('refuses a reset code after five wrong ones, and the password stays', async () => {
    const email = 'free@trailsense.example';
    await call('ForgotPassword', { Username: email });
    const code = sandbox.lastCode(email)!;
    const reset = (confirmationCode: string) => call('ConfirmForgotPassword', { Username: email, ConfirmationCode: confirmationCode, Password: 'taken over!' });
    for (let i = 0; i < 5; i++) expect(await reset(wrongCode(code))).toMatchObject(WRONG);
    expect(await reset(code)).toEqual(LIMIT);
    const signIn = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: 'sandboxpasswordtestclient0',
      AuthParameters: { USERNAME: email, PASSWORD: 'taken over!' },
    });
    expect(signIn.json['__type']).toBe('NotAuthorizedException');
  });

  it('draws codes from crypto, not Math.random', async () => {
    const random = jest.spyOn(Math, 'random').mockReturnValue(0);
    try {
      const emails = ['drawn-1@trailsense.example', 'drawn-2@trailsense.example', 'drawn-3@trailsense.example'];
      for (const email of emails) await call('SignUp', { Username: email, Password: 'any random code', UserAttributes: [{ Name: 'email', Value: email }] });
      await call('ResendConfirmationCode', { Username: emails[0] });
      const drawn = [...emails.map((email) => sandbox.codes(email)[0]!.code), sandbox.lastCode(emails[0]!)!];
      // Math.random() = 0 gave cognito-local's and the gateway's codes as 000000, every time.
      expect(new Set(drawn).size).toBeGreaterThan(1);
      for (const code of drawn) expect(code).toMatch(/^\d{6}$/);
    } finally {
      random.mockRestore();
    }
  });
});

describe('expiry, on a fake clock', () => {
  const dir = tempDataDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function userPoolAt(clock: { now: number }) {
    const ids = { userPoolId: 'us-east-2_TrailSenseLocal', clientId: 'codesclient' };
    const cognitoDir = path.join(dir, `cognito-${Math.random().toString(36).slice(2)}`);
    writePoolFiles(cognitoDir, ids, [], new Date());
    const delivered: DeliveredCode[] = [];
    const cognito = await startCognitoLocal({ dir: cognitoDir, ids, issuerDomain: 'http://localhost:1', onCode: (c) => delivered.push(c) });
    const jwk = (JSON.parse(readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.public.json'), 'utf8')) as { jwk: JWK }).jwk;
    const handle = createUserPool({
      cognito,
      db: openDb(path.join(cognitoDir, 'sandbox.db')),
      ...ids,
      issuer: 'http://localhost:1/us-east-2_TrailSenseLocal',
      keys: createLocalJWKSet({ keys: [jwk] }),
      onCode: (c) => delivered.push(c),
      now: () => clock.now,
    });
    const call = (operation: string, body: Record<string, unknown>) =>
      handle(operation, { ClientId: ids.clientId, ...body }).catch((err: unknown) => {
        if (err instanceof CognitoFault) return { __type: err.type, message: err.message };
        throw err;
      });
    return { call, lastCode: () => delivered.at(-1)!.code };
  }

  it('takes a sign-up code until 24 hours after it was sent, not after', async () => {
    const clock = { now: 1_000_000 };
    const pool = await userPoolAt(clock);
    for (const [email, late] of [
      ['on-time@trailsense.example', 0],
      ['late@trailsense.example', 1],
    ] as const) {
      await pool.call('SignUp', { Username: email, Password: 'confirm in time', UserAttributes: [{ Name: 'email', Value: email }] });
      const code = pool.lastCode();
      clock.now += CODE_LIFETIME_MS['sign-up'] + late;
      const answer = await pool.call('ConfirmSignUp', { Username: email, ConfirmationCode: code });
      expect(answer).toEqual(late ? { __type: 'ExpiredCodeException', message: EXPIRED_CODE } : {});
    }
    expect(CODE_LIFETIME_MS['sign-up']).toBe(24 * 60 * 60 * 1000);
  });

  it('takes a reset code for 1 hour; a new code after that works', async () => {
    const clock = { now: 1_000_000 };
    const pool = await userPoolAt(clock);
    const email = 'reset-late@trailsense.example';
    await pool.call('SignUp', { Username: email, Password: 'first password', UserAttributes: [{ Name: 'email', Value: email }] });
    await pool.call('ConfirmSignUp', { Username: email, ConfirmationCode: pool.lastCode() });
    await pool.call('ForgotPassword', { Username: email });
    const code = pool.lastCode();
    clock.now += 60 * 60 * 1000 + 1;
    expect(await pool.call('ConfirmForgotPassword', { Username: email, ConfirmationCode: code, Password: 'second password' })).toEqual({
      __type: 'ExpiredCodeException',
      message: EXPIRED_CODE,
    });
    await pool.call('ForgotPassword', { Username: email });
    clock.now += 59 * 60 * 1000;
    expect(await pool.call('ConfirmForgotPassword', { Username: email, ConfirmationCode: pool.lastCode(), Password: 'second password' })).toEqual({});
  });
});

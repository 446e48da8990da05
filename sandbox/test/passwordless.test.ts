/**
 * Choice-based sign-in (USER_AUTH), the e-mailed code (EMAIL_OTP) and passkeys (WEB_AUTHN and the
 * WebAuthn credential operations), driven by the AWS SDK v3's Cognito client as an independent
 * client, with a software authenticator (support/soft-authenticator.ts) for the browser. The
 * clock is the sandbox's auth clock, moved by the test: no real waits.
 */
import {
  CognitoIdentityProviderClient,
  CompleteWebAuthnRegistrationCommand,
  DeleteUserCommand,
  DeleteWebAuthnCredentialCommand,
  InitiateAuthCommand,
  ListWebAuthnCredentialsCommand,
  RespondToAuthChallengeCommand,
  SignUpCommand,
  ConfirmSignUpCommand,
  StartWebAuthnRegistrationCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { InitiateAuthCommandOutput } from '@aws-sdk/client-cognito-identity-provider';
import { decodeJwt } from 'jose';
import type { Sandbox } from '../src/index';
import { AUTH_SESSION_MS } from '../src/gateway/passkeys';
import { PASSKEY_ORIGINS } from '../src/gateway/webauthn';
import { startSandbox } from '../src/index';
import { cognitoCall, FREE_PORTS, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { SoftAuthenticator } from './support/soft-authenticator';

const subscriber = seedUser('subscriber@trailsense.example');
const free = seedUser('free@trailsense.example');
const lapsed = seedUser('lapsed@trailsense.example');
const partner = seedUser('partner@trailsense.example');
const SITE = PASSKEY_ORIGINS[0]!;
let sandbox: Sandbox;
/** The sandbox's auth clock: held at a fixed time and moved only by a test, never the real clock. */
const START_MS = Date.UTC(2026, 10, 20, 12, 0, 0);
let clockMs = START_MS;
const moveClock = (ms: number) => {
  clockMs = START_MS + ms;
};

beforeAll(async () => {
  sandbox = await startTestSandbox({ authClock: () => clockMs });
});
afterAll(() => stopTestSandbox(sandbox));
afterEach(() => {
  clockMs = START_MS;
});

const client = () => new CognitoIdentityProviderClient({ region: sandbox.config.auth.region, endpoint: sandbox.config.auth.userPoolEndpoint });
const clientId = () => sandbox.config.auth.userPoolClientId;

async function refusal(promise: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
  throw new Error('the call unexpectedly succeeded');
}

function userAuth(email: string, preferred?: string, extra: Record<string, string> = {}): Promise<InitiateAuthCommandOutput> {
  return client().send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_AUTH',
      ClientId: clientId(),
      AuthParameters: { USERNAME: email, ...(preferred ? { PREFERRED_CHALLENGE: preferred } : {}), ...extra },
    }),
  );
}

function respond(challenge: string, session: string | undefined, responses: Record<string, string>) {
  return client().send(
    new RespondToAuthChallengeCommand({ ClientId: clientId(), ChallengeName: challenge as never, Session: session, ChallengeResponses: responses }),
  );
}

/** Signs in with an e-mailed code, for the tests that need tokens. */
async function otpTokens(email: string): Promise<{ AccessToken: string; IdToken: string }> {
  const started = await userAuth(email, 'EMAIL_OTP');
  const done = await respond('EMAIL_OTP', started.Session, { USERNAME: email, EMAIL_OTP_CODE: sandbox.lastCode(email)! });
  return done.AuthenticationResult as { AccessToken: string; IdToken: string };
}

async function registerPasskey(accessToken: string, authenticator: SoftAuthenticator, origin = SITE, rpId?: string) {
  const { CredentialCreationOptions: options } = await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: accessToken }));
  const credential = authenticator.register(options as { challenge: string; rp: { id: string } }, { origin, ...(rpId ? { rpId } : {}) });
  return client().send(new CompleteWebAuthnRegistrationCommand({ AccessToken: accessToken, Credential: credential as never }));
}

describe('USER_AUTH: choosing a first factor', () => {
  it('offers SELECT_CHALLENGE with the password and the code to a user without a passkey', async () => {
    const result = await userAuth(free.email);
    expect(result.ChallengeName).toBe('SELECT_CHALLENGE');
    expect(result.AvailableChallenges).toEqual(['EMAIL_OTP', 'PASSWORD', 'PASSWORD_SRP']);
    expect(result.Session).toEqual(expect.any(String));
  });

  it('signs in with the password chosen in SELECT_CHALLENGE, and refuses a wrong one', async () => {
    const started = await userAuth(free.email);
    const done = await respond('SELECT_CHALLENGE', started.Session, { USERNAME: free.email, ANSWER: 'PASSWORD', PASSWORD: free.password });
    expect(decodeJwt(done.AuthenticationResult!.IdToken!).email).toBe(free.email);
    const again = await userAuth(free.email);
    expect(await refusal(respond('SELECT_CHALLENGE', again.Session, { USERNAME: free.email, ANSWER: 'PASSWORD', PASSWORD: 'wrong-one-1' }))).toEqual({
      name: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
  });

  it('signs in with PREFERRED_CHALLENGE PASSWORD at once', async () => {
    const done = await userAuth(free.email, 'PASSWORD', { PASSWORD: free.password });
    expect(done.AuthenticationResult?.AccessToken).toEqual(expect.any(String));
    expect(done.ChallengeName).toBeUndefined();
  });

  it('answers PASSWORD_SRP with a PASSWORD_VERIFIER challenge', async () => {
    const done = await userAuth(free.email, 'PASSWORD_SRP', { SRP_A: 'ab'.repeat(64) });
    expect(done.ChallengeName).toBe('PASSWORD_VERIFIER');
    expect(Object.keys(done.ChallengeParameters ?? {}).sort()).toEqual(['SALT', 'SECRET_BLOCK', 'SRP_B', 'USERNAME', 'USER_ID_FOR_SRP']);
  });

  it('leaves the choice to the user when the preferred factor is not theirs (no passkey yet)', async () => {
    const result = await userAuth(free.email, 'WEB_AUTHN');
    expect(result.ChallengeName).toBe('SELECT_CHALLENGE');
    expect(result.AvailableChallenges).not.toContain('WEB_AUTHN');
  });

  it('refuses a choice that was not offered, an unknown preference, a session of another challenge or user', async () => {
    const started = await userAuth(free.email);
    expect((await refusal(respond('SELECT_CHALLENGE', started.Session, { USERNAME: free.email, ANSWER: 'WEB_AUTHN' }))).name).toBe('InvalidParameterException');
    expect((await refusal(userAuth(free.email, 'MAGIC_LINK'))).name).toBe('InvalidParameterException');
    const other = await userAuth(free.email);
    expect(await refusal(respond('EMAIL_OTP', other.Session, { USERNAME: free.email, EMAIL_OTP_CODE: '123456' }))).toEqual({
      name: 'NotAuthorizedException',
      message: 'Invalid session for the user.',
    });
    const third = await userAuth(free.email);
    expect((await refusal(respond('SELECT_CHALLENGE', third.Session, { USERNAME: subscriber.email, ANSWER: 'EMAIL_OTP' }))).name).toBe(
      'NotAuthorizedException',
    );
    expect((await refusal(respond('SELECT_CHALLENGE', 'not-a-session', { USERNAME: free.email, ANSWER: 'EMAIL_OTP' }))).message).toBe(
      'Invalid session for the user.',
    );
  });

  it('needs the app client to allow USER_AUTH: an unknown client is refused', async () => {
    const result = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.InitiateAuth', {
      AuthFlow: 'USER_AUTH',
      ClientId: 'nosuchclient',
      AuthParameters: { USERNAME: free.email },
    });
    expect(result.json['__type']).toBe('ResourceNotFoundException');
  });
});

describe('EMAIL_OTP', () => {
  it('e-mails a code (recorded like the other codes) and signs in with it', async () => {
    const before = sandbox.codes(partner.email).length;
    const started = await userAuth(partner.email);
    const chosen = await respond('SELECT_CHALLENGE', started.Session, { USERNAME: partner.email, ANSWER: 'EMAIL_OTP' });
    expect(chosen.ChallengeName).toBe('EMAIL_OTP');
    expect(chosen.ChallengeParameters).toEqual({ CODE_DELIVERY_DELIVERY_MEDIUM: 'EMAIL', CODE_DELIVERY_DESTINATION: 'p***@t***' });
    const codes = sandbox.codes(partner.email);
    expect(codes).toHaveLength(before + 1);
    expect(codes.at(-1)).toMatchObject({ source: 'EmailOtp', code: expect.stringMatching(/^\d{6}$/) });
    const done = await respond('EMAIL_OTP', chosen.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: codes.at(-1)!.code });
    const claims = decodeJwt(done.AuthenticationResult!.IdToken!);
    expect(claims.email).toBe(partner.email);
    expect(claims['custom:ranchid']).toBe('mesquite-flats');
    expect(done.AuthenticationResult).toMatchObject({ ExpiresIn: 900, TokenType: 'Bearer', RefreshToken: expect.any(String) });
  });

  it('refuses a wrong code, then still takes the right one; refuses the code once used', async () => {
    const started = await userAuth(partner.email, 'EMAIL_OTP');
    const code = sandbox.lastCode(partner.email)!;
    const wrong = code === '000000' ? '111111' : '000000';
    expect(await refusal(respond('EMAIL_OTP', started.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: wrong }))).toEqual({
      name: 'CodeMismatchException',
      message: 'Invalid code or auth state for the user.',
    });
    await respond('EMAIL_OTP', started.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: code });
    expect(await refusal(respond('EMAIL_OTP', started.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: code }))).toEqual({
      name: 'NotAuthorizedException',
      message: 'Invalid session for the user.',
    });
  });

  it("refuses an earlier sign-in's code in a new session", async () => {
    const first = await userAuth(partner.email, 'EMAIL_OTP');
    const oldCode = sandbox.lastCode(partner.email)!;
    const second = await userAuth(partner.email, 'EMAIL_OTP');
    if (sandbox.lastCode(partner.email) === oldCode) return; // one in a million: the same code twice
    expect((await refusal(respond('EMAIL_OTP', second.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: oldCode }))).name).toBe('CodeMismatchException');
    expect(first.Session).not.toBe(second.Session);
  });

  it('ends the session after three wrong codes', async () => {
    const started = await userAuth(partner.email, 'EMAIL_OTP');
    const code = sandbox.lastCode(partner.email)!;
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) {
      expect((await refusal(respond('EMAIL_OTP', started.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: wrong }))).name).toBe('CodeMismatchException');
    }
    expect(await refusal(respond('EMAIL_OTP', started.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: code }))).toEqual({
      name: 'NotAuthorizedException',
      message: 'Invalid session for the user.',
    });
  });

  it('refuses the code once the session has expired (3 minutes)', async () => {
    const started = await userAuth(partner.email, 'EMAIL_OTP');
    const code = sandbox.lastCode(partner.email)!;
    moveClock(AUTH_SESSION_MS + 1000);
    expect(await refusal(respond('EMAIL_OTP', started.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: code }))).toEqual({
      name: 'NotAuthorizedException',
      message: 'Invalid session for the user, session is expired.',
    });
    // Said "expired" however many sign-ins were begun since (another member's here).
    const later = await userAuth(partner.email, 'EMAIL_OTP');
    await userAuth(free.email, 'EMAIL_OTP');
    moveClock(2 * AUTH_SESSION_MS + 2000);
    await userAuth(free.email, 'EMAIL_OTP');
    expect((await refusal(respond('EMAIL_OTP', later.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: sandbox.lastCode(partner.email)! }))).message).toBe(
      'Invalid session for the user, session is expired.',
    );
    moveClock(0);
    const again = await userAuth(partner.email, 'EMAIL_OTP');
    moveClock(AUTH_SESSION_MS - 5000);
    const done = await respond('EMAIL_OTP', again.Session, { USERNAME: partner.email, EMAIL_OTP_CODE: sandbox.lastCode(partner.email)! });
    expect(done.AuthenticationResult?.IdToken).toEqual(expect.any(String));
  });

  it('ends a pending sign-in as expired through the control route (a browser test’s expired code); refuses a body without an address', async () => {
    const expire = (body: string) => fetch(`http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/sign-in-sessions`, { method: 'POST', body });
    const started = await userAuth(lapsed.email, 'EMAIL_OTP');
    const code = sandbox.lastCode(lapsed.email)!;
    const res = await expire(JSON.stringify({ email: lapsed.email.toUpperCase() }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ expired: 1 });
    expect(await refusal(respond('EMAIL_OTP', started.Session, { USERNAME: lapsed.email, EMAIL_OTP_CODE: code }))).toEqual({
      name: 'NotAuthorizedException',
      message: 'Invalid session for the user, session is expired.',
    });
    for (const body of ['', '{}', '{"email": 7}', 'not json']) expect((await expire(body)).status).toBe(400);
  });

  it('answers an unknown user as any other, sends nothing and refuses every code', async () => {
    const email = 'nobody-here@trailsense.example';
    const started = await userAuth(email);
    expect(started.AvailableChallenges).toEqual(['EMAIL_OTP', 'PASSWORD', 'PASSWORD_SRP']);
    const chosen = await respond('SELECT_CHALLENGE', started.Session, { USERNAME: email, ANSWER: 'EMAIL_OTP' });
    expect(chosen.ChallengeParameters?.['CODE_DELIVERY_DESTINATION']).toBe('n***@t***');
    expect(sandbox.codes(email)).toEqual([]);
    expect((await refusal(respond('EMAIL_OTP', chosen.Session, { USERNAME: email, EMAIL_OTP_CODE: '123456' }))).name).toBe('CodeMismatchException');
  });
});

describe('passkeys', () => {
  it('registers, lists (paged), signs in with and deletes a passkey', async () => {
    const tokens = await otpTokens(lapsed.email);
    const authenticator = new SoftAuthenticator();
    const { CredentialCreationOptions: options } = await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken }));
    expect(options).toMatchObject({
      challenge: expect.any(String),
      rp: { id: 'localhost' },
      user: { id: expect.any(String), name: lapsed.email },
      pubKeyCredParams: expect.arrayContaining([{ type: 'public-key', alg: -7 }]),
    });
    const credential = authenticator.register(options as never, { origin: SITE });
    await client().send(new CompleteWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken, Credential: credential as never }));
    await registerPasskey(tokens.AccessToken, authenticator);

    const page1 = await client().send(new ListWebAuthnCredentialsCommand({ AccessToken: tokens.AccessToken, MaxResults: 1 }));
    expect(page1.Credentials).toHaveLength(1);
    expect(page1.Credentials![0]).toMatchObject({
      CredentialId: credential['id'],
      FriendlyCredentialName: expect.any(String),
      RelyingPartyId: 'localhost',
      AuthenticatorAttachment: 'platform',
      AuthenticatorTransports: ['internal', 'hybrid'],
      CreatedAt: expect.any(Date),
    });
    const page2 = await client().send(new ListWebAuthnCredentialsCommand({ AccessToken: tokens.AccessToken, MaxResults: 1, NextToken: page1.NextToken }));
    expect(page2.Credentials).toHaveLength(1);
    expect(page2.NextToken).toBeUndefined();

    const started = await userAuth(lapsed.email);
    expect(started.AvailableChallenges).toEqual(['WEB_AUTHN', 'EMAIL_OTP', 'PASSWORD', 'PASSWORD_SRP']);
    const chosen = await respond('SELECT_CHALLENGE', started.Session, { USERNAME: lapsed.email, ANSWER: 'WEB_AUTHN' });
    expect(chosen.ChallengeName).toBe('WEB_AUTHN');
    const requestOptions = JSON.parse(chosen.ChallengeParameters!['CREDENTIAL_REQUEST_OPTIONS']!) as {
      challenge: string;
      rpId: string;
      allowCredentials: { id: string }[];
    };
    expect(requestOptions.rpId).toBe('localhost');
    expect(requestOptions.allowCredentials.map((c) => c.id)).toContain(credential['id']);
    const assertion = authenticator.assert(requestOptions, { origin: SITE });
    const done = await respond('WEB_AUTHN', chosen.Session, { USERNAME: lapsed.email, CREDENTIAL: JSON.stringify(assertion) });
    expect(decodeJwt(done.AuthenticationResult!.IdToken!).email).toBe(lapsed.email);

    // The same answer again: the session took its one answer.
    expect((await refusal(respond('WEB_AUTHN', chosen.Session, { USERNAME: lapsed.email, CREDENTIAL: JSON.stringify(assertion) }))).message).toBe(
      'Invalid session for the user.',
    );
    // The same answer on a new challenge: signed for the old one.
    const next = await userAuth(lapsed.email, 'WEB_AUTHN');
    expect(next.ChallengeName).toBe('WEB_AUTHN');
    expect((await refusal(respond('WEB_AUTHN', next.Session, { USERNAME: lapsed.email, CREDENTIAL: JSON.stringify(assertion) }))).name).toBe(
      'NotAuthorizedException',
    );

    for (const c of [...page1.Credentials!, ...page2.Credentials!]) {
      await client().send(new DeleteWebAuthnCredentialCommand({ AccessToken: tokens.AccessToken, CredentialId: c.CredentialId }));
    }
    expect((await client().send(new ListWebAuthnCredentialsCommand({ AccessToken: tokens.AccessToken }))).Credentials).toEqual([]);
    expect(
      (await refusal(client().send(new DeleteWebAuthnCredentialCommand({ AccessToken: tokens.AccessToken, CredentialId: credential['id'] as string })))).name,
    ).toBe('ResourceNotFoundException');
    expect((await userAuth(lapsed.email)).AvailableChallenges).not.toContain('WEB_AUTHN');
  });

  it('refuses a deleted passkey at sign-in', async () => {
    const tokens = await otpTokens(subscriber.email);
    const kept = new SoftAuthenticator();
    const gone = new SoftAuthenticator();
    await registerPasskey(tokens.AccessToken, kept);
    await registerPasskey(tokens.AccessToken, gone);
    const goneId = gone.credentials[0]!.id.toString('base64url');
    await client().send(new DeleteWebAuthnCredentialCommand({ AccessToken: tokens.AccessToken, CredentialId: goneId }));
    const started = await userAuth(subscriber.email, 'WEB_AUTHN');
    const options = JSON.parse(started.ChallengeParameters!['CREDENTIAL_REQUEST_OPTIONS']!) as { challenge: string };
    expect(
      await refusal(respond('WEB_AUTHN', started.Session, { USERNAME: subscriber.email, CREDENTIAL: JSON.stringify(gone.assert(options, { origin: SITE })) })),
    ).toEqual({
      name: 'NotAuthorizedException',
      message: 'Failed to verify the WebAuthn credential.',
    });
    const again = await userAuth(subscriber.email, 'WEB_AUTHN');
    const ok = await respond('WEB_AUTHN', again.Session, {
      USERNAME: subscriber.email,
      CREDENTIAL: JSON.stringify(kept.assert(JSON.parse(again.ChallengeParameters!['CREDENTIAL_REQUEST_OPTIONS']!) as { challenge: string }, { origin: SITE })),
    });
    expect(ok.AuthenticationResult?.AccessToken).toEqual(expect.any(String));
  });

  it('refuses a sign-in from another origin or relying party, or with a counter that went back', async () => {
    const tokens = await otpTokens(free.email);
    const authenticator = new SoftAuthenticator();
    await registerPasskey(tokens.AccessToken, authenticator);
    const attempt = async (ceremony: { origin: string; rpId?: string; counter?: number; userVerified?: boolean }) => {
      const started = await userAuth(free.email, 'WEB_AUTHN');
      const options = JSON.parse(started.ChallengeParameters!['CREDENTIAL_REQUEST_OPTIONS']!) as { challenge: string };
      return respond('WEB_AUTHN', started.Session, { USERNAME: free.email, CREDENTIAL: JSON.stringify(authenticator.assert(options, ceremony)) });
    };
    expect((await refusal(attempt({ origin: 'https://evil.example' }))).name).toBe('NotAuthorizedException');
    expect((await refusal(attempt({ origin: SITE, rpId: 'evil.example' }))).name).toBe('NotAuthorizedException');
    // The pool requires user verification (as production's, infra's SIGN_IN): a mere touch is refused.
    expect((await refusal(attempt({ origin: SITE, counter: 9, userVerified: false }))).name).toBe('NotAuthorizedException');
    await attempt({ origin: SITE, counter: 10 });
    expect((await refusal(attempt({ origin: SITE, counter: 5 }))).name).toBe('NotAuthorizedException');
    await attempt({ origin: SITE, counter: 11 });
  });

  it("refuses a registration for another origin or relying party, another challenge, or one that wasn't started", async () => {
    const tokens = await otpTokens(partner.email);
    const authenticator = new SoftAuthenticator();
    expect((await refusal(registerPasskey(tokens.AccessToken, authenticator, 'http://localhost:4999'))).name).toBe('WebAuthnOriginNotAllowedException');
    expect((await refusal(registerPasskey(tokens.AccessToken, authenticator, 'http://127.0.0.1:3000'))).name).toBe('WebAuthnOriginNotAllowedException');
    expect((await refusal(registerPasskey(tokens.AccessToken, authenticator, SITE, 'example.com'))).name).toBe('WebAuthnRelyingPartyMismatchException');
    const { CredentialCreationOptions: unverified } = await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken }));
    expect(unverified).toMatchObject({ authenticatorSelection: { userVerification: 'required' } });
    const touchOnly = authenticator.register(unverified as never, { origin: SITE, userVerified: false });
    expect(
      (await refusal(client().send(new CompleteWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken, Credential: touchOnly as never })))).name,
    ).toBe('WebAuthnCredentialNotSupportedException');
    const { CredentialCreationOptions: options } = await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken }));
    const stale = authenticator.register(options as never, { origin: SITE });
    await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken }));
    expect((await refusal(client().send(new CompleteWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken, Credential: stale as never })))).name).toBe(
      'WebAuthnChallengeNotFoundException',
    );
    // The challenge was taken by that answer: nothing is pending now.
    expect((await refusal(client().send(new CompleteWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken, Credential: stale as never })))).name).toBe(
      'WebAuthnChallengeNotFoundException',
    );
    const { CredentialCreationOptions: late } = await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken }));
    moveClock(AUTH_SESSION_MS + 1000);
    expect(
      (
        await refusal(
          client().send(
            new CompleteWebAuthnRegistrationCommand({
              AccessToken: tokens.AccessToken,
              Credential: authenticator.register(late as never, { origin: SITE }) as never,
            }),
          ),
        )
      ).name,
    ).toBe('WebAuthnChallengeNotFoundException');
    moveClock(0);
    expect((await client().send(new ListWebAuthnCredentialsCommand({ AccessToken: tokens.AccessToken }))).Credentials).toEqual([]);
  });

  it('needs a valid access token for every passkey operation', async () => {
    for (const op of ['StartWebAuthnRegistration', 'CompleteWebAuthnRegistration', 'ListWebAuthnCredentials', 'DeleteWebAuthnCredential']) {
      const { status, json } = await cognitoCall(sandbox.config, `AWSCognitoIdentityProviderService.${op}`, {
        AccessToken: 'not.a.token',
        CredentialId: 'x',
        Credential: {},
      });
      expect([op, status, json['__type']]).toEqual([op, 400, 'NotAuthorizedException']);
    }
  });

  it('drops the passkeys of a deleted user', async () => {
    const email = 'passkey.owner@trailsense.example';
    await client().send(
      new SignUpCommand({ ClientId: clientId(), Username: email, Password: 'longenough1', UserAttributes: [{ Name: 'email', Value: email }] }),
    );
    await client().send(new ConfirmSignUpCommand({ ClientId: clientId(), Username: email, ConfirmationCode: sandbox.lastCode(email)! }));
    const tokens = await otpTokens(email);
    await registerPasskey(tokens.AccessToken, new SoftAuthenticator());
    expect((await userAuth(email)).AvailableChallenges).toContain('WEB_AUTHN');
    await client().send(new DeleteUserCommand({ AccessToken: tokens.AccessToken }));
    await client().send(
      new SignUpCommand({ ClientId: clientId(), Username: email, Password: 'longenough1', UserAttributes: [{ Name: 'email', Value: email }] }),
    );
    await client().send(new ConfirmSignUpCommand({ ClientId: clientId(), Username: email, ConfirmationCode: sandbox.lastCode(email)! }));
    expect((await userAuth(email)).AvailableChallenges).not.toContain('WEB_AUTHN');
  });
});

describe('malformed requests are refused, and the gateway stays up', () => {
  const bodies: [string, unknown][] = [
    ['InitiateAuth', { AuthFlow: 'USER_AUTH', ClientId: 'trailsenselocalwebclient01' }],
    ['InitiateAuth', { AuthFlow: 'USER_AUTH', ClientId: 'trailsenselocalwebclient01', AuthParameters: { USERNAME: 7 } }],
    ['InitiateAuth', { AuthFlow: 'USER_AUTH', ClientId: 'trailsenselocalwebclient01', AuthParameters: { USERNAME: 'a@b.c', PREFERRED_CHALLENGE: 'PASSWORD' } }],
    ['InitiateAuth', { AuthFlow: 'USER_AUTH', ClientId: 'trailsenselocalwebclient01', AuthParameters: 'x' }],
    ['RespondToAuthChallenge', { ChallengeName: 'SELECT_CHALLENGE', ClientId: 'trailsenselocalwebclient01' }],
    ['RespondToAuthChallenge', { ChallengeName: 'EMAIL_OTP', ClientId: 'trailsenselocalwebclient01', Session: 5, ChallengeResponses: [] }],
    ['RespondToAuthChallenge', { ChallengeName: 'WEB_AUTHN', ClientId: 'trailsenselocalwebclient01', Session: 'x', ChallengeResponses: { CREDENTIAL: '{' } }],
  ];
  it.each(bodies)('%s %j', async (operation, body) => {
    const { status, json } = await cognitoCall(sandbox.config, `AWSCognitoIdentityProviderService.${operation}`, body);
    expect(status).toBe(400);
    expect(json['__type']).toMatch(/Exception$/);
  });

  it('refuses malformed passkey answers in a live session', async () => {
    const tokens = await otpTokens(lapsed.email);
    await registerPasskey(tokens.AccessToken, new SoftAuthenticator());
    const junk: unknown[] = [
      '{',
      '[]',
      'null',
      '{"id":"AA","type":"public-key"}',
      JSON.stringify({ id: 'AA', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: '', signature: 5 } }),
    ];
    for (const credential of junk) {
      const started = await userAuth(lapsed.email, 'WEB_AUTHN');
      const { status, json } = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.RespondToAuthChallenge', {
        ChallengeName: 'WEB_AUTHN',
        ClientId: clientId(),
        Session: started.Session,
        ChallengeResponses: { USERNAME: lapsed.email, CREDENTIAL: credential },
      });
      expect([credential, status, json['__type']]).toEqual([credential, 400, expect.stringMatching(/^(InvalidParameterException|NotAuthorizedException)$/)]);
    }
    const registrations: unknown[] = [
      null,
      'x',
      [],
      { id: 'AA', type: 'public-key' },
      { id: 'AA', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' } },
    ];
    for (const credential of registrations) {
      await client().send(new StartWebAuthnRegistrationCommand({ AccessToken: tokens.AccessToken }));
      const { status, json } = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.CompleteWebAuthnRegistration', {
        AccessToken: tokens.AccessToken,
        Credential: credential,
      });
      expect([credential, status]).toEqual([credential, 400]);
      expect(json['__type']).toMatch(/^(InvalidParameterException|WebAuthn\w+Exception)$/);
    }
    for (const body of [{ MaxResults: 0 }, { MaxResults: 'x' }, { MaxResults: 21 }, { NextToken: 'garbage' }, { NextToken: 7 }]) {
      const { json } = await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.ListWebAuthnCredentials', {
        AccessToken: tokens.AccessToken,
        ...body,
      });
      expect([body, json['__type']]).toEqual([body, 'InvalidParameterException']);
    }
    expect((await cognitoCall(sandbox.config, 'AWSCognitoIdentityProviderService.ListWebAuthnCredentials', { AccessToken: tokens.AccessToken })).status).toBe(
      200,
    );
  });
});

describe('passkeys across a restart', () => {
  it('keeps a registered passkey, its counter and the sign-in with it', async () => {
    const first = await startTestSandbox();
    const config = () => ({ region: first.config.auth.region, endpoint: first.config.auth.userPoolEndpoint });
    let restarted: Sandbox | undefined;
    try {
      const cip = new CognitoIdentityProviderClient(config());
      const id = first.config.auth.userPoolClientId;
      const started = await cip.send(
        new InitiateAuthCommand({ AuthFlow: 'USER_AUTH', ClientId: id, AuthParameters: { USERNAME: free.email, PREFERRED_CHALLENGE: 'EMAIL_OTP' } }),
      );
      const signedIn = await cip.send(
        new RespondToAuthChallengeCommand({
          ClientId: id,
          ChallengeName: 'EMAIL_OTP',
          Session: started.Session,
          ChallengeResponses: { USERNAME: free.email, EMAIL_OTP_CODE: first.lastCode(free.email)! },
        }),
      );
      const authenticator = new SoftAuthenticator();
      const { CredentialCreationOptions: options } = await cip.send(
        new StartWebAuthnRegistrationCommand({ AccessToken: signedIn.AuthenticationResult!.AccessToken }),
      );
      await cip.send(
        new CompleteWebAuthnRegistrationCommand({
          AccessToken: signedIn.AuthenticationResult!.AccessToken,
          Credential: authenticator.register(options as never, { origin: SITE }) as never,
        }),
      );
      await first.stop();
      restarted = await startSandbox({ dataDir: first.dataDir, quiet: true, ports: FREE_PORTS });
      const again = new CognitoIdentityProviderClient({ region: restarted.config.auth.region, endpoint: restarted.config.auth.userPoolEndpoint });
      const challenge = await again.send(
        new InitiateAuthCommand({ AuthFlow: 'USER_AUTH', ClientId: id, AuthParameters: { USERNAME: free.email, PREFERRED_CHALLENGE: 'WEB_AUTHN' } }),
      );
      expect(challenge.ChallengeName).toBe('WEB_AUTHN');
      const request = JSON.parse(challenge.ChallengeParameters!['CREDENTIAL_REQUEST_OPTIONS']!) as { challenge: string };
      const done = await again.send(
        new RespondToAuthChallengeCommand({
          ClientId: id,
          ChallengeName: 'WEB_AUTHN',
          Session: challenge.Session,
          ChallengeResponses: { USERNAME: free.email, CREDENTIAL: JSON.stringify(authenticator.assert(request, { origin: SITE })) },
        }),
      );
      expect(done.AuthenticationResult?.IdToken).toEqual(expect.any(String));
    } finally {
      await stopTestSandbox(restarted ?? first);
    }
  });
});

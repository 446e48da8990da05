/**
 * Choice-based sign-in (InitiateAuth USER_AUTH) as Cognito runs it: with no PREFERRED_CHALLENGE a
 * SELECT_CHALLENGE listing the user's first factors, answered by RespondToAuthChallenge
 * SELECT_CHALLENGE with ANSWER; or the preferred factor at once. The factors are the pool's
 * (SIGN_IN_FACTORS): a password (PASSWORD, PASSWORD_SRP through srp-sign-in.ts), a code by e-mail
 * (EMAIL_OTP) and a passkey (WEB_AUTHN, only for a user who has one: passkeys.ts, webauthn.ts).
 *
 * Each answer gets a new Session; a Session lasts AUTH_SESSION_MS from when it was issued and is
 * taken for its own challenge only. An e-mailed code lives as long as its session; a wrong code
 * counts, and MAX_OTP_ATTEMPTS wrong ones end the session. A passkey challenge takes one answer.
 * With PreventUserExistenceErrors (srp-sign-in.ts), an unknown user is offered the same
 * challenges as a user without a passkey and fails at the answer.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { attributeValue } from 'cognito-local/lib/services/userPoolService';
import type { DeliveredCode, User } from './cognito-local';
import { newCode } from './codes';
import { CognitoFault } from './errors';
import { AUTH_SESSION_MS, passkeysOf } from './passkeys';
import { maskEmail } from './pool-answers';
import { record, required, str } from './request-body';
import type { Body } from './request-body';
import { assertionCredentialId, PASSKEY_SIGN_IN_REFUSED, verifyAssertion } from './webauthn';
import type { RelyingParty } from './webauthn';

/** The pool's AllowedFirstAuthFactors. */
export const SIGN_IN_FACTORS = ['PASSWORD', 'PASSWORD_SRP', 'EMAIL_OTP', 'WEB_AUTHN'] as const;
type Factor = (typeof SIGN_IN_FACTORS)[number];
/** Every first factor Cognito knows (SMS_OTP is not this pool's). */
const KNOWN_FACTORS = new Set<string>([...SIGN_IN_FACTORS, 'SMS_OTP']);

/** Wrong e-mailed codes a session takes before it ends. */
export const MAX_OTP_ATTEMPTS = 3;
const MAX_SESSIONS = 10_000;
/** How long an expired session is still known as expired. */
const EXPIRED_KEPT_MS = 15 * 60 * 1000;

export const INVALID_SESSION = 'Invalid session for the user.';
export const EXPIRED_SESSION = 'Invalid session for the user, session is expired.';
export const CODE_MISMATCH = 'Invalid code or auth state for the user.';

type Stage =
  { kind: 'select'; available: Factor[] } | { kind: 'email-otp'; code: string | undefined; wrong: number } | { kind: 'web-authn'; challenge: string };

interface AuthSession {
  /** What was typed (USERNAME) and, for a known user, the pool's Username (sub). */
  username: string;
  user: User | null;
  stage: Stage;
  expires: number;
}

export interface UserAuthDeps {
  findUser(username: string): Promise<User | null>;
  rp: RelyingParty;
  now: () => number;
  onCode: (code: DeliveredCode) => void;
  /** PASSWORD: tokens for a right password, Cognito's refusal (and the lockout) otherwise. */
  passwordSignIn(username: string, password: string): Promise<unknown>;
  /** PASSWORD_SRP: the PASSWORD_VERIFIER challenge (srp-sign-in.ts). */
  srpStart(username: string, srpA: string): Promise<unknown>;
  /** The tokens of a user who has passed a passwordless challenge. */
  tokensFor(user: User): Promise<unknown>;
  /** A passkey was used: its new sign counter. */
  passkeyUsed(user: User, credentialId: string, counter: number): Promise<void>;
}

/**
 * A user's first factors, as AvailableChallenges lists them: a passkey for this relying party, a
 * code to a verified e-mail address, the password. An unknown user gets what a user without a
 * passkey gets.
 */
function available(user: User | null, rp: RelyingParty): Factor[] {
  const factors: Factor[] = [];
  if (user && passkeysOf(user).some((p) => p.RelyingPartyId === rp.id)) factors.push('WEB_AUTHN');
  if (!user || attributeValue('email_verified', user.Attributes) === 'true') factors.push('EMAIL_OTP');
  factors.push('PASSWORD', 'PASSWORD_SRP');
  return factors;
}

function assertUsable(user: User | null): void {
  if (user && user.Enabled === false) throw new CognitoFault('NotAuthorizedException', 'User is disabled.');
  if (user && user.UserStatus === 'UNCONFIRMED') throw new CognitoFault('UserNotConfirmedException', 'User is not confirmed.');
}

export function createUserAuth(deps: UserAuthDeps) {
  const sessions = new Map<string, AuthSession>();

  function issue(s: Omit<AuthSession, 'expires'>): string {
    const now = deps.now();
    // An expired session is kept a while longer, so that its answer says "expired" (as Cognito's
    // does) rather than "invalid", whoever else signs in meanwhile.
    for (const [key, old] of sessions) if (old.expires + EXPIRED_KEPT_MS < now) sessions.delete(key);
    while (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
    const id = randomBytes(96).toString('base64');
    sessions.set(id, { ...s, expires: now + AUTH_SESSION_MS });
    return id;
  }

  /** The session a RespondToAuthChallenge names, for this challenge and user, or Cognito's refusal. */
  function take(body: Body, kind: Stage['kind']): [string, AuthSession] {
    const id = str(body, 'Session');
    if (!id) throw new CognitoFault('InvalidParameterException', 'Missing required parameter Session');
    const s = sessions.get(id);
    if (!s || s.stage.kind !== kind) throw new CognitoFault('NotAuthorizedException', INVALID_SESSION);
    if (s.expires < deps.now()) {
      sessions.delete(id);
      throw new CognitoFault('NotAuthorizedException', EXPIRED_SESSION);
    }
    const given = required(record(body, 'ChallengeResponses'), 'USERNAME');
    if (given !== s.username && given !== s.user?.Username) throw new CognitoFault('NotAuthorizedException', INVALID_SESSION);
    return [id, s];
  }

  function emailOtp(username: string, user: User | null): unknown {
    const email = user ? (attributeValue('email', user.Attributes) ?? username) : username;
    let code: string | undefined;
    if (user) {
      code = newCode();
      deps.onCode({ destination: email, source: 'EmailOtp', code, at: new Date(deps.now()) });
    }
    return {
      ChallengeName: 'EMAIL_OTP',
      ChallengeParameters: { CODE_DELIVERY_DELIVERY_MEDIUM: 'EMAIL', CODE_DELIVERY_DESTINATION: maskEmail(email) },
      Session: issue({ username, user, stage: { kind: 'email-otp', code, wrong: 0 } }),
    };
  }

  function webAuthn(username: string, user: User): unknown {
    const challenge = randomBytes(32).toString('base64url');
    const options = {
      challenge,
      rpId: deps.rp.id,
      timeout: 180000,
      allowCredentials: passkeysOf(user)
        .filter((p) => p.RelyingPartyId === deps.rp.id)
        .map((p) => ({ type: 'public-key', id: p.CredentialId, transports: p.AuthenticatorTransports })),
      userVerification: deps.rp.userVerification,
    };
    return {
      ChallengeName: 'WEB_AUTHN',
      ChallengeParameters: { CREDENTIAL_REQUEST_OPTIONS: JSON.stringify(options) },
      Session: issue({ username, user, stage: { kind: 'web-authn', challenge } }),
    };
  }

  function selectChallenge(username: string, user: User | null): unknown {
    const factors = available(user, deps.rp);
    return {
      ChallengeName: 'SELECT_CHALLENGE',
      AvailableChallenges: factors,
      ChallengeParameters: {},
      Session: issue({ username, user, stage: { kind: 'select', available: factors } }),
    };
  }

  /** Starts the chosen factor; PASSWORD and PASSWORD_SRP take their secret with the choice. */
  function begin(factor: Factor, username: string, user: User | null, params: Body): Promise<unknown> {
    switch (factor) {
      case 'PASSWORD':
        return deps.passwordSignIn(username, required(params, 'PASSWORD'));
      case 'PASSWORD_SRP':
        return deps.srpStart(username, required(params, 'SRP_A'));
      case 'EMAIL_OTP':
        return Promise.resolve(emailOtp(username, user));
      case 'WEB_AUTHN':
        return Promise.resolve(webAuthn(username, user as User));
    }
  }

  /** InitiateAuth USER_AUTH. */
  async function initiate(body: Body): Promise<unknown> {
    const params = record(body, 'AuthParameters');
    const username = required(params, 'USERNAME');
    const preferred = str(params, 'PREFERRED_CHALLENGE');
    if (preferred !== undefined && !KNOWN_FACTORS.has(preferred)) {
      throw new CognitoFault('InvalidParameterException', `Invalid PREFERRED_CHALLENGE: ${preferred}`);
    }
    const user = await deps.findUser(username);
    assertUsable(user);
    const factors = available(user, deps.rp);
    // A preference the user cannot take (no passkey, SMS) leaves the choice to them.
    if (preferred && factors.includes(preferred as Factor)) return begin(preferred as Factor, username, user, params);
    return selectChallenge(username, user);
  }

  /** RespondToAuthChallenge SELECT_CHALLENGE. */
  async function select(body: Body): Promise<unknown> {
    const [id, s] = take(body, 'select');
    const responses = record(body, 'ChallengeResponses');
    const answer = required(responses, 'ANSWER');
    if (s.stage.kind !== 'select' || !s.stage.available.includes(answer as Factor)) {
      throw new CognitoFault('InvalidParameterException', `${answer} is not an available challenge for this user.`);
    }
    sessions.delete(id);
    const user = s.user ? await deps.findUser(s.user.Username) : null;
    assertUsable(user);
    if (answer === 'WEB_AUTHN' && responses['CREDENTIAL'] !== undefined) {
      // Cognito takes a passkey's answer with the choice too, but no challenge of this session was
      // signed yet (the options come with the WEB_AUTHN challenge), so no such answer can verify.
      throw new CognitoFault('NotAuthorizedException', PASSKEY_SIGN_IN_REFUSED);
    }
    return begin(answer as Factor, s.username, user, responses);
  }

  /** RespondToAuthChallenge EMAIL_OTP. */
  async function answerEmailOtp(body: Body): Promise<unknown> {
    const [id, s] = take(body, 'email-otp');
    const stage = s.stage as Extract<Stage, { kind: 'email-otp' }>;
    const given = required(record(body, 'ChallengeResponses'), 'EMAIL_OTP_CODE');
    const right = stage.code !== undefined && given.length === stage.code.length && timingSafeEqual(Buffer.from(given), Buffer.from(stage.code));
    if (!right || !s.user) {
      stage.wrong++;
      if (stage.wrong >= MAX_OTP_ATTEMPTS) sessions.delete(id);
      throw new CognitoFault('CodeMismatchException', CODE_MISMATCH);
    }
    sessions.delete(id);
    const user = await deps.findUser(s.user.Username);
    if (!user) throw new CognitoFault('NotAuthorizedException', INVALID_SESSION);
    assertUsable(user);
    return deps.tokensFor(user);
  }

  /** RespondToAuthChallenge WEB_AUTHN: one answer per challenge. */
  async function answerWebAuthn(body: Body): Promise<unknown> {
    const [id, s] = take(body, 'web-authn');
    sessions.delete(id);
    const stage = s.stage as Extract<Stage, { kind: 'web-authn' }>;
    const text = required(record(body, 'ChallengeResponses'), 'CREDENTIAL');
    let credential: unknown;
    try {
      credential = JSON.parse(text);
    } catch {
      throw new CognitoFault('InvalidParameterException', 'CREDENTIAL is not JSON');
    }
    const credentialId = assertionCredentialId(credential);
    const user = s.user ? await deps.findUser(s.user.Username) : null;
    const stored = passkeysOf(user).find((p) => p.CredentialId === credentialId);
    if (!user || !stored) throw new CognitoFault('NotAuthorizedException', PASSKEY_SIGN_IN_REFUSED);
    assertUsable(user);
    const counter = await verifyAssertion({ credential, challenge: stage.challenge, rp: deps.rp, stored });
    await deps.passkeyUsed(user, credentialId, counter);
    return deps.tokensFor(user);
  }

  /**
   * Ends the pending sign-ins begun as `username` (what was typed: the e-mail address) as if their
   * lifetime had passed: their next answer gets EXPIRED_SESSION. For browser tests of an expired
   * code (the control route /_sandbox/sign-in-sessions); returns how many there were.
   */
  function expireFor(username: string): number {
    const typed = username.trim().toLowerCase();
    let expired = 0;
    for (const s of sessions.values()) {
      if (s.username.toLowerCase() !== typed) continue;
      s.expires = deps.now() - 1;
      expired++;
    }
    return expired;
  }

  return { initiate, select, answerEmailOtp, answerWebAuthn, expireFor };
}

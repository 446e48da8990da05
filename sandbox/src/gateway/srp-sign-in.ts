/**
 * SRP sign-in as Cognito runs it (InitiateAuth USER_SRP_AUTH, then RespondToAuthChallenge
 * PASSWORD_VERIFIER), on srp.ts's arithmetic: each challenge is held for one answer, a few
 * minutes at most; wrong passwords count towards the lockout (lockout.ts). With
 * PreventUserExistenceErrors=ENABLED (Cognito's default for new app clients) an unknown user gets
 * a challenge like anyone else and fails at the verifier with the same message.
 */
import { randomBytes } from 'node:crypto';
import type { User } from './cognito-local';
import { CognitoFault, INCORRECT_CREDENTIALS } from './errors';
import { PASSWORD_ATTEMPTS_EXCEEDED } from './lockout';
import type { Lockout } from './lockout';
import { record, str } from './request-body';
import type { Body } from './request-body';
import { parseClientA, startChallenge, verifyClaim } from './srp';

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

export interface SrpSignInDeps {
  /** The pool id's part after the region (`TrailSenseLocal`), which the proof names. */
  poolName: string;
  findUser(username: string): Promise<User | null>;
  lockout: Lockout;
  /** The sign-in's tokens once the user has proven the password (cognito-local mints them). */
  tokensFor(userId: string, password: string): Promise<unknown>;
}

export function createSrpSignIn(deps: SrpSignInDeps) {
  const { poolName, lockout } = deps;
  const sessions = new Map<string, SrpSession>();

  function pruneSessions(now: number): void {
    for (const [key, s] of sessions) if (s.expires < now) sessions.delete(key);
    while (sessions.size >= MAX_SRP_SESSIONS) sessions.delete(sessions.keys().next().value as string);
  }

  /** InitiateAuth USER_SRP_AUTH: the PASSWORD_VERIFIER challenge. */
  async function start(body: Body): Promise<unknown> {
    const params = record(body, 'AuthParameters');
    const username = str(params, 'USERNAME');
    if (!username) throw new CognitoFault('InvalidParameterException', 'Missing required parameter USERNAME');
    const A = parseClientA(str(params, 'SRP_A') ?? '');
    if (A === undefined) throw new CognitoFault('InvalidParameterException', 'Invalid SRP_A');
    const user = await deps.findUser(username);
    if (user && user.Enabled === false) throw new CognitoFault('NotAuthorizedException', 'User is disabled.');
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

  /** RespondToAuthChallenge PASSWORD_VERIFIER: the tokens, or Cognito's refusal. */
  async function verify(body: Body): Promise<unknown> {
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
    return deps.tokensFor(session.userId, session.password);
  }

  return { start, verify };
}

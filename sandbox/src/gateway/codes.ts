/**
 * Confirmation and reset codes as Cognito treats them: a sign-up confirmation code is good for
 * 24 hours and a password-reset code for 1 hour (ExpiredCodeException after), and a code
 * mistyped five times is dead: the sixth attempt, right or wrong, gets LimitExceededException
 * until a new code is sent. Codes are six digits from `crypto.randomInt`.
 *
 * In memory, like the lockout (lockout.ts): a restart forgets when codes were sent and how often
 * they were mistyped, and a code sent before it is taken without an expiry.
 */
import { randomInt } from 'node:crypto';
import { CognitoFault } from './errors';

/** A six-digit code, uniformly drawn. */
export function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

export type CodePurpose = 'sign-up' | 'password-reset';

/** How long a code is good for. */
export const CODE_LIFETIME_MS: Record<CodePurpose, number> = {
  'sign-up': 24 * 60 * 60 * 1000,
  'password-reset': 60 * 60 * 1000,
};

/** Wrong codes taken before the attempts run out. */
export const MAX_WRONG_CODES = 5;

export const EXPIRED_CODE = 'Invalid code provided, please request a code again.';
export const ATTEMPT_LIMIT_EXCEEDED = 'Attempt limit exceeded, please try after some time.';

interface Issued {
  purpose: CodePurpose;
  at: number;
  wrong: number;
}

export interface CodeLedger {
  /** A code for this purpose was sent to the user (by its Username): the newest counts, with no mistakes yet. */
  sent(username: string, purpose: CodePurpose): void;
  /** Throws Cognito's refusal when the user's code for this purpose has expired or its attempts have run out. */
  assertUsable(username: string, purpose: CodePurpose): void;
  /** A wrong code was tried. */
  mistyped(username: string, purpose: CodePurpose): void;
  /** The code was used: it is gone. */
  used(username: string): void;
}

export function createCodeLedger(options: { now: () => number; maxEntries?: number }): CodeLedger {
  const codes = new Map<string, Issued>();
  const maxEntries = options.maxEntries ?? 10_000;
  const current = (username: string, purpose: CodePurpose) => {
    const issued = codes.get(username);
    return issued?.purpose === purpose ? issued : undefined;
  };
  return {
    sent(username, purpose) {
      codes.delete(username);
      // Oldest first in a Map: drop the oldest when full, so no caller can grow it without bound.
      while (codes.size >= maxEntries) codes.delete(codes.keys().next().value as string);
      codes.set(username, { purpose, at: options.now(), wrong: 0 });
    },
    assertUsable(username, purpose) {
      const issued = current(username, purpose);
      if (!issued) return;
      if (issued.wrong >= MAX_WRONG_CODES) throw new CognitoFault('LimitExceededException', ATTEMPT_LIMIT_EXCEEDED);
      if (options.now() - issued.at > CODE_LIFETIME_MS[purpose]) throw new CognitoFault('ExpiredCodeException', EXPIRED_CODE);
    },
    mistyped(username, purpose) {
      const issued = current(username, purpose);
      if (issued) issued.wrong++;
    },
    used(username) {
      codes.delete(username);
    },
  };
}

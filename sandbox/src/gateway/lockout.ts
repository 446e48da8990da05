/**
 * Cognito's lockout after repeated wrong passwords: from the fifth consecutive failure on, the user
 * is locked out for a time that starts at one second and doubles with each further failure, up to
 * 15 minutes; meanwhile every sign-in (even with the right password) is answered
 * NotAuthorizedException "Password attempts exceeded". A success clears the count.
 * Pure: the clock is injected, so tests use a fake one.
 */
export const PASSWORD_ATTEMPTS_EXCEEDED = 'Password attempts exceeded';

export interface LockoutOptions {
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Consecutive failures that start the lockout (Cognito: 5). */
  maxFailures?: number;
  baseLockMs?: number;
  maxLockMs?: number;
  /** At most this many users are tracked; the oldest entry goes first. */
  maxEntries?: number;
}

export interface Lockout {
  /** True while `user` is locked out. */
  isLocked(user: string): boolean;
  /** Records a wrong password for `user`. */
  fail(user: string): void;
  /** Records a successful sign-in: the count starts again. */
  succeed(user: string): void;
}

export function createLockout(options: LockoutOptions): Lockout {
  const maxFailures = options.maxFailures ?? 5;
  const baseLockMs = options.baseLockMs ?? 1000;
  const maxLockMs = options.maxLockMs ?? 15 * 60 * 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { failures: number; lockedUntil: number }>();

  return {
    isLocked(user) {
      const entry = entries.get(user);
      return entry !== undefined && options.now() < entry.lockedUntil;
    },
    fail(user) {
      const entry = entries.get(user) ?? { failures: 0, lockedUntil: 0 };
      entries.delete(user);
      entry.failures += 1;
      if (entry.failures >= maxFailures) {
        const lockMs = Math.min(maxLockMs, baseLockMs * 2 ** Math.min(entry.failures - maxFailures, 30));
        entry.lockedUntil = options.now() + lockMs;
      }
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(user, entry);
    },
    succeed(user) {
      entries.delete(user);
    },
  };
}

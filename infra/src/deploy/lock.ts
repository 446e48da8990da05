/**
 * One deploy (or rollback) of an app at a time, for the whole deploy: a lock object in the app's
 * bucket, `_releases/deploy.lock`, taken with a conditional write (`If-None-Match: *`: S3 writes it
 * only when no lock is there, and answers 412 otherwise) before the bucket is read, renewed while
 * the deploy runs (every LOCK_RENEW_EVERY_MS, and before each step that writes entry files, the
 * record and the pruning: a rewrite with a new `renewedAt`, conditional on the ETag of the lock
 * just read as this deploy's), and deleted at the end, also after a failure — that too on the
 * ETag just read as this deploy's (S3's conditional delete), so it never deletes another's lock. A second deploy meets
 * the lock and is refused, naming who holds it since when. A lock left behind by a deploy that was
 * killed is broken only on request (`--break-lock`) and only once not renewed for
 * LOCK_STALE_AFTER_MS; breaking it is itself conditional (`If-Match` on the stale lock's ETag), so
 * of two deploys breaking it at once one wins, and the deploy whose lock was broken finds it out at
 * its next check and stops (execute.ts). infra/README.md ("Deploy command") documents it;
 * infra/test/deploy-lock.test.ts checks it.
 */
import { randomBytes } from 'node:crypto';
import type { AppName } from './files';
import { RELEASES_PREFIX } from './plan';

export const LOCK_KEY = `${RELEASES_PREFIX}deploy.lock`;

/**
 * A lock not renewed for this long may be broken with `--break-lock`. A running deploy renews it
 * every LOCK_RENEW_EVERY_MS, so a lock this old belongs to a deploy that died (or whose machine
 * slept); a wide margin over the renewal, and a short wait after a deploy that was killed.
 */
export const LOCK_STALE_AFTER_MS = 30 * 60 * 1000;

/** How often a running deploy renews its lock (besides before each entry-file step, the record and the pruning). */
export const LOCK_RENEW_EVERY_MS = 5 * 60 * 1000;

/**
 * An entry file is written only within this long of the lock's last renewal (else it is renewed
 * first): far inside LOCK_STALE_AFTER_MS, so no other deploy may break the lock before the write
 * lands — S3 refuses a request signed more than 15 minutes earlier.
 */
export const LOCK_FRESH_MS = 60 * 1000;

export type Operation = 'deploy' | 'rollback';

/** What the lock object holds. */
export interface LockInfo {
  format: 1;
  app: AppName;
  operation: Operation;
  /** Who: user@host (pid). */
  holder: string;
  /** ISO time it was taken. */
  acquiredAt: string;
  /** ISO time it was last renewed (absent in a lock never renewed, or written before renewals). */
  renewedAt?: string;
  /** Tells this deploy's lock from another's. */
  token: string;
}

/** The bucket's part in the lock; keys relative to the target prefix. */
export interface LockPort {
  /** Writes only when the key holds no object (If-None-Match: *): `exists` on S3's 412, `conflict` on its 409 (another write of the key under way). */
  create(key: string, body: Buffer): Promise<'created' | 'exists' | 'conflict'>;
  /** Overwrites only the object with this ETag (If-Match): false when it changed or is gone. */
  replace(key: string, body: Buffer, etag: string): Promise<boolean>;
  /** The object, or undefined when there is none. */
  read(key: string): Promise<{ text: string; etag: string; lastModified?: Date } | undefined>;
  /**
   * Deletes only the object with this ETag (If-Match): `changed` when it has another now, `gone`
   * when there is none, `conflict` on S3's 409 (another conditional write of the key under way:
   * a deploy trying to take the lock, which will find it held).
   */
  remove(key: string, etag: string): Promise<'removed' | 'changed' | 'gone' | 'conflict'>;
}

/** The time, and a repeating timer: real ones by default, a fake clock in tests. */
export interface LockClock {
  now(): Date;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export const REAL_CLOCK: LockClock = {
  now: () => new Date(),
  every(ms, tick) {
    const handle = setInterval(tick, ms);
    // A deploy that is done does not wait for its next renewal.
    handle.unref();
    return () => clearInterval(handle);
  },
};

/** The lock is held by another deploy, or could not be taken, or is no longer this deploy's: the message says by whom and what to do. */
export class LockError extends Error {
  constructor(
    message: string,
    readonly holder?: LockInfo,
  ) {
    super(message);
    this.name = 'LockError';
  }
}

export interface HeldLock {
  info: LockInfo;
  /** Whose stale lock was broken to take this one, described. */
  broke?: string;
  /** Throws a LockError when the lock is no longer this one (broken or deleted meanwhile). Reads only. */
  confirm(): Promise<void>;
  /** Before a write another deploy must not overtake: renews the lock when its last renewal is older than `freshMs` (default LOCK_FRESH_MS), else confirms it. */
  check(freshMs?: number): Promise<void>;
  /**
   * Rewrites the lock with a new `renewedAt` if it is still this one (read, then a write
   * conditional on that ETag): after it, no other deploy may break it for LOCK_STALE_AFTER_MS.
   * Throws a LockError when it is no longer this one. Renewals run one at a time.
   */
  renew(): Promise<void>;
  /** Renews every `everyMs` (default LOCK_RENEW_EVERY_MS) until release(); a renewal that finds the lock lost is remembered and thrown by the next confirm or renew. */
  keepRenewing(everyMs?: number): void;
  /** Stops the renewals and deletes the lock if it is still this one; returns a warning when it is not. */
  release(): Promise<string | undefined>;
}

export interface AcquireOptions {
  app: AppName;
  operation: Operation;
  holder: string;
  /** Default: the real clock. */
  clock?: LockClock;
  /** Break a lock not renewed for `staleAfterMs`. */
  breakStale?: boolean;
  staleAfterMs?: number;
  /** What the lock is called in messages (`s3://bucket/prefix/_releases/deploy.lock`). */
  where: string;
  /** Waits between attempts after a 409, taking the lock or deleting it (tests shorten it). */
  retryDelayMs?: number;
}

/** Attempts at a write of the lock that S3 answers 409 (a conflicting conditional write under way). */
const CONFLICT_ATTEMPTS = 5;

const afterConflict = (retryDelayMs: number | undefined, attempt: number) => new Promise((resolve) => setTimeout(resolve, (retryDelayMs ?? 200) * attempt));

function parseLock(text: string): LockInfo | undefined {
  try {
    const raw = JSON.parse(text) as Partial<LockInfo> | null;
    if (raw?.format === 1 && typeof raw.holder === 'string' && typeof raw.acquiredAt === 'string' && typeof raw.token === 'string') return raw as LockInfo;
  } catch {
    // Not JSON: described as unreadable below.
  }
  return undefined;
}

function minutes(ms: number): string {
  const m = Math.floor(ms / 60_000);
  return m < 1 ? 'under a minute' : m === 1 ? '1 minute' : `${m} minutes`;
}

/** When the lock was last written: the later of its own time (renewed or taken) and S3's Last-Modified, so a wrong clock on either side makes it look younger, never older. */
function lastSignOf(info: LockInfo | undefined, lastModified: Date | undefined, now: Date): Date {
  const times = [info ? Date.parse(info.renewedAt ?? info.acquiredAt) : NaN, lastModified?.getTime() ?? NaN].filter((t) => !Number.isNaN(t));
  return new Date(times.length > 0 ? Math.max(...times) : now.getTime());
}

function describeHolder(info: LockInfo | undefined, lastSign: Date, now: Date): string {
  const ago = (time: Date) => `${minutes(now.getTime() - time.getTime())} ago`;
  if (!info) return `an unreadable lock, written ${lastSign.toISOString()} (${ago(lastSign)})`;
  const since = new Date(Date.parse(info.acquiredAt));
  const what = `${info.holder}, ${info.operation === 'rollback' ? 'a rollback' : 'a deploy'} of ${info.app}`;
  const renewed = Number.isNaN(since.getTime()) || lastSign.getTime() - since.getTime() >= 60_000 ? `, last renewed ${ago(lastSign)}` : '';
  return `${what}, since ${Number.isNaN(since.getTime()) ? info.acquiredAt : since.toISOString()} (${ago(since)})${renewed}`;
}

export async function acquireLock(port: LockPort, options: AcquireOptions): Promise<HeldLock> {
  const clock = options.clock ?? REAL_CLOCK;
  const staleAfter = options.staleAfterMs ?? LOCK_STALE_AFTER_MS;
  const info: LockInfo = {
    format: 1,
    app: options.app,
    operation: options.operation,
    holder: options.holder,
    acquiredAt: clock.now().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const body = (renewedAt?: string) => Buffer.from(`${JSON.stringify(renewedAt ? { ...info, renewedAt } : info, null, 2)}\n`);

  const held = (broke?: string) => heldLock(port, info, body, clock, options.where, options.retryDelayMs, broke);
  for (let attempt = 1; attempt <= CONFLICT_ATTEMPTS; attempt++) {
    const created = await port.create(LOCK_KEY, body());
    if (created === 'created') return held();
    if (created === 'conflict') {
      // S3's 409: another deploy is writing the lock at this very moment. Look again shortly.
      await afterConflict(options.retryDelayMs, attempt);
      continue;
    }
    const current = await port.read(LOCK_KEY);
    if (!current) continue; // released meanwhile: try again
    const theirs = parseLock(current.text);
    const now = clock.now();
    const lastSign = lastSignOf(theirs, current.lastModified, now);
    const age = now.getTime() - lastSign.getTime();
    const holder = describeHolder(theirs, lastSign, now);
    const staleness = minutes(staleAfter);
    if (!options.breakStale) {
      throw new LockError(
        `Another deploy of ${options.app} holds the lock ${options.where}: ${holder}. Wait for it to finish and try again. ` +
          (age >= staleAfter
            ? `The lock has not been renewed for ${staleness}: if that deploy was killed, break the lock with --break-lock.`
            : `A running deploy renews its lock every ${minutes(LOCK_RENEW_EVERY_MS)}; a lock left by a deploy that was killed can be broken with --break-lock once not renewed for ${staleness}.`),
        theirs,
      );
    }
    if (age < staleAfter) {
      throw new LockError(
        `The lock ${options.where} is held by ${holder}: not stale yet, --break-lock breaks only a lock not renewed for ${staleness}. Wait for that deploy to finish.`,
        theirs,
      );
    }
    if (await port.replace(LOCK_KEY, body(), current.etag)) return held(holder);
    // Someone else changed the lock meanwhile (broke it first, renewed it, or finished): look again.
  }
  throw new LockError(`Could not take the lock ${options.where}: other deploys kept writing it. Try again.`);
}

function heldLock(
  port: LockPort,
  info: LockInfo,
  body: (renewedAt?: string) => Buffer,
  clock: LockClock,
  where: string,
  retryDelayMs: number | undefined,
  broke?: string,
): HeldLock {
  let lost: LockError | undefined;
  let renewedAt = Date.parse(info.acquiredAt);
  let stopRenewing: (() => void) | undefined;
  let renewals: Promise<void> = Promise.resolve();
  const ours = async () => {
    const current = await port.read(LOCK_KEY);
    return { current, theirs: current ? parseLock(current.text) : undefined };
  };
  const lostError = (current: { lastModified?: Date } | undefined, theirs: LockInfo | undefined): LockError => {
    const now = clock.now();
    return new LockError(
      current
        ? `the lock ${where} was broken while this ran and is now held by ${describeHolder(theirs, lastSignOf(theirs, current.lastModified, now), now)}.`
        : `the lock ${where} was deleted while this ran.`,
      theirs,
    );
  };
  const renewOnce = async () => {
    for (let attempt = 1; ; attempt++) {
      if (lost) throw lost;
      const { current, theirs } = await ours();
      if (!current || theirs?.token !== info.token) throw (lost = lostError(current, theirs));
      const now = clock.now();
      if (await port.replace(LOCK_KEY, body(now.toISOString()), current.etag)) {
        renewedAt = now.getTime();
        return;
      }
      // Changed between the read and the write (or S3's 409): look again; a lock no longer ours fails above.
      if (attempt === 3) throw new LockError(`the lock ${where} could not be renewed: it kept changing while this deploy wrote it.`);
    }
  };
  const confirm = async (): Promise<void> => {
    if (lost) throw lost;
    const { current, theirs } = await ours();
    if (current && theirs?.token === info.token) return;
    throw (lost = lostError(current, theirs));
  };
  const renew = (): Promise<void> => {
    const next = renewals.then(renewOnce);
    renewals = next.catch(() => undefined);
    return next;
  };
  return {
    info,
    ...(broke ? { broke } : {}),
    confirm,
    renew,
    async check(freshMs = LOCK_FRESH_MS) {
      if (clock.now().getTime() - renewedAt >= freshMs) return renew();
      return confirm();
    },
    keepRenewing(everyMs = LOCK_RENEW_EVERY_MS) {
      stopRenewing?.();
      // A failed renewal is not fatal here: a lost lock is remembered (renewOnce) and stops the
      // deploy at its next check; another failure (the network) is tried again at the next tick.
      stopRenewing = clock.every(everyMs, () => void renew().catch(() => undefined));
    },
    async release() {
      stopRenewing?.();
      await renewals;
      for (let attempt = 1; ; attempt++) {
        const { current, theirs } = await ours();
        if (!current) return `the lock ${where} was already gone (deleted while this ran).`;
        if (theirs?.token !== info.token) return `the lock ${where} was broken while this ran; the new holder's lock is left in place.`;
        // On the ETag just read as ours: a deploy that broke it since (this one stalled past
        // LOCK_STALE_AFTER_MS between the read and the delete) keeps its lock.
        const removed = await port.remove(LOCK_KEY, current.etag);
        if (removed === 'gone') return `the lock ${where} was already gone (deleted while this ran).`;
        if (removed === 'changed') return `the lock ${where} was broken while this ran; the new holder's lock is left in place.`;
        if (removed === 'removed') return undefined;
        // S3's 409: a deploy is trying to take the lock at this moment (it will find it held). Again shortly.
        if (attempt >= CONFLICT_ATTEMPTS) {
          return `the lock ${where} could not be deleted: other deploys kept trying to take it. Delete it, or break it with --break-lock once it is stale.`;
        }
        await afterConflict(retryDelayMs, attempt);
      }
    },
  };
}

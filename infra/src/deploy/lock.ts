/**
 * One deploy (or rollback) of an app at a time: a lock object in the app's bucket,
 * `_releases/deploy.lock`, taken with a conditional write (`If-None-Match: *`: S3 writes it only
 * when no lock is there, and answers 412 otherwise) before the bucket is read, and deleted at the
 * end, also after a failure. A second deploy meets the lock and is refused, naming who holds it
 * since when. A lock left behind by a deploy that was killed is broken only on request
 * (`--break-lock`) and only once older than LOCK_STALE_AFTER_MS; breaking it is itself
 * conditional (`If-Match` on the stale lock's ETag), so of two deploys breaking it at once one
 * wins. infra/README.md ("Deploy command") documents it; infra/test/deploy-lock.test.ts and
 * infra/test/deploy.test.ts check it.
 */
import { randomBytes } from 'node:crypto';
import type { AppName } from './files';
import { RELEASES_PREFIX } from './plan';

export const LOCK_KEY = `${RELEASES_PREFIX}deploy.lock`;

/**
 * A lock older than this may be broken with `--break-lock`. A deploy takes seconds to a few
 * minutes (uploads, then a prune); half an hour leaves a slow one a wide margin, and is a short
 * wait after a deploy that was killed.
 */
export const LOCK_STALE_AFTER_MS = 30 * 60 * 1000;

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
  remove(key: string): Promise<void>;
}

/** The lock is held by another deploy, or could not be taken: the message says by whom and what to do. */
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
  /** Throws a LockError when the lock is no longer this one (broken meanwhile). */
  confirm(): Promise<void>;
  /** Deletes the lock if it is still this one; returns a warning when it is not. */
  release(): Promise<string | undefined>;
}

export interface AcquireOptions {
  app: AppName;
  operation: Operation;
  holder: string;
  now?: () => Date;
  /** Break a lock older than `staleAfterMs`. */
  breakStale?: boolean;
  staleAfterMs?: number;
  /** What the lock is called in messages (`s3://bucket/prefix/_releases/deploy.lock`). */
  where: string;
  /** Waits between attempts after a 409 (tests shorten it). */
  retryDelayMs?: number;
}

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

function describeHolder(info: LockInfo | undefined, since: Date, now: Date): string {
  const who = info ? `${info.holder}, ${info.operation === 'rollback' ? 'a rollback' : 'a deploy'} of ${info.app}` : 'an unreadable lock';
  return `${who}, since ${since.toISOString()} (${minutes(now.getTime() - since.getTime())} ago)`;
}

export async function acquireLock(port: LockPort, options: AcquireOptions): Promise<HeldLock> {
  const now = options.now ?? (() => new Date());
  const staleAfter = options.staleAfterMs ?? LOCK_STALE_AFTER_MS;
  const info: LockInfo = {
    format: 1,
    app: options.app,
    operation: options.operation,
    holder: options.holder,
    acquiredAt: now().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const body = Buffer.from(`${JSON.stringify(info, null, 2)}\n`);
  const held = (broke?: string): HeldLock => {
    const ours = async () => {
      const current = await port.read(LOCK_KEY);
      return { current, theirs: current ? parseLock(current.text) : undefined };
    };
    return {
      info,
      ...(broke ? { broke } : {}),
      async confirm() {
        const { current, theirs } = await ours();
        if (theirs?.token === info.token) return;
        throw new LockError(
          current
            ? `the lock ${options.where} was broken while this ran and is now held by ${describeHolder(theirs, new Date(theirs?.acquiredAt ?? 0), now())}.`
            : `the lock ${options.where} was deleted while this ran.`,
          theirs,
        );
      },
      async release() {
        const { current, theirs } = await ours();
        if (!current) return `the lock ${options.where} was already gone (deleted while this ran).`;
        if (theirs?.token !== info.token) return `the lock ${options.where} was broken while this ran; the new holder's lock is left in place.`;
        await port.remove(LOCK_KEY);
        return undefined;
      },
    };
  };

  for (let attempt = 1; attempt <= 5; attempt++) {
    const created = await port.create(LOCK_KEY, body);
    if (created === 'created') return held();
    if (created === 'conflict') {
      // S3's 409: another deploy is writing the lock at this very moment. Look again shortly.
      await new Promise((resolve) => setTimeout(resolve, (options.retryDelayMs ?? 200) * attempt));
      continue;
    }
    const current = await port.read(LOCK_KEY);
    if (!current) continue; // released meanwhile: try again
    const theirs = parseLock(current.text);
    // Its age by the later of its own time and S3's: a wrong clock on either side makes it look younger, never older.
    const times = [theirs ? Date.parse(theirs.acquiredAt) : NaN, current.lastModified?.getTime() ?? NaN].filter((t) => !Number.isNaN(t));
    const since = new Date(times.length > 0 ? Math.max(...times) : now().getTime());
    const age = now().getTime() - since.getTime();
    const holder = describeHolder(theirs, since, now());
    const staleness = `${minutes(staleAfter)}`;
    if (!options.breakStale) {
      throw new LockError(
        `Another deploy of ${options.app} holds the lock ${options.where}: ${holder}. Wait for it to finish and try again. ` +
          (age >= staleAfter
            ? `The lock is older than ${staleness}: if that deploy was killed, break the lock with --break-lock.`
            : `A lock left by a deploy that was killed can be broken with --break-lock once it is older than ${staleness}.`),
        theirs,
      );
    }
    if (age < staleAfter) {
      throw new LockError(
        `The lock ${options.where} is held by ${holder}: not stale yet, --break-lock breaks only a lock older than ${staleness}. Wait for that deploy to finish.`,
        theirs,
      );
    }
    if (await port.replace(LOCK_KEY, body, current.etag)) return held(holder);
    // Someone else changed the lock meanwhile (broke it first, or finished): look again.
  }
  throw new LockError(`Could not take the lock ${options.where}: other deploys kept writing it. Try again.`);
}

/**
 * What a deploy and a rollback (deploy.ts, rollback.ts) share: the app's bucket and distribution,
 * and the deploy lock (lock.ts) held from before the bucket is read to the end — renewed every few
 * minutes meanwhile, and by the executor (execute.ts) before each entry-file step, the record and
 * the pruning — then released whatever happened.
 */
import os from 'node:os';
import { cloudFrontCdn, s3Store } from './aws';
import type { AwsOptions, BucketStore, Target } from './aws';
import type { CdnPort, LockGuard } from './execute';
import type { AppName } from './files';
import { acquireLock, LOCK_KEY } from './lock';
import type { HeldLock, LockClock, Operation } from './lock';
import { isReleaseRecordKey, parseReleaseRecord } from './plan';
import type { StoredObject, StoredRelease } from './plan';

/** What a deploy and a rollback both need: the app's bucket, its distribution, the lock. */
export interface BucketOptions extends AwsOptions {
  app: AppName;
  target: Target;
  distributionId?: string;
  dryRun: boolean;
  /** Uploads at once within a step (default 8). */
  concurrency?: number;
  /** Defaults: now, and 6 random hex digits. */
  now?: Date;
  releaseId?: string;
  /** Break a stale lock (not renewed for LOCK_STALE_AFTER_MS, lock.ts). */
  breakLock?: boolean;
  /** Who holds the lock, in other deploys' messages (default: user@host (pid)). */
  lockHolder?: string;
  /** The lock's clock and renewal timer (tests; default: the real ones, or `now` when given). */
  clock?: LockClock;
  /** How often the lock is renewed (default LOCK_RENEW_EVERY_MS). */
  lockRenewEveryMs?: number;
  /** Tests: wraps the bucket's adapter (to stop a deploy after a given write). */
  wrapStore?: (store: BucketStore) => BucketStore;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Warnings that do not fail the command (default: log). */
  warn?: (line: string) => void;
}

/** `s3://bucket/prefix`, for messages. */
export function targetUrl(target: Target): string {
  return `s3://${target.bucket}/${target.prefix}`;
}

function defaultHolder(): string {
  let user = process.env.USER ?? 'someone';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): USER it is.
  }
  return `${user}@${os.hostname()} (pid ${process.pid})`;
}

export interface BucketSession {
  store: BucketStore;
  cdn?: CdnPort;
  /** The bucket's objects and release records, read under the lock. */
  stored: StoredObject[];
  releases: StoredRelease[];
  /** The executor's view of the lock; absent in a dry run, which writes nothing and takes no lock. */
  lock?: LockGuard;
  /** The text of an object the listing has, or undefined when it has none. */
  text: (key: string) => Promise<string | undefined>;
}

function clockOf(options: BucketOptions): LockClock | undefined {
  if (options.clock) return options.clock;
  const fixed = options.now;
  return fixed ? { now: () => fixed, every: () => () => undefined } : undefined;
}

/** Opens the bucket (and distribution), takes the app's lock, reads the bucket, runs `work`, and releases the lock whatever happened. */
export async function withBucket<T>(options: BucketOptions, operation: Operation, work: (session: BucketSession) => Promise<T>): Promise<T> {
  const log = options.log ?? (() => undefined);
  const warn = options.warn ?? log;
  const real = s3Store(options.target, options);
  const store = options.wrapStore ? options.wrapStore(real) : real;
  const cdn = options.distributionId ? cloudFrontCdn(options.distributionId, options) : undefined;
  const where = `${targetUrl(options.target)}${LOCK_KEY}`;
  const clock = clockOf(options);
  let lock: HeldLock | undefined;
  try {
    if (options.dryRun) {
      const current = await store.lock.read(LOCK_KEY);
      if (current) warn(`${where} is held (${current.text.replace(/\s+/g, ' ').trim()}): a real ${operation} would be refused now.`);
    } else {
      lock = await acquireLock(store.lock, {
        app: options.app,
        operation,
        holder: options.lockHolder ?? defaultHolder(),
        ...(clock ? { clock } : {}),
        ...(options.breakLock ? { breakStale: true } : {}),
        where,
      });
      if (lock.broke) warn(`broke the stale lock ${where} of ${lock.broke}.`);
      lock.keepRenewing(options.lockRenewEveryMs);
    }
    const stored = await store.list();
    const releases: StoredRelease[] = [];
    for (const object of stored) {
      if (isReleaseRecordKey(object.key)) releases.push({ key: object.key, record: parseReleaseRecord(object.key, await store.getText(object.key)) });
    }
    const text = async (key: string) => (stored.some((o) => o.key === key) ? store.getText(key) : undefined);
    return await work({ store, ...(cdn ? { cdn } : {}), stored, releases, ...(lock ? { lock } : {}), text });
  } finally {
    if (lock) {
      try {
        const warning = await lock.release();
        if (warning) warn(warning);
      } catch (error) {
        warn(`could not release the lock: ${(error as Error).message}. Delete ${where} once no deploy of ${options.app} runs.`);
      }
    }
    real.destroy();
    cdn?.destroy();
  }
}

/**
 * Carries out a deploy plan (plan.ts) through two ports — the bucket and the CDN — so the order
 * and the failure rules are tested without AWS (infra/test/deploy-plan.test.ts) and against the
 * S3 emulator (infra/test/deploy.test.ts, deploy-stops.test.ts).
 *
 * Steps run in order (order.ts), each step's uploads at most `concurrency` at a time. The first
 * failure stops the deploy: no later step starts, no record is written and nothing is deleted,
 * and the error says which entry files are the new release's and which the previous one's, what
 * that leaves serving, and what to run (stop-report.ts). Before each step that writes entry files,
 * before the record and before the pruning the deploy lock is renewed, and before each entry
 * file's write confirmed (`lock`): a deploy whose lock was broken (`--break-lock`) stops there —
 * before its switch when it had not reached it — and never prunes. The invalidation comes after
 * the record (the release is then complete in the bucket), the pruning last: a failed prune leaves
 * more files than needed, never fewer. A rollback's plan (rollback-plan.ts) has entry files only,
 * read from their copies, and prunes nothing.
 */
import { LockError } from './lock';
import { entryCopyKey } from './plan';
import type { DeployPlan } from './plan';
import type { ReleaseFile, UploadStep } from './release-files';
import { entryState, stopMessage } from './stop-report';
import type { EntryProgress, EntryState } from './stop-report';

/** A write that S3 makes only if the key still holds that object (`ifMatch`: its ETag) or none (`ifNoneMatch`). */
export type WriteCondition = { ifMatch: string } | { ifNoneMatch: '*' };

/** The bucket, keys relative to the target prefix. */
export interface ObjectStorePort {
  /** With a condition, throws a WriteConflictError when S3 refuses it (412, or 409 for a write of the key under way). */
  put(key: string, body: Buffer, headers: { contentType: string; cacheControl: string }, condition?: WriteCondition): Promise<void>;
  deleteMany(keys: string[]): Promise<void>;
}

/** A conditional write refused: the key no longer holds what the plan was made over (another deploy wrote it). */
export class WriteConflictError extends Error {
  constructor(readonly key: string) {
    super(`${key} changed in the bucket while this ran (another deploy wrote it), so it was not written`);
    this.name = 'WriteConflictError';
  }
}

export interface CdnPort {
  /** Returns the invalidation's id. */
  invalidate(paths: string[], callerReference: string): Promise<string>;
}

export interface ExecuteOptions {
  store: ObjectStorePort;
  /** Absent: no invalidation (no distribution given). */
  cdn?: CdnPort;
  /** The bytes of a release file. */
  read(file: ReleaseFile): Promise<Buffer>;
  concurrency: number;
  dryRun: boolean;
  /** One line per completed action (progress). */
  log?: (line: string) => void;
  /** The deploy lock (lock.ts HeldLock); absent, nothing is checked. */
  lock?: LockGuard;
}

/** What the executor asks of the deploy lock (lock.ts HeldLock): each throws when the lock is no longer this deploy's. */
export interface LockGuard {
  /** Before each entry file's write: renews the lock unless renewed within the last minute, else reads it. */
  check(): Promise<void>;
  /** Renews it: before each step that writes entry files, the record and the pruning. */
  renew(): Promise<void>;
}

export interface DeployResult {
  uploaded: { files: number; bytes: number };
  /** Entry files copied under `_releases/entry-files/` for a rollback. */
  copied: number;
  unchanged: { files: number; bytes: number };
  excluded: number;
  deleted: number;
  expiredReleases: number;
  unknownKept: number;
  invalidationId?: string;
  invalidationPaths: string[];
  releaseKey: string;
  dryRun: boolean;
  /** A remote whose switch took two writes: why (order.ts switchNote). */
  switchNote?: string;
}

export class DeployError extends Error {
  constructor(
    message: string,
    readonly result: DeployResult,
    readonly cause?: unknown,
    /** The plan's entry files when it stopped: which are the new release's, which not. */
    readonly entries?: EntryState,
  ) {
    super(message);
    this.name = 'DeployError';
  }
}

/** Runs `task` over `items`, at most `limit` at once; after a failure starts no more, then rethrows it. */
export async function eachBounded<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
}

const sum = (files: readonly ReleaseFile[]) => files.reduce((total, f) => total + f.size, 0);

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const hasEntries = (step: UploadStep) => !step.copies && step.uploads.some((f) => f.kind === 'entry');

export async function executePlan(plan: DeployPlan, options: ExecuteOptions): Promise<DeployResult> {
  const log = options.log ?? (() => undefined);
  const result: DeployResult = {
    uploaded: { files: 0, bytes: 0 },
    copied: 0,
    unchanged: { files: plan.unchanged.length, bytes: sum(plan.unchanged) },
    excluded: plan.excluded.length,
    deleted: 0,
    expiredReleases: 0,
    unknownKept: plan.unknown.length,
    invalidationPaths: options.cdn ? plan.invalidationPaths : [],
    releaseKey: plan.releaseKey,
    dryRun: options.dryRun,
    ...(plan.switchNote ? { switchNote: plan.switchNote } : {}),
  };
  if (options.dryRun) {
    const uploads = plan.steps.filter((s) => !s.copies).flatMap((s) => s.uploads);
    return {
      ...result,
      uploaded: { files: uploads.length, bytes: sum(uploads) },
      copied: plan.steps.filter((s) => s.copies).reduce((n, s) => n + s.uploads.length, 0),
      deleted: plan.deletions.length,
      expiredReleases: plan.expiredReleases.length,
    };
  }

  const progress: EntryProgress = { written: new Set(), failed: new Set() };
  const stop = (cause: string, error: unknown) => {
    const lockLost = error instanceof LockError || error instanceof WriteConflictError;
    return new DeployError(stopMessage({ plan, progress, cause, lockLost }), result, error, entryState(plan, progress));
  };
  for (const step of plan.steps) {
    const entries = hasEntries(step);
    try {
      if (entries) await options.lock?.renew();
    } catch (error) {
      throw stop(`Stopped before step "${step.name}": ${describe(error)}`, error);
    }
    try {
      await eachBounded(step.uploads, step.parallel ? options.concurrency : 1, async (file) => {
        const entry = !step.copies && file.kind === 'entry';
        const key = step.copies ? entryCopyKey(file.md5) : file.path;
        const body = await options.read(file);
        // An entry file is written only over the object the plan was made over: a deploy that
        // lost its lock never overwrites another's entry file with one of its own.
        const etag = plan.entryEtags[file.path];
        const condition: WriteCondition | undefined = entry ? (etag === undefined ? { ifNoneMatch: '*' } : { ifMatch: etag }) : undefined;
        if (entry) await options.lock?.check();
        try {
          await options.store.put(key, body, { contentType: file.contentType, cacheControl: file.cacheControl }, condition);
        } catch (error) {
          // Refused (412): not written. Another failure: S3 may hold either version.
          if (entry && !(error instanceof WriteConflictError)) progress.failed.add(file.path);
          throw error;
        }
        if (entry) progress.written.add(file.path);
        if (step.copies) {
          result.copied += 1;
        } else {
          result.uploaded.files += 1;
          result.uploaded.bytes += file.size;
        }
      });
    } catch (error) {
      const stopped = error instanceof LockError || error instanceof WriteConflictError;
      throw stop(`${stopped ? 'Stopped' : 'Upload failed'} in step "${step.name}": ${describe(error)}`, error);
    }
    log(`uploaded ${step.name} (${step.uploads.length})`);
  }

  try {
    await options.lock?.renew();
    await options.store.put(
      plan.releaseKey,
      Buffer.from(`${JSON.stringify(plan.release, null, 2)}\n`),
      { contentType: 'application/json; charset=utf-8', cacheControl: 'no-cache' },
      { ifNoneMatch: '*' },
    );
  } catch (error) {
    throw stop(`The record ${plan.releaseKey} was not written: ${describe(error)}`, error);
  }
  log(`recorded ${plan.releaseKey}`);

  if (options.cdn && plan.invalidationPaths.length > 0) {
    try {
      result.invalidationId = await options.cdn.invalidate(plan.invalidationPaths, `trailsense-${plan.release.app}-${plan.release.id}`);
    } catch (error) {
      throw new DeployError(
        `The release is live in the bucket and recorded, but the invalidation failed: ${describe(error)}. Invalidate ${plan.invalidationPaths.join(' ')} by hand.`,
        result,
        error,
      );
    }
    log(`invalidation ${result.invalidationId}: ${plan.invalidationPaths.join(' ')}`);
  }

  if (plan.deletions.length === 0 && plan.expiredReleases.length === 0) return result;
  await prune(plan, options, result);
  if (plan.deletions.length > 0) {
    const unrecorded = plan.unrecordedDeletions > 0 ? ` (${plan.unrecordedDeletions} in no release record)` : '';
    log(`pruned ${plan.deletions.length} files${unrecorded} of ${plan.expiredReleases.length} older release(s)`);
  }
  return result;
}

/** Deletes the plan's old files, then the expired records, once the lock is confirmed still this deploy's. */
async function prune(plan: DeployPlan, options: ExecuteOptions, result: DeployResult): Promise<void> {
  try {
    await options.lock?.renew();
  } catch (error) {
    throw new DeployError(
      `The release is live and recorded, but nothing was pruned: ${describe(error)} Another deploy may be running, and its files must not be deleted; the next deploy prunes.`,
      result,
      error,
    );
  }
  try {
    for (let i = 0; i < plan.deletions.length; i += 1000) {
      const batch = plan.deletions.slice(i, i + 1000);
      await options.store.deleteMany(batch);
      result.deleted += batch.length;
    }
    if (plan.expiredReleases.length > 0) {
      await options.store.deleteMany(plan.expiredReleases);
      result.expiredReleases = plan.expiredReleases.length;
    }
  } catch (error) {
    throw new DeployError(
      `The release is live and recorded, but pruning older releases failed: ${describe(error)}. The next deploy prunes again.`,
      result,
      error,
    );
  }
}

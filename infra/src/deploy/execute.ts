/**
 * Carries out a deploy plan (plan.ts) through two ports — the bucket and the CDN — so the order
 * and the failure rules are tested without AWS (infra/test/deploy-plan.test.ts) and against the
 * S3 emulator (infra/test/deploy.test.ts).
 *
 * Steps run in order, each step's uploads at most `concurrency` at a time. The first failure
 * stops the deploy: no later step starts, so the entry files of the previous release stay in
 * place and keep naming files that are all still there; no record is written and nothing is
 * deleted. The invalidation comes after the record (the release is then complete in the bucket),
 * the pruning last: a failed prune leaves more files than needed, never fewer. A rollback's plan
 * (rollback-plan.ts) has entry files only, read from their copies, and prunes nothing.
 */
import { entryCopyKey } from './plan';
import type { DeployPlan, ReleaseFile } from './plan';

/** The bucket, keys relative to the target prefix. */
export interface ObjectStorePort {
  put(key: string, body: Buffer, headers: { contentType: string; cacheControl: string }): Promise<void>;
  deleteMany(keys: string[]): Promise<void>;
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
  /** Runs before pruning, and stops it by throwing (the deploy lock is no longer this deploy's). */
  beforePrune?: () => Promise<void>;
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
}

export class DeployError extends Error {
  constructor(
    message: string,
    readonly result: DeployResult,
    readonly cause?: unknown,
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

export async function executePlan(plan: DeployPlan, options: ExecuteOptions): Promise<DeployResult> {
  const log = options.log ?? (() => undefined);
  const rollback = plan.release.rollback !== undefined;
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

  for (const step of plan.steps) {
    try {
      await eachBounded(step.uploads, step.parallel ? options.concurrency : 1, async (file) => {
        const key = step.copies ? entryCopyKey(file.md5) : file.path;
        await options.store.put(key, await options.read(file), { contentType: file.contentType, cacheControl: file.cacheControl });
        if (step.copies) {
          result.copied += 1;
        } else {
          result.uploaded.files += 1;
          result.uploaded.bytes += file.size;
        }
      });
    } catch (error) {
      throw new DeployError(
        rollback
          ? `The rollback stopped in step "${step.name}": ${describe(error)}. The entry files of the steps before it are restored, the others not; every file either names is in the bucket. Run the rollback again.`
          : `Upload failed in step "${step.name}": ${describe(error)}. Nothing after it was uploaded: the previous release's entry files are still in place.`,
        result,
        error,
      );
    }
    log(`uploaded ${step.name} (${step.uploads.length})`);
  }

  try {
    await options.store.put(plan.releaseKey, Buffer.from(`${JSON.stringify(plan.release, null, 2)}\n`), {
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'no-cache',
    });
  } catch (error) {
    throw new DeployError(
      `The ${rollback ? "rollback's entry files are restored" : 'release is uploaded'} but its record ${plan.releaseKey} could not be written: ${describe(error)}. ${rollback ? 'Run the rollback again' : 'Deploy again'}.`,
      result,
      error,
    );
  }
  log(`recorded ${plan.releaseKey}`);

  if (options.cdn && plan.invalidationPaths.length > 0) {
    try {
      result.invalidationId = await options.cdn.invalidate(plan.invalidationPaths, `trailsense-${plan.release.app}-${plan.release.id}`);
    } catch (error) {
      throw new DeployError(
        `The release is live in the bucket, but the invalidation failed: ${describe(error)}. Invalidate ${plan.invalidationPaths.join(' ')} by hand.`,
        result,
        error,
      );
    }
    log(`invalidation ${result.invalidationId}: ${plan.invalidationPaths.join(' ')}`);
  }

  if (plan.deletions.length === 0 && plan.expiredReleases.length === 0) return result;
  try {
    await options.beforePrune?.();
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
    throw new DeployError(`The release is live, but pruning older releases failed: ${describe(error)}. The next deploy prunes again.`, result, error);
  }
  if (plan.deletions.length > 0) {
    const unrecorded = plan.unrecordedDeletions > 0 ? ` (${plan.unrecordedDeletions} in no release record)` : '';
    log(`pruned ${plan.deletions.length} files${unrecorded} of ${plan.expiredReleases.length} older release(s)`);
  }
  return result;
}

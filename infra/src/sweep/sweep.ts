/**
 * The sweep: removes and records uploaded objects the object-created function never decided
 * (infra/docs/server.md#trust-on-the-server). The function tags every object it counts; one it
 * refuses it removes. An object still stored without the tag, long after any retry of its event
 * (Lambda retries for up to 6 hours, src/stacks/uploads-stack.ts), was neither: its event failed
 * for good (it is in the failure queue) and it must not stay past the count. A pure core over
 * ports: src/sweep/aws.ts wires them to S3 and the ledger, src/sweep/lambda.ts runs it hourly.
 *
 * Per object under public/ and private/ last modified between SWEEP_WINDOW.minAgeMs and
 * SWEEP_WINDOW.maxAgeMs ago:
 * - tagged `ranchid` → counted, kept;
 * - untagged but counted in the ledger (the tagging failed after the count) → tagged, kept;
 * - untagged and not counted → removed, refusal `unprocessed` recorded (its month: the sweep's).
 * Idempotent: a second run finds the removed object gone, the tagged one tagged; a refusal is one
 * item per object and month (src/ledger/dynamo.ts). One object failing does not stop the others;
 * the run throws at the end so the failure is an error of the function.
 */
import { parseUploadKey } from '@trailsense/shared/object-key';
import type { Refusal } from '../ledger/port';
import { countingMonth } from '../ledger/rules';
import { RANCH_OBJECT_TAG } from '../upload-access';

/** Objects younger than this are left to the object-created function and its retries (6 h); older than the max were swept before. */
export const SWEEP_WINDOW = { minAgeMs: 8 * 3_600_000, maxAgeMs: 3 * 24 * 3_600_000 } as const;

/** The prefixes the object-created function watches (src/stacks/uploads-stack.ts UPLOAD_PREFIXES). */
export const SWEPT_PREFIXES = ['public/', 'private/'] as const;

/** Objects decided at once. */
export const SWEEP_CONCURRENCY = 8;

export interface ListedObject {
  key: string;
  lastModified: Date;
}

/** The upload bucket and the ledger as the sweep needs them. */
export interface SweepPort {
  /** The objects under `prefix`, page by page. */
  list(bucket: string, prefix: string): AsyncIterable<readonly ListedObject[]>;
  /** The object's tags, or null when it is gone. */
  tags(bucket: string, key: string): Promise<Record<string, string> | null>;
  putRanchTag(bucket: string, key: string, ranchId: string): Promise<void>;
  /** Deletes the object; deleting an absent object succeeds. */
  remove(bucket: string, key: string): Promise<void>;
  /** Whether the ledger counted the object. */
  counted(bucket: string, key: string): Promise<boolean>;
  recordRefusal(refusal: Refusal): Promise<void>;
}

export type SweepDecision =
  | { decision: 'swept'; bucket: string; key: string; ranchId: string | null; lastModified: string }
  | { decision: 'retagged'; bucket: string; key: string; ranchId: string }
  | { decision: 'sweep-failed'; bucket: string; key: string; error: string };

export interface SweepDeps {
  port: SweepPort;
  clock: { now(): Date };
  log?: (line: SweepDecision) => void;
}

export interface SweepSummary {
  /** Objects in the window whose tags were read. */
  checked: number;
  swept: number;
  retagged: number;
  failed: number;
}

const defaultLog = (line: SweepDecision) => console.log(JSON.stringify({ source: 'sweep', ...line }));

/** Sweeps `bucket` once (see the file's comment). Throws after the run when any object failed. */
export async function sweepUntagged(bucket: string, deps: SweepDeps): Promise<SweepSummary> {
  const log = deps.log ?? defaultLog;
  const now = deps.clock.now();
  const summary: SweepSummary = { checked: 0, swept: 0, retagged: 0, failed: 0 };
  const errors: string[] = [];

  const decide = async (object: ListedObject) => {
    const age = now.getTime() - object.lastModified.getTime();
    if (age < SWEEP_WINDOW.minAgeMs || age > SWEEP_WINDOW.maxAgeMs) return;
    try {
      const tags = await deps.port.tags(bucket, object.key);
      summary.checked++;
      if (tags === null || tags[RANCH_OBJECT_TAG] !== undefined) return;
      const ranchId = parseUploadKey(object.key)?.ranchId ?? null;
      if (ranchId !== null && (await deps.port.counted(bucket, object.key))) {
        await deps.port.putRanchTag(bucket, object.key, ranchId);
        summary.retagged++;
        log({ decision: 'retagged', bucket, key: object.key, ranchId });
        return;
      }
      await deps.port.remove(bucket, object.key);
      await deps.port.recordRefusal({ bucket, key: object.key, ranchId, yearmo: countingMonth(now), reason: 'unprocessed', at: now.toISOString() });
      summary.swept++;
      log({ decision: 'swept', bucket, key: object.key, ranchId, lastModified: object.lastModified.toISOString() });
    } catch (error) {
      summary.failed++;
      const message = error instanceof Error ? error.message : String(error);
      errors.push(`${object.key}: ${message}`);
      log({ decision: 'sweep-failed', bucket, key: object.key, error: message });
    }
  };

  for (const prefix of SWEPT_PREFIXES) {
    for await (const page of deps.port.list(bucket, prefix)) {
      for (let i = 0; i < page.length; i += SWEEP_CONCURRENCY) await Promise.all(page.slice(i, i + SWEEP_CONCURRENCY).map(decide));
    }
  }
  if (errors.length > 0) throw new Error(`sweep: ${errors.length} object(s) failed: ${errors.slice(0, 10).join('; ')}`);
  return summary;
}

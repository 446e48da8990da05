/**
 * The object-created function's decisions, as a pure core over ports (docs/architecture.md#trust-on-the-server).
 * Production wires the ports to S3 and DynamoDB (aws.ts, lambda.ts); the sandbox wires them to
 * s3rver and SQLite (sandbox/src/s3.ts) and runs this very code on its object-created events.
 *
 * Per `ObjectCreated:*` record:
 * 1. the key (URL-encoded in the event, `+` for a space) must follow the layout
 *    (shared/src/uploads/object-key.ts) — else the object is removed, refusal `outside-layout`;
 * 2. the object's `ranchid` metadata (possibly RFC 2047-encoded) must name the key's ranch —
 *    else removed, `ranch-mismatch`. The key's ranch is the one IAM bound to the caller's token
 *    (infra/src/upload-access.ts); the metadata alone is whatever the caller sent;
 * 3. the ranch must exist — else removed, `unknown-ranch`;
 * 4. the ledger counts the object for the ranch's month, at most once per object (S3 delivers
 *    at least once) and never past the ranch's ceiling (shared/src/domain/quota.ts), atomically:
 *    counted (or already counted) → the object gets the `ranchid` tag; over the ceiling → removed,
 *    `monthly-limit`.
 * An object already gone (removed since, or a redelivered event for a refused object) is skipped.
 *
 * The month is `YYYY_MM` of the clock's now in UTC: the month in which the upload is counted.
 *
 * Failures: one record failing does not stop the others; when any failed, `handleObjectCreated`
 * throws an `ObjectCreatedFailure` after all were tried, so Lambda's asynchronous invocation
 * retries the whole event (twice, then its on-failure destination). Every step is idempotent (a
 * counted object is a duplicate the second time, a tag is set again, removing an absent object
 * succeeds), so a retry redoes only what is missing.
 */
import { decodeMetadataValue } from '@trailsense/shared/metadata-encoding';
import { parseUploadKey } from '@trailsense/shared/object-key';
import { ranchUploadCeiling } from '@trailsense/shared/quota';

/** The part of an S3 event notification record the function reads (aws-lambda's S3EventRecord fits). */
export interface ObjectCreatedRecord {
  eventName: string;
  s3: { bucket: { name: string }; object: { key: string } };
}

export interface ObjectCreatedEvent {
  Records: readonly ObjectCreatedRecord[];
}

/** The upload bucket as the function needs it. */
export interface ObjectPort {
  /** The object's user metadata (names lower-case, without `x-amz-meta-`), or null when there is no such object. */
  headMetadata(bucket: string, key: string): Promise<Record<string, string> | null>;
  /** Sets the object's `ranchid` tag (infra/src/upload-access.ts RANCH_OBJECT_TAG). */
  putRanchTag(bucket: string, key: string, ranchId: string): Promise<void>;
  /** Deletes the object; deleting an absent object succeeds. */
  remove(bucket: string, key: string): Promise<void>;
}

export interface LedgerEntry {
  bucket: string;
  key: string;
  ranchId: string;
  /** `YYYY_MM` in UTC. */
  yearmo: string;
  /** ISO 8601. */
  at: string;
}

export type CountResult = 'counted' | 'duplicate' | 'over-limit';

export type RefusalReason = 'outside-layout' | 'ranch-mismatch' | 'unknown-ranch' | 'monthly-limit';

export interface Refusal {
  bucket: string;
  key: string;
  /** The ranch the key names, or null when the key is outside the layout. */
  ranchId: string | null;
  yearmo: string;
  reason: RefusalReason;
  at: string;
  /** The metadata's ranch, for a mismatch. */
  claimedRanchId?: string;
}

/** The upload counts: one atomic decision per object. */
export interface LedgerPort {
  /**
   * Counts the object for its ranch and month unless it was counted before (`duplicate`) or the
   * month's count has reached `ceiling` (`over-limit`, nothing changed) — atomically.
   */
  count(entry: LedgerEntry, ceiling: number): Promise<CountResult>;
  recordRefusal(refusal: Refusal): Promise<void>;
}

export interface RanchPort {
  /** The ranch's `max_monthly_uploads`, or null for a ranch that does not exist. */
  maxMonthlyUploads(ranchId: string): Promise<number | null>;
}

export interface ObjectCreatedDeps {
  objects: ObjectPort;
  ledger: LedgerPort;
  ranches: RanchPort;
  clock: { now(): Date };
  /** One structured line per decision (default: JSON on stdout, which Lambda sends to CloudWatch). */
  log?: (line: Decision) => void;
}

export type Decision =
  | { decision: 'ignored'; eventName: string; bucket: string; key: string }
  | { decision: 'gone'; bucket: string; key: string }
  | { decision: 'counted' | 'duplicate'; bucket: string; key: string; ranchId: string; yearmo: string }
  | { decision: 'refused'; bucket: string; key: string; ranchId: string | null; yearmo: string; reason: RefusalReason; claimedRanchId?: string }
  | { decision: 'failed'; bucket: string; key: string; error: string };

/** Thrown after every record was tried when some failed, so the invocation is retried. */
export class ObjectCreatedFailure extends Error {
  constructor(readonly failures: readonly { bucket: string; key: string; error: unknown }[]) {
    super(`object-created: ${failures.length} record(s) failed: ${failures.map((f) => `${f.bucket}/${f.key}: ${String(f.error)}`).join('; ')}`);
    this.name = 'ObjectCreatedFailure';
  }
}

/** `YYYY_MM` of a time in UTC (the product API's upload-metrics month format). */
export function utcYearMonth(date: Date): string {
  return `${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** An S3 event key as stored: event keys are URL-encoded, with `+` for a space. */
export function decodeEventKey(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}

/** The inverse of `decodeEventKey`, as S3 writes keys into events (a sandbox emits events with it). */
export function encodeEventKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%20/g, '+'))
    .join('/');
}

const defaultLog = (line: Decision) => console.log(JSON.stringify({ source: 'object-created', ...line }));

async function handleRecord(record: ObjectCreatedRecord, deps: ObjectCreatedDeps, log: (line: Decision) => void): Promise<void> {
  const bucket = record.s3.bucket.name;
  if (!record.eventName.startsWith('ObjectCreated:')) {
    log({ decision: 'ignored', eventName: record.eventName, bucket, key: record.s3.object.key });
    return;
  }
  const key = decodeEventKey(record.s3.object.key);
  const now = deps.clock.now();
  const at = now.toISOString();
  const yearmo = utcYearMonth(now);
  const refuse = async (reason: RefusalReason, ranchId: string | null, claimedRanchId?: string) => {
    await deps.objects.remove(bucket, key);
    const extra = claimedRanchId === undefined ? {} : { claimedRanchId };
    await deps.ledger.recordRefusal({ bucket, key, ranchId, yearmo, reason, at, ...extra });
    log({ decision: 'refused', bucket, key, ranchId, yearmo, reason, ...extra });
  };

  const parsed = parseUploadKey(key);
  if (!parsed) return refuse('outside-layout', null);
  const metadata = await deps.objects.headMetadata(bucket, key);
  if (metadata === null) {
    log({ decision: 'gone', bucket, key });
    return;
  }
  const claimed = metadata['ranchid'];
  const claimedRanchId = claimed === undefined ? '' : decodeMetadataValue(claimed);
  if (claimedRanchId !== parsed.ranchId) return refuse('ranch-mismatch', parsed.ranchId, claimedRanchId);
  const max = await deps.ranches.maxMonthlyUploads(parsed.ranchId);
  if (max === null) return refuse('unknown-ranch', parsed.ranchId);
  const result = await deps.ledger.count({ bucket, key, ranchId: parsed.ranchId, yearmo, at }, ranchUploadCeiling(max));
  if (result === 'over-limit') return refuse('monthly-limit', parsed.ranchId);
  await deps.objects.putRanchTag(bucket, key, parsed.ranchId);
  log({ decision: result, bucket, key, ranchId: parsed.ranchId, yearmo });
}

/** Decides every record of an S3 event (see the file's comment); throws `ObjectCreatedFailure` if any failed. */
export async function handleObjectCreated(event: ObjectCreatedEvent, deps: ObjectCreatedDeps): Promise<void> {
  const log = deps.log ?? defaultLog;
  const failures: { bucket: string; key: string; error: unknown }[] = [];
  for (const record of event.Records) {
    try {
      await handleRecord(record, deps, log);
    } catch (error) {
      const bucket = record.s3.bucket.name;
      const key = record.s3.object.key;
      failures.push({ bucket, key, error });
      log({ decision: 'failed', bucket, key, error: error instanceof Error ? error.message : String(error) });
    }
  }
  if (failures.length > 0) throw new ObjectCreatedFailure(failures);
}

/**
 * The object-created function's decisions, as a pure core over ports (infra/docs/server.md#trust-on-the-server).
 * Production wires the ports to S3 and DynamoDB (aws.ts, src/ledger/dynamo.ts, lambda.ts); the
 * sandbox wires them to s3rver and SQLite (sandbox/src/s3-object-created.ts) and runs this very code on its
 * object-created events.
 *
 * Per `ObjectCreated:*` record:
 * 1. the key (URL-encoded in the event, `+` for a space) must follow the layout
 *    (shared/src/uploads/object-key.ts) — else the object is removed, refusal `outside-layout`;
 * 2. the object must be a photo the uploader would send: at most 50 MB by its head (else
 *    `too-large`; a smaller copy, `photo_form` `copy`, below 80 % of the original its
 *    fingerprint names and at most 4 MB, `copyFits`, and without a fingerprint `malformed-metadata`), stored as `image/jpeg` or `image/jpg` and starting with a JPEG's FF D8 FF, read
 *    with a ranged GET of its first three bytes (else `not-jpeg`). The browser checks both
 *    (uploader-remote/src/features/upload/model/file-filter.ts); a crafted client need not;
 * 3. the object's `ranchid` metadata (possibly RFC 2047-encoded) must name the key's ranch —
 *    else removed, `ranch-mismatch` (`malformed-metadata` when a value cannot be decoded). The
 *    key's ranch is the one IAM bound to the caller's token (infra/src/upload-access.ts); the
 *    metadata alone is whatever the caller sent. Its `photo_form` metadata, when present, must be
 *    `copy` or `original` — else removed, `malformed-metadata` (absent: an original, from an
 *    uploader before copies). So too (`wellFormedCapture`, decoded first) a capture correction
 *    that is not as the uploader writes it (shared/src/uploads/wire.ts `captureCorrectionOf`:
 *    `camera_capture_time` and `capture_correction` both or neither, with a `capture_time` that
 *    many seconds after the camera's), a `photo_turn` other than 90, 180 or 270, and any
 *    `photo_turn` on a copy (the browser made it upright): no uploader writes them, and which
 *    time or turn the ranch should trust would be a guess;
 * 4. the ranch must exist — else removed, `unknown-ranch`;
 * 5. an original (infra/docs/server.md#smaller-copies) whose well-formed `fingerprint` metadata
 *    names a photo the ranch has only as a smaller copy (src/ledger/port.ts `photoForms`) and
 *    has the size that fingerprint names (else it is not that photo: decided below without a
 *    fingerprint, nothing read) is fingerprinted from its stored bytes (its head's size, ranged GETs of the sampled ranges:
 *    stored-fingerprint.ts). The bytes are that photo → the ledger records the upgrade
 *    (`upgradePhoto`: once, whatever the deliveries, atomically against a count or another
 *    upgrade): counted in no month, no reservation needed nor used, the object gets the `ranchid`
 *    tag, decision `upgraded` (a second delivery: `duplicate`); the copy stays stored. Another
 *    original of it came first (`not-a-copy`) → decided below as an original of a photo the
 *    ranch has. The bytes are another photo → a new photo, by the fingerprint they have: decided
 *    below, recorded under that fingerprint. No claim gets a photo stored uncounted;
 * 6. the object's `reservation` metadata must name a reservation the uploads API granted to the
 *    key's ranch (src/uploads-api/handler.ts) — else removed, `no-reservation`: it was sent
 *    without asking (an original of a photo the ranch has as an original too — unless the
 *    ledger says this very object upgraded the copy: a second delivery, `duplicate`);
 * 7. the ledger decides the object once, whatever the deliveries (S3 delivers at least once, and
 *    two may run at once: src/ledger/port.ts `countObject`), by src/ledger/rules.ts's `countUnder`
 *    in its reservation's month: a slot of a live reservation, or room left beside every live
 *    reservation for one that is retired — atomically. Counted (or already counted) → the object
 *    gets the `ranchid` tag, and its fingerprint joins the ranch's photos, in its form (a copy
 *    counts as an original does; a photo the ranch has as an original stays one); no room →
 *    removed, `monthly-limit`; its month closed before S3 stored it (the event's time, `storedTime`,
 *    however late the function runs) → removed, `month-closed`. A
 *    second delivery of a refused object removes it again; none can count it.
 * An object already gone (removed since, or a redelivered event for a refused object) is skipped.
 *
 * Deterministic failures are refusals, never errors: what fails the same way on every attempt
 * would only end in the failure queue with the object stored, untagged and uncounted. So a key
 * that cannot be decoded (`malformed-key`), metadata that cannot be decoded
 * (`malformed-metadata`) and an object S3 refuses to read for good (`unreadable`: HeadObject
 * answers 400 for an object encrypted with a customer key, SSE-C, which the bucket policy also
 * denies, src/stacks/uploads-stack.ts) are removed and recorded like any other refusal. What is
 * left (a ledger or S3 outage outlasting Lambda's retries) leaves an untagged object, which the
 * sweep (src/sweep/sweep.ts) removes and records once it is older than any retry.
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
import { captureCorrectionOf, METADATA, PHOTO_FORMS, photoTurnOf } from '@trailsense/shared/uploads-wire';
import { FINGERPRINT_PATTERN, sizeOfFingerprint } from '../ledger/port';
import type { LedgerPort, ObjectChecksum, PhotoForm, RanchPort, RefusalReason } from '../ledger/port';
import { countingMonth, countUnder, reservationMonth } from '../ledger/rules';
import { storedFingerprint } from './stored-fingerprint';

export type { LedgerPort, RanchPort, Refusal, RefusalReason } from '../ledger/port';

/** The part of an S3 event notification record the function reads (aws-lambda's S3EventRecord fits). */
export interface ObjectCreatedRecord {
  eventName: string;
  /** When S3 finished storing the object (ISO 8601), as S3 writes it in the event. */
  eventTime?: string;
  s3: { bucket: { name: string }; object: { key: string } };
}

/**
 * The longest Lambda keeps an object-created event for retries (the function's `maxEventAge`,
 * src/stacks/uploads-stack.ts): 6 hours, the most asynchronous invocation allows.
 */
export const MAX_EVENT_AGE_S = 6 * 3600;

/** Beyond the event's age: an attempt under way when the age ran out (the function's 30 s timeout), with room for clock skew. */
const EVENT_TIME_SLACK_MS = 10 * 60_000;

/**
 * When S3 stored the record's object, as the month's close judges it: the event's `eventTime`.
 * Only S3 invokes the function (its resource policy names the bucket), so the time is S3's, not a
 * client's; still, a time no genuine delivery can carry is not believed: one after `now` (a clock
 * ahead) or older than Lambda keeps an event (a replay by someone allowed to invoke it) counts as
 * `now`, and so does an absent or malformed one. So a late event can count an object in the month
 * it was stored in, within that month's allowance, and never one stored after the close.
 */
export function storedTime(record: Pick<ObjectCreatedRecord, 'eventTime'>, now: number): number {
  const at = typeof record.eventTime === 'string' ? Date.parse(record.eventTime) : NaN;
  if (!Number.isFinite(at) || at > now || at < now - MAX_EVENT_AGE_S * 1000 - EVENT_TIME_SLACK_MS) return now;
  return at;
}

export interface ObjectCreatedEvent {
  Records: readonly ObjectCreatedRecord[];
}

/** The largest object counted: the uploader's own limit (uploader-remote/src/features/upload/model/file-filter.ts MAX_FILE_BYTES). */
export const MAX_OBJECT_BYTES = 50 * 1024 * 1024;

/**
 * The largest a smaller copy may be: below COPY_SHARE_OF_ORIGINAL of the original its fingerprint
 * names (the uploader sends a copy only then: uploader-remote/src/features/upload/model/smaller-copy.ts
 * `worthSending`), and never over COPY_MAX_BYTES (a 2,048 px JPEG at quality 0.75 is about 0.2 MB
 * and 2.5 MB at the very worst: docs/performance.md#smaller-copies). Else `too-large`.
 */
export const COPY_SHARE_OF_ORIGINAL = 0.8;
export const COPY_MAX_BYTES = 4 * 1024 * 1024;

/** Whether a copy of `size` bytes can be a copy of the photo `fingerprint` names (null: none named). */
export function copyFits(size: number, fingerprint: string | null): boolean {
  const original = fingerprint === null ? null : sizeOfFingerprint(fingerprint);
  return original !== null && size <= COPY_MAX_BYTES && size < original * COPY_SHARE_OF_ORIGINAL;
}

/** The content types a JPEG may be stored with: the uploader sends `image/jpg` (uploader-remote/src/features/upload/services/upload/amplify-storage.ts). */
export const JPEG_CONTENT_TYPES: readonly string[] = ['image/jpeg', 'image/jpg'];

/** Every JPEG starts with SOI (FF D8) and a marker's FF. */
export const JPEG_MAGIC: readonly number[] = [0xff, 0xd8, 0xff];

/** What HeadObject tells of an object. */
export interface ObjectHead {
  /** User metadata, names lower-case, without `x-amz-meta-`. */
  metadata: Record<string, string>;
  /** Bytes. */
  size: number;
  /** The Content-Type it was stored with ('' when none). */
  contentType: string;
  /**
   * Its full checksum as S3 keeps it (HeadObject with `ChecksumMode: ENABLED`): the client's, which
   * S3 verified against the bytes it received, or S3's own default; null (or absent) when it has none.
   */
  checksum?: ObjectChecksum | null;
}

/** The upload bucket as the function needs it. */
export interface ObjectPort {
  /**
   * The object's head; null when there is no such object; `unreadable` when S3 refuses to read it
   * in a way no retry changes (400: an SSE-C object, whose key only the uploader has).
   */
  head(bucket: string, key: string): Promise<ObjectHead | null | 'unreadable'>;
  /**
   * The object's first `count` bytes (a ranged GetObject, `bytes=0-<count-1>`): fewer when the
   * object is shorter, null when there is no such object.
   */
  firstBytes(bucket: string, key: string, count: number): Promise<Uint8Array | null>;
  /**
   * The object's bytes [start, end) (a ranged GetObject, `bytes=<start>-<end - 1>`; start < end ≤
   * its size): null when there is no such object. An original's sampled ranges, to fingerprint it.
   */
  range(bucket: string, key: string, start: number, end: number): Promise<Uint8Array | null>;
  /** Sets the object's `ranchid` tag (infra/src/upload-access.ts RANCH_OBJECT_TAG). */
  putRanchTag(bucket: string, key: string, ranchId: string): Promise<void>;
  /** Deletes the object; deleting an absent object succeeds. */
  remove(bucket: string, key: string): Promise<void>;
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
  | { decision: 'counted' | 'duplicate'; bucket: string; key: string; ranchId: string; yearmo: string; slot?: 'reserved' | 'unreserved' }
  | { decision: 'upgraded'; bucket: string; key: string; ranchId: string; yearmo: string; fingerprint: string }
  | { decision: 'refused'; bucket: string; key: string; ranchId: string | null; yearmo: string; reason: RefusalReason; claimedRanchId?: string }
  | { decision: 'failed'; bucket: string; key: string; error: string };

/** Thrown after every record was tried when some failed, so the invocation is retried. */
export class ObjectCreatedFailure extends Error {
  constructor(readonly failures: readonly { bucket: string; key: string; error: unknown }[]) {
    super(`object-created: ${failures.length} record(s) failed: ${failures.map((f) => `${f.bucket}/${f.key}: ${String(f.error)}`).join('; ')}`);
    this.name = 'ObjectCreatedFailure';
  }
}

/** An S3 event key as stored: event keys are URL-encoded, with `+` for a space. Null when it is not a valid encoding. */
export function decodeEventKey(key: string): string | null {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The inverse of `decodeEventKey`, as S3 writes keys into events (a sandbox emits events with it). */
export function encodeEventKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%20/g, '+'))
    .join('/');
}

const defaultLog = (line: Decision) => console.log(JSON.stringify({ source: 'object-created', ...line }));

/** A metadata value as sent, or null when it cannot be decoded (a malformed RFC 2047 word). */
function decoded(value: string | undefined): string | null {
  if (value === undefined) return '';
  try {
    return decodeMetadataValue(value);
  } catch {
    return null;
  }
}

/** The object's form by its `photo_form` metadata: an original without it (uploaders from before copies); null when it names neither form. */
export function photoFormOf(value: string | undefined): PhotoForm | null {
  if (value === undefined) return 'original';
  const text = decoded(value);
  return PHOTO_FORMS.find((form) => form === text) ?? null;
}

/** A metadata value decoded: undefined when absent, null when it cannot be decoded. */
function decodedIfPresent(value: string | undefined): string | undefined | null {
  return value === undefined ? undefined : decoded(value);
}

/**
 * Whether an object's capture correction and turn are as the uploader writes them
 * (uploader-remote/src/features/upload/services/upload/amplify-storage.ts `uploadMetadata`), each
 * value decoded first: a correction `captureCorrectionOf` reads as none or corrected (capture_time
 * is read only with one: alone, it is the camera's, as before corrections), and a turn
 * `photoTurnOf` reads, on an original only. A value that cannot be decoded is malformed too.
 */
export function wellFormedCapture(metadata: Record<string, string | undefined>, form: PhotoForm): boolean {
  const cameraCaptureTime = decodedIfPresent(metadata[METADATA.cameraCaptureTime]);
  const correction = decodedIfPresent(metadata[METADATA.captureCorrection]);
  const turnValue = decodedIfPresent(metadata[METADATA.turn]);
  if (cameraCaptureTime === null || correction === null || turnValue === null) return false;
  if (cameraCaptureTime !== undefined || correction !== undefined) {
    const captureTime = decodedIfPresent(metadata[METADATA.captureTime]);
    if (captureTime === null) return false;
    const read = captureCorrectionOf({
      [METADATA.captureTime]: captureTime,
      [METADATA.cameraCaptureTime]: cameraCaptureTime,
      [METADATA.captureCorrection]: correction,
    });
    if (read.kind === 'malformed') return false;
  }
  const turn = photoTurnOf(turnValue);
  return turn !== null && (turn === 0 || form === 'original');
}

/** A stored content type as a JPEG's: `image/jpeg` or `image/jpg`, whatever the case, parameters aside. */
export function isJpegContentType(contentType: string): boolean {
  return JPEG_CONTENT_TYPES.includes((contentType.split(';')[0] ?? '').trim().toLowerCase());
}

/** Whether `bytes` start as a JPEG does (FF D8 FF). */
export function hasJpegMagic(bytes: Uint8Array): boolean {
  return JPEG_MAGIC.every((byte, i) => bytes[i] === byte);
}

/** What an original naming a photo the ranch has only as a copy turned out to be (`checkOriginal`). */
type OriginalCheck =
  | { kind: 'gone' }
  | { kind: 'upgraded' }
  | { kind: 'duplicate' }
  /** To be decided as any object, as the photo `fingerprint`; `heldOriginal`: the ranch has that photo as an original. */
  | { kind: 'photo'; fingerprint: string | null; heldOriginal: boolean };

/**
 * An original whose metadata names the well-formed fingerprint `claimed`: when the ranch has that
 * photo only as a copy, its stored bytes are fingerprinted (ranged GETs of the sampled ranges),
 * and only when they are that photo does the ledger record the upgrade — once, whatever the
 * deliveries (src/ledger/port.ts `upgradePhoto`). Bytes of another photo make a new photo, by the
 * fingerprint they have: no claim gets a photo stored uncounted.
 */
async function checkOriginal(
  deps: ObjectCreatedDeps,
  object: { bucket: string; key: string; ranchId: string; size: number; checksum: ObjectChecksum | null; yearmo: string; at: string },
  claimed: string,
): Promise<OriginalCheck> {
  const held = (await deps.ledger.photoForms(object.ranchId, [claimed])).get(claimed);
  if (held !== 'copy') return { kind: 'photo', fingerprint: claimed, heldOriginal: held === 'original' };
  // The fingerprint names the photo's size: an object of another size cannot be that photo, and
  // is not read to find out. Its own fingerprint unknown, it is decided as a photo without one.
  if (sizeOfFingerprint(claimed) !== object.size) return { kind: 'photo', fingerprint: null, heldOriginal: false };
  const computed = await storedFingerprint(object.size, (r) => deps.objects.range(object.bucket, object.key, r.start, r.end));
  if (computed === null) return { kind: 'gone' };
  if (computed !== claimed) return { kind: 'photo', fingerprint: computed, heldOriginal: false };
  const { bucket, key, ranchId, checksum, yearmo, at } = object;
  const outcome = await deps.ledger.upgradePhoto({ bucket, key, ranchId, fingerprint: claimed, yearmo, checksum, at });
  if (outcome === 'upgraded') return { kind: 'upgraded' };
  if (outcome === 'duplicate') return { kind: 'duplicate' };
  // Another original of it came first (or this object was refused before): decided as any original of a photo the ranch has.
  return { kind: 'photo', fingerprint: claimed, heldOriginal: true };
}

async function handleRecord(record: ObjectCreatedRecord, deps: ObjectCreatedDeps, log: (line: Decision) => void): Promise<void> {
  const bucket = record.s3.bucket.name;
  if (!record.eventName.startsWith('ObjectCreated:')) {
    log({ decision: 'ignored', eventName: record.eventName, bucket, key: record.s3.object.key });
    return;
  }
  const decodedKey = decodeEventKey(record.s3.object.key);
  // Not a key S3 writes; removing it as sent is harmless (absent: nothing to delete).
  const key = decodedKey ?? record.s3.object.key;
  const now = deps.clock.now();
  const at = now.toISOString();
  let yearmo = countingMonth(now);
  const refuse = async (reason: RefusalReason, ranchId: string | null, claimedRanchId?: string) => {
    await deps.objects.remove(bucket, key);
    const extra = claimedRanchId === undefined ? {} : { claimedRanchId };
    await deps.ledger.recordRefusal({ bucket, key, ranchId, yearmo, reason, at, ...extra });
    log({ decision: 'refused', bucket, key, ranchId, yearmo, reason, ...extra });
  };
  const gone = () => log({ decision: 'gone', bucket, key });

  if (decodedKey === null) return refuse('malformed-key', null);
  const parsed = parseUploadKey(key);
  if (!parsed) return refuse('outside-layout', null);
  const { ranchId } = parsed;
  const head = await deps.objects.head(bucket, key);
  if (head === null) return gone();
  if (head === 'unreadable') return refuse('unreadable', ranchId);
  // What the browser would never send is refused before the ledger is read.
  if (head.size > MAX_OBJECT_BYTES) return refuse('too-large', ranchId);
  if (!isJpegContentType(head.contentType) || head.size < JPEG_MAGIC.length) return refuse('not-jpeg', ranchId);
  const first = await deps.objects.firstBytes(bucket, key, JPEG_MAGIC.length);
  if (first === null) return gone();
  if (!hasJpegMagic(first)) return refuse('not-jpeg', ranchId);
  const { metadata } = head;
  const claimedRanchId = decoded(metadata['ranchid']);
  if (claimedRanchId === null) return refuse('malformed-metadata', ranchId);
  if (claimedRanchId !== ranchId) return refuse('ranch-mismatch', ranchId, claimedRanchId);
  const form = photoFormOf(metadata[METADATA.form]);
  if (form === null || !wellFormedCapture(metadata, form)) return refuse('malformed-metadata', ranchId);
  const max = await deps.ranches.maxMonthlyUploads(ranchId);
  if (max === null) return refuse('unknown-ranch', ranchId);
  /** A kept object that counts nothing now: tagged again, or for the first time as an upgrade. */
  const kept = async (line: { decision: 'duplicate' } | { decision: 'upgraded'; fingerprint: string }) => {
    await deps.objects.putRanchTag(bucket, key, ranchId);
    log({ ...line, bucket, key, ranchId, yearmo });
  };

  const claimed = metadata[METADATA.fingerprint] ?? '';
  let fingerprint = FINGERPRINT_PATTERN.test(claimed) ? claimed : null;
  let heldOriginal = false;
  // A copy names its original (the uploader always sends the fingerprint) and is smaller than it.
  if (form === 'copy' && fingerprint === null) return refuse('malformed-metadata', ranchId);
  if (form === 'copy' && !copyFits(head.size, fingerprint)) return refuse('too-large', ranchId);
  if (form === 'original' && fingerprint !== null) {
    const original = await checkOriginal(deps, { bucket, key, ranchId, size: head.size, checksum: head.checksum ?? null, yearmo, at }, fingerprint);
    if (original.kind === 'gone') return gone();
    if (original.kind === 'upgraded') return kept({ decision: 'upgraded', fingerprint });
    if (original.kind === 'duplicate') return kept({ decision: 'duplicate' });
    ({ fingerprint, heldOriginal } = original);
  }
  const reservation = metadata[METADATA.reservation] ?? '';
  const month = reservationMonth(reservation);
  if (month === null) {
    // An original of a photo the ranch has as an original: refused, unless it is the one that
    // upgraded the copy (a second delivery), which must not be removed.
    const decided = heldOriginal ? await deps.ledger.objectDecision(bucket, key) : null;
    if (decided === 'upgraded' || decided === 'counted') return kept({ decision: 'duplicate' });
    return refuse('no-reservation', ranchId);
  }
  // The photo counts in the month it was reserved in, whenever it arrives.
  yearmo = month;
  const ceiling = ranchUploadCeiling(max);
  const result = await deps.ledger.countObject(
    { bucket, key, ranchId, yearmo, reservation, fingerprint, form, checksum: head.checksum ?? null, at },
    (state) => {
      const { next, outcome } = countUnder(state, { id: reservation, ceiling, now: now.getTime(), storedAt: storedTime(record, now.getTime()) });
      return { next, result: outcome };
    },
  );
  if (result === 'over-limit') return refuse('monthly-limit', ranchId);
  if (result === 'no-reservation') return refuse('no-reservation', ranchId);
  if (result === 'month-closed') return refuse('month-closed', ranchId);
  await deps.objects.putRanchTag(bucket, key, ranchId);
  log({ decision: result === 'duplicate' ? 'duplicate' : 'counted', bucket, key, ranchId, yearmo, ...(result === 'duplicate' ? {} : { slot: result }) });
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

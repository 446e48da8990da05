/**
 * The upload ledger as the uploads API and the object-created function need it: atomic changes to
 * a ranch-month (src/ledger/rules.ts decides them), the objects counted, the photos a ranch has
 * (and whether only as smaller copies: an original upgrades a copy, counted in no month), and the
 * refusals. Two adapters: production's on DynamoDB (src/ledger/dynamo.ts), the sandbox's on SQLite
 * (sandbox/src/ledger.ts). Both run the same rules and keep the same records
 * (infra/docs/server.md#the-ledger); only the atomicity is theirs. The port's suites run on both,
 * the DynamoDB one on both of its test engines (infra/test/support/ledgers.ts).
 */
import type { PhotoForm } from '@trailsense/shared/uploads-wire';
import type { CountOutcome, Hold, MonthState } from './rules';

export type { PhotoForm } from '@trailsense/shared/uploads-wire';

/** What a change to a month decides: the state to write (null: nothing to write) and its answer. */
export interface MonthChange<T> {
  next: MonthState | null;
  result: T;
}

/**
 * An object's full checksum as S3 keeps it (HeadObject with `ChecksumMode: ENABLED`): S3 verified
 * the bytes it received against it when the client sent it — the uploader sends a CRC32 of the
 * bytes it read from the file (infra/docs/server.md#checksums) — or computed it itself when the
 * client sent none (its default, a CRC64NVME).
 */
export interface ObjectChecksum {
  /** `CRC32`, `CRC32C`, `CRC64NVME`, `SHA1`, `SHA256`, … as S3 names it. */
  algorithm: string;
  /** FULL_OBJECT: of the whole object; COMPOSITE: a multipart upload's, of its parts' checksums. */
  type: 'FULL_OBJECT' | 'COMPOSITE';
  /** Base64 (a COMPOSITE one ends in `-<parts>`). */
  value: string;
}

/** A checksum as the ledgers store it in one text attribute: `CRC32:FULL_OBJECT:<base64>`. */
export function checksumText(checksum: ObjectChecksum): string {
  return `${checksum.algorithm}:${checksum.type}:${checksum.value}`;
}

/** The checksum of `checksumText`, or null for none or a text that is not one. */
export function checksumFromText(text: string | null | undefined): ObjectChecksum | null {
  const m = /^([A-Z0-9]+):(FULL_OBJECT|COMPOSITE):([A-Za-z0-9+/=]+(?:-\d+)?)$/.exec(text ?? '');
  return m ? { algorithm: m[1] as string, type: m[2] as ObjectChecksum['type'], value: m[3] as string } : null;
}

/** An object counted for a ranch-month. */
export interface CountedObject {
  bucket: string;
  key: string;
  ranchId: string;
  /** The month it counts in (its reservation's), `YYYY_MM`. */
  yearmo: string;
  /** The reservation its metadata names (of that month). */
  reservation: string;
  /**
   * The photo's fingerprint: as the uploader computed it, when the object carried a well-formed one
   * (or as the function computed it from an original's stored bytes, when they were not the photo
   * the metadata named: src/object-created/handler.ts).
   */
  fingerprint: string | null;
  /** How the photo travelled (its `photo_form`): a copy counts as an original does, once. */
  form: PhotoForm;
  /** The object's checksum as S3 keeps it; null when S3 has none (an object stored before S3 kept one). */
  checksum: ObjectChecksum | null;
  /** ISO 8601. */
  at: string;
}

/**
 * What a ledger keeps of a photo a ranch has (by ranch and fingerprint). Every ledger derives it
 * the same way (`countedPhoto`, `upgradedPhoto`; src/ledger/dynamo.ts with update expressions of
 * the same effect). A record from before forms were kept has none: it is an original.
 */
export interface PhotoRecord {
  /** `original` once any original of it was counted or upgraded it; never back to `copy`. */
  form: PhotoForm;
  /** `<bucket>/<key>` of the object it was last counted under, and when. */
  key: string;
  at: string;
  /** That object's full checksum, beside the fingerprint (which samples 128 KiB of it); absent when it had none. */
  checksum?: ObjectChecksum;
  /** The first copy counted of it. */
  copyKey?: string;
  /** The first original counted of it, or the original that upgraded its copy. */
  originalKey?: string;
  /** When an original upgraded it (it was counted as a copy first). */
  upgradedAt?: string;
}

/** A photo's record once `object` was counted under it (`before`: its record, if the ranch had it). */
export function countedPhoto(before: PhotoRecord | undefined, object: CountedObject): PhotoRecord {
  const objectKey = `${object.bucket}/${object.key}`;
  const form: PhotoForm = object.form === 'original' || before?.form === 'original' ? 'original' : 'copy';
  const record: PhotoRecord = { ...before, form, key: objectKey, at: object.at };
  // The checksum goes with `key`: the object counted now's, or none.
  delete record.checksum;
  if (object.checksum) record.checksum = object.checksum;
  if (object.form === 'copy') record.copyKey = before?.copyKey ?? objectKey;
  else record.originalKey = before?.originalKey ?? objectKey;
  return record;
}

/** A photo's record once `upgrade` upgraded its copy (`before` is a copy's). */
export function upgradedPhoto(before: PhotoRecord, upgrade: PhotoUpgrade): PhotoRecord {
  return { ...before, form: 'original', originalKey: `${upgrade.bucket}/${upgrade.key}`, upgradedAt: upgrade.at };
}

/**
 * An original whose stored bytes hash to the fingerprint its metadata names, of a photo the ranch
 * has only as a copy (src/object-created/handler.ts): it replaces nothing and counts nothing.
 */
export interface PhotoUpgrade {
  bucket: string;
  key: string;
  ranchId: string;
  /** The photo's fingerprint: the metadata's, and the stored bytes'. */
  fingerprint: string;
  /** The month the decision is recorded in (the current one: the object counts in none). */
  yearmo: string;
  /** The original's checksum as S3 keeps it (kept with the object's decision; the photo's record stays its counted object's). */
  checksum: ObjectChecksum | null;
  /** ISO 8601. */
  at: string;
}

/**
 * What `upgradePhoto` decided:
 * - `upgraded`: the ranch had the photo only as a copy; it has it as an original now (this
 *   object), and nothing was counted;
 * - `duplicate`: another delivery decided this object first (upgraded it, or counted it);
 * - `not-a-copy`: nothing was recorded: the ranch has no such photo or has it as an original
 *   already (another original came first), or the object was refused before. The object is then
 *   decided as any original of a photo the ranch has: counted under its reservation, or refused.
 */
export type UpgradeOutcome = 'upgraded' | 'duplicate' | 'not-a-copy';

/** How the ledger decided an object: counted in a month, an upgrade of a copy (kept, counted in none), or refused. */
export type ObjectDecision = 'counted' | 'upgraded' | 'refused';

/** Why the object-created function (or the sweep, `unprocessed`) removed an object. */
export type RefusalReason =
  | 'outside-layout'
  | 'ranch-mismatch'
  | 'unknown-ranch'
  | 'monthly-limit'
  | 'no-reservation'
  | 'month-closed'
  | 'malformed-metadata'
  | 'malformed-key'
  | 'unreadable'
  | 'too-large'
  | 'not-jpeg'
  | 'unprocessed';

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

export interface LedgerPort {
  /** The month's state as stored (EMPTY_MONTH when it has none). */
  readMonth(ranchId: string, yearmo: string): Promise<MonthState>;
  /**
   * Reads the month, applies `change`, and writes its `next` state unless another writer changed
   * the month in between (then it reads again and applies `change` again): `change` must be pure.
   * With `reservation`, the state `change` sees holds that reservation even once it is retired
   * (`withReservation`). A hold that `next` no longer keeps is recorded first (`retiredBy`), so a
   * reservation is always either in its month or recorded.
   */
  updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>, reservation?: string): Promise<T>;
  /**
   * Decides one object's fate once, whatever the deliveries (S3 delivers events at least once, and
   * two may run at once): the first call applies `change` to the month with the object's
   * reservation (as `updateMonth` with it). When it writes a state, the object is recorded as
   * counted (and its fingerprint among the ranch's photos) in the same atomic write; when it
   * refuses, the object is recorded as refused with that outcome, atomically with the month being
   * as read. Every later call answers `duplicate` for a counted object and the same outcome for a
   * refused one, so no delivery can refuse (and delete) an object another counted.
   */
  countObject(object: CountedObject, change: (state: MonthState) => MonthChange<CountOutcome>): Promise<CountOutcome | 'duplicate'>;
  /**
   * Which of `fingerprints` the ranch has (photos counted under them, in any month, from any
   * device), each with the form it has it in: `copy` while only copies of it were counted. Read
   * as stored now (DynamoDB: a consistent read): the object-created function decides by it.
   */
  photoForms(ranchId: string, fingerprints: readonly string[]): Promise<Map<string, PhotoForm>>;
  /**
   * Records that an original (verified from its stored bytes) upgraded the ranch's copy of its
   * photo, once, whatever the deliveries: atomically, the object is decided (it must not have
   * been) and the photo's form goes from `copy` to `original` (it must be `copy`). Of two
   * originals of one copy at once, or two deliveries of one, exactly one upgrades it.
   */
  upgradePhoto(upgrade: PhotoUpgrade): Promise<UpgradeOutcome>;
  /** How the ledger decided the object, or null when it has not (yet). */
  objectDecision(bucket: string, key: string): Promise<ObjectDecision | null>;
  /**
   * Which of these file sizes some photo of the ranch has (a fingerprint names its size): a file
   * of any other size cannot be a photo the ranch has, so the uploader lists it without reading it.
   */
  knownSizes(ranchId: string, sizes: readonly number[]): Promise<Set<number>>;
  recordRefusal(refusal: Refusal): Promise<void>;
}

/**
 * The state a change about reservation `id` sees: the month's, with that reservation as recorded
 * when the month no longer keeps it (retired: no slots, its own expiry).
 */
export function withReservation(state: MonthState, id: string | undefined, record: Hold | null): MonthState {
  if (id === undefined || record === null || state.holds[id]) return state;
  return { ...state, holds: { ...state.holds, [id]: { ...record, slots: 0 } } };
}

/**
 * The holds of `before` (as stored) that `next` no longer keeps, as they are recorded (no slots
 * left): each must be recorded before `next` is written.
 */
export function retiredBy(before: MonthState, next: MonthState): [string, Hold][] {
  return Object.entries(before.holds)
    .filter(([id]) => !next.holds[id])
    .map(([id, hold]) => [id, { ...hold, slots: 0 }]);
}

/** The ranch records (the product's, read only). */
export interface RanchPort {
  /** The ranch's `max_monthly_uploads`, or null for a ranch that does not exist. */
  maxMonthlyUploads(ranchId: string): Promise<number | null>;
}

// A photo's fingerprint, as the uploader computes it: the wire's (shared/src/uploads/wire.ts).
export { FINGERPRINT_PATTERN, sizeOfFingerprint } from '@trailsense/shared/uploads-wire';

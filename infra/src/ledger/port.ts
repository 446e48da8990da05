/**
 * The upload ledger as the uploads API and the object-created function need it: atomic changes to
 * a ranch-month (src/ledger/rules.ts decides them), the objects counted, the photos a ranch has,
 * and the refusals. Production: DynamoDB (src/ledger/dynamo.ts); the sandbox: SQLite
 * (sandbox/src/ledger.ts). Both run the same rules; only the atomicity is theirs.
 */
import type { MonthState } from './rules';

/** What a change to a month decides: the state to write (null: nothing to write) and its answer. */
export interface MonthChange<T> {
  next: MonthState | null;
  result: T;
}

/** An object counted for a ranch-month. */
export interface CountedObject {
  bucket: string;
  key: string;
  ranchId: string;
  /** The month it counts in (its reservation's), `YYYY_MM`. */
  yearmo: string;
  /** The photo's fingerprint as the uploader computed it, when the object carried a well-formed one. */
  fingerprint: string | null;
  /** ISO 8601. */
  at: string;
}

/** Why the object-created function (or the sweep, `unprocessed`) removed an object. */
export type RefusalReason =
  | 'outside-layout'
  | 'ranch-mismatch'
  | 'unknown-ranch'
  | 'monthly-limit'
  | 'no-reservation'
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
   */
  updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>): Promise<T>;
  /**
   * Like `updateMonth` for one object, at most once per object (S3 delivers events at least
   * once): `duplicate` when the object was counted before; otherwise `change` decides, and when it
   * writes a state the object is recorded (and its fingerprint among the ranch's photos) in the
   * same atomic write.
   */
  countObject<T>(object: CountedObject, change: (state: MonthState) => MonthChange<T>): Promise<T | 'duplicate'>;
  /** Which of `fingerprints` the ranch has: photos counted under them, in any month, from any device. */
  knownPhotos(ranchId: string, fingerprints: readonly string[]): Promise<Set<string>>;
  /**
   * Which of these file sizes some photo of the ranch has (a fingerprint names its size): a file
   * of any other size cannot be a photo the ranch has, so the uploader lists it without reading it.
   */
  knownSizes(ranchId: string, sizes: readonly number[]): Promise<Set<number>>;
  recordRefusal(refusal: Refusal): Promise<void>;
}

/** The ranch records (the product's, read only). */
export interface RanchPort {
  /** The ranch's `max_monthly_uploads`, or null for a ranch that does not exist. */
  maxMonthlyUploads(ranchId: string): Promise<number | null>;
}

/** A photo fingerprint as the uploader computes it (uploader-remote/src/features/upload/model/fingerprint.ts). */
export const FINGERPRINT = /^v1-\d{1,15}-[0-9a-f]{32}$/;

/** The file size a fingerprint names (`v1-<size>-<hash>`). */
export function sizeOfFingerprint(fingerprint: string): number {
  return Number(fingerprint.split('-')[1]);
}

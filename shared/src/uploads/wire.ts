/**
 * The wire between the uploader and the server, in one place: what the uploader sends (the photo's
 * fingerprint and the object's metadata), the month uploads count in, and what the uploads API
 * answers. Both sides import it — the uploader (uploader-remote, bundled from this subpath) and the
 * server (infra/, the sandbox) — so the two cannot spell it differently
 * (docs/architecture.md#the-upload-path). The metrics keep the product API's original
 * `{ total: string }`.
 */
export { countingMonth } from '../domain/quota';

/** A photo's fingerprint: `v1-<size>-<32 hex>` (uploader-remote/src/features/upload/model/fingerprint.ts makes it). */
export const FINGERPRINT_PATTERN = /^v1-\d{1,15}-[0-9a-f]{32}$/;

/** The hex characters of the digest a fingerprint keeps (128 bits of SHA-256). */
export const FINGERPRINT_HEX_CHARS = 32;

/** The fingerprint of a file of `size` bytes whose digest starts with `hex` (at least 32 hex characters). */
export function formatFingerprint(size: number, hex: string): string {
  return `v1-${size}-${hex.slice(0, FINGERPRINT_HEX_CHARS)}`;
}

/** The bytes hashed at each end of a file (the fingerprint samples them: `sampleRanges`). */
export const FINGERPRINT_SAMPLE_BYTES = 64 * 1024;

/** A half-open byte range [start, end) of a file, as `Blob.slice(start, end)` and an HTTP Range (`bytes=start-(end-1)`) take it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The ranges of a `size`-byte file that its fingerprint hashes, in order: the first and the last
 * `FINGERPRINT_SAMPLE_BYTES`, or the whole file in one range when both would overlap or touch
 * (size ≤ 128 KiB), so no byte is hashed twice. An empty file has one empty range. The uploader
 * hashes them from the file; the server from the stored object, to check that an original is the
 * photo its copy claimed to be.
 */
export function sampleRanges(size: number): ByteRange[] {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`Invalid file size: ${size}`);
  if (size <= 2 * FINGERPRINT_SAMPLE_BYTES) return [{ start: 0, end: size }];
  return [
    { start: 0, end: FINGERPRINT_SAMPLE_BYTES },
    { start: size - FINGERPRINT_SAMPLE_BYTES, end: size },
  ];
}

/** The 8-byte little-endian encoding of the size that starts the hashed bytes (SHA-256 over it, then the samples in order). */
export function sizePrefix(size: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(size), true);
  return bytes;
}

/** The file size a fingerprint names. */
export function sizeOfFingerprint(fingerprint: string): number {
  return Number(fingerprint.split('-')[1]);
}

/**
 * The S3 user-metadata keys of an upload. `ranchid` and `camera_name` are the seed's contract;
 * `reservation` (the upload slot) and `fingerprint` (the photo) are what the object-created
 * function counts it by; the rest come from the photo's EXIF when present.
 */
export const METADATA = {
  ranchId: 'ranchid',
  cameraName: 'camera_name',
  reservation: 'reservation',
  fingerprint: 'fingerprint',
  captureTime: 'capture_time',
  cameraMake: 'camera_make',
  cameraModel: 'camera_model',
  cameraSerial: 'camera_serial',
  form: 'photo_form',
  /**
   * The camera's own DateTimeOriginal, in capture_time's form, sent only when the member corrected
   * a camera's lost clock: capture_time is then the corrected time, and this keeps what the camera
   * wrote, so the ranch can tell a corrected time from a camera's (`captureCorrectionOf`).
   */
  cameraCaptureTime: 'camera_capture_time',
  /** The signed seconds added to the camera's clock (`formatCaptureCorrection`), sent with camera_capture_time, never alone. */
  captureCorrection: 'capture_correction',
  /** Clockwise degrees that make an original upright (`photoTurnOf`); never on a copy, which the browser made upright. */
  turn: 'photo_turn',
} as const;

/**
 * How a photo travelled (the `photo_form` metadata): `copy` — a smaller JPEG the browser made of
 * it ("Send smaller copies"), `original` — the camera's file as it is. An object without the key
 * is an original (uploaders from before copies). Either way the `fingerprint` is the original
 * file's: a photo is one photo, and counts once, whatever form reached the ranch first.
 */
export type PhotoForm = 'copy' | 'original';

/** The forms, as the metadata spells them. */
export const PHOTO_FORMS: readonly PhotoForm[] = ['copy', 'original'];

/**
 * A camera's wall clock as the metadata spells it: `YYYY-MM-DDTHH:MM:SS`, then the EXIF offset
 * `±HH:MM` when the camera recorded one (uploader-remote/src/features/upload/model/photo-exif.ts
 * tidies DateTimeOriginal and OffsetTimeOriginal into this form; real zones run to ±14:59).
 */
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})((?:[+-](?:0\d|1[0-4]):[0-5]\d)?)$/;

/**
 * The most a correction may move a clock, either way: 100 years of 365.25 days. A camera that
 * lost its clock restarts at its epoch (2000, 1970 for some), decades off, never centuries; a
 * larger value is a crafted or broken one.
 */
export const MAX_CAPTURE_CORRECTION_SECONDS = 100 * 36525 * 864;

/** A correction as the metadata spells it: an explicit sign, then the seconds without leading zeros (so never zero). */
const CORRECTION = /^[+-][1-9]\d{0,9}$/;

/**
 * A wall clock in seconds, its UTC fields being the clock's own (it names no instant: the zone is
 * unknown, or only in the offset, which is kept apart and not applied), or null when the value is
 * not in the form or names no real time (month 13, February 30).
 */
function wallClockOf(value: string): { seconds: number; offset: string } | null {
  const m = WALL_CLOCK.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return { seconds: date.getTime() / 1000, offset: m[7] ?? '' };
}

/**
 * The seconds that take the camera's wall clock `cameraCaptureTime` to `captureTime` (both in
 * capture_time's form), compared as wall clocks: the uploader writes capture_correction with it,
 * and the server checks the one it reads the same way. Null when either is not in the form or
 * their offsets differ (a correction moves the clock, not its zone).
 */
export function captureCorrectionSeconds(captureTime: string, cameraCaptureTime: string): number | null {
  const corrected = wallClockOf(captureTime);
  const camera = wallClockOf(cameraCaptureTime);
  if (!corrected || !camera || corrected.offset !== camera.offset) return null;
  return corrected.seconds - camera.seconds;
}

/** Whether `seconds` can be a correction: a whole number, not zero (nothing corrected), at most 100 years either way. */
function isCorrection(seconds: number): boolean {
  return Number.isSafeInteger(seconds) && seconds !== 0 && Math.abs(seconds) <= MAX_CAPTURE_CORRECTION_SECONDS;
}

/** capture_correction's value for `seconds`: `+820454400`, `-3600`. Throws a RangeError for what cannot be one (zero, a fraction, over 100 years). */
export function formatCaptureCorrection(seconds: number): string {
  if (!isCorrection(seconds)) throw new RangeError(`Not a capture correction: ${seconds}`);
  return seconds > 0 ? `+${seconds}` : String(seconds);
}

/**
 * What an object's metadata says of its capture time, read from its (decoded) capture_time,
 * camera_capture_time and capture_correction:
 * - `none`: neither of the two correction keys — capture_time, if any, is the camera's own;
 * - `corrected`: both, with a capture_time, all in their form, and the correction is exactly
 *   capture_time's wall clock minus camera_capture_time's (`offsetSeconds`: the seconds added to
 *   the camera's clock, not the EXIF zone offset, which both times share);
 * - `malformed`: anything else — one key without the other or without capture_time, a value out
 *   of its form, a zero or out-of-range correction, or one that does not add up. The uploader
 *   never writes these, so they are a crafted or broken client's, and the server refuses them
 *   (infra/src/object-created/handler.ts) rather than keep a time no one can trust.
 */
export type CaptureCorrection =
  { kind: 'none' } | { kind: 'corrected'; captureTime: string; cameraCaptureTime: string; offsetSeconds: number } | { kind: 'malformed' };

/** The capture correction of an object's metadata (values decoded, names as METADATA spells them): see `CaptureCorrection`. */
export function captureCorrectionOf(metadata: Record<string, string | undefined>): CaptureCorrection {
  const captureTime = metadata[METADATA.captureTime];
  const cameraCaptureTime = metadata[METADATA.cameraCaptureTime];
  const correction = metadata[METADATA.captureCorrection];
  if (cameraCaptureTime === undefined && correction === undefined) return { kind: 'none' };
  if (captureTime === undefined || cameraCaptureTime === undefined || correction === undefined) return { kind: 'malformed' };
  if (!CORRECTION.test(correction)) return { kind: 'malformed' };
  const offsetSeconds = Number(correction);
  if (!isCorrection(offsetSeconds) || captureCorrectionSeconds(captureTime, cameraCaptureTime) !== offsetSeconds) return { kind: 'malformed' };
  return { kind: 'corrected', captureTime, cameraCaptureTime, offsetSeconds };
}

/**
 * Clockwise degrees that make a photo upright (the `photo_turn` metadata): a member's choice for
 * a camera strapped sideways, whose EXIF orientation says upright all the same. Only an original
 * carries it, since the ranch turns the camera's own file; a smaller copy is made upright by the
 * browser as it is drawn, so a turn on a copy would turn it twice.
 */
export type QuarterTurn = 90 | 180 | 270;

/** The turns, as the metadata spells them (in decimal). */
export const QUARTER_TURNS: readonly QuarterTurn[] = [90, 180, 270];

/** An object's turn by its (decoded) `photo_turn`: 0 without it (upright as stored), null when it is not exactly `90`, `180` or `270`. */
export function photoTurnOf(value: string | undefined): 0 | QuarterTurn | null {
  if (value === undefined) return 0;
  return QUARTER_TURNS.find((turn) => String(turn) === value) ?? null;
}

// The uploads API's answers (infra/src/uploads-api/handler.ts builds them; the uploader reads them).

/** GET /ranches/{ranchid}/upload-metrics?yearmo=YYYY_MM, as the uploads API answers it. */
export interface UploadMetrics {
  /** The month's count the server enforces, as a string; "" while nothing is counted (the product API's contract). */
  total: string;
  /** The month asked for. */
  yearmo: string;
  /** The month photos count in now (UTC). */
  month: string;
  /** Slots held by live reservations of other members (the caller’s own are theirs to use). */
  reserved: number;
  /** The ranch's monthly ceiling. */
  ceiling: number;
}

/** What the uploader may rely on: `total` is the product API's original contract, the rest the uploads API's. */
export type UploadMetricsResponse = Pick<UploadMetrics, 'total'> & Partial<Omit<UploadMetrics, 'total'>>;

/** POST /ranches/{ranchid}/reservations. */
export interface ReservationResponse {
  /** Null when nothing was granted. */
  reservation: string | null;
  /** The month the granted photos count in. */
  yearmo: string;
  /** Fingerprints the ranch already has (from any device of any member), as a copy or an original. */
  known: string[];
  /**
   * Of `known`, those the ranch has only as smaller copies: their originals may be sent without a
   * slot and are not counted again (absent from servers before copies: none).
   */
  copies?: string[];
  /** Fingerprints granted a slot, in the order asked. */
  granted: string[];
  expiresAt: string | null;
  lifetimeSeconds: number;
  /**
   * True when the member's share of live slots (half the ceiling: infra/src/ledger/rules.ts
   * `memberShare`), not the month's room, held back some of the photos not granted: those are not
   * refused — ask again for them as the granted ones are sent. Absent: any photo neither known nor
   * granted has no room this month.
   */
  shareLimited?: true;
}

/** POST /ranches/{ranchid}/photo-lookups. */
export interface PhotoLookupResponse {
  /** The fingerprints asked that the ranch has (as a copy or an original). */
  known: string[];
  /** Of `known`, those the ranch has only as smaller copies (absent from servers before copies: none). */
  copies?: string[];
  /** The file sizes asked that some photo of the ranch has. */
  knownSizes: number[];
}

/**
 * What the uploads API's firewall answers a request it stops before the API sees it
 * (infra/docs/server.md#the-uploads-apis-firewall; the sandbox answers the same). Both answers
 * carry CORS headers for any origin (the API takes a bearer token, never cookies, so `*` gives
 * nothing away) and expose `Retry-After`, so the uploader can read them instead of seeing a
 * network error.
 * - `rateLimited`: one address sent more than its share; `Retry-After` says how many seconds to wait.
 *   The firewall re-counts an address's rate every ~30 s over a window of minutes, so a minute is
 *   the soonest a retry can be let through; the uploader waits as told and says so.
 * - `refused`: a managed rule matched (an address on a threat list, a known exploit's pattern).
 *   Waiting does not help; the uploader stops asking and says why.
 */
export const UPLOADS_EDGE_ANSWERS = {
  rateLimited: {
    status: 429,
    retryAfterSeconds: 60,
    message: 'Too many requests from this network address. Wait a minute, then try again.',
  },
  refused: {
    status: 403,
    message: "The upload service's firewall refused this request.",
  },
} as const;

/** The headers on each of the firewall's answers (and on the API's own 4xx/5xx). */
export const UPLOADS_EDGE_ANSWER_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After',
  'Content-Type': 'application/json',
} as const;

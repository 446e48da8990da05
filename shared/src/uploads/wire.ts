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

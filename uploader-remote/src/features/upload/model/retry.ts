import { ARRIVED_DAMAGED } from './messages';

/** How uploads are retried: bounded attempts, exponential backoff with jitter. */
export interface RetryPolicy {
  /** Attempts per file in one batch, the first included. */
  maxAttempts: number;
  /** The backoff before the second attempt (before jitter). */
  baseDelayMs: number;
  /** No backoff is longer than this (before jitter). */
  maxDelayMs: number;
}

/**
 * Amplify already retries each PUT up to 3 times within a few hundred ms (its own decider); these
 * attempts sit above that, with longer waits, for a rural link that drops for seconds at a time.
 */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000 };

/**
 * For this long after the computer wakes (or the page is resumed), a transient failure burns no
 * attempt: Wi-Fi takes seconds to come back after a suspend, often while the browser already says
 * it is online. A minute covers a slow reconnect; a link still down after it counts as usual.
 */
export const WAKE_GRACE_MS = 60_000;

/**
 * The wait after failed attempt `attempt` (1-based): exponential (base · 2^(attempt−1), capped),
 * with "equal jitter" — half fixed, half random — so files that failed together do not all come
 * back at the same instant, yet each wait is at least half the exponential step.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(exponential / 2 + (r * exponential) / 2);
}

/** How an upload error is treated. */
export type UploadErrorKind =
  /** network, timeout, throttling, 429, 5xx, a body S3 received damaged (BadDigest): try again after a backoff */
  | 'transient'
  /** the temporary AWS credentials expired or were refused: refresh them, then try again */
  | 'credentials'
  /** the upload was cancelled (Stop): not a failure */
  | 'cancelled'
  /** anything else (403, 400, …): report it; the user may retry by hand */
  | 'permanent';

export interface ClassifiedError {
  kind: UploadErrorKind;
  message: string;
}

const TRANSIENT_NAMES = new Set([
  'ERR_NETWORK',
  'NetworkError',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'InternalError',
  'ServiceUnavailable',
  'BandwidthLimitExceeded',
  // 409: a conditional write met another one to the same key under way (a retry racing the attempt it replaces).
  'ConditionalRequestConflict',
]);
const CREDENTIAL_NAMES = new Set(['ExpiredToken', 'ExpiredTokenException', 'RequestExpired', 'TokenRefreshException', 'InvalidToken', 'CredentialsExpired']);
/**
 * fetch's own network failures are TypeErrors with these messages (Chromium, Firefox, Safari,
 * React Native). Any other TypeError is a bug in our code or a library's: retrying it six times
 * would only hide it, so it is reported.
 */
const FETCH_NETWORK_MESSAGE = /^(Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed|Network request failed)$/i;

const CANCEL_NAMES = new Set(['CanceledError', 'AbortError', 'ERR_ABORTED', 'ERR_CANCELED']);

function statusOf(error: { $metadata?: { httpStatusCode?: unknown }; status?: unknown }): number | undefined {
  const status = error.$metadata?.httpStatusCode ?? error.status;
  return typeof status === 'number' ? status : undefined;
}

/** Classifies what `uploadData` (or a fake) threw. Pure: looks only at name, status and message. */
export function classifyUploadError(error: unknown): ClassifiedError {
  if (!error || typeof error !== 'object') return { kind: 'permanent', message: String(error) };
  const e = error as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: unknown }; status?: unknown };
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' && e.message ? e.message : name || 'Unknown error';
  if (CANCEL_NAMES.has(name)) return { kind: 'cancelled', message };
  if (CREDENTIAL_NAMES.has(name)) return { kind: 'credentials', message };
  const status = statusOf(e);
  // S3 computed another checksum of the bytes it received than the browser of the file's
  // (infra/docs/server.md#checksums): the bytes changed on the way, not the photo, and nothing was
  // stored, so the same key is sent again, within the attempts like a network failure.
  if (name === 'BadDigest') return { kind: 'transient', message: ARRIVED_DAMAGED };
  if (name === 'TypeError') return { kind: FETCH_NETWORK_MESSAGE.test(message) ? 'transient' : 'permanent', message };
  if (TRANSIENT_NAMES.has(name) || status === 408 || status === 429 || (status !== undefined && status >= 500)) {
    return { kind: 'transient', message };
  }
  return { kind: 'permanent', message };
}

/**
 * Whether S3 refused the upload because its key already holds an object (412 PreconditionFailed
 * to `If-None-Match: *`; the bucket denies overwrites, infra/docs/server.md#trust-on-the-server).
 * A photo's key is its own (a new id, kept in the journal), so that object is this photo from an
 * earlier attempt whose answer was lost: already uploaded, not a failure.
 */
export function isAlreadyStored(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown }; status?: unknown };
  return e.name === 'PreconditionFailed' || statusOf(e) === 412;
}

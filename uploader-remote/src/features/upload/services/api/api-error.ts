/**
 * The product API's errors, normalised: whatever ky or fetch threw becomes one of these kinds, so
 * a screen decides how to show an error by its kind, never by parsing library exceptions.
 */
export type ApiError =
  /**
   * `retryAfterMs`: how long the server asked to be left alone (its `Retry-After`, read when CORS
   * exposes it: shared/src/uploads/wire.ts UPLOADS_EDGE_ANSWER_HEADERS), when it said.
   */
  | { kind: 'http'; status: number; message: string; retryAfterMs?: number }
  | { kind: 'network'; message: string }
  | { kind: 'timeout'; message: string }
  | { kind: 'unauthenticated'; message: string };

/** Thrown by the API client: an Error (stack, `message`) carrying the typed `ApiError`. */
export class ApiRequestError extends Error {
  readonly error: ApiError;
  constructor(error: ApiError) {
    super(error.message);
    this.name = 'ApiRequestError';
    this.error = error;
  }
}

/** The message the server put in its `{ message }` body, if it did. */
export function messageFromBody(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'message' in body) {
    const message = body.message;
    if (typeof message === 'string' && message.trim()) return message;
  }
  return undefined;
}

/** A short human-readable text for an HTTP failure: the server's message, else the status. */
export function httpErrorMessage(status: number, statusText: string, body: unknown): string {
  return messageFromBody(body) ?? `Request failed with status ${status}${statusText ? ` ${statusText}` : ''}`;
}

/**
 * A `Retry-After` value in milliseconds from `now`: delta-seconds ("60") or an HTTP date; undefined
 * when absent or unreadable, 0 for a date already past (RFC 9110 §10.2.3).
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now);
}

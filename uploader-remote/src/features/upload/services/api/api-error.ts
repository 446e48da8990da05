/**
 * The product API's errors, normalised: whatever ky or fetch threw becomes one of these kinds, so
 * a screen decides how to show an error by its kind, never by parsing library exceptions.
 */
export type ApiError =
  | { kind: 'http'; status: number; message: string }
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

/**
 * The answer of every route the uploads API's Lambda functions serve — the reservations and
 * metrics routes (handler.ts) and the monitoring events' collection route (events.ts) — which
 * lambda.ts, events-lambda.ts and the sandbox (sandbox/src/api.ts) send as a JSON response. Its own
 * module so that handler.ts, which re-exports events.ts for the package entry, and events.ts
 * both import it without importing each other.
 */
export interface UploadsApiResponse {
  status: number;
  body: unknown;
}

/**
 * The uploads API, as a pure core over ports (infra/docs/server.md#the-uploads-api): what the
 * server vouches for before and after a photo is sent. Production runs it in a Lambda behind a
 * REST API whose Cognito authorizer checks the user pool's id token, the Lambda entry keeping the
 * API to the web client's (lambda.ts, src/stacks/uploads-api.ts);
 * the sandbox runs this very code behind its own token check (sandbox/src/api.ts). The caller's
 * ranch is the token's `custom:ranchid`; every route names a ranch, and any other is 403.
 *
 * - `GET /ranches/{ranchid}/upload-metrics?yearmo=YYYY_MM` → `{ total, yearmo, month, reserved, ceiling }`:
 *   `total` the month's count as the server enforces it (a string, "" while nothing is counted:
 *   the product API's contract), `month` the month photos count in now, `reserved` the
 *   slots live reservations of other members hold (not the caller's own), `ceiling` the ranch's
 *   monthly ceiling.
 * - `POST /ranches/{ranchid}/reservations` with `{ fingerprints: [...], yearmo? }` →
 *   `{ reservation, yearmo, known, copies, granted, expiresAt, lifetimeSeconds }`: which of the
 *   photos the ranch already has (`known`, from any device of any member, as a copy or an
 *   original), which of those it has only as smaller copies (`copies`: their originals are sent
 *   without a slot and counted in no month, src/object-created/handler.ts), and slots for the
 *   others, in the order asked, as many as the ceiling allows (`granted`; maybe fewer, maybe none:
 *   then `reservation` is null). `yearmo`, when sent, must be the month photos count in now.
 * - `POST /ranches/{ranchid}/photo-lookups` with `{ fingerprints?: [...], sizes?: [...] }` →
 *   `{ known, copies, knownSizes }`: which of the photos the ranch already has (and which of
 *   them only as copies), and which file sizes any of its photos has (a file of another size
 *   cannot be one), reserving nothing: the uploader asks while it checks a card.
 * - `POST /ranches/{ranchid}/reservations/{id}/renew` → `{ reservation, expiresAt }`; 410 once
 *   expired, or when it would outlive its limit (2 hours after its grant, or its month's end: its
 *   unused slots go back, and the uploader asks again).
 * - `DELETE /ranches/{ranchid}/reservations/{id}` → `{ released }`: unused slots go back at once.
 * Only the member who made a reservation may renew or release it (403 otherwise).
 *
 * Errors are `{ message }`: 401 no caller, 403 another ranch or another member's reservation, 400
 * malformed input or a month other than the current one, 404 no such ranch, route or reservation,
 * 405 a wrong method, 413 too many fingerprints (the limit is in the message) or too large a body,
 * 429 too many reservations open at once (the member's or the ranch's; src/ledger/rules.ts).
 */
import { ranchUploadCeiling } from '@trailsense/shared/quota';
import type { PhotoLookupResponse, ReservationResponse, UploadMetrics } from '@trailsense/shared/uploads-wire';
import { FINGERPRINT_PATTERN } from '../ledger/port';
import type { LedgerPort, PhotoForm, RanchPort } from '../ledger/port';
import {
  grant,
  liveSlotsOfOthers,
  MAX_FINGERPRINTS_PER_CALL,
  MAX_LIVE_HOLDS_PER_MEMBER,
  RESERVATION_LIFETIME_MS,
  RESERVATION_MAX_AGE_MS,
  release,
  renew,
  reservationId,
  reservationMonth,
  countingMonth,
} from '../ledger/rules';
import type { GrantRefusal } from '../ledger/rules';
import type { UploadsApiResponse } from './response';

export type { UploadsApiResponse } from './response';

/** A request as the API sees it, after authentication. */
export interface UploadsApiRequest {
  method: string;
  /** The path without a stage prefix, still URL-encoded: `/ranches/cedar-creek/reservations`. */
  path: string;
  query: Readonly<Record<string, string | undefined>>;
  body: string | null;
  /** The verified token's claims (`custom:ranchid`, `sub`); null when there is no valid token. */
  caller: { ranchId: string | null; sub?: string } | null;
}

export interface UploadsApiDeps {
  ledger: LedgerPort;
  ranches: RanchPort;
  clock: { now(): Date };
  /** 16+ random URL-safe characters (a reservation id's random part). */
  newId: () => string;
}

/** The most a request body may be: 500 fingerprints are about 25 KB. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The resources under /ranches/{ranchid}/ this API answers (the product API answers the rest). */
export const UPLOADS_API_RESOURCES: readonly string[] = ['upload-metrics', 'reservations', 'photo-lookups'];

const RANCH_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const YEARMO = /^\d{4}_(0[1-9]|1[0-2])$/;

export class UploadsApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The answers' shapes are the shared contract the uploader reads (shared/src/uploads/wire.ts). */
export type MetricsAnswer = UploadMetrics;
export type ReservationAnswer = ReservationResponse;

function parseBody(body: string | null): Record<string, unknown> {
  if (body !== null && Buffer.byteLength(body) > MAX_BODY_BYTES) throw new UploadsApiError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    throw new UploadsApiError(400, 'The body must be JSON: { "fingerprints": [...] }');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UploadsApiError(400, 'The body must be a JSON object: { "fingerprints": [...] }');
  return parsed as Record<string, unknown>;
}

function parseFingerprints(value: unknown): string[] {
  if (!Array.isArray(value)) throw new UploadsApiError(400, '"fingerprints" must be an array of photo fingerprints');
  if (value.length > MAX_FINGERPRINTS_PER_CALL) {
    throw new UploadsApiError(413, `Too many fingerprints: ${value.length} in one call, at most ${MAX_FINGERPRINTS_PER_CALL}`);
  }
  if (value.length === 0) throw new UploadsApiError(400, '"fingerprints" must not be empty');
  const bad = value.findIndex((f) => typeof f !== 'string' || !FINGERPRINT_PATTERN.test(f));
  if (bad !== -1) throw new UploadsApiError(400, `"fingerprints"[${bad}] is not a photo fingerprint (v1-<size>-<32 hex digits>)`);
  return [...new Set(value as string[])];
}

/** The most file sizes one lookup may carry (413 beyond): a thousand files of a card per call. */
export const MAX_SIZES_PER_CALL = 1000;

function parseSizes(value: unknown): number[] {
  if (!Array.isArray(value)) throw new UploadsApiError(400, '"sizes" must be an array of file sizes in bytes');
  if (value.length > MAX_SIZES_PER_CALL) throw new UploadsApiError(413, `Too many sizes: ${value.length} in one call, at most ${MAX_SIZES_PER_CALL}`);
  const bad = value.findIndex((v) => typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0);
  if (bad !== -1) throw new UploadsApiError(400, `"sizes"[${bad}] is not a file size (a whole number of bytes)`);
  return [...new Set(value as number[])];
}

/** Of `fingerprints` (in the order asked), those the ranch has, and of them those it has only as copies. */
function knownAndCopies(fingerprints: readonly string[], forms: ReadonlyMap<string, PhotoForm>): { known: string[]; copies: string[] } {
  return { known: fingerprints.filter((f) => forms.has(f)), copies: fingerprints.filter((f) => forms.get(f) === 'copy') };
}

const GRANT_REFUSALS: Record<GrantRefusal, string> = {
  'member-holds': `You have ${MAX_LIVE_HOLDS_PER_MEMBER} upload reservations open, the most one member may hold: finish or stop an upload, or wait for them to lapse (15 minutes), then try again`,
  'ranch-holds': 'Too many uploads are under way for this ranch at once: try again in a few minutes',
};

const NOT_YOURS = "That reservation is another member's: only the member who made it may renew or release it";

function checkMonth(asked: unknown, month: string): void {
  if (asked === undefined) return;
  if (typeof asked !== 'string' || !YEARMO.test(asked)) throw new UploadsApiError(400, `Malformed yearmo ${JSON.stringify(asked)}: expected YYYY_MM`);
  if (asked < month) throw new UploadsApiError(400, `The month ${asked} is over: photos now count in ${month}`);
  if (asked > month) throw new UploadsApiError(400, `The month ${asked} has not begun: photos now count in ${month}`);
}

async function route(request: UploadsApiRequest, deps: UploadsApiDeps): Promise<UploadsApiResponse> {
  let parts: string[];
  try {
    parts = request.path
      .split('/')
      .filter(Boolean)
      .map((p) => decodeURIComponent(p));
  } catch {
    throw new UploadsApiError(400, 'Malformed path encoding');
  }
  const [first, ranchId, sub, id, action, ...rest] = parts;
  if (first !== 'ranches' || ranchId === undefined || !UPLOADS_API_RESOURCES.includes(sub ?? '') || rest.length > 0) {
    throw new UploadsApiError(404, `No such resource: ${request.path}`);
  }
  if (!request.caller) throw new UploadsApiError(401, 'Missing or invalid bearer token');
  if (!RANCH_ID.test(ranchId)) throw new UploadsApiError(400, `Malformed ranch id: ${ranchId}`);
  if (ranchId !== request.caller.ranchId) throw new UploadsApiError(403, 'That ranch is not yours');
  const max = await deps.ranches.maxMonthlyUploads(ranchId);
  if (max === null) throw new UploadsApiError(404, `No ranch ${ranchId}`);
  const ceiling = ranchUploadCeiling(max);
  const now = deps.clock.now();
  const month = countingMonth(now);
  const method = request.method.toUpperCase();

  if (sub === 'photo-lookups') {
    if (id !== undefined) throw new UploadsApiError(404, `No such resource: ${request.path}`);
    if (method !== 'POST') throw new UploadsApiError(405, `Method ${method} not allowed`);
    const body = parseBody(request.body);
    if (body['fingerprints'] === undefined && body['sizes'] === undefined) {
      throw new UploadsApiError(400, 'The body must name "fingerprints" or "sizes" (or both) to look up');
    }
    const fingerprints = body['fingerprints'] === undefined ? [] : parseFingerprints(body['fingerprints']);
    const sizes = body['sizes'] === undefined ? [] : parseSizes(body['sizes']);
    const [forms, knownSizes] = await Promise.all([
      fingerprints.length > 0 ? deps.ledger.photoForms(ranchId, fingerprints) : new Map<string, PhotoForm>(),
      sizes.length > 0 ? deps.ledger.knownSizes(ranchId, sizes) : new Set<number>(),
    ]);
    const answer: PhotoLookupResponse = { ...knownAndCopies(fingerprints, forms), knownSizes: sizes.filter((s) => knownSizes.has(s)) };
    return { status: 200, body: answer };
  }

  if (sub === 'upload-metrics') {
    if (id !== undefined) throw new UploadsApiError(404, `No such resource: ${request.path}`);
    if (method !== 'GET') throw new UploadsApiError(405, `Method ${method} not allowed`);
    const yearmo = request.query['yearmo'] ?? '';
    if (!YEARMO.test(yearmo)) throw new UploadsApiError(400, `Malformed yearmo "${yearmo}": expected YYYY_MM`);
    const state = await deps.ledger.readMonth(ranchId, yearmo);
    const answer: MetricsAnswer = {
      total: state.total === 0 ? '' : String(state.total),
      yearmo,
      month,
      // Slots held for others: the caller's own (a batch of theirs) are theirs to use.
      reserved: liveSlotsOfOthers(state, now.getTime(), request.caller.sub),
      ceiling,
    };
    return { status: 200, body: answer };
  }

  if (id === undefined) {
    if (method !== 'POST') throw new UploadsApiError(405, `Method ${method} not allowed`);
    const body = parseBody(request.body);
    const fingerprints = parseFingerprints(body['fingerprints']);
    checkMonth(body['yearmo'], month);
    const forms = await deps.ledger.photoForms(ranchId, fingerprints);
    // A photo the ranch has, as a copy or an original, is never given a slot: its original, if
    // it was a copy, is sent without one (an upgrade, src/object-created/handler.ts).
    const asked = fingerprints.filter((f) => !forms.has(f));
    const newId = reservationId(month, deps.newId());
    const at = now.getTime();
    const owner = request.caller.sub;
    const outcome: { granted: number; refused?: GrantRefusal | undefined; shareLimited?: true | undefined } =
      asked.length === 0
        ? { granted: 0 }
        : await deps.ledger.updateMonth(ranchId, month, (state) => {
            const { next, granted: n, refused, shareLimited } = grant(state, { id: newId, asked: asked.length, ceiling, now: at, ...(owner ? { owner } : {}) });
            return { next, result: { granted: n, refused, shareLimited } };
          });
    if (outcome.refused) throw new UploadsApiError(429, GRANT_REFUSALS[outcome.refused]);
    const granted = outcome.granted;
    const answer: ReservationAnswer = {
      reservation: granted > 0 ? newId : null,
      yearmo: month,
      ...knownAndCopies(fingerprints, forms),
      granted: asked.slice(0, granted),
      expiresAt: granted > 0 ? new Date(at + RESERVATION_LIFETIME_MS).toISOString() : null,
      lifetimeSeconds: RESERVATION_LIFETIME_MS / 1000,
      ...(outcome.shareLimited ? { shareLimited: true } : {}),
    };
    return { status: 200, body: answer };
  }

  const yearmo = reservationMonth(id);
  if (yearmo === null) throw new UploadsApiError(400, `Malformed reservation id: ${id}`);
  const caller = request.caller.sub;
  if (action === 'renew') {
    if (method !== 'POST') throw new UploadsApiError(405, `Method ${method} not allowed`);
    const renewed = await deps.ledger.updateMonth(
      ranchId,
      yearmo,
      (state) => {
        const r = renew(state, id, now.getTime(), caller);
        return { next: r.next, result: r };
      },
      id,
    );
    if (renewed.result === 'unknown') throw new UploadsApiError(404, `No reservation ${id}`);
    if (renewed.result === 'forbidden') throw new UploadsApiError(403, NOT_YOURS);
    if (renewed.result === 'expired') throw new UploadsApiError(410, 'The reservation has expired: its unused slots went back to the ranch; reserve again');
    if (renewed.result === 'ended') {
      throw new UploadsApiError(
        410,
        `The reservation has reached its limit (${RESERVATION_MAX_AGE_MS / 3600_000} hours after it was made, or its month's end): its unused slots went back to the ranch; reserve again`,
      );
    }
    return { status: 200, body: { reservation: id, expiresAt: new Date(renewed.expiresAt ?? 0).toISOString() } };
  }
  if (action !== undefined) throw new UploadsApiError(404, `No such resource: ${request.path}`);
  if (method !== 'DELETE') throw new UploadsApiError(405, `Method ${method} not allowed`);
  const released = await deps.ledger.updateMonth(
    ranchId,
    yearmo,
    (state) => {
      const r = release(state, id, now.getTime(), caller);
      return { next: r.next, result: r };
    },
    id,
  );
  if (released.result === 'unknown') throw new UploadsApiError(404, `No reservation ${id}`);
  if (released.result === 'forbidden') throw new UploadsApiError(403, NOT_YOURS);
  return { status: 200, body: { reservation: id, released: released.released } };
}

/** Answers one request; never throws (a failure of a port is a 500 with a plain message, logged by the caller). */
export async function handleUploadsApi(
  request: UploadsApiRequest,
  deps: UploadsApiDeps,
  logError: (error: unknown) => void = (error) => console.error(JSON.stringify({ source: 'uploads-api', error: String(error) })),
): Promise<UploadsApiResponse> {
  try {
    return await route(request, deps);
  } catch (error) {
    if (error instanceof UploadsApiError) return { status: error.status, body: { message: error.message } };
    logError(error);
    return { status: 500, body: { message: 'Internal error' } };
  }
}

// The collection route of monitoring events (POST /events, no token): its own core, exported here
// so the sandbox serves it from the same package entry as the rest of the API.
export { EVENTS_PATH, handleMonitoringEvents, parseEventBatch } from './events';
export type { EventsDeps, EventsRequest, MonitoringEventsPort } from './events';

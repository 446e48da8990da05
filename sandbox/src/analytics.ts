/**
 * The analytics sink: the sandbox adapter of the site's analytics port posts the events of docs/product.md#analytics-events
 * and docs/monitoring.md here (POST /events); tests, people and `npm run report` read them back
 * (GET /events?ranchid=..., GET /events?name=...; the report reads the database itself).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { controlProblem, isMonitoringEventName, MONITORING_EVENT_NAMES, parseMonitoringEvent } from '@trailsense/shared/analytics-events';
import type { MonitoringEventsPort } from '@trailsense/infra/uploads-api';
import type { AnalyticsEvent, SandboxDb } from './db';
import { formatApiFault } from './fault';
import type { ApiFault } from './fault';
import { applyCors, BodyTooLargeError, isJsonContentType, parseJsonObject, readBody, requestUrl, sendJson } from './http-util';
import type { PutStallState } from './stall';

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 1024;
/** The problem of an upload event's text field (a ranch id, a key), the field named, or null. */
function textProblem(field: string, v: unknown): string | null {
  if (!isText(v)) return `${field} must be a non-empty string of at most 1024 characters`;
  const control = controlProblem(v);
  return control === null ? null : `${field} ${control}`;
}

/**
 * Validates one event; the message names what is wrong. The monitoring events as the shared
 * schema says (parseMonitoringEvent); the upload events (docs/product.md#analytics-events) carry
 * the ranch and the key by design, so no text of theirs is refused as personal data, but none may
 * hold a control character or line break either.
 */
export function parseEvent(body: Record<string, unknown> | undefined): { ok: true; event: AnalyticsEvent } | { ok: false; message: string } {
  if (!body) return { ok: false, message: 'Body must be a JSON object' };
  const { name, ranchid } = body;
  // The monitoring events (docs/monitoring.md): exact fields, no ranch.
  if (isMonitoringEventName(name)) return parseMonitoringEvent(body);
  if (name !== 'imageUpload' && name !== 'uploadFailure') {
    const control = typeof name === 'string' ? controlProblem(name) : null;
    return { ok: false, message: `name ${control ?? `must be one of imageUpload, uploadFailure, ${MONITORING_EVENT_NAMES.join(', ')}`}` };
  }
  const wrong = textProblem('ranchid', ranchid) ?? (name === 'imageUpload' ? textProblem('key', body['key']) : null);
  if (wrong !== null) return { ok: false, message: wrong };
  // Both texts checked just above: strings.
  const ranch = String(ranchid);
  if (name === 'imageUpload') {
    if (!isCount(body['uploadCount'])) return { ok: false, message: 'uploadCount must be a non-negative integer' };
    return { ok: true, event: { name, ranchid: ranch, key: String(body['key']), uploadCount: body['uploadCount'] } };
  }
  if (!isCount(body['failureCount'])) return { ok: false, message: 'failureCount must be a non-negative integer' };
  return { ok: true, event: { name, ranchid: ranch, failureCount: body['failureCount'] } };
}

/**
 * The sink as the uploads API's collection route stores into it (`POST /events` on the API port,
 * infra/src/uploads-api/events.ts; production's adapter is Firehose): every event of a batch in one
 * transaction, read back by `GET /events` here and by `npm run report`.
 */
export function sinkEvents(db: SandboxDb, log: (line: string) => void, now: () => Date = () => new Date()): MonitoringEventsPort {
  return {
    put(events) {
      const receivedAt = now().toISOString();
      db.raw.transaction(() => {
        for (const event of events) db.addEvent(event, receivedAt);
      })();
      for (const event of events) log(`[analytics] ${event.name} ${JSON.stringify(event)} (collection route)`);
      return Promise.resolve();
    },
  };
}

/**
 * Test control of a running sandbox (browser tests run it as a separate process), one path per
 * switch:
 * - `/_sandbox/s3-put-fault`: `PUT` a fault spec like `0.3:503` or `1:400:ExpiredToken` (`0` to
 *   switch off); `GET` how many PUTs it has failed;
 * - `/_sandbox/s3-put-stall`: `PUT` a count N, the next N object PUTs are held unanswered; `GET`
 *   how many were held and how many are still to be;
 * - `/_sandbox/api-fault`: `PUT` e.g. `upload-metrics:500,ranch:503` (`0` or empty: all off);
 *   `GET` the current settings;
 * - `/_sandbox/firewall`: `PUT` the uploads API firewall's mode (`600/300`, `429:2`, `403`, `off`:
 *   src/firewall.ts); `GET` it and how many requests it refused;
 * - `/_sandbox/ledger-clock`: `PUT` an ISO 8601 time the upload ledger's clock reads from now on
 *   (it goes on ticking from there; empty: the real time again); `GET` its time. Only the ledger
 *   (months, reservation lifetimes) moves: tokens and signatures keep the real time;
 * - `/_sandbox/ranch-usage`: `PUT` `{ "ranchId": …, "total": N }` sets the ranch's count for the
 *   ledger clock's month and drops its reservations (a test's starting point); without `total`
 *   only the reservations go; `GET` nothing useful.
 * Loopback callers only, and never from a web page (a request with an Origin header is refused),
 * so a site cannot flip them.
 */
export interface SandboxControl {
  /** Applies a fault spec; returns an error message when it is malformed. */
  setPutFault(spec: string): string | undefined;
  injectedFaults(): number;
  /** Applies a stall count ("3"); returns an error message when it is malformed. */
  stallPuts(spec: string): string | undefined;
  putStall(): PutStallState;
  /** Applies an API fault spec ("upload-metrics:500"); returns an error message when it is malformed. */
  setApiFault(spec: string): string | undefined;
  apiFault(): ApiFault;
  /** Sets the uploads API's firewall ("600/300", "429:2", "403", "off"); returns an error message when malformed. */
  setFirewall(spec: string): string | undefined;
  firewall(): { mode: string; refused: number };
  /** Sets the ledger clock to an ISO time ("" for the real time); returns an error message when malformed. */
  setLedgerClock(spec: string): string | undefined;
  ledgerClock(): { now: string; offsetMs: number };
  /** Sets a ranch's count in the ledger clock's month; returns an error message when malformed. */
  setRanchUsage(ranchId: unknown, total: unknown): string | undefined;
}

export const CONTROL_PATH = '/_sandbox/s3-put-fault';
export const STALL_CONTROL_PATH = '/_sandbox/s3-put-stall';
export const API_FAULT_CONTROL_PATH = '/_sandbox/api-fault';
export const LEDGER_CLOCK_CONTROL_PATH = '/_sandbox/ledger-clock';
export const FIREWALL_CONTROL_PATH = '/_sandbox/firewall';
export const RANCH_USAGE_CONTROL_PATH = '/_sandbox/ranch-usage';

const isLoopback = (address: string | undefined) => !!address && (address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1');

/** One control path: its GET answer, and a PUT body applied (an error message, or the answer). */
interface ControlRoute {
  get(control: SandboxControl): unknown;
  put(control: SandboxControl, raw: Buffer, log: (line: string) => void): { error: string } | { answer: unknown };
}

const CONTROL_ROUTES = new Map<string, ControlRoute>([
  [
    CONTROL_PATH,
    {
      get: (control) => ({ injected: control.injectedFaults() }),
      put: (control, raw, log) => {
        const json = parseJsonObject(raw);
        const spec = typeof json?.['fault'] === 'string' ? json['fault'] : raw.toString('utf8').trim();
        const error = control.setPutFault(spec);
        if (error) return { error };
        log(`[sandbox] S3 PUT fault switch set to ${spec}`);
        return { answer: { fault: spec, injected: control.injectedFaults() } };
      },
    },
  ],
  [
    STALL_CONTROL_PATH,
    {
      get: (control) => control.putStall(),
      put: (control, raw, log) => {
        const spec = raw.toString('utf8').trim();
        const error = control.stallPuts(spec);
        if (error) return { error };
        log(`[sandbox] S3 PUT stall switch: the next ${control.putStall().pending} object PUTs are held`);
        return { answer: control.putStall() };
      },
    },
  ],
  [
    API_FAULT_CONTROL_PATH,
    {
      get: (control) => ({ faults: control.apiFault() }),
      put: (control, raw, log) => {
        const spec = raw.toString('utf8').trim();
        const error = control.setApiFault(spec);
        if (error) return { error };
        log(`[sandbox] product API fault switch set to ${formatApiFault(control.apiFault())}`);
        return { answer: { faults: control.apiFault() } };
      },
    },
  ],
  [
    FIREWALL_CONTROL_PATH,
    {
      get: (control) => control.firewall(),
      put: (control, raw, log) => {
        const error = control.setFirewall(raw.toString('utf8').trim());
        if (error) return { error };
        log(`[sandbox] uploads API firewall set to ${control.firewall().mode}`);
        return { answer: control.firewall() };
      },
    },
  ],
  [
    LEDGER_CLOCK_CONTROL_PATH,
    {
      get: (control) => control.ledgerClock(),
      put: (control, raw, log) => {
        const spec = raw.toString('utf8').trim();
        const error = control.setLedgerClock(spec);
        if (error) return { error };
        log(`[sandbox] ledger clock set to ${control.ledgerClock().now}`);
        return { answer: control.ledgerClock() };
      },
    },
  ],
  [
    RANCH_USAGE_CONTROL_PATH,
    {
      get: () => ({}),
      put: (control, raw, log) => {
        const json = parseJsonObject(raw);
        const error = control.setRanchUsage(json?.['ranchId'], json?.['total']);
        if (error) return { error };
        log(`[sandbox] ranch usage set: ${raw.toString('utf8')}`);
        return { answer: { ok: true } };
      },
    },
  ],
]);

function handleControl(req: IncomingMessage, res: ServerResponse, route: ControlRoute, control: SandboxControl | undefined, log: (line: string) => void): void {
  if (!control || !isLoopback(req.socket.remoteAddress) || req.headers.origin !== undefined) {
    req.resume();
    return sendJson(res, 403, { message: 'The sandbox control endpoint is for local test processes only' });
  }
  if (req.method === 'GET') {
    req.resume();
    return sendJson(res, 200, route.get(control));
  }
  if (req.method !== 'PUT') {
    req.resume();
    return sendJson(res, 405, { message: `Method ${req.method ?? ''} not allowed` });
  }
  readBody(req, 1024)
    .then((raw) => {
      const result = route.put(control, raw, log);
      if ('error' in result) return sendJson(res, 400, { message: result.error });
      sendJson(res, 200, result.answer);
    })
    .catch(() => sendJson(res, 400, { message: 'Unreadable body' }));
}

export function createAnalytics(deps: { db: SandboxDb; log: (line: string) => void; control?: SandboxControl }): RequestListener {
  return (req, res) => {
    const url = requestUrl(req);
    const route = url && CONTROL_ROUTES.get(url.pathname);
    if (route) return handleControl(req, res, route, deps.control, deps.log);
    if (applyCors(req, res, 'GET, POST, OPTIONS')) return;
    if (!url) {
      req.resume();
      return sendJson(res, 400, { message: 'Malformed request URL' });
    }
    if (url.pathname !== '/events') {
      req.resume();
      return sendJson(res, 404, { message: `No such resource: ${url.pathname}` });
    }
    if (req.method === 'GET') {
      req.resume();
      const name = url.searchParams.get('name');
      const events = deps.db.events(url.searchParams.get('ranchid') ?? undefined);
      return sendJson(res, 200, { events: name === null ? events : events.filter((event) => event.name === name) });
    }
    if (req.method !== 'POST') {
      req.resume();
      return sendJson(res, 405, { message: `Method ${req.method ?? ''} not allowed` });
    }
    // JSON only: a web page can POST text/plain or a form to any origin without a CORS preflight
    // (a "simple request"), so accepting those would let any site inject events. application/json
    // needs a preflight, which only the site's origins pass (applyCors).
    if (!isJsonContentType(req.headers['content-type'])) {
      req.resume();
      return sendJson(res, 415, { message: 'Content-Type must be application/json' });
    }
    readBody(req, 64 * 1024)
      .then((raw) => {
        const parsed = parseEvent(parseJsonObject(raw));
        if (!parsed.ok) return sendJson(res, 400, { message: parsed.message });
        const id = deps.db.addEvent(parsed.event, new Date().toISOString());
        deps.log(`[analytics] ${parsed.event.name} ${JSON.stringify(parsed.event)}`);
        sendJson(res, 201, { id });
      })
      .catch((err: unknown) => {
        if (err instanceof BodyTooLargeError) return sendJson(res, 413, { message: 'Body too large' });
        deps.log(`[analytics] internal error: ${String(err)}`);
        sendJson(res, 500, { message: 'Internal error' });
      });
  };
}

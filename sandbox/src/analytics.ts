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
import type { Tenant } from './tenants';

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
 *   ranch's ledger clock's month and drops its reservations (a test's starting point); without
 *   `total` only the reservations go; `GET` nothing useful;
 * - `/_sandbox/tenants`: `POST` (empty, or `{ "label": "w1" }`) makes a tenant: fresh copies of the
 *   seed's ranches and accounts (src/tenants.ts), answered with their ids, emails and passwords;
 * - `/_sandbox/sign-in-sessions`: `POST` `{ "email": … }` ends that address's pending sign-ins as
 *   if their 3 minutes had passed (an expired e-mailed code), answered with how many.
 * The first five take `?ranch=<id>`: the switch of that ranch's requests only (src/ranch-scope.ts);
 * without it, the process-wide one. Loopback callers only, and never from a web page (a request
 * with an Origin header is refused), so a site cannot flip them.
 */
export interface SandboxControl {
  /** Why a `?ranch=` cannot be switched (the sandbox has no such ranch), or undefined. */
  ranchProblem(ranch: string): string | undefined;
  /** Applies a fault spec; returns an error message when it is malformed. */
  setPutFault(spec: string, ranch?: string): string | undefined;
  injectedFaults(ranch?: string): number;
  /** Applies a stall count ("3"); returns an error message when it is malformed. */
  stallPuts(spec: string, ranch?: string): string | undefined;
  putStall(ranch?: string): PutStallState;
  /** Applies an API fault spec ("upload-metrics:500"); returns an error message when it is malformed. */
  setApiFault(spec: string, ranch?: string): string | undefined;
  apiFault(ranch?: string): ApiFault;
  /** Sets the uploads API's firewall ("600/300", "429:2", "403", "off"); returns an error message when malformed. */
  setFirewall(spec: string, ranch?: string): string | undefined;
  firewall(ranch?: string): { mode: string; refused: number };
  /** Sets the ledger clock to an ISO time ("" for the real time); returns an error message when malformed. */
  setLedgerClock(spec: string, ranch?: string): string | undefined;
  ledgerClock(ranch?: string): { now: string; offsetMs: number };
  /** Sets a ranch's count in its ledger clock's month; returns an error message when malformed. */
  setRanchUsage(ranchId: unknown, total: unknown): string | undefined;
  /** Makes a tenant from a request body; the reason when the body is malformed. */
  createTenant(raw: Buffer): Promise<{ error: string } | { tenant: Tenant }>;
  /** Ends the pending sign-ins of `{ "email": … }` as if expired; the reason when the body is malformed. */
  expireSignIns(raw: Buffer): { error: string } | { expired: number };
}

export const CONTROL_PATH = '/_sandbox/s3-put-fault';
export const STALL_CONTROL_PATH = '/_sandbox/s3-put-stall';
export const API_FAULT_CONTROL_PATH = '/_sandbox/api-fault';
export const LEDGER_CLOCK_CONTROL_PATH = '/_sandbox/ledger-clock';
export const FIREWALL_CONTROL_PATH = '/_sandbox/firewall';
export const RANCH_USAGE_CONTROL_PATH = '/_sandbox/ranch-usage';
export const TENANTS_CONTROL_PATH = '/_sandbox/tenants';
export const SIGN_IN_SESSIONS_CONTROL_PATH = '/_sandbox/sign-in-sessions';

const isLoopback = (address: string | undefined) => !!address && (address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1');

/** A control path's answer to a body: an error message (a 400), or the answer. */
type ControlResult = { error: string } | { answer: unknown };

/**
 * One control path: its GET answer and a PUT body applied, for `ranch` (undefined: the
 * process-wide switch); or, for a path that makes something, a POST body.
 */
type ControlRoute =
  | {
      get(control: SandboxControl, ranch: string | undefined): unknown;
      put(control: SandboxControl, raw: Buffer, log: (line: string) => void, ranch: string | undefined): ControlResult;
    }
  | { post(control: SandboxControl, raw: Buffer, log: (line: string) => void): Promise<ControlResult> };

/** " for ranch <id>" in a log line, or nothing for the process-wide switch. */
const forRanch = (ranch: string | undefined) => (ranch === undefined ? '' : ` for ranch ${ranch}`);

const CONTROL_ROUTES = new Map<string, ControlRoute>([
  [
    CONTROL_PATH,
    {
      get: (control, ranch) => ({ injected: control.injectedFaults(ranch) }),
      put: (control, raw, log, ranch) => {
        const json = parseJsonObject(raw);
        const spec = typeof json?.['fault'] === 'string' ? json['fault'] : raw.toString('utf8').trim();
        const error = control.setPutFault(spec, ranch);
        if (error) return { error };
        log(`[sandbox] S3 PUT fault switch set to ${spec}${forRanch(ranch)}`);
        return { answer: { fault: spec, injected: control.injectedFaults(ranch) } };
      },
    },
  ],
  [
    STALL_CONTROL_PATH,
    {
      get: (control, ranch) => control.putStall(ranch),
      put: (control, raw, log, ranch) => {
        const spec = raw.toString('utf8').trim();
        const error = control.stallPuts(spec, ranch);
        if (error) return { error };
        log(`[sandbox] S3 PUT stall switch: the next ${control.putStall(ranch).pending} object PUTs${forRanch(ranch)} are held`);
        return { answer: control.putStall(ranch) };
      },
    },
  ],
  [
    API_FAULT_CONTROL_PATH,
    {
      get: (control, ranch) => ({ faults: control.apiFault(ranch) }),
      put: (control, raw, log, ranch) => {
        const spec = raw.toString('utf8').trim();
        const error = control.setApiFault(spec, ranch);
        if (error) return { error };
        log(`[sandbox] product API fault switch set to ${formatApiFault(control.apiFault(ranch))}${forRanch(ranch)}`);
        return { answer: { faults: control.apiFault(ranch) } };
      },
    },
  ],
  [
    FIREWALL_CONTROL_PATH,
    {
      get: (control, ranch) => control.firewall(ranch),
      put: (control, raw, log, ranch) => {
        const error = control.setFirewall(raw.toString('utf8').trim(), ranch);
        if (error) return { error };
        log(`[sandbox] uploads API firewall set to ${control.firewall(ranch).mode}${forRanch(ranch)}`);
        return { answer: control.firewall(ranch) };
      },
    },
  ],
  [
    LEDGER_CLOCK_CONTROL_PATH,
    {
      get: (control, ranch) => control.ledgerClock(ranch),
      put: (control, raw, log, ranch) => {
        const spec = raw.toString('utf8').trim();
        const error = control.setLedgerClock(spec, ranch);
        if (error) return { error };
        log(`[sandbox] ledger clock set to ${control.ledgerClock(ranch).now}${forRanch(ranch)}`);
        return { answer: control.ledgerClock(ranch) };
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
  [
    TENANTS_CONTROL_PATH,
    {
      post: async (control, raw, log) => {
        const made = await control.createTenant(raw);
        if ('error' in made) return made;
        log(
          `[sandbox] tenant ${made.tenant.tenant}: ranches ${Object.values(made.tenant.ranches)
            .map((r) => r.id)
            .join(', ')}`,
        );
        return { answer: made.tenant };
      },
    },
  ],
  [
    SIGN_IN_SESSIONS_CONTROL_PATH,
    {
      post: (control, raw, log) => {
        const done = control.expireSignIns(raw);
        if ('error' in done) return Promise.resolve(done);
        log(`[sandbox] ${done.expired} pending sign-in(s) expired`);
        return Promise.resolve({ answer: done });
      },
    },
  ],
]);

/** The switches a ranch can have of its own (`?ranch=`). */
const RANCH_SWITCHES = new Set([CONTROL_PATH, STALL_CONTROL_PATH, API_FAULT_CONTROL_PATH, FIREWALL_CONTROL_PATH, LEDGER_CLOCK_CONTROL_PATH]);

/** The `?ranch=` a switch's request names (undefined: the process-wide switch), or why it cannot be switched. */
function ranchOf(url: URL, control: SandboxControl): { ranch: string | undefined } | { error: string } {
  const ranch = url.searchParams.get('ranch');
  if (ranch === null) return { ranch: undefined };
  if (!RANCH_SWITCHES.has(url.pathname)) return { error: `${url.pathname} takes no ?ranch=` };
  const problem = control.ranchProblem(ranch);
  return problem === undefined ? { ranch } : { error: problem };
}

function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  route: ControlRoute,
  control: SandboxControl | undefined,
  log: (line: string) => void,
): void {
  if (!control || !isLoopback(req.socket.remoteAddress) || req.headers.origin !== undefined) {
    req.resume();
    return sendJson(res, 403, { message: 'The sandbox control endpoint is for local test processes only' });
  }
  const scope = ranchOf(url, control);
  const method = req.method ?? '';
  const allowed = 'post' in route ? ['POST'] : ['GET', 'PUT'];
  if ('error' in scope || !allowed.includes(method) || method === 'GET') req.resume();
  if ('error' in scope) return sendJson(res, 400, { message: scope.error });
  if (!allowed.includes(method)) {
    res.setHeader('Allow', allowed.join(', '));
    return sendJson(res, 405, { message: `Method ${method} not allowed` });
  }
  if ('get' in route && method === 'GET') return sendJson(res, 200, route.get(control, scope.ranch));
  readBody(req, 1024).then(
    async (raw) => {
      let result: ControlResult;
      try {
        result = 'put' in route ? route.put(control, raw, log, scope.ranch) : await route.post(control, raw, log);
      } catch (err) {
        log(`[sandbox] control ${url.pathname} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        return sendJson(res, 500, { message: 'Internal error' });
      }
      if ('error' in result) return sendJson(res, 400, { message: result.error });
      sendJson(res, 'post' in route ? 201 : 200, result.answer);
    },
    () => sendJson(res, 400, { message: 'Unreadable body' }),
  );
}

export function createAnalytics(deps: { db: SandboxDb; log: (line: string) => void; control?: SandboxControl }): RequestListener {
  return (req, res) => {
    const url = requestUrl(req);
    const route = url && CONTROL_ROUTES.get(url.pathname);
    if (route) return handleControl(req, res, url, route, deps.control, deps.log);
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

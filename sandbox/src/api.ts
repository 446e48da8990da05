/**
 * The product API (docs/product.md#product-api) and the uploads API (infra/src/uploads-api/handler.ts,
 * run here as production runs it: upload-metrics and reservations) on the sandbox database, on one
 * base URL (the runtime config's `api.baseUrl` and `api.uploadsBaseUrl`). Every call needs
 * `Authorization: Bearer <id token>` verified against the user pool's published JWKS (as an API
 * Gateway Cognito authorizer would): 401 missing/invalid/expired, 403 another ranch or email,
 * 400 malformed ids or yearmo, 404 unknown paths or ranches. Errors are `{ message }`.
 * The API fault switch (`fault.ts`) fails chosen routes before authentication, after CORS, so a
 * browser test sees the status as the site would. It, the firewall and the ledger's clock are the
 * request's ranch's when that ranch has its own (ranch-scope.ts).
 *
 * `POST /events`, the monitoring events' collection route (infra/src/uploads-api/events.ts), needs
 * no token, as in production: its events go to the analytics sink's table (`sinkEvents`).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { JWTVerifyGetKey } from 'jose';
import { EVENTS_PATH, handleMonitoringEvents, handleUploadsApi, MAX_BODY_BYTES, UPLOADS_API_RESOURCES } from '@trailsense/infra/uploads-api';
import type { UploadsApiDeps } from '@trailsense/infra/uploads-api';
import { MONITORING_BATCH_LIMITS } from '@trailsense/shared/analytics-events';
import { sinkEvents } from './analytics';
import type { SandboxDb } from './db';
import { apiRouteOf } from './fault';
import type { RanchFirewalls } from './firewall';
import type { ApiFault } from './fault';
import { applyCors, BodyTooLargeError, readBody, requestUrl, sendJson, SITE_ORIGINS } from './http-util';
import { ranchOfApiPath, ranchOfBearer } from './ranch-scope';
import { checkToken } from './tokens';

const RANCH_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const EMAIL = /^[^\s@/]+@[^\s@/]+\.[^\s@/]+$/;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The caller as the id token says: email and custom:ranchid. */
export interface Caller {
  email: string;
  /** The id token's `email_verified`. */
  emailVerified?: boolean;
  ranchId?: string;
  sub?: string;
}

/** Pure routing and answers, given an authenticated caller. */
export function answer(db: SandboxDb, caller: Caller, pathname: string): unknown {
  const parts = pathname
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  const [first, id, sub, ...rest] = parts;
  if (first === 'subscriptions' && id !== undefined && sub === undefined) {
    if (!EMAIL.test(id)) throw new ApiError(400, `Malformed email: ${id}`);
    if (id.toLowerCase() !== caller.email.toLowerCase()) throw new ApiError(403, 'You may only read your own subscription');
    const entitlements = Object.fromEntries(db.entitlements(id).map((e) => [e.level, { expires_date: e.expiresDate }]));
    return { subscriber: { entitlements } };
  }
  if (first === 'ranches' && id !== undefined && rest.length === 0) {
    if (!RANCH_ID.test(id)) throw new ApiError(400, `Malformed ranch id: ${id}`);
    if (id !== caller.ranchId) throw new ApiError(403, 'That ranch is not yours');
    const ranch = db.ranch(id);
    if (!ranch) throw new ApiError(404, `No ranch ${id}`);
    if (sub === undefined) return { max_monthly_uploads: ranch.maxMonthlyUploads };
    if (sub === 'cameras') return { Cameras: db.cameras(id) };
  }
  throw new ApiError(404, `No such resource: ${pathname}`);
}

export interface ApiDeps {
  db: SandboxDb;
  /** The uploads API's ports (the SQLite ledger, the ranches, the ledger's clock). */
  uploads: UploadsApiDeps;
  keys: JWTVerifyGetKey;
  issuer: string;
  clientId: string;
  log: (line: string) => void;
  /** The API fault switch's current setting for a request about `ranch` (default: none). */
  fault?: (ranch: string | undefined) => ApiFault;
  /** The uploads API's firewall (firewall.ts), in front of its paths and the collection route; default none. */
  firewall?: Pick<RanchFirewalls, 'check'>;
  /** The ledger's clock of a ranch (ledger-clock.ts); default `uploads.clock` for every ranch. */
  ledgerClock?: (ranch: string) => UploadsApiDeps['clock'];
  /** The firewall's clock (ms); Date.now by default. */
  now?: () => number;
}

async function authenticate(req: IncomingMessage, deps: ApiDeps): Promise<Caller> {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m) throw new ApiError(401, 'Missing bearer token');
  const check = await checkToken(m[1] as string, deps.keys, { issuer: deps.issuer, clientId: deps.clientId, use: 'id' });
  if (!check.ok) throw new ApiError(401, check.reason === 'expired' ? 'Token expired' : `Invalid token: ${check.detail}`);
  const email = check.claims['email'];
  if (typeof email !== 'string') throw new ApiError(401, 'Invalid token: no email claim');
  const ranchId = check.claims['custom:ranchid'];
  const sub = check.claims['sub'];
  const verified = check.claims['email_verified'];
  return {
    email,
    emailVerified: verified === true || verified === 'true',
    ranchId: typeof ranchId === 'string' && ranchId ? ranchId : undefined,
    ...(typeof sub === 'string' && sub ? { sub } : {}),
  };
}

/** Paths the uploads API answers: /ranches/{id}/upload-metrics, photo-lookups and reservations[/…]. */
export function isUploadsApiPath(pathname: string): boolean {
  const [first, id, sub] = pathname.split('/').filter(Boolean);
  return first === 'ranches' && id !== undefined && UPLOADS_API_RESOURCES.includes(sub ?? '');
}

export function createApi(deps: ApiDeps): RequestListener {
  const events = { events: sinkEvents(deps.db, deps.log), siteOrigins: SITE_ORIGINS };
  /** The collection route, without a token (API Gateway's route has no authorizer). */
  async function handleEvents(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: string | null = null;
    if (req.method === 'POST') {
      try {
        // One byte past the limit is enough to know: the handler answers 413 with the limit.
        body = (await readBody(req, MONITORING_BATCH_LIMITS.maxBytes + 1)).toString('utf8');
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
        body = 'x'.repeat(MONITORING_BATCH_LIMITS.maxBytes + 1);
      }
    } else req.resume();
    const answer = await handleMonitoringEvents(
      { method: req.method ?? 'GET', body, ...(req.headers.origin !== undefined ? { origin: req.headers.origin } : {}) },
      events,
      (error) => deps.log(`[api] events internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    );
    sendJson(res, answer.status, answer.body);
  }
  async function handleUploads(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // As API Gateway's JWT authorizer: no valid token never reaches the function (nor is its body read).
    let caller: Caller;
    try {
      caller = await authenticate(req, deps);
    } catch (error) {
      req.resume();
      throw error;
    }
    let body: string | null = null;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      try {
        body = (await readBody(req, MAX_BODY_BYTES)).toString('utf8');
      } catch (error) {
        if (error instanceof BodyTooLargeError) throw new ApiError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes`);
        throw error;
      }
    } else req.resume();
    const ranch = ranchOfApiPath(url.pathname);
    const uploads = ranch !== undefined && deps.ledgerClock ? { ...deps.uploads, clock: deps.ledgerClock(ranch) } : deps.uploads;
    const answer = await handleUploadsApi(
      {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        caller: { ranchId: caller.ranchId ?? null, ...(caller.sub ? { sub: caller.sub } : {}) },
      },
      uploads,
      (error) => deps.log(`[api] uploads API internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    );
    sendJson(res, answer.status, answer.body);
  }
  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === EVENTS_PATH) return handleEvents(req, res);
    if (isUploadsApiPath(url.pathname)) return handleUploads(req, res, url);
    req.resume(); // GETs have no body; drain anything sent anyway
    if (req.method !== 'GET') throw new ApiError(405, `Method ${req.method ?? ''} not allowed`);
    const caller = await authenticate(req, deps);
    // The product API reads subscriptions by e-mail: only an address the user proved is theirs
    // may name them (the pool keeps the original until a new one is verified; infra/src/stacks/identity-stack.ts).
    if (!caller.emailVerified) throw new ApiError(403, 'Your e-mail address is not verified: verify it, then try again');
    sendJson(res, 200, answer(deps.db, caller, url.pathname));
  }
  return (req, res) => {
    if (applyCors(req, res, 'GET, POST, DELETE, OPTIONS')) return;
    const url = requestUrl(req);
    if (!url) {
      req.resume();
      return sendJson(res, 400, { message: 'Malformed request URL' });
    }
    const ranch = ranchOfApiPath(url.pathname) ?? ranchOfBearer(req.headers.authorization);
    const walled = req.method !== 'OPTIONS' && (url.pathname === EVENTS_PATH || isUploadsApiPath(url.pathname));
    const stopped = walled ? deps.firewall?.check(req.socket.remoteAddress ?? '', (deps.now ?? Date.now)(), ranch) : null;
    if (stopped) {
      req.resume();
      for (const [name, value] of Object.entries(stopped.headers)) res.setHeader(name, value);
      return sendJson(res, stopped.status, stopped.body);
    }
    const route = apiRouteOf(url.pathname);
    const injected = route === undefined ? undefined : deps.fault?.(ranch)[route];
    if (injected !== undefined) {
      req.resume();
      deps.log(`[api] fault switch: ${req.method ?? ''} ${url.pathname} -> ${injected}`);
      return sendJson(res, injected, { message: `Injected failure ${injected} (sandbox fault switch)` });
    }
    handle(req, res, url).catch((err: unknown) => {
      if (err instanceof ApiError) return sendJson(res, err.status, { message: err.message });
      if (err instanceof URIError) return sendJson(res, 400, { message: 'Malformed path encoding' });
      deps.log(`[api] internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      sendJson(res, 500, { message: 'Internal error' });
    });
  };
}

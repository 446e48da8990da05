/**
 * The product API (docs/product.md#product-api) on the sandbox database. Every call needs
 * `Authorization: Bearer <id token>` verified against the user pool's published JWKS (as an API
 * Gateway Cognito authorizer would): 401 missing/invalid/expired, 403 another ranch or email,
 * 400 malformed ids or yearmo, 404 unknown paths or ranches. Errors are `{ message }`.
 * The API fault switch (`fault.ts`) fails chosen routes before authentication, after CORS, so a
 * browser test sees the status as the site would.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { JWTVerifyGetKey } from 'jose';
import type { SandboxDb } from './db';
import { apiRouteOf } from './fault';
import type { ApiFault } from './fault';
import { applyCors, requestUrl, sendJson } from './http-util';
import { checkToken } from './tokens';

const RANCH_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const YEARMO = /^\d{4}_(0[1-9]|1[0-2])$/;
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
  ranchId?: string;
}

/** Pure routing and answers, given an authenticated caller. */
export function answer(db: SandboxDb, caller: Caller, pathname: string, query: URLSearchParams): unknown {
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
    if (sub === 'upload-metrics') {
      const yearmo = query.get('yearmo') ?? '';
      if (!YEARMO.test(yearmo)) throw new ApiError(400, `Malformed yearmo "${yearmo}": expected YYYY_MM`);
      // docs/product.md#product-api-responses: total is a string, possibly empty (a month with nothing counted).
      const total = db.uploadCount(id, yearmo);
      return { total: total === undefined ? '' : String(total) };
    }
  }
  throw new ApiError(404, `No such resource: ${pathname}`);
}

export interface ApiDeps {
  db: SandboxDb;
  keys: JWTVerifyGetKey;
  issuer: string;
  clientId: string;
  log: (line: string) => void;
  /** The API fault switch's current setting (default: none). */
  fault?: () => ApiFault;
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
  return { email, ranchId: typeof ranchId === 'string' && ranchId ? ranchId : undefined };
}

export function createApi(deps: ApiDeps): RequestListener {
  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET') throw new ApiError(405, `Method ${req.method ?? ''} not allowed`);
    const caller = await authenticate(req, deps);
    sendJson(res, 200, answer(deps.db, caller, url.pathname, url.searchParams));
  }
  return (req, res) => {
    if (applyCors(req, res, 'GET, OPTIONS')) return;
    req.resume(); // GETs have no body; drain anything sent anyway
    const url = requestUrl(req);
    if (!url) return sendJson(res, 400, { message: 'Malformed request URL' });
    const route = apiRouteOf(url.pathname);
    const injected = route === undefined ? undefined : deps.fault?.()[route];
    if (injected !== undefined) {
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

/**
 * The fault switches, parsed (pure) here and applied by the pieces:
 * - S3 PUT fault `<fraction>[:<status>[:<Code>]]`, e.g. `0.3:503` (30 % of PUTs answer 503
 *   SlowDown, which Amplify retries), `1:403` (every PUT is refused), `1:400:ExpiredToken` (every
 *   PUT answered as S3 answers a request signed with expired temporary credentials). The decision
 *   takes a random source so tests can make it deterministic.
 * - product API fault `<route>:<status>[,<route>:<status>…]`, e.g. `upload-metrics:500,ranch:503`.
 */
export interface PutFault {
  /** 0..1: the share of PUTs (PutObject and UploadPart) that fail. */
  fraction: number;
  /** The HTTP status they fail with (default 503). */
  status: number;
  /** The S3 error code in the body; default by status (503 SlowDown, 403 AccessDenied, …). */
  code?: string;
}

export const NO_FAULT: PutFault = { fraction: 0, status: 503 };

const PUT_FAULT_FORMAT = 'expected <fraction>[:<status>[:<Code>]], e.g. 0.3:503 or 1:400:ExpiredToken';
/** Letters and digits only: the code goes into XML and log lines as is. */
const S3_CODE = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

export function parsePutFault(spec: string): PutFault | string {
  const m = /^\s*(\d*\.?\d+)\s*(?::\s*(\d{3})\s*(?::\s*([^:\s]*)\s*)?)?$/.exec(spec);
  if (!m) return `bad S3 PUT fault "${spec}": ${PUT_FAULT_FORMAT}`;
  const fraction = Number(m[1]);
  const status = m[2] === undefined ? 503 : Number(m[2]);
  const code = m[3];
  if (!(fraction >= 0 && fraction <= 1)) return `bad S3 PUT fault "${spec}": the fraction must be between 0 and 1`;
  if (status < 400 || status > 599) return `bad S3 PUT fault "${spec}": the status must be 4xx or 5xx`;
  if (code === undefined) return { fraction, status };
  if (!S3_CODE.test(code)) return `bad S3 PUT fault "${spec}": the error code must be letters and digits, e.g. ExpiredToken`;
  return { fraction, status, code };
}

export function shouldFail(fault: PutFault, random: () => number = Math.random): boolean {
  return fault.fraction > 0 && random() < fault.fraction;
}

/** S3's own messages for the codes the switches (and the metadata check) answer with. */
const S3_MESSAGES: Record<string, string> = {
  InternalError: 'We encountered an internal error. Please try again.',
  SlowDown: 'Please reduce your request rate.',
  AccessDenied: 'Access Denied',
  BadRequest: 'Bad Request',
  // A signed request whose temporary credentials (the identity pool's, 1 h) have run out.
  ExpiredToken: 'The provided token has expired.',
  // A session token S3 does not know (sandbox/src/s3-access.ts).
  InvalidToken: 'The provided token is malformed or otherwise invalid.',
  RequestTimeout: 'Your socket connection to the server was not read from or written to within the timeout period.',
  SignatureDoesNotMatch: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  RequestTimeTooSkewed: 'The difference between the request time and the current time is too large.',
  MalformedXML: 'The XML you provided was not well-formed or did not validate against our published schema.',
  NotImplemented: 'A header you provided implies functionality that is not implemented.',
};

/** The code a status-only fault answers with. */
const DEFAULT_CODES: Record<number, string> = { 500: 'InternalError', 503: 'SlowDown', 403: 'AccessDenied', 400: 'BadRequest' };

/** An S3 XML error body; the message defaults to S3's own for the code. */
export function s3ErrorXml(code: string, message = S3_MESSAGES[code] ?? code, details: Record<string, string> = {}): string {
  const more = Object.entries(details)
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${more}</Error>`;
}

/**
 * The S3 XML error body for an injected failure. A status-only fault says in its message that the
 * switch made it; a fault that names its code answers S3's words exactly, as a test of the
 * client's handling of that code wants.
 */
export function faultXml(status: number, code?: string): string {
  if (code !== undefined) return s3ErrorXml(code, S3_MESSAGES[code] ?? `Injected failure ${status}`);
  const fallback = DEFAULT_CODES[status];
  const [name, message] = fallback ? [fallback, S3_MESSAGES[fallback] as string] : [`Injected${status}`, `Injected failure ${status}`];
  return s3ErrorXml(name, `${message} (sandbox fault switch)`);
}

/** The product API routes the API fault switch can fail, by the name the switch uses. */
export const API_ROUTES = ['upload-metrics', 'reservations', 'photo-lookups', 'ranch', 'cameras', 'subscriptions'] as const;
export type ApiRoute = (typeof API_ROUTES)[number];
/** The status each failing route answers with; a route not named works normally. */
export type ApiFault = Partial<Record<ApiRoute, number>>;

const API_FAULT_FORMAT = `expected <route>:<status>[,<route>:<status>…] with routes ${API_ROUTES.join(', ')}, e.g. upload-metrics:500, or 0 for none`;

const isApiRoute = (name: string): name is ApiRoute => (API_ROUTES as readonly string[]).includes(name);

export function parseApiFault(spec: string): ApiFault | string {
  const text = spec.trim();
  if (text === '' || text === '0') return {};
  const fault: ApiFault = {};
  for (const item of text.split(',')) {
    const m = /^\s*([^:\s]+)\s*:\s*(\d{3})\s*$/.exec(item);
    if (!m) return `bad API fault "${spec}": "${item.trim()}" is not <route>:<status>; ${API_FAULT_FORMAT}`;
    const [, route = '', status = ''] = m;
    if (!isApiRoute(route)) return `bad API fault "${spec}": unknown route "${route}" (routes: ${API_ROUTES.join(', ')})`;
    if (fault[route] !== undefined) return `bad API fault "${spec}": the route ${route} is named twice`;
    const code = Number(status);
    if (code < 400 || code > 599) return `bad API fault "${spec}": the status for ${route} must be 4xx or 5xx`;
    fault[route] = code;
  }
  return fault;
}

/** The spec that `parseApiFault` reads back to `fault` ("0" for none). */
export function formatApiFault(fault: ApiFault): string {
  const items = API_ROUTES.filter((r) => fault[r] !== undefined).map((r) => `${r}:${fault[r]}`);
  return items.length > 0 ? items.join(',') : '0';
}

/**
 * Which switchable route a product API path is (the names map to `/ranches/{id}/upload-metrics`,
 * `/ranches/{id}`, `/ranches/{id}/cameras`, `/subscriptions/{email}`), or undefined.
 */
export function apiRouteOf(pathname: string): ApiRoute | undefined {
  const [first, id, sub, ...rest] = pathname.split('/').filter(Boolean);
  // The uploads API's reservations and their renewals and releases (infra/src/uploads-api/handler.ts).
  if (first === 'ranches' && id !== undefined && sub === 'reservations' && rest.length <= 2) return 'reservations';
  if (id === undefined || rest.length > 0) return undefined;
  if (first === 'subscriptions') return sub === undefined ? 'subscriptions' : undefined;
  if (first !== 'ranches') return undefined;
  if (sub === undefined) return 'ranch';
  return sub === 'cameras' || sub === 'upload-metrics' || sub === 'photo-lookups' ? sub : undefined;
}

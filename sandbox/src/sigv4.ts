/**
 * AWS Signature Version 4 as S3 verifies it, pure (node:crypto only): the request as it arrived —
 * method, raw URL, raw header lines — and the secret of the access key it names in; whether the
 * signature holds out. Header-signed requests (`Authorization: AWS4-HMAC-SHA256 …`, the payload
 * hash in `x-amz-content-sha256`: a hex SHA-256 or `UNSIGNED-PAYLOAD`) and presigned URLs
 * (`X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=…&X-Amz-Signature=…`, payload unsigned).
 *
 * The canonical request is built from the bytes the client sent: Node hands header values and the
 * URL over as Latin-1 (one character per byte), and they are hashed as Latin-1, so a browser that
 * sends "Réservoir" in `x-amz-meta-*` as Latin-1 while its signer hashed the UTF-8 text gets
 * SignatureDoesNotMatch, as from S3. The path is S3's: each segment decoded and re-encoded per
 * RFC 3986 once (S3 does not double-encode); the query sorted by encoded name, then value.
 *
 * Not checked here: the body against a declared hash (the caller's business: sandbox/src/s3.ts).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** A request as it arrived: `url` is the raw request target (`/bucket/key?query`). */
export interface RawRequest {
  method: string;
  url: string;
  /** Node's `req.rawHeaders`: name, value, name, value, … as sent (Latin-1 strings). */
  rawHeaders: readonly string[];
}

/** What the request says about its signing. */
export interface SignedRequestInfo {
  kind: 'header' | 'query';
  accessKeyId: string;
  /** `YYYYMMDD` of the credential scope. */
  date: string;
  region: string;
  service: string;
  /** `YYYYMMDDTHHMMSSZ` (x-amz-date / X-Amz-Date). */
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  /** Presigned: seconds the URL is valid (X-Amz-Expires). */
  expiresSeconds?: number;
  /** The session token (x-amz-security-token / X-Amz-Security-Token), if any. */
  securityToken?: string;
  /** The declared payload hash (`UNSIGNED-PAYLOAD` or 64 lower-case hex digits). */
  payloadHash: string;
}

export type ParseResult =
  | { kind: 'anonymous' }
  /** `presigned`: the signing fields were in the query (S3 then says AuthorizationQueryParametersError). */
  | { kind: 'malformed'; why: string; presigned?: boolean }
  | { kind: 'signed'; info: SignedRequestInfo };

/** RFC 3986 encoding, as SigV4 wants it: everything but A–Z a–z 0–9 - _ . ~ percent-encoded (UTF-8). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/** The query's parameters, decoded, in order. */
function queryParams(query: string): [string, string][] {
  if (query === '') return [];
  return query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      return eq < 0 ? [decode(p), ''] : [decode(p.slice(0, eq)), decode(p.slice(eq + 1))];
    });
}

/** All values of a header (lower-case name) from raw header lines. */
function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === name) values.push(rawHeaders[i + 1] as string);
  }
  return values;
}

const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/;

function parseCredential(credential: string): { accessKeyId: string; date: string; region: string; service: string } | undefined {
  const m = CREDENTIAL.exec(credential);
  return m ? { accessKeyId: m[1] as string, date: m[2] as string, region: m[3] as string, service: m[4] as string } : undefined;
}

/** How a request is signed (or that it is not). */
export function parseSignedRequest(request: RawRequest): ParseResult {
  const authorization = headerValues(request.rawHeaders, 'authorization')[0];
  const params = queryParams(splitUrl(request.url).query);
  const param = (name: string) => params.find(([k]) => k === name)?.[1];
  if (authorization !== undefined) {
    if (param('X-Amz-Algorithm') !== undefined) return { kind: 'malformed', why: 'both an Authorization header and X-Amz-Algorithm' };
    const m = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(authorization.trim());
    if (!m) return { kind: 'malformed', why: 'the Authorization header is not AWS4-HMAC-SHA256' };
    const fields = new Map<string, string>();
    for (const part of (m[1] as string).split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const credential = parseCredential(fields.get('Credential') ?? '');
    const signedHeaders = fields.get('SignedHeaders');
    const signature = fields.get('Signature');
    if (!credential || !signedHeaders || !signature) return { kind: 'malformed', why: 'Credential, SignedHeaders or Signature missing or malformed' };
    const amzDate = headerValues(request.rawHeaders, 'x-amz-date')[0]?.trim();
    if (!amzDate) return { kind: 'malformed', why: 'no x-amz-date header' };
    const payloadHash = headerValues(request.rawHeaders, 'x-amz-content-sha256')[0]?.trim();
    if (!payloadHash) return { kind: 'malformed', why: 'no x-amz-content-sha256 header' };
    const token = headerValues(request.rawHeaders, 'x-amz-security-token')[0];
    return {
      kind: 'signed',
      info: {
        kind: 'header',
        ...credential,
        amzDate,
        signedHeaders: signedHeaders.split(';'),
        signature,
        payloadHash,
        ...(token ? { securityToken: token } : {}),
      },
    };
  }
  const algorithm = param('X-Amz-Algorithm');
  if (algorithm === undefined) return { kind: 'anonymous' };
  if (algorithm !== ALGORITHM) return { kind: 'malformed', why: `X-Amz-Algorithm ${algorithm}`, presigned: true };
  const credential = parseCredential(param('X-Amz-Credential') ?? '');
  const amzDate = param('X-Amz-Date');
  const signedHeaders = param('X-Amz-SignedHeaders');
  const signature = param('X-Amz-Signature');
  const expires = Number(param('X-Amz-Expires'));
  if (!credential || !amzDate || !signedHeaders || !signature || !Number.isInteger(expires)) {
    return { kind: 'malformed', why: 'a presigned URL without X-Amz-Credential, -Date, -SignedHeaders, -Signature or a whole -Expires', presigned: true };
  }
  const token = param('X-Amz-Security-Token');
  return {
    kind: 'signed',
    info: {
      kind: 'query',
      ...credential,
      amzDate,
      signedHeaders: signedHeaders.split(';'),
      signature,
      expiresSeconds: expires,
      payloadHash: param('X-Amz-Content-Sha256') ?? UNSIGNED_PAYLOAD,
      ...(token ? { securityToken: token } : {}),
    },
  };
}

/** The canonical request of AWS's SigV4 definition, for S3 (single URI encoding). */
export function canonicalRequest(request: RawRequest, info: SignedRequestInfo): string {
  const { path, query } = splitUrl(request.url);
  const canonicalUri =
    path
      .split('/')
      .map((segment) => uriEncode(decode(segment)))
      .join('/') || '/';
  const canonicalQuery = queryParams(query)
    .filter(([name]) => !(info.kind === 'query' && name === 'X-Amz-Signature'))
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = info.signedHeaders
    .map(
      (name) =>
        `${name}:${headerValues(request.rawHeaders, name)
          .map((v) => v.trim().replace(/ +/g, ' '))
          .join(',')}\n`,
    )
    .join('');
  return [request.method.toUpperCase(), canonicalUri, canonicalQuery, canonicalHeaders, info.signedHeaders.join(';'), info.payloadHash].join('\n');
}

const sha256Hex = (text: string) => createHash('sha256').update(Buffer.from(text, 'latin1')).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The signature the request should carry for this secret. */
export function expectedSignature(request: RawRequest, info: SignedRequestInfo, secretAccessKey: string): string {
  const scope = `${info.date}/${info.region}/${info.service}/aws4_request`;
  const stringToSign = [ALGORITHM, info.amzDate, scope, sha256Hex(canonicalRequest(request, info))].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, info.date), info.region), info.service), 'aws4_request');
  return createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
}

/** Whether the request's signature is the one its secret gives (constant-time comparison). */
export function signatureMatches(request: RawRequest, info: SignedRequestInfo, secretAccessKey: string): boolean {
  if (!info.signedHeaders.includes('host')) return false;
  const expected = Buffer.from(expectedSignature(request, info, secretAccessKey), 'latin1');
  const given = Buffer.from(info.signature, 'latin1');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** `YYYYMMDDTHHMMSSZ` as milliseconds since the epoch (NaN when malformed). */
export function amzDateMs(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return m ? Date.UTC(+(m[1] as string), +(m[2] as string) - 1, +(m[3] as string), +(m[4] as string), +(m[5] as string), +(m[6] as string)) : NaN;
}

/** A refusal S3 makes from the signing fields themselves: its status, code and message. */
export interface SigningRefusal {
  status: number;
  code: string;
  message: string;
  why: string;
  /** Further elements of S3's error body (e.g. `HeadersNotSigned`). */
  details?: Record<string, string>;
}

/** The longest validity of a presigned URL S3 accepts (X-Amz-Expires): seven days. */
export const MAX_PRESIGNED_EXPIRES_SECONDS = 604_800;

/**
 * What S3 answers a signature whose credential scope does not fit the request, or a presigned
 * URL whose validity is out of range — checked before the key is looked up, as S3 does: the scope's
 * region must be the bucket's, its service `s3`, its date the day of x-amz-date / X-Amz-Date;
 * a presigned URL's X-Amz-Date must be a time and X-Amz-Expires within 0..604800 (0 is refused
 * later, as expired on arrival). Header-signed requests get 400 AuthorizationHeaderMalformed,
 * presigned URLs 400 AuthorizationQueryParametersError, in S3's words.
 */
export function scopeRefusal(info: SignedRequestInfo, region: string): SigningRefusal | undefined {
  const header = info.kind === 'header';
  const code = header ? 'AuthorizationHeaderMalformed' : 'AuthorizationQueryParametersError';
  const refuse = (message: string, why: string): SigningRefusal => ({
    status: 400,
    code,
    message: header ? `The authorization header is malformed; ${message}` : message,
    why,
  });
  const credentialProblem = (problem: string) => (header ? problem : `Error parsing the X-Amz-Credential parameter; ${problem}`);
  if (!header) {
    if (Number.isNaN(amzDateMs(info.amzDate))) {
      return refuse(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`, `X-Amz-Date ${JSON.stringify(info.amzDate)} is not a time`);
    }
    const expires = info.expiresSeconds ?? 0;
    if (expires < 0) return refuse('X-Amz-Expires must be non-negative', `X-Amz-Expires ${expires}`);
    if (expires > MAX_PRESIGNED_EXPIRES_SECONDS) {
      return refuse(`X-Amz-Expires must be less than a week (in seconds) that is ${MAX_PRESIGNED_EXPIRES_SECONDS}`, `X-Amz-Expires ${expires}`);
    }
  }
  if (info.region !== region) {
    return {
      ...refuse(credentialProblem(`the region '${info.region}' is wrong; expecting '${region}'`), `the credential scope names the region ${info.region}`),
      details: { Region: region },
    };
  }
  if (info.service !== 's3') {
    return refuse(
      credentialProblem(`incorrect service '${info.service}'. This endpoint belongs to 's3'.`),
      `the credential scope names the service ${info.service}`,
    );
  }
  // A header's x-amz-date that is not a time at all gets S3's AccessDenied later (s3.ts).
  if (!Number.isNaN(amzDateMs(info.amzDate)) && info.amzDate.slice(0, 8) !== info.date) {
    return refuse('Invalid credential date. Date is not the same as X-Amz-Date.', `the credential scope's date ${info.date} is not the day of ${info.amzDate}`);
  }
  return undefined;
}

/**
 * The `x-amz-*` headers the request carries but did not sign (lower-case, sorted). S3 refuses
 * such a request (403 AccessDenied, "There were headers present in the request which were not
 * signed"), so a header added on the way cannot change what the signer meant: a storage class, a
 * tagging, metadata. `x-amz-content-sha256` is let through: its value is in the canonical request
 * anyway (its last line), and the AWS presigner leaves it unsigned.
 */
export function unsignedAmzHeaders(request: RawRequest, info: SignedRequestInfo): string[] {
  const signed = new Set(info.signedHeaders.map((name) => name.toLowerCase()));
  const unsigned = new Set<string>();
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] as string).toLowerCase();
    if (name.startsWith('x-amz-') && name !== 'x-amz-content-sha256' && !signed.has(name)) unsigned.add(name);
  }
  return [...unsigned].sort();
}

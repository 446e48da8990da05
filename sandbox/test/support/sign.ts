/**
 * SigV4 signing for tests, by the AWS SDK's own signer (@smithy/signature-v4, what
 * @aws-sdk/client-s3 signs with), as S3 wants it (the path not encoded twice), and the operator's
 * S3 client (src/s3.ts OPERATOR_CREDENTIALS: allowed everything, like an admin IAM user).
 */
import { createHash, createHmac } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { OPERATOR_CREDENTIALS } from '../../src/s3';
import { rawRequest } from './raw-http';
import type { RawAnswer, RawOptions } from './raw-http';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 / HMAC-SHA256 on node:crypto, in the shape the SDK's signer wants. */
class Sha256 {
  private readonly hash: Hash | ReturnType<typeof createHmac>;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface ToSign {
  method: string;
  /** Already URL-encoded, as sent. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Default: UNSIGNED-PAYLOAD. */
  payloadHash?: string;
  /** The Host the request goes to (signed): `localhost:<the sandbox's S3 port>` for a running sandbox. */
  host: string;
  region?: string;
  date?: Date;
}

export interface Signed {
  method: string;
  /** Path and query, as sent. */
  target: string;
  headers: Record<string, string>;
}

const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const targetOf = (path: string, query: Record<string, string | string[] | null> = {}) => {
  const q = Object.entries(query)
    .map(([k, v]) => `${encode(k)}=${encode(String(v ?? ''))}`)
    .join('&');
  return q ? `${path}?${q}` : path;
};

function signer(credentials: Credentials, region: string): SignatureV4 {
  return new SignatureV4({ credentials, region, service: 's3', sha256: Sha256, uriEscapePath: false, applyChecksum: true });
}

/** A header-signed request, as the SDK signs it. */
export async function signRequest(credentials: Credentials, request: ToSign): Promise<Signed> {
  const host = request.host;
  const headers = { host, 'x-amz-content-sha256': request.payloadHash ?? 'UNSIGNED-PAYLOAD', ...request.headers };
  const signed = await signer(credentials, request.region ?? 'us-east-2').sign(
    { method: request.method, protocol: 'http:', hostname: host.split(':')[0] as string, path: request.path, query: request.query ?? {}, headers },
    { signingDate: request.date ?? new Date() },
  );
  return { method: request.method, target: targetOf(request.path, request.query), headers: signed.headers };
}

/** A presigned URL's target (path and query), as the SDK presigns it. */
export async function presign(credentials: Credentials, request: ToSign & { expiresIn?: number }): Promise<Signed> {
  const host = request.host;
  const presigned = await signer(credentials, request.region ?? 'us-east-2').presign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: host.split(':')[0] as string,
      path: request.path,
      query: request.query ?? {},
      headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...request.headers },
    },
    // As @aws-sdk/s3-request-presigner does: the payload unsigned, that header neither signed nor hoisted.
    {
      signingDate: request.date ?? new Date(),
      expiresIn: request.expiresIn ?? 900,
      unsignableHeaders: new Set(['x-amz-content-sha256']),
      unhoistableHeaders: new Set(['x-amz-content-sha256']),
    },
  );
  return { method: request.method, target: targetOf(request.path, presigned.query), headers: presigned.headers };
}

/** Node's rawHeaders for a header record. */
export const rawHeadersOf = (headers: Record<string, string>): string[] => Object.entries(headers).flat();

/** The operator's S3 client against a sandbox's S3 endpoint (path style; support/sandbox.ts s3Endpoint). */
export function operatorS3(endpoint: string, region = 'us-east-2'): S3Client {
  return new S3Client({ region, endpoint, forcePathStyle: true, credentials: OPERATOR_CREDENTIALS });
}

/** fetch() signed with the operator's key (headers: UNSIGNED-PAYLOAD). */
export async function operatorFetch(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Response> {
  const u = new URL(url);
  const signed = await signRequest(OPERATOR_CREDENTIALS, {
    method: init.method ?? 'GET',
    path: u.pathname,
    query: Object.fromEntries(u.searchParams),
    headers: init.headers ?? {},
    host: u.host,
  });
  const { host: _host, ...headers } = signed.headers;
  return fetch(`${u.origin}${signed.target}`, { method: signed.method, headers, ...(init.body !== undefined ? { body: init.body } : {}) });
}

/** rawRequest (node:http: header values sent as Latin-1 bytes) signed with these credentials (UNSIGNED-PAYLOAD). */
export async function signedRawRequest(credentials: Credentials, url: string, options: RawOptions): Promise<RawAnswer | 'no answer'> {
  const u = new URL(url);
  const signed = await signRequest(credentials, {
    method: options.method,
    path: u.pathname,
    query: Object.fromEntries(u.searchParams),
    headers: options.headers ?? {},
    host: u.host,
  });
  return rawRequest(`${u.origin}${signed.target}`, { ...options, headers: signed.headers });
}

/** rawRequest signed with the operator's key. */
export const operatorRawRequest = (url: string, options: RawOptions) => signedRawRequest(OPERATOR_CREDENTIALS, url, options);

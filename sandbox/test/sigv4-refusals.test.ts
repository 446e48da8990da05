/**
 * What the S3 front (src/s3.ts accessRefusal, src/sigv4.ts) refuses in a signature that would
 * otherwise verify, over HTTP, as S3 answers it: unsigned x-amz-* headers, a credential scope that
 * does not fit (region, service, date), a presigned URL's X-Amz-Expires out of 1..604800, and a
 * presigned X-Amz-Date from the future. Requests are signed by the AWS SDK's signer
 * (support/sign.ts) where it can make them, and otherwise by `signByHand` below, an independent
 * SigV4 signer whose own requests are shown to pass first.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Sandbox } from '../src/index';
import { OPERATOR_CREDENTIALS } from '../src/s3';
import { rawRequest } from './support/raw-http';
import type { RawAnswer } from './support/raw-http';
import { startTestSandbox, stopTestSandbox } from './support/sandbox';
import { presign, signRequest } from './support/sign';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => stopTestSandbox(sandbox));

const host = () => `localhost:${sandbox.ports.s3}`;
/** A key that does not exist: a request that passes the front gets s3rver's 404 NoSuchKey. */
const missingPath = () => `/${sandbox.config.storage.bucket}/public/cedar-creek/${randomUUID()}.jpg`;

async function send(target: string, method: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { host: _host, ...rest } = headers;
  const answer = await rawRequest(`http://${host()}${target}`, { method, headers: rest, timeoutMs: 10_000 });
  if (answer === 'no answer') throw new Error('no answer');
  return answer;
}

/** S3's error code, message and the other elements of its error body. */
function s3Error(answer: RawAnswer): { status: number; code?: string; message?: string; details: Record<string, string> } {
  const elements = Object.fromEntries([...answer.body.matchAll(/<(\w+)>([^<]*)<\/\1>/g)].map((m) => [m[1] as string, m[2] as string]));
  const { Code: code, Message: message, ...details } = elements;
  return { status: answer.status, ...(code ? { code } : {}), ...(message ? { message } : {}), details };
}

const amzDate = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

interface ByHand {
  kind: 'header' | 'query';
  method: string;
  /** Already encoded; plain ASCII keys here. */
  path: string;
  date: Date;
  /** The credential scope's fields (default: the request's day, us-east-2, s3). */
  scopeDay?: string;
  region?: string;
  service?: string;
  /** X-Amz-Expires, for `query`. */
  expires?: number | string;
  /** A literal X-Amz-Date, for `query` (default: `date`'s). */
  literalAmzDate?: string;
}

/** SigV4 written out from AWS's definition, independently of src/sigv4.ts: a target and its headers. */
function signByHand(request: ByHand): { target: string; headers: Record<string, string> } {
  const { accessKeyId, secretAccessKey } = OPERATOR_CREDENTIALS;
  const when = request.literalAmzDate ?? amzDate(request.date);
  const day = request.scopeDay ?? amzDate(request.date).slice(0, 8);
  const scope = `${day}/${request.region ?? 'us-east-2'}/${request.service ?? 's3'}/aws4_request`;
  const headers: Record<string, string> = { host: host() };
  let query: [string, string][] = [];
  const payload = 'UNSIGNED-PAYLOAD';
  if (request.kind === 'header') {
    headers['x-amz-content-sha256'] = payload;
    headers['x-amz-date'] = when;
  } else {
    query = [
      ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
      ['X-Amz-Credential', `${accessKeyId}/${scope}`],
      ['X-Amz-Date', when],
      ['X-Amz-Expires', String(request.expires ?? 900)],
      ['X-Amz-SignedHeaders', 'host'],
    ];
  }
  const names = Object.keys(headers).sort();
  const canonicalQuery = query
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join('&');
  const canonical = [request.method, request.path, canonicalQuery, names.map((n) => `${n}:${headers[n]}\n`).join(''), names.join(';'), payload].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', when, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), request.region ?? 'us-east-2'), request.service ?? 's3'), 'aws4_request');
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  if (request.kind === 'header') {
    headers['authorization'] = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
    return { target: request.path, headers };
  }
  return { target: `${request.path}?${canonicalQuery}&X-Amz-Signature=${signature}`, headers };
}

const byHand = async (request: Omit<ByHand, 'path' | 'date'> & { date?: Date }) => {
  const signed = signByHand({ ...request, path: missingPath(), date: request.date ?? new Date() });
  return s3Error(await send(signed.target, request.method, signed.headers));
};

const NOT_FOUND = { status: 404, code: 'NoSuchKey' };

describe('the hand signer (the control for the refusals below)', () => {
  it('signs header and presigned requests the front lets through', async () => {
    expect(await byHand({ kind: 'header', method: 'GET' })).toMatchObject(NOT_FOUND);
    expect(await byHand({ kind: 'query', method: 'GET' })).toMatchObject(NOT_FOUND);
    expect(await byHand({ kind: 'query', method: 'GET', expires: 604_800 })).toMatchObject(NOT_FOUND);
    // One second from an X-Amz-Date cut to the second can be over before a busy machine's request
    // arrives: dated 30 s ahead (S3 takes up to 15 minutes, below), its second is still to come.
    expect(await byHand({ kind: 'query', method: 'GET', expires: 1, date: new Date(Date.now() + 30_000) })).toMatchObject(NOT_FOUND);
  });
});

describe('x-amz-* headers must be signed', () => {
  it('refuses a header-signed PUT with an x-amz-* header added after signing, and takes it signed', async () => {
    const path = missingPath();
    const signed = await signRequest(OPERATOR_CREDENTIALS, { method: 'PUT', path, host: host() });
    const added = await send(signed.target, 'PUT', { ...signed.headers, 'x-amz-storage-class': 'GLACIER', 'x-amz-meta-ranchid': 'pine-hollow' });
    expect(s3Error(added)).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'There were headers present in the request which were not signed',
      details: { HeadersNotSigned: 'x-amz-meta-ranchid, x-amz-storage-class' },
    });
    const withThem = await signRequest(OPERATOR_CREDENTIALS, { method: 'PUT', path, host: host(), headers: { 'x-amz-storage-class': 'STANDARD' } });
    expect((await send(withThem.target, 'PUT', withThem.headers)).status).toBe(200);
  });

  it('refuses a header-signed request whose session token is not signed', async () => {
    const signed = await signRequest(OPERATOR_CREDENTIALS, { method: 'GET', path: missingPath(), host: host() });
    expect(s3Error(await send(signed.target, 'GET', { ...signed.headers, 'x-amz-security-token': 'token' }))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      details: { HeadersNotSigned: 'x-amz-security-token' },
    });
  });

  it('refuses a presigned URL sent with an x-amz-* header it does not sign', async () => {
    const url = await presign(OPERATOR_CREDENTIALS, { method: 'GET', path: missingPath(), host: host() });
    expect(s3Error(await send(url.target, 'GET'))).toMatchObject(NOT_FOUND);
    expect(s3Error(await send(url.target, 'GET', { 'x-amz-meta-added': 'later' }))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      details: { HeadersNotSigned: 'x-amz-meta-added' },
    });
  });
});

describe('the credential scope must fit the request', () => {
  it('refuses another region, header-signed (by the SDK) or presigned, naming the bucket’s', async () => {
    const header = await signRequest(OPERATOR_CREDENTIALS, { method: 'GET', path: missingPath(), host: host(), region: 'us-east-1' });
    expect(s3Error(await send(header.target, 'GET', header.headers))).toEqual({
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'us-east-2'",
      details: { Region: 'us-east-2' },
    });
    const url = await presign(OPERATOR_CREDENTIALS, { method: 'GET', path: missingPath(), host: host(), region: 'eu-west-1' });
    expect(s3Error(await send(url.target, 'GET'))).toEqual({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: "Error parsing the X-Amz-Credential parameter; the region 'eu-west-1' is wrong; expecting 'us-east-2'",
      details: { Region: 'us-east-2' },
    });
  });

  it('refuses another service', async () => {
    expect(await byHand({ kind: 'header', method: 'GET', service: 'execute-api' })).toMatchObject({
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: "The authorization header is malformed; incorrect service 'execute-api'. This endpoint belongs to 's3'.",
    });
    expect(await byHand({ kind: 'query', method: 'GET', service: 'sts' })).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: "Error parsing the X-Amz-Credential parameter; incorrect service 'sts'. This endpoint belongs to 's3'.",
    });
  });

  it('refuses a scope dated another day than x-amz-date', async () => {
    const yesterday = amzDate(new Date(Date.now() - 86_400_000)).slice(0, 8);
    expect(await byHand({ kind: 'header', method: 'GET', scopeDay: yesterday })).toMatchObject({
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: 'The authorization header is malformed; Invalid credential date. Date is not the same as X-Amz-Date.',
    });
    expect(await byHand({ kind: 'query', method: 'GET', scopeDay: yesterday })).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: 'Invalid credential date. Date is not the same as X-Amz-Date.',
    });
  });
});

describe('a presigned URL’s validity', () => {
  it('refuses X-Amz-Expires beyond a week, below zero, or not a number', async () => {
    expect(await byHand({ kind: 'query', method: 'GET', expires: 604_801 })).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: 'X-Amz-Expires must be less than a week (in seconds) that is 604800',
    });
    expect(await byHand({ kind: 'query', method: 'GET', expires: -1 })).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: 'X-Amz-Expires must be non-negative',
    });
    expect(await byHand({ kind: 'query', method: 'GET', expires: 'soon' })).toMatchObject({ status: 400, code: 'AuthorizationQueryParametersError' });
  });

  it('treats X-Amz-Expires=0 as expired on arrival', async () => {
    expect(await byHand({ kind: 'query', method: 'GET', expires: 0 })).toMatchObject({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
  });

  it('refuses an X-Amz-Date more than 15 minutes ahead, and takes one 10 minutes ahead', async () => {
    const ahead = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    expect(await byHand({ kind: 'query', method: 'GET', date: ahead(20) })).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: 'Request is not yet valid',
    });
    expect(await byHand({ kind: 'query', method: 'GET', date: ahead(10) })).toMatchObject(NOT_FOUND);
    // The SDK's own presigner, with a clock 20 minutes fast.
    const url = await presign(OPERATOR_CREDENTIALS, { method: 'GET', path: missingPath(), host: host(), date: ahead(20) });
    expect(s3Error(await send(url.target, 'GET'))).toMatchObject({ status: 403, code: 'AccessDenied', message: 'Request is not yet valid' });
  });

  it('refuses an X-Amz-Date that is not a time', async () => {
    expect(await byHand({ kind: 'query', method: 'GET', literalAmzDate: '2026-11-26T10:00:00Z' })).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: `X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`,
    });
  });
});

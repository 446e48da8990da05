/**
 * The SigV4 verifier (src/sigv4.ts) against AWS's documented S3 examples and against requests the
 * AWS SDK signs (@smithy/signature-v4, and @aws-sdk/client-s3 itself). Pure: no sandbox, no ports.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { expectedSignature, parseSignedRequest, signatureMatches } from '../src/sigv4';
import type { RawRequest, SignedRequestInfo } from '../src/sigv4';
import { presign, rawHeadersOf, signRequest } from './support/sign';

// The example credentials of AWS's "Signature Calculations for the Authorization Header" (S3 API reference).
const EXAMPLE = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const USER = { accessKeyId: 'ASIAABCDEFGHIJKLMNOP', secretAccessKey: 'c2VjcmV0IGZvciB0ZXN0cw', sessionToken: 'token+/=' };
/** Where these requests would go: Amplify's S3 test endpoint (nothing is sent). */
const HOST = 'localhost:20005';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function signedInfo(request: RawRequest): SignedRequestInfo {
  const parsed = parseSignedRequest(request);
  if (parsed.kind !== 'signed') throw new Error(`not signed: ${JSON.stringify(parsed)}`);
  return parsed.info;
}

const verifies = (request: RawRequest, secret: string) => signatureMatches(request, signedInfo(request), secret);

describe('AWS documentation examples', () => {
  it('GET Object (header-signed, Range): the documented signature', () => {
    const request: RawRequest = {
      method: 'GET',
      url: '/test.txt',
      rawHeaders: rawHeadersOf({
        Host: 'examplebucket.s3.amazonaws.com',
        Range: 'bytes=0-9',
        'x-amz-content-sha256': EMPTY_SHA256,
        'x-amz-date': '20130524T000000Z',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      }),
    };
    expect(expectedSignature(request, signedInfo(request), EXAMPLE.secretAccessKey)).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(verifies(request, EXAMPLE.secretAccessKey)).toBe(true);
    expect(verifies(request, 'another secret')).toBe(false);
  });

  it('PUT Object (payload hash, "$" in the key): the documented signature', () => {
    const request: RawRequest = {
      method: 'PUT',
      url: '/test%24file.text',
      rawHeaders: rawHeadersOf({
        Host: 'examplebucket.s3.amazonaws.com',
        Date: 'Fri, 24 May 2013 00:00:00 GMT',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
        Authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
      }),
    };
    expect(verifies(request, EXAMPLE.secretAccessKey)).toBe(true);
  });

  it('a presigned GET (query parameters): the documented signature', () => {
    const request: RawRequest = {
      method: 'GET',
      url: '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
      rawHeaders: rawHeadersOf({ Host: 'examplebucket.s3.amazonaws.com' }),
    };
    expect(signedInfo(request)).toMatchObject({ kind: 'query', accessKeyId: EXAMPLE.accessKeyId, expiresSeconds: 86400, payloadHash: 'UNSIGNED-PAYLOAD' });
    expect(verifies(request, EXAMPLE.secretAccessKey)).toBe(true);
  });
});

describe('requests the AWS SDK signs', () => {
  const raw = (signed: { method: string; target: string; headers: Record<string, string> }): RawRequest => ({
    method: signed.method,
    url: signed.target,
    rawHeaders: rawHeadersOf(signed.headers),
  });

  it.each([
    ['a plain key', '/bucket/public/cedar-creek/a.jpg', {}],
    [
      'an encoded key (space, parentheses, unicode)',
      `/bucket/private/${encodeURIComponent('us-east-2:1')}/r/${encodeURIComponent('Trail cam (1) é.jpg').replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
      {},
    ],
    ['a sub-resource query', '/bucket/public/r/a.jpg', { uploads: '' }],
    ['an upload part', '/bucket/public/r/a.jpg', { partNumber: '2', uploadId: 'abc/def+ghi=' }],
  ])('header-signed: %s', async (_name, path, query) => {
    const signed = await signRequest(USER, {
      method: 'PUT',
      path,
      host: HOST,
      query,
      headers: { 'x-amz-meta-ranchid': 'cedar-creek', 'content-type': 'image/jpeg' },
    });
    expect(verifies(raw(signed), USER.secretAccessKey)).toBe(true);
    expect(signedInfo(raw(signed)).securityToken).toBe(USER.sessionToken);
  });

  it('header-signed with a payload hash', async () => {
    const signed = await signRequest(USER, { method: 'PUT', path: '/bucket/public/r/a.jpg', host: HOST, payloadHash: EMPTY_SHA256 });
    expect(verifies(raw(signed), USER.secretAccessKey)).toBe(true);
  });

  it('presigned', async () => {
    const signed = await presign(USER, { method: 'GET', path: '/bucket/public/r/a%20b.jpg', host: HOST, expiresIn: 60 });
    expect(signedInfo(raw(signed))).toMatchObject({ kind: 'query', expiresSeconds: 60, securityToken: USER.sessionToken });
    expect(verifies(raw(signed), USER.secretAccessKey)).toBe(true);
  });

  it('refuses a tampered request: another key, method, path, query, signed header or secret', async () => {
    const signed = raw(
      await signRequest(USER, {
        method: 'PUT',
        path: '/bucket/public/r/a.jpg',
        host: HOST,
        query: { partNumber: '1' },
        headers: { 'x-amz-meta-ranchid': 'cedar-creek' },
      }),
    );
    expect(verifies({ ...signed, method: 'POST' }, USER.secretAccessKey)).toBe(false);
    expect(verifies({ ...signed, url: signed.url.replace('/r/', '/s/') }, USER.secretAccessKey)).toBe(false);
    expect(verifies({ ...signed, url: signed.url.replace('partNumber=1', 'partNumber=2') }, USER.secretAccessKey)).toBe(false);
    expect(verifies({ ...signed, rawHeaders: signed.rawHeaders.map((v) => (v === 'cedar-creek' ? 'pine-hollow' : v)) }, USER.secretAccessKey)).toBe(false);
    expect(verifies(signed, 'not the secret')).toBe(false);
  });

  it('header values: trimmed, runs of spaces collapsed, repeated headers joined', async () => {
    const signed = raw(await signRequest(USER, { method: 'PUT', path: '/bucket/k', host: HOST, headers: { 'x-amz-meta-camera_name': 'North feeder' } }));
    const spaced = { ...signed, rawHeaders: signed.rawHeaders.map((v) => (v === 'North feeder' ? '  North    feeder ' : v)) };
    expect(verifies(spaced, USER.secretAccessKey)).toBe(true);
  });

  it('non-ASCII metadata: the UTF-8 bytes the SDK signed hold, the Latin-1 bytes a browser sends do not (as on S3)', async () => {
    const signed = raw(await signRequest(USER, { method: 'PUT', path: '/bucket/k', host: HOST, headers: { 'x-amz-meta-camera_name': 'Réservoir' } }));
    // Node hands header bytes over one character per byte: UTF-8 "é" arrives as "Ã©", a browser's Latin-1 "é" as "é".
    const asUtf8Bytes = { ...signed, rawHeaders: signed.rawHeaders.map((v) => (v === 'Réservoir' ? Buffer.from('Réservoir', 'utf8').toString('latin1') : v)) };
    const asLatin1Bytes = { ...signed, rawHeaders: signed.rawHeaders.map((v) => (v === 'Réservoir' ? 'Réservoir' : v)) };
    expect(verifies(asUtf8Bytes, USER.secretAccessKey)).toBe(true);
    expect(verifies(asLatin1Bytes, USER.secretAccessKey)).toBe(false);
  });

  it('a request signed by @aws-sdk/client-s3 (PutObject with metadata, a key needing encoding)', async () => {
    let captured: { method: string; path: string; query: Record<string, string | string[] | null>; headers: Record<string, string> } | undefined;
    const client = new S3Client({
      region: 'us-east-2',
      endpoint: 'http://localhost:20005',
      forcePathStyle: true,
      credentials: USER,
      requestHandler: {
        handle: (request: typeof captured) => {
          captured = request;
          return Promise.reject(new Error('captured'));
        },
      },
    });
    await expect(
      client.send(
        new PutObjectCommand({
          Bucket: 'bucket',
          Key: 'private/us-east-2:1/cedar-creek/Trail cam (1)+é.jpg',
          Body: Buffer.from('jpeg'),
          Metadata: { ranchid: 'cedar-creek', camera_name: 'North feeder' },
        }),
      ),
    ).rejects.toThrow('captured');
    const request = captured!;
    const query = new URLSearchParams(Object.entries(request.query).map(([k, v]): [string, string] => [k, String(v ?? '')])).toString();
    const rawRequest: RawRequest = {
      method: request.method,
      url: query ? `${request.path}?${query}` : request.path,
      rawHeaders: rawHeadersOf(request.headers),
    };
    expect(signedInfo(rawRequest).payloadHash).toMatch(/^[0-9a-f]{64}$|^UNSIGNED-PAYLOAD$/);
    expect(verifies(rawRequest, USER.secretAccessKey)).toBe(true);
    expect(verifies(rawRequest, EXAMPLE.secretAccessKey)).toBe(false);
  });
});

describe('parseSignedRequest', () => {
  it('tells anonymous and malformed requests apart', () => {
    expect(parseSignedRequest({ method: 'GET', url: '/b?list-type=2', rawHeaders: ['Host', 'localhost'] })).toEqual({ kind: 'anonymous' });
    expect(parseSignedRequest({ method: 'GET', url: '/b', rawHeaders: ['Authorization', 'Bearer x'] })).toMatchObject({ kind: 'malformed' });
    expect(
      parseSignedRequest({ method: 'GET', url: '/b', rawHeaders: ['Authorization', 'AWS4-HMAC-SHA256 Credential=x,SignedHeaders=host,Signature=00'] }),
    ).toMatchObject({ kind: 'malformed' });
  });
});

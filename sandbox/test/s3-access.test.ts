/**
 * The IAM decision the sandbox applies to requests made with identity-pool credentials
 * (src/s3-access.ts), and the S3 front's refusals (s3.ts accessRefusal: signature, then policy) on an injected clock.
 */
import { RANCH_VARIABLE } from '@trailsense/infra/upload-access';
import { accessRefusal, OPERATOR_CREDENTIALS } from '../src/s3';
import type { FrontRequest } from '../src/s3';
import { actionOf, unsafeKeyReason, isAllowed, keyMatcher, securityTokenOf } from '../src/s3-access';
import type { Principal, S3Request } from '../src/s3-access';
import type { SessionRegistry } from '../src/sessions';
import { rawHeadersOf, signRequest } from './support/sign';
import type { Credentials } from './support/sign';

const BUCKET = 'trailsense-local-uploads';
const ID = 'us-east-2:11111111-2222-5333-8444-555555555555';
const rancher: Principal = { identityId: ID, tags: { ranchid: 'cedar-creek' } };
const noRanch: Principal = { identityId: ID, tags: {} };

const req = (method: string, path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): S3Request => ({
  method,
  path,
  query,
  headers,
});
const allowed = (request: S3Request, principal: Principal = rancher) => isAllowed(actionOf(request), principal, BUCKET);

describe('actionOf: the IAM action of an S3 request', () => {
  it.each([
    ['PUT', '/b/public/r/a.jpg', {}, 's3:PutObject'],
    ['PUT', '/b/public/r/a.jpg', { partNumber: '1', uploadId: 'u' }, 's3:PutObject'], // UploadPart
    ['POST', '/b/public/r/a.jpg', { uploads: '' }, 's3:PutObject'], // CreateMultipartUpload
    ['POST', '/b/public/r/a.jpg', { uploadId: 'u' }, 's3:PutObject'], // CompleteMultipartUpload
    ['DELETE', '/b/public/r/a.jpg', { uploadId: 'u' }, 's3:AbortMultipartUpload'],
    ['GET', '/b/public/r/a.jpg', { uploadId: 'u' }, 's3:ListMultipartUploadParts'],
    ['GET', '/b/public/r/a.jpg', {}, 's3:GetObject'],
    ['HEAD', '/b/public/r/a.jpg', {}, 's3:GetObject'],
    ['DELETE', '/b/public/r/a.jpg', {}, 's3:DeleteObject'],
    ['PUT', '/b/public/r/a.jpg', { tagging: '' }, 's3:PutObjectTagging'],
    ['GET', '/b/public/r/a.jpg', { tagging: '' }, 's3:GetObjectTagging'],
    ['DELETE', '/b/public/r/a.jpg', { tagging: '' }, 's3:DeleteObjectTagging'],
    ['PUT', '/b/public/r/a.jpg', { acl: '' }, 's3:PutObjectAcl'],
    ['GET', '/b', { 'list-type': '2', prefix: 'public/' }, 's3:ListBucket'],
    ['HEAD', '/b', {}, 's3:ListBucket'],
    ['GET', '/b', { uploads: '' }, 's3:ListBucketMultipartUploads'],
    ['POST', '/b', { delete: '' }, 's3:DeleteObject'],
    ['PUT', '/b', {}, 's3:CreateBucket'],
    ['GET', '/', {}, 's3:ListAllMyBuckets'],
  ])('%s %s %j → %s', (method, path, query, action) => {
    expect(actionOf(req(method, path, query)).action).toBe(action);
  });

  it('decodes the key from the path', () => {
    expect(actionOf(req('PUT', '/b/private/us-east-2%3Aabc/cedar-creek/North%20Feeder.jpg'))).toEqual({
      action: 's3:PutObject',
      bucket: 'b',
      key: 'private/us-east-2:abc/cedar-creek/North Feeder.jpg',
    });
  });

  it('makes a copy need s3:GetObject on its source as well', () => {
    expect(actionOf(req('PUT', '/b/public/r/copy.jpg', {}, { 'x-amz-copy-source': '/b/public/r/a.jpg' })).alsoNeeds).toEqual({
      action: 's3:GetObject',
      bucket: 'b',
      key: 'public/r/a.jpg',
    });
  });
});

describe('isAllowed: the authenticated role on the upload bucket (infra/src/upload-access.ts)', () => {
  it('lets a caller put, multipart-upload and abort under its own ranch, public or under its own identity', () => {
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`))).toBe(true);
    expect(allowed(req('POST', `/${BUCKET}/public/cedar-creek/a.jpg`, { uploads: '' }))).toBe(true);
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, { partNumber: '2', uploadId: 'u' }))).toBe(true);
    expect(allowed(req('POST', `/${BUCKET}/public/cedar-creek/a.jpg`, { uploadId: 'u' }))).toBe(true);
    expect(allowed(req('GET', `/${BUCKET}/public/cedar-creek/a.jpg`, { uploadId: 'u' }))).toBe(true);
    expect(allowed(req('DELETE', `/${BUCKET}/public/cedar-creek/a.jpg`, { uploadId: 'u' }))).toBe(true);
    expect(allowed(req('PUT', `/${BUCKET}/private/${ID}/cedar-creek/a.jpg`))).toBe(true);
  });

  it('refuses another ranch, another identity, and keys outside the layout', () => {
    expect(allowed(req('PUT', `/${BUCKET}/public/mesquite-flats/a.jpg`))).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/private/us-east-2:someone-else/cedar-creek/a.jpg`))).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/private/${ID}/mesquite-flats/a.jpg`))).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/public/a.jpg`))).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek-2/a.jpg`))).toBe(false);
    // The glob's `*` spans slashes, as IAM's does: deeper keys under the ranch are the role's too
    // (the object-created function removes what is outside the layout).
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/deeper/a.jpg`))).toBe(true);
  });

  it('refuses reading, listing, deleting and tagging, even under the caller’s own ranch', () => {
    expect(allowed(req('GET', `/${BUCKET}/public/cedar-creek/a.jpg`))).toBe(false);
    expect(allowed(req('HEAD', `/${BUCKET}/public/cedar-creek/a.jpg`))).toBe(false);
    expect(allowed(req('GET', `/${BUCKET}`, { prefix: 'public/cedar-creek/' }))).toBe(false);
    expect(allowed(req('DELETE', `/${BUCKET}/public/cedar-creek/a.jpg`))).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, { tagging: '' }))).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/copy.jpg`, {}, { 'x-amz-copy-source': `/${BUCKET}/public/cedar-creek/a.jpg` }))).toBe(false);
  });

  it('refuses everything to a caller without a ranchid tag, and everything in another bucket', () => {
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`), noRanch)).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/private/${ID}/cedar-creek/a.jpg`), noRanch)).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/private/${ID}//a.jpg`), { identityId: ID, tags: { ranchid: '' } })).toBe(false);
    expect(allowed(req('PUT', '/another-bucket/public/cedar-creek/a.jpg'))).toBe(false);
  });

  it('substitutes policy variables as literal text, never as globs', () => {
    const star: Principal = { identityId: ID, tags: { ranchid: '*' } };
    expect(allowed(req('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`), star)).toBe(false);
    expect(allowed(req('PUT', `/${BUCKET}/public/*/a.jpg`), star)).toBe(true);
    expect(keyMatcher(`public/${RANCH_VARIABLE}/*`, { identityId: ID, tags: { ranchid: 'a.b' } })?.test('public/axb/k')).toBe(false);
    expect(keyMatcher(`public/${RANCH_VARIABLE}/*`, noRanch)).toBeNull();
  });
});

describe('unsafeKeyReason: keys the sandbox file store cannot hold', () => {
  it.each([
    ['/trailsense-uploads/public/cedar-creek/../../escape.jpg', 'the key has a "." or ".." segment'],
    ['/trailsense-uploads/public/cedar-creek/%2e%2e/%2E%2E/escape.jpg', 'the key has a "." or ".." segment'],
    ['/trailsense-uploads/public/cedar-creek/..%2F..%2Fescape.jpg', 'the key has a "." or ".." segment'],
    ['/trailsense-uploads/public/./cedar-creek/a.jpg', 'the key has a "." or ".." segment'],
    ['/trailsense-uploads/public//cedar-creek/a.jpg', 'the key has an empty segment'],
    ['/trailsense-uploads/public/cedar-creek/', 'the key has an empty segment'],
    ['/trailsense-uploads/public/cedar-creek/a%5C..%5Cb.jpg', 'the key has a backslash'],
    ['/trailsense-uploads/public/cedar-creek/a%00.jpg', 'the key has a NUL character'],
    ['/trailsense-uploads/public/cedar-creek/%E0%A4%A.jpg', 'the key is not valid percent-encoding'],
  ])('refuses %s: %s', (path, reason) => {
    expect(unsafeKeyReason(path)).toBe(reason);
  });

  it.each([
    '/',
    '/trailsense-uploads',
    '/trailsense-uploads/',
    '/trailsense-uploads/public/cedar-creek/4b1c.jpg',
    '/b/private/us-east-2%3Aabc/cedar-creek/a..b.jpg',
  ])('lets %s through', (path) => {
    expect(unsafeKeyReason(path)).toBeUndefined();
  });
});

describe('securityTokenOf', () => {
  it('reads the session token from the header or a presigned URL', () => {
    expect(securityTokenOf(req('PUT', '/b/k', {}, { 'x-amz-security-token': 'abc' }))).toBe('abc');
    expect(securityTokenOf(req('GET', '/b/k', { 'X-Amz-Security-Token': 'def' }))).toBe('def');
    expect(securityTokenOf(req('PUT', '/b/k'))).toBeUndefined();
  });
});

describe('accessRefusal: what the S3 front answers', () => {
  const KEY = { accessKeyId: 'ASIAKNOWNSESSION0001', secretAccessKey: 'session-secret', sessionToken: 'known' };
  const sessions: SessionRegistry = {
    add: () => undefined,
    find: (accessKeyId, nowSeconds) => {
      if (accessKeyId !== KEY.accessKeyId) return { kind: 'unknown' };
      const session = { secretAccessKey: KEY.secretAccessKey, token: KEY.sessionToken };
      return nowSeconds >= 1_500 ? { kind: 'expired', ...session } : { kind: 'valid', ...session, principal: rancher };
    },
  };
  const DATE = new Date(1_000_000);
  const request = async (method: string, path: string, credentials: Credentials | null = KEY, headers: Record<string, string> = {}): Promise<FrontRequest> => {
    const signed = credentials
      ? await signRequest(credentials, { method, path, headers, host: 'localhost:20005', date: DATE })
      : { method, target: path, headers: { host: 'localhost:20005', ...headers } };
    return { method, path, query: {}, headers: signed.headers, raw: { method, url: signed.target, rawHeaders: rawHeadersOf(signed.headers) } };
  };

  it('lets the operator (its own key pair) do anything', async () => {
    expect(accessRefusal(await request('DELETE', `/${BUCKET}/public/cedar-creek/a.jpg`, OPERATOR_CREDENTIALS), sessions, BUCKET, 1_800_000)).toBeUndefined();
  });

  it('allows what the role allows while the session lasts', async () => {
    expect(accessRefusal(await request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`), sessions, BUCKET, 1_499_999)).toBeUndefined();
  });

  it('answers an anonymous request 403 AccessDenied', async () => {
    expect(accessRefusal(await request('GET', `/${BUCKET}/public/cedar-creek/a.jpg`, null), sessions, BUCKET, 0)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it('answers an unknown key 403 InvalidAccessKeyId, and a wrong signature 403 SignatureDoesNotMatch', async () => {
    const unknown = { ...KEY, accessKeyId: 'ASIAUNKNOWNSESSION01' };
    expect(accessRefusal(await request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, unknown), sessions, BUCKET, 1_000_000)).toMatchObject({
      status: 403,
      code: 'InvalidAccessKeyId',
    });
    const wrong = { ...KEY, secretAccessKey: 'guessed' };
    expect(accessRefusal(await request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, wrong), sessions, BUCKET, 1_000_000)).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    const operatorGuess = { ...OPERATOR_CREDENTIALS, secretAccessKey: 'guessed' };
    expect(accessRefusal(await request('DELETE', `/${BUCKET}/public/cedar-creek/a.jpg`, operatorGuess), sessions, BUCKET, 1_000_000)).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
  });

  it("answers a token that is not the session's 400 InvalidToken, an expired session 400 ExpiredToken, and a refused action 403 AccessDenied", async () => {
    expect(
      accessRefusal(await request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, { ...KEY, sessionToken: 'forged' }), sessions, BUCKET, 1_000_000),
    ).toMatchObject({
      status: 400,
      code: 'InvalidToken',
    });
    expect(accessRefusal(await request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`), sessions, BUCKET, 1_500_000)).toMatchObject({
      status: 400,
      code: 'ExpiredToken',
    });
    expect(accessRefusal(await request('GET', `/${BUCKET}/public/cedar-creek/a.jpg`), sessions, BUCKET, 1_000_000)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it("answers a request signed more than 15 minutes from the server's time 403 RequestTimeTooSkewed, either way", async () => {
    const put = () => request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, OPERATOR_CREDENTIALS);
    const fifteenMinutes = 15 * 60 * 1000;
    expect(accessRefusal(await put(), sessions, BUCKET, DATE.getTime() + fifteenMinutes)).toBeUndefined();
    expect(accessRefusal(await put(), sessions, BUCKET, DATE.getTime() - fifteenMinutes)).toBeUndefined();
    expect(accessRefusal(await put(), sessions, BUCKET, DATE.getTime() + fifteenMinutes + 1000)).toMatchObject({ status: 403, code: 'RequestTimeTooSkewed' });
    expect(accessRefusal(await put(), sessions, BUCKET, DATE.getTime() - fifteenMinutes - 1000)).toMatchObject({ status: 403, code: 'RequestTimeTooSkewed' });
  });

  it('answers an x-amz-date that is not a time 403 AccessDenied', async () => {
    const signed = await request('PUT', `/${BUCKET}/public/cedar-creek/a.jpg`, OPERATOR_CREDENTIALS);
    const rawHeaders = [...signed.raw.rawHeaders];
    rawHeaders[rawHeaders.findIndex((h) => h.toLowerCase() === 'x-amz-date') + 1] = 'yesterday';
    expect(accessRefusal({ ...signed, raw: { ...signed.raw, rawHeaders } }, sessions, BUCKET, DATE.getTime())).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });
});

/**
 * Object storage through Amplify's uploadData: metadata, cache-control and content type stored,
 * the ranchid tag set by the object-created hook, upload-metrics counting real uploads, the PUT
 * fault switch (with S3 error codes), and S3's US-ASCII rule for user metadata. Every upload is
 * sent as the uploader sends it: under a reservation the uploads API granted (support/uploads.ts),
 * else the object-created function removes it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { jpegBytes } from '../../test-support/jpeg';
import { fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import { uploadData } from 'aws-amplify/storage';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { installFileReader } from './support/file-reader';
import type { RawAnswer } from './support/raw-http';
import { apiGet, configureAmplify, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorRawRequest, signRequest } from './support/sign';
import { OPERATOR_CREDENTIALS } from '../src/s3';
import { fingerprintOf, ledgerHeaders, reservedMetadata } from './support/uploads';

installFileReader();

const subscriber = seedUser('subscriber@trailsense.example');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  configureAmplify(sandbox);
  await signIn({ username: subscriber.email, password: subscriber.password });
});
afterAll(async () => {
  await signOut().catch(() => undefined);
  await stopTestSandbox(sandbox);
});
afterEach(() => sandbox.setPutFault('0'));

const idToken = async () => (await fetchAuthSession()).tokens!.idToken!.toString();

async function metricsTotal(): Promise<string> {
  const res = await apiGet(sandbox.config, `/ranches/cedar-creek/upload-metrics?yearmo=${countingMonth(new Date())}`, await idToken());
  expect(res.status).toBe(200);
  return res.json['total'] as string;
}

/** As the uploader sends it: a slot reserved for the photo first, then the photo under that reservation. */
async function upload(key: string, bytes: Buffer) {
  const ledger = await reservedMetadata(sandbox.config, await idToken(), 'cedar-creek', bytes);
  return uploadData({
    path: key,
    data: bytes,
    // With a full-object CRC32 (else Amplify HEADs a multipart upload, which the role may not).
    options: {
      contentType: 'image/jpg',
      cacheControl: 'no-cache',
      checksumAlgorithm: 'crc-32',
      // As the uploader: the bucket denies a write without If-None-Match.
      preventOverwrite: true,
      metadata: { ranchid: 'cedar-creek', camera_name: 'North Feeder', ...ledger },
    },
  }).result;
}

/** s3rver's files for an object: `<key>._S3rver_object`, `_metadata.json`, and subresources (none when its folder is not there). */
function objectFiles(key: string): string[] {
  const dir = path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, path.dirname(key));
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith(path.basename(key))) : [];
}

function readObjectFile(key: string, suffix: string): string {
  const dir = path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, path.dirname(key));
  return readFileSync(path.join(dir, `${path.basename(key)}${suffix}`), 'utf8');
}

describe('uploadData against s3rver', () => {
  it('stores the object with metadata, cache-control and content type, tags it, and counts it', async () => {
    const before = await metricsTotal();
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const bytes = jpegBytes(key);
    const result = await upload(key, bytes);
    expect(result.path).toBe(key);

    const files = objectFiles(key);
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}._S3rver_object`))).toEqual(bytes);
    const meta = JSON.parse(readObjectFile(key, '._S3rver_metadata.json')) as Record<string, string>;
    expect(meta).toMatchObject({
      'content-type': 'image/jpg',
      'cache-control': 'no-cache',
      'x-amz-meta-ranchid': 'cedar-creek',
      'x-amz-meta-camera_name': 'North Feeder',
      'x-amz-meta-reservation': expect.stringMatching(/^r-\d{4}_\d{2}-/),
      'x-amz-meta-fingerprint': fingerprintOf(bytes),
    });
    expect(readObjectFile(key, '._S3rver_tagging.xml')).toMatch(/<Key>ranchid<\/Key>\s*<Value>cedar-creek<\/Value>/);

    expect(Number(await metricsTotal())).toBe(Number(before || '0') + 1);
  });

  it('handles a multipart upload (over 5 MB) and tags the completed object', async () => {
    const key = `private/${(await fetchAuthSession()).identityId}/cedar-creek/${randomUUID()}.jpg`;
    const bytes = jpegBytes(key, 6 * 1024 * 1024);
    await upload(key, bytes);
    expect(readObjectFile(key, '._S3rver_tagging.xml')).toContain('cedar-creek');
    expect(JSON.parse(readObjectFile(key, '._S3rver_metadata.json'))).toMatchObject({ 'x-amz-meta-ranchid': 'cedar-creek' });
  });

  it('fails every PUT with a given status when the fault switch says so, then recovers', async () => {
    const before = await metricsTotal();
    sandbox.setPutFault('1:403');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/cedar-creek/${randomUUID()}.jpg`, jpegBytes('x'))).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(sandbox.injectedFaults()).toBe(faultsBefore + 1); // 403 is not retried

    sandbox.setPutFault('0');
    await upload(`public/cedar-creek/${randomUUID()}.jpg`, jpegBytes('y'));
    expect(Number(await metricsTotal())).toBe(Number(before) + 1);
  });

  it('answers 503 SlowDown, which Amplify retries before giving up', async () => {
    sandbox.setPutFault('1:503');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/cedar-creek/${randomUUID()}.jpg`, jpegBytes('z'))).rejects.toMatchObject({ name: 'SlowDown' });
    expect(sandbox.injectedFaults() - faultsBefore).toBeGreaterThan(1);
  });

  it('fails multipart part uploads too', async () => {
    sandbox.setPutFault('1:500');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/cedar-creek/${randomUUID()}.jpg`, jpegBytes('parts', 6 * 1024 * 1024))).rejects.toMatchObject({ name: 'InternalError' });
    expect(sandbox.injectedFaults() - faultsBefore).toBeGreaterThan(1);
  });

  it('fails about the configured fraction of PUTs', async () => {
    sandbox.setPutFault('0.5:503');
    const faultsBefore = sandbox.injectedFaults();
    // Amplify retries each 503 (up to 3 attempts), so most of these still succeed.
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => upload(`public/cedar-creek/${randomUUID()}.jpg`, jpegBytes(`f${i}`))));
    const injected = sandbox.injectedFaults() - faultsBefore;
    expect(injected).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(0);
  });
});

describe('S3 error codes from the fault switch', () => {
  it('1:400:ExpiredToken: Amplify reports the expired credentials by name', async () => {
    sandbox.setPutFault('1:400:ExpiredToken');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/cedar-creek/${randomUUID()}.jpg`, jpegBytes('e'))).rejects.toMatchObject({
      name: 'ExpiredToken',
      message: 'The provided token has expired.',
    });
    expect(sandbox.injectedFaults() - faultsBefore).toBeGreaterThanOrEqual(1);
  });

  it('1:400:RequestTimeout: the S3 XML error, readable by the site', async () => {
    sandbox.setPutFault('1:400:RequestTimeout');
    const res = await rawPut(`public/cedar-creek/${randomUUID()}.jpg`, { Origin: 'http://localhost:3002' });
    expect(res.status).toBe(400);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3002');
    expect(res.body).toContain(
      '<Error><Code>RequestTimeout</Code><Message>Your socket connection to the server was not read from or written to within the timeout period.</Message></Error>',
    );
  });
});

const objectUrl = (key: string, query = '') => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/${key}${query}`;

/** The metadata headers of a raw PUT of `body` under a slot reserved for it (as the subscriber). */
async function reservedHeaders(body: Buffer): Promise<Record<string, string>> {
  const { reservation, fingerprint } = await reservedMetadata(sandbox.config, await idToken(), 'cedar-creek', body);
  return ledgerHeaders(reservation, fingerprint);
}

/** A PUT through node:http signed with the operator's key (src/s3.ts OPERATOR_CREDENTIALS). */
async function rawPut(key: string, headers: Record<string, string>, body: Buffer = Buffer.from('bytes')): Promise<RawAnswer> {
  const res = await operatorRawRequest(objectUrl(key), {
    method: 'PUT',
    headers: { 'Content-Type': 'image/jpg', ...headers },
    body,
    timeoutMs: 10_000,
  });
  if (res === 'no answer') throw new Error(`no answer to PUT ${key}`);
  return res;
}

describe('user metadata must be US-ASCII, as real S3 requires', () => {
  // "Réservoir" as a browser sends it: Latin-1 bytes (node:http writes a header string as latin1).
  const latin1 = 'R\u00e9servoir';
  const rfc2047 = `=?UTF-8?B?${Buffer.from(latin1, 'utf8').toString('base64')}?=`;

  it('refuses a PUT with a non-ASCII x-amz-meta-* value: 403 SignatureDoesNotMatch, readable by the site', async () => {
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    // Under a granted reservation: were the value let through, the object would be stored and counted.
    const body = Buffer.from(`bytes ${key}`);
    const res = await rawPut(
      key,
      { Origin: 'http://localhost:3002', 'x-amz-meta-ranchid': 'cedar-creek', 'x-amz-meta-camera_name': latin1, ...(await reservedHeaders(body)) },
      body,
    );
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3002');
    expect(res.body).toContain(
      '<Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message>',
    );
    expect(objectFiles(key)).toEqual([]);
  });

  it('stores an RFC 2047 encoded value as sent', async () => {
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const before = await metricsTotal();
    const body = jpegBytes(key);
    const res = await rawPut(key, { 'x-amz-meta-ranchid': 'cedar-creek', 'x-amz-meta-camera_name': rfc2047, ...(await reservedHeaders(body)) }, body);
    expect(res.status).toBe(200);
    expect(JSON.parse(readObjectFile(key, '._S3rver_metadata.json'))).toMatchObject({ 'x-amz-meta-camera_name': rfc2047 });
    // Kept and counted by the object-created function: an encoded value is no reason to remove a photo.
    expect(Number(await metricsTotal())).toBe(Number(before || '0') + 1);
  });

  it('checks CreateMultipartUpload too', async () => {
    const post = (headers: Record<string, string>) =>
      operatorRawRequest(objectUrl(`public/cedar-creek/${randomUUID()}.jpg`, '?uploads'), {
        method: 'POST',
        headers: { Origin: 'http://localhost:3000', ...headers },
        timeoutMs: 10_000,
      });
    const refused = await post({ 'x-amz-meta-camera_name': latin1 });
    expect(refused).toMatchObject({ status: 403, headers: { 'access-control-allow-origin': 'http://localhost:3000' } });
    expect((refused as RawAnswer).body).toContain('<Code>SignatureDoesNotMatch</Code>');
    const accepted = await post({ 'x-amz-meta-camera_name': rfc2047 });
    expect(accepted).toMatchObject({ status: 200 });
    expect((accepted as RawAnswer).body).toContain('<UploadId>');
  });
});

describe("keys the sandbox's file store cannot hold are refused before s3rver", () => {
  it.each([
    ['a ".." segment', 'public/cedar-creek/../../../escape.jpg'],
    ['an encoded ".." segment', 'public/cedar-creek/%2e%2e/%2e%2e/%2e%2e/escape.jpg'],
    ['a ".." behind an encoded slash', 'public/cedar-creek/..%2F..%2F..%2Fescape.jpg'],
    ['an empty segment', 'public//cedar-creek/escape.jpg'],
    ['a backslash', 'public/cedar-creek/..%5C..%5Cescape.jpg'],
  ])('%s: 400 InvalidArgument, and no file is written anywhere', async (_label, key) => {
    // The path as a crafted client sends it: URL parsers (node:http's included) would resolve the dot segments first.
    const path_ = `/${sandbox.config.storage.bucket}/${key}`;
    const signed = await signRequest(OPERATOR_CREDENTIALS, { method: 'PUT', path: path_, query: {}, headers: {}, host: `localhost:${sandbox.ports.s3}` });
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: 'localhost', port: sandbox.ports.s3, method: 'PUT', path: path_, headers: signed.headers, agent: false }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end('outside');
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('<Code>InvalidArgument</Code>');
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(path.join(dir, entry.name));
        else if (entry.name.includes('escape')) found.push(path.join(dir, entry.name));
      }
    };
    walk(sandbox.dataDir);
    expect(found).toEqual([]);
  });
});

/**
 * Object storage through Amplify's uploadData: metadata, cache-control and content type stored,
 * the ranchid tag set by the object-created hook, upload-metrics counting real uploads, and the
 * PUT fault switch.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import { uploadData } from 'aws-amplify/storage';
import type { Sandbox } from '../src/index';
import { SEED_USERS, yearMonth } from '../src/index';
import { installFileReader } from './support/file-reader';
import { apiGet, configureAmplify, startTestSandbox, stopTestSandbox } from './support/sandbox';

installFileReader();

const subscriber = SEED_USERS[0]!;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  configureAmplify(sandbox.config);
  await signIn({ username: subscriber.email, password: subscriber.password });
});
afterAll(async () => {
  await signOut().catch(() => undefined);
  await stopTestSandbox(sandbox);
});
afterEach(() => sandbox.setPutFault('0'));

async function metricsTotal(): Promise<string> {
  const token = (await fetchAuthSession()).tokens!.idToken!.toString();
  const res = await apiGet(sandbox.config, `/ranches/cedar-creek/upload-metrics?yearmo=${yearMonth(new Date())}`, token);
  expect(res.status).toBe(200);
  return res.json['total'] as string;
}

function upload(key: string, bytes: Buffer) {
  return uploadData({
    path: key,
    data: bytes,
    options: { contentType: 'image/jpg', cacheControl: 'no-cache', metadata: { ranchid: 'cedar-creek', camera_name: 'North Feeder' } },
  }).result;
}

/** s3rver's files for an object: `<key>._S3rver_object`, `_metadata.json`, and subresources. */
function objectFiles(key: string): string[] {
  const dir = path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, path.dirname(key));
  return readdirSync(dir).filter((f) => f.startsWith(path.basename(key)));
}

function readObjectFile(key: string, suffix: string): string {
  const dir = path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, path.dirname(key));
  return readFileSync(path.join(dir, `${path.basename(key)}${suffix}`), 'utf8');
}

describe('uploadData against s3rver', () => {
  it('stores the object with metadata, cache-control and content type, tags it, and counts it', async () => {
    const before = await metricsTotal();
    const key = `public/${randomUUID()}.jpg`;
    const bytes = Buffer.from('not really a jpeg, but bytes all the same');
    const result = await upload(key, bytes);
    expect(result.path).toBe(key);

    const files = objectFiles(key);
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(readObjectFile(key, '._S3rver_object')).toBe(bytes.toString());
    const meta = JSON.parse(readObjectFile(key, '._S3rver_metadata.json')) as Record<string, string>;
    expect(meta).toMatchObject({
      'content-type': 'image/jpg',
      'cache-control': 'no-cache',
      'x-amz-meta-ranchid': 'cedar-creek',
      'x-amz-meta-camera_name': 'North Feeder',
    });
    expect(readObjectFile(key, '._S3rver_tagging.xml')).toMatch(/<Key>ranchid<\/Key>\s*<Value>cedar-creek<\/Value>/);

    expect(Number(await metricsTotal())).toBe(Number(before || '0') + 1);
  });

  it('handles a multipart upload (over 5 MB) and tags the completed object', async () => {
    const key = `private/${(await fetchAuthSession()).identityId}/${randomUUID()}.jpg`;
    const bytes = Buffer.alloc(6 * 1024 * 1024, 7);
    await upload(key, bytes);
    expect(readObjectFile(key, '._S3rver_tagging.xml')).toContain('cedar-creek');
    expect(JSON.parse(readObjectFile(key, '._S3rver_metadata.json'))).toMatchObject({ 'x-amz-meta-ranchid': 'cedar-creek' });
  });

  it('fails every PUT with a given status when the fault switch says so, then recovers', async () => {
    const before = await metricsTotal();
    sandbox.setPutFault('1:403');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/${randomUUID()}.jpg`, Buffer.from('x'))).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(sandbox.injectedFaults()).toBe(faultsBefore + 1); // 403 is not retried

    sandbox.setPutFault('0');
    await upload(`public/${randomUUID()}.jpg`, Buffer.from('y'));
    expect(Number(await metricsTotal())).toBe(Number(before) + 1);
  });

  it('answers 503 SlowDown, which Amplify retries before giving up', async () => {
    sandbox.setPutFault('1:503');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/${randomUUID()}.jpg`, Buffer.from('z'))).rejects.toMatchObject({ name: 'SlowDown' });
    expect(sandbox.injectedFaults() - faultsBefore).toBeGreaterThan(1);
  });

  it('fails multipart part uploads too', async () => {
    sandbox.setPutFault('1:500');
    const faultsBefore = sandbox.injectedFaults();
    await expect(upload(`public/${randomUUID()}.jpg`, Buffer.alloc(6 * 1024 * 1024, 1))).rejects.toMatchObject({ name: 'InternalError' });
    expect(sandbox.injectedFaults() - faultsBefore).toBeGreaterThan(1);
  });

  it('fails about the configured fraction of PUTs', async () => {
    sandbox.setPutFault('0.5:503');
    const faultsBefore = sandbox.injectedFaults();
    // Amplify retries each 503 (up to 3 attempts), so most of these still succeed.
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => upload(`public/${randomUUID()}.jpg`, Buffer.from('f'))));
    const injected = sandbox.injectedFaults() - faultsBefore;
    expect(injected).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(0);
  });
});

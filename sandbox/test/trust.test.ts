/**
 * Trust on the server (docs/architecture.md#trust-on-the-server), with the real aws-amplify v6
 * client: the S3 front refuses what the identity pool's authenticated role may not do, and the
 * object-created function (infra/src/object-created/handler.ts, run by the sandbox) counts, tags,
 * or removes and records what was stored.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import { downloadData, list, remove, uploadData } from 'aws-amplify/storage';
import type { Sandbox } from '../src/index';
import { SEED_USERS, yearMonth } from '../src/index';
import { installFileReader } from './support/file-reader';
import { rawRequest } from './support/raw-http';
import { apiGet, configureAmplify, startTestSandbox, stopTestSandbox } from './support/sandbox';

installFileReader();

const [subscriber, free, , noRanch] = SEED_USERS as [(typeof SEED_USERS)[number], (typeof SEED_USERS)[number], unknown, (typeof SEED_USERS)[number]];
let sandbox: Sandbox;
const lines: string[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ log: (line) => lines.push(line) });
  configureAmplify(sandbox.config);
});
afterAll(async () => {
  await signOut().catch(() => undefined);
  await stopTestSandbox(sandbox);
});

async function signInAs(user: { email: string; password: string }): Promise<void> {
  await signOut().catch(() => undefined);
  await signIn({ username: user.email, password: user.password });
}

async function metricsTotal(ranchId: string): Promise<string> {
  const token = (await fetchAuthSession()).tokens!.idToken!.toString();
  const res = await apiGet(sandbox.config, `/ranches/${ranchId}/upload-metrics?yearmo=${yearMonth(new Date())}`, token);
  expect(res.status).toBe(200);
  return res.json['total'] as string;
}

// As the uploader sends it (uploader-remote/src/features/upload/services/amplify-storage.ts).
const upload = (key: string, ranchid: string, bytes = Buffer.from('jpeg bytes'), checksum = true) =>
  uploadData({ path: key, data: bytes, options: { contentType: 'image/jpg', ...(checksum ? { checksumAlgorithm: 'crc-32' as const } : {}), metadata: { ranchid, camera_name: '' } } })
    .result;

const objectFile = (key: string, suffix = '._S3rver_object') => path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}${suffix}`);
const stored = (key: string) => existsSync(objectFile(key));

describe('the authenticated role, as IAM would apply it', () => {
  it('stores, tags and counts an upload to the caller’s own ranch', async () => {
    await signInAs(subscriber);
    const before = Number((await metricsTotal('cedar-creek')) || '0');
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    await upload(key, 'cedar-creek');
    expect(stored(key)).toBe(true);
    expect(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8')).toMatch(/<Key>ranchid<\/Key>\s*<Value>cedar-creek<\/Value>/);
    expect(Number(await metricsTotal('cedar-creek'))).toBe(before + 1);
  });

  it('refuses an upload under another ranch with 403 AccessDenied, and stores nothing', async () => {
    await signInAs(subscriber);
    const identityId = (await fetchAuthSession()).identityId!;
    const keys = [`public/mesquite-flats/${randomUUID()}.jpg`, `private/${identityId}/mesquite-flats/${randomUUID()}.jpg`, `public/${randomUUID()}.jpg`];
    for (const key of keys) {
      await expect(upload(key, 'mesquite-flats')).rejects.toMatchObject({ name: 'AccessDenied' });
      expect(lines).toContainEqual(expect.stringContaining(`-> 403 AccessDenied: s3:PutObject on ${sandbox.config.storage.bucket}/${key} is not allowed`));
      expect(stored(key)).toBe(false);
    }
    // A multipart upload is refused at its start.
    const big = `public/mesquite-flats/${randomUUID()}.jpg`;
    await expect(upload(big, 'mesquite-flats', Buffer.alloc(6 * 1024 * 1024, 3))).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(stored(big)).toBe(false);
  });

  it('completes a multipart upload with a full-object CRC32; without one Amplify HEADs the object, which the role may not', async () => {
    await signInAs(subscriber);
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    await upload(key, 'cedar-creek', Buffer.alloc(6 * 1024 * 1024, 5));
    expect(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8')).toContain('cedar-creek');
    // Stored and counted, yet the client reports a failure: what production would do without the checksum.
    const unchecked = `public/cedar-creek/${randomUUID()}.jpg`;
    await expect(upload(unchecked, 'cedar-creek', Buffer.alloc(6 * 1024 * 1024, 6), false)).rejects.toThrow('403'); // a HEAD's error has no body
    expect(lines).toContainEqual(expect.stringContaining(`-> 403 AccessDenied: s3:GetObject on ${sandbox.config.storage.bucket}/${unchecked} is not allowed`));
  });

  it('lets a user without a ranch put nothing', async () => {
    await signInAs(noRanch);
    const identityId = (await fetchAuthSession()).identityId!;
    for (const key of [`public/cedar-creek/${randomUUID()}.jpg`, `private/${identityId}/cedar-creek/${randomUUID()}.jpg`]) {
      await expect(upload(key, 'cedar-creek')).rejects.toMatchObject({ name: 'AccessDenied' });
      expect(stored(key)).toBe(false);
    }
  });

  it('refuses reading, listing and deleting objects, even the caller’s own', async () => {
    await signInAs(subscriber);
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    await upload(key, 'cedar-creek');
    await expect(downloadData({ path: key }).result).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(list({ path: 'public/cedar-creek/' })).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(remove({ path: key })).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(stored(key)).toBe(true);
  });

  it('answers a session token it never issued 400 InvalidToken, with CORS for the site', async () => {
    const res = await rawRequest(`http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/public/cedar-creek/${randomUUID()}.jpg`, {
      method: 'PUT',
      headers: { Origin: 'http://localhost:3002', 'x-amz-security-token': 'forged', 'x-amz-meta-ranchid': 'cedar-creek' },
      body: 'bytes',
      timeoutMs: 10_000,
    });
    expect(res).toMatchObject({ status: 400, headers: { 'access-control-allow-origin': 'http://localhost:3002' } });
    expect(res === 'no answer' ? '' : res.body).toContain('<Code>InvalidToken</Code>');
  });
});

describe('the object-created function in the sandbox', () => {
  it('removes an object whose metadata names another ranch than its key, and records why', async () => {
    await signInAs(subscriber);
    const before = await metricsTotal('cedar-creek');
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    // Allowed by IAM (the key is the caller's ranch); the metadata is whatever the caller sent.
    await upload(key, 'mesquite-flats');
    expect(stored(key)).toBe(false);
    expect(sandbox.refusals()).toContainEqual(expect.objectContaining({ key, ranchId: 'cedar-creek', claimedRanchId: 'mesquite-flats', reason: 'ranch-mismatch' }));
    expect(await metricsTotal('cedar-creek')).toBe(before);
  });

  it('removes and records the upload past the ranch’s ceiling; upload-metrics stays at the ceiling', async () => {
    // Mesquite Flats: max 0, so the ceiling is 1,000; 985 already counted this month.
    await signInAs(free);
    const remaining = 1000 - Number(await metricsTotal('mesquite-flats'));
    expect(remaining).toBeGreaterThan(0);
    const keys = Array.from({ length: remaining + 1 }, () => `public/mesquite-flats/${randomUUID()}.jpg`);
    for (const key of keys) await upload(key, 'mesquite-flats');
    const last = keys.at(-1)!;
    expect(keys.slice(0, -1).every(stored)).toBe(true);
    expect(stored(last)).toBe(false);
    expect(sandbox.refusals()).toContainEqual(expect.objectContaining({ key: last, ranchId: 'mesquite-flats', reason: 'monthly-limit' }));
    expect(await metricsTotal('mesquite-flats')).toBe('1000');
  });
});

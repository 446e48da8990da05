/**
 * Trust on the server (infra/docs/server.md#trust-on-the-server), with the real aws-amplify v6
 * client: the S3 front refuses what the identity pool's authenticated role may not do, and the
 * object-created function (infra/src/object-created/handler.ts, run by the sandbox) counts, tags,
 * or removes and records what was stored. Uploads are sent as the uploader sends them, under a
 * reservation the uploads API granted (support/uploads.ts); uploads-api.test.ts tests the
 * reservations themselves.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jpegBytes } from '../../test-support/jpeg';
import { fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import { downloadData, list, remove, uploadData } from 'aws-amplify/storage';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { OPERATOR_CREDENTIALS } from '../src/s3';
import { installFileReader } from './support/file-reader';
import { rawRequest } from './support/raw-http';
import type { RawAnswer } from './support/raw-http';
import { apiGet, configureAmplify, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { presign, signedRawRequest } from './support/sign';
import { askReservation, fingerprintOf, ledgerHeaders, reservedMetadata, setRanchUsage } from './support/uploads';

installFileReader();

const subscriber = seedUser('subscriber@trailsense.example');
const free = seedUser('free@trailsense.example');
const noRanch = seedUser('noranch@trailsense.example');
let sandbox: Sandbox;
const lines: string[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ log: (line) => lines.push(line) });
  configureAmplify(sandbox);
});
afterAll(async () => {
  await signOut().catch(() => undefined);
  await stopTestSandbox(sandbox);
});

async function signInAs(user: { email: string; password: string }): Promise<void> {
  await signOut().catch(() => undefined);
  await signIn({ username: user.email, password: user.password });
}

const idToken = async () => (await fetchAuthSession()).tokens!.idToken!.toString();
/** The signed-in user's ranch (their id token's custom:ranchid), if they have one. */
const ownRanch = async () => (await fetchAuthSession()).tokens!.idToken!.payload['custom:ranchid'] as string | undefined;

async function metricsTotal(ranchId: string): Promise<string> {
  const res = await apiGet(sandbox.config, `/ranches/${ranchId}/upload-metrics?yearmo=${countingMonth(new Date())}`, await idToken());
  expect(res.status).toBe(200);
  return res.json['total'] as string;
}

/** A photo's bytes, each call another photo: the ranch would not be sent one it already has (uploads-api.test.ts). */
const photoBytes = () => jpegBytes(`jpeg bytes ${randomUUID()}`);

/**
 * As the uploader sends it (uploader-remote/src/features/upload/services/amplify-storage.ts): the
 * `ranchid` metadata, and the reservation and fingerprint of a slot reserved for the photo first,
 * for the signed-in user's own ranch (`reservation` to send one already granted; none for a user
 * without a ranch, who cannot reserve).
 */
async function upload(key: string, ranchid: string, bytes = photoBytes(), checksum = true, reservation?: string) {
  const ranch = await ownRanch();
  const ledger =
    reservation !== undefined
      ? { reservation, fingerprint: fingerprintOf(bytes) }
      : ranch
        ? await reservedMetadata(sandbox.config, await idToken(), ranch, bytes)
        : {};
  return uploadData({
    path: key,
    data: bytes,
    options: {
      contentType: 'image/jpg',
      // As the uploader: the bucket denies a write without If-None-Match.
      preventOverwrite: true,
      ...(checksum ? { checksumAlgorithm: 'crc-32' as const } : {}),
      metadata: { ranchid, camera_name: '', ...ledger },
    },
  }).result;
}

/** The x-amz-meta-* headers of a reserved slot for a raw PUT of `bytes` (as the signed-in user). */
async function reservedHeaders(bytes: Buffer): Promise<Record<string, string>> {
  const { reservation, fingerprint } = await reservedMetadata(sandbox.config, await idToken(), (await ownRanch())!, bytes);
  return ledgerHeaders(reservation, fingerprint);
}

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
    await upload(key, 'cedar-creek', jpegBytes(key, 6 * 1024 * 1024));
    expect(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8')).toContain('cedar-creek');
    // Stored and counted, yet the client reports a failure: what production would do without the checksum.
    const unchecked = `public/cedar-creek/${randomUUID()}.jpg`;
    await expect(upload(unchecked, 'cedar-creek', jpegBytes(unchecked, 6 * 1024 * 1024), false)).rejects.toThrow('403'); // a HEAD's error has no body
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

  it('answers a session token it never issued with those keys 400 InvalidToken, with CORS for the site', async () => {
    await signInAs(subscriber);
    const { accessKeyId, secretAccessKey } = (await fetchAuthSession()).credentials!;
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const res = await signedRawRequest({ accessKeyId, secretAccessKey, sessionToken: 'forged' }, objectUrl(key), {
      method: 'PUT',
      headers: { Origin: 'http://localhost:3002', 'x-amz-meta-ranchid': 'cedar-creek' },
      body: 'bytes',
      timeoutMs: 10_000,
    });
    expect(res).toMatchObject({ status: 400, headers: { 'access-control-allow-origin': 'http://localhost:3002' } });
    expect(answered(res).body).toContain('<Code>InvalidToken</Code>');
    expect(stored(key)).toBe(false);
  });

  it('issues each session its own access key id and secret', async () => {
    await signInAs(subscriber);
    const first = (await fetchAuthSession()).credentials!;
    await signInAs(free);
    const second = (await fetchAuthSession()).credentials!;
    expect(first.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(second.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(second.accessKeyId).not.toBe(first.accessKeyId);
    expect(second.secretAccessKey).not.toBe(first.secretAccessKey);
  });
});

const objectUrl = (key: string, query = '') => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/${key}${query}`;
const answered = (res: RawAnswer | 'no answer'): RawAnswer => {
  if (res === 'no answer') throw new Error('no answer');
  return res;
};

describe('authentication: every S3 request is signed, as S3 wants it (src/sigv4.ts)', () => {
  /** An object the subscriber stored under their own identity's private prefix. */
  async function privatePhoto(): Promise<string> {
    await signInAs(subscriber);
    const key = `private/${(await fetchAuthSession()).identityId}/cedar-creek/${randomUUID()}.jpg`;
    await upload(key, 'cedar-creek');
    expect(stored(key)).toBe(true);
    return key;
  }

  it('refuses an anonymous list of private/: 403 AccessDenied', async () => {
    await privatePhoto();
    const res = answered(await rawRequest(objectUrl('', '?list-type=2&prefix=private%2F'), { method: 'GET', timeoutMs: 10_000 }));
    expect(res.status).toBe(403);
    expect(res.body).toContain('<Code>AccessDenied</Code>');
    expect(res.body).not.toContain('<Key>');
  });

  it('refuses an anonymous GET of another user’s private photo: 403 AccessDenied', async () => {
    const key = await privatePhoto();
    const res = answered(await rawRequest(objectUrl(key), { method: 'GET', timeoutMs: 10_000 }));
    expect(res.status).toBe(403);
    expect(res.body).toContain('<Code>AccessDenied</Code>');
    expect(res.body).not.toContain('jpeg bytes');
  });

  it('refuses an anonymous PUT, whatever ranch its metadata names: 403 AccessDenied, nothing stored or counted', async () => {
    await signInAs(subscriber);
    const before = await metricsTotal('cedar-creek');
    for (const ranchid of ['cedar-creek', 'mesquite-flats']) {
      const key = `public/cedar-creek/${randomUUID()}.jpg`;
      const res = answered(
        await rawRequest(objectUrl(key), {
          method: 'PUT',
          headers: { Origin: 'http://localhost:3000', 'x-amz-meta-ranchid': ranchid },
          body: 'bytes',
          timeoutMs: 10_000,
        }),
      );
      expect(res).toMatchObject({ status: 403, headers: { 'access-control-allow-origin': 'http://localhost:3000' } });
      expect(res.body).toContain('<Code>AccessDenied</Code>');
      expect(stored(key)).toBe(false);
    }
    expect(await metricsTotal('cedar-creek')).toBe(before);
  });

  it('refuses an anonymous DELETE: 403 AccessDenied, the object and its count stay', async () => {
    await signInAs(subscriber);
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    await upload(key, 'cedar-creek');
    const before = await metricsTotal('cedar-creek');
    const res = answered(await rawRequest(objectUrl(key), { method: 'DELETE', timeoutMs: 10_000 }));
    expect(res.status).toBe(403);
    expect(res.body).toContain('<Code>AccessDenied</Code>');
    expect(stored(key)).toBe(true);
    expect(await metricsTotal('cedar-creek')).toBe(before);
  });

  it('refuses a request signed with the wrong secret: 403 SignatureDoesNotMatch', async () => {
    await signInAs(subscriber);
    const { accessKeyId, secretAccessKey, sessionToken } = (await fetchAuthSession()).credentials!;
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const res = answered(
      await signedRawRequest({ accessKeyId, secretAccessKey: `${secretAccessKey}x`, ...(sessionToken ? { sessionToken } : {}) }, objectUrl(key), {
        method: 'PUT',
        headers: { 'x-amz-meta-ranchid': 'cedar-creek' },
        body: 'bytes',
        timeoutMs: 10_000,
      }),
    );
    expect(res.status).toBe(403);
    expect(res.body).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(stored(key)).toBe(false);
  });

  it('refuses an access key id nobody issued: 403 InvalidAccessKeyId', async () => {
    const res = answered(
      await signedRawRequest(
        { accessKeyId: 'ASIAAAAAAAAAAAAAAAAA', secretAccessKey: 'guess', sessionToken: 'guess' },
        objectUrl(`public/cedar-creek/${randomUUID()}.jpg`),
        {
          method: 'PUT',
          body: 'bytes',
          timeoutMs: 10_000,
        },
      ),
    );
    expect(res.status).toBe(403);
    expect(res.body).toContain('<Code>InvalidAccessKeyId</Code>');
  });

  it('presigned URLs: the operator’s reads the object, a user’s is refused by the role (403 AccessDenied)', async () => {
    await signInAs(subscriber);
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const bytes = photoBytes();
    await upload(key, 'cedar-creek', bytes);
    const path = `/${sandbox.config.storage.bucket}/${key}`;
    const operator = await presign(OPERATOR_CREDENTIALS, { method: 'GET', path, expiresIn: 60, host: `localhost:${sandbox.ports.s3}` });
    const read = answered(await rawRequest(`http://localhost:${sandbox.ports.s3}${operator.target}`, { method: 'GET', timeoutMs: 10_000 }));
    expect(read).toMatchObject({ status: 200, body: bytes.toString() });
    const { accessKeyId, secretAccessKey, sessionToken } = (await fetchAuthSession()).credentials!;
    const user = await presign(
      { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
      { method: 'GET', path, expiresIn: 60, host: `localhost:${sandbox.ports.s3}` },
    );
    const refused = answered(await rawRequest(`http://localhost:${sandbox.ports.s3}${user.target}`, { method: 'GET', timeoutMs: 10_000 }));
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('<Code>AccessDenied</Code>');
  });

  it('accepts the same request signed with the right secret (the refusals above are the signature’s)', async () => {
    await signInAs(subscriber);
    const { accessKeyId, secretAccessKey, sessionToken } = (await fetchAuthSession()).credentials!;
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const body = photoBytes();
    const res = answered(
      await signedRawRequest({ accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }, objectUrl(key), {
        method: 'PUT',
        headers: { 'Content-Type': 'image/jpg', 'x-amz-meta-ranchid': 'cedar-creek', 'If-None-Match': '*', ...(await reservedHeaders(body)) },
        body,
        timeoutMs: 10_000,
      }),
    );
    expect(res.status).toBe(200);
    expect(stored(key)).toBe(true);
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
    expect(sandbox.refusals()).toContainEqual(
      expect.objectContaining({ key, ranchId: 'cedar-creek', claimedRanchId: 'mesquite-flats', reason: 'ranch-mismatch' }),
    );
    expect(await metricsTotal('cedar-creek')).toBe(before);
  });

  it('removes and records the upload past the ranch’s ceiling; upload-metrics stays at the ceiling', async () => {
    // Mesquite Flats: max 0, so the ceiling is 1,000; 985 already counted this month (set here, so
    // the test does not depend on what ran before).
    await setRanchUsage(sandbox, 'mesquite-flats', 985);
    await signInAs(free);
    const remaining = 1000 - Number(await metricsTotal('mesquite-flats'));
    expect(remaining).toBe(15);
    // One more photo than there is room for: the uploads API grants the room and no more.
    const photos = Array.from({ length: remaining + 1 }, (_, i) => ({
      key: `public/mesquite-flats/${randomUUID()}.jpg`,
      bytes: jpegBytes(`jpeg ${i} ${randomUUID()}`),
    }));
    const { json: answer } = await askReservation(
      sandbox.config,
      await idToken(),
      'mesquite-flats',
      photos.map((p) => fingerprintOf(p.bytes)),
    );
    expect(answer.granted).toHaveLength(remaining);
    // A client that sends the extra photo anyway, under that reservation: its slots are used up
    // and the ceiling has no room left, so the server removes it.
    for (const { key, bytes } of photos) await upload(key, 'mesquite-flats', bytes, true, answer.reservation!);
    const last = photos.at(-1)!.key;
    expect(photos.slice(0, -1).every((p) => stored(p.key))).toBe(true);
    expect(stored(last)).toBe(false);
    expect(sandbox.refusals()).toContainEqual(expect.objectContaining({ key: last, ranchId: 'mesquite-flats', reason: 'monthly-limit' }));
    expect(await metricsTotal('mesquite-flats')).toBe('1000');
  });
});

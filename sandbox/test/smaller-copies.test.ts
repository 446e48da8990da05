/**
 * Smaller copies on the sandbox, end to end and with a client no one here wrote (the AWS SDK's S3
 * client, as conformance.test.ts drives it): a member sends a smaller copy of a photo under a
 * reservation, the uploads API then says the ranch has it only as a copy (`copies`), and the
 * original sent later without a reservation is verified from its stored bytes by the
 * object-created function on the sandbox's S3 (src/s3-object-created.ts: ranged reads of
 * s3rver's store) and the SQLite ledger (src/ledger.ts): upgraded, tagged, counted in no month.
 * An "original" whose bytes are another photo is refused like anything sent without asking.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { jpegBytes } from '../../test-support/jpeg';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { passwordTokens, s3Endpoint, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { askReservation, fingerprintOf, identityCredentials, ledgerClock, reserve, uploadMetrics, uploadsApi } from './support/uploads';

const subscriber = seedUser('subscriber@trailsense.example');
const CEDAR = 'cedar-creek';

let sandbox: Sandbox;
let idToken: string;
let s3: S3Client;
const lines: string[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ log: (line) => lines.push(line) });
  idToken = (await passwordTokens(sandbox.config, subscriber.email, subscriber.password)).IdToken;
  s3 = new S3Client({
    region: sandbox.config.storage.region,
    endpoint: s3Endpoint(sandbox),
    forcePathStyle: true,
    credentials: (await identityCredentials(sandbox.config, idToken)).credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  s3?.destroy();
  await stopTestSandbox(sandbox);
});

const objectFile = (key: string, suffix = '._S3rver_object') => path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}${suffix}`);
const stored = (key: string) => existsSync(objectFile(key));
const tagged = (key: string) =>
  stored(key) && /<Key>ranchid<\/Key>\s*<Value>cedar-creek<\/Value>/.test(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8'));
const decisionOf = (key: string) =>
  lines
    .filter((line) => line.includes('object-created {'))
    .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { decision: string; key: string; reason?: string })
    .filter((d) => d.key === key);
const total = async () => (await uploadMetrics(sandbox.config, idToken, CEDAR, countingMonth(new Date((await ledgerClock(sandbox)).now)))).total;
const lookup = (fingerprints: string[]) => uploadsApi(sandbox.config, 'POST', `/ranches/${CEDAR}/photo-lookups`, idToken, { fingerprints });

/** A PUT as the uploader makes it (If-None-Match, the ranch and camera), with `metadata`; its key. */
async function put(body: Buffer, metadata: Record<string, string>): Promise<string> {
  const key = `public/${CEDAR}/${randomUUID()}.jpg`;
  await s3.send(
    new PutObjectCommand({
      Bucket: sandbox.config.storage.bucket,
      Key: key,
      Body: body,
      ContentType: 'image/jpg',
      IfNoneMatch: '*',
      Metadata: { ranchid: CEDAR, camera_name: 'North feeder', ...metadata },
    }),
  );
  return key;
}

/** A camera's original (over 128 KiB: two sampled ranges), its smaller copy sent and counted; the copy's key. */
async function sentCopy() {
  const original = jpegBytes(`original ${randomUUID()}`, 300_000);
  const fingerprint = fingerprintOf(original);
  const reservation = await reserve(sandbox.config, idToken, CEDAR, [fingerprint]);
  const copyKey = await put(jpegBytes(`copy of ${fingerprint}`, 40_000), { reservation, fingerprint, photo_form: 'copy' });
  return { original, fingerprint, copyKey };
}

it('counts a copy once, answers it among `copies`, and upgrades it with its original sent without a reservation', async () => {
  const before = Number((await total()) || '0');
  const { original, fingerprint, copyKey } = await sentCopy();
  expect(tagged(copyKey)).toBe(true);
  expect(decisionOf(copyKey)).toEqual([expect.objectContaining({ decision: 'counted' })]);
  expect(await total()).toBe(String(before + 1));
  expect(await lookup([fingerprint])).toEqual({ status: 200, json: { known: [fingerprint], copies: [fingerprint], knownSizes: [] } });
  expect((await askReservation(sandbox.config, idToken, CEDAR, [fingerprint])).json).toMatchObject({
    reservation: null,
    known: [fingerprint],
    copies: [fingerprint],
    granted: [],
  });

  const originalKey = await put(original, { fingerprint, photo_form: 'original' });
  expect(decisionOf(originalKey)).toEqual([expect.objectContaining({ decision: 'upgraded', fingerprint })]);
  expect(tagged(originalKey)).toBe(true);
  expect(readFileSync(objectFile(originalKey))).toEqual(original);
  // The copy stays stored; the photo counted once.
  expect(tagged(copyKey)).toBe(true);
  expect(await total()).toBe(String(before + 1));
  expect(await lookup([fingerprint])).toEqual({ status: 200, json: { known: [fingerprint], copies: [], knownSizes: [] } });
  expect(sandbox.refusals().filter((r) => r.key === originalKey)).toEqual([]);

  // A second original of it, without a reservation: sent without asking.
  const again = await put(original, { fingerprint, photo_form: 'original' });
  expect(stored(again)).toBe(false);
  expect(sandbox.refusals().find((r) => r.key === again)).toMatchObject({ reason: 'no-reservation' });
});

it('refuses an "original" whose stored bytes are not the photo it names, and one whose photo_form is neither form', async () => {
  const before = await total();
  const { fingerprint } = await sentCopy();
  const crafted = await put(jpegBytes(`another photo ${randomUUID()}`, 300_000), { fingerprint, photo_form: 'original' });
  expect(stored(crafted)).toBe(false);
  expect(sandbox.refusals().find((r) => r.key === crafted)).toMatchObject({ ranchId: CEDAR, reason: 'no-reservation' });
  expect((await lookup([fingerprint])).json).toMatchObject({ copies: [fingerprint] });

  const reservation = await reserve(sandbox.config, idToken, CEDAR, [fingerprintOf(jpegBytes(randomUUID()))]);
  const odd = await put(jpegBytes(`odd ${randomUUID()}`), { reservation, fingerprint, photo_form: 'thumbnail' });
  expect(stored(odd)).toBe(false);
  expect(sandbox.refusals().find((r) => r.key === odd)).toMatchObject({ reason: 'malformed-metadata' });
  expect(await total()).toBe(String(Number(before || '0') + 1));
});

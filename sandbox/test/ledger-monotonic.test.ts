/**
 * The upload ledger's count never drops (as production's, infra/src/ledger/rules.ts): objects
 * counted and then deleted — one by one or in a multi-object delete — stay counted, over HTTP.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteObjectsCommand } from '@aws-sdk/client-s3';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { passwordTokens, s3Endpoint, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorFetch, operatorS3 } from './support/sign';
import { fingerprintOf, ledgerHeaders, reserve, uploadMetrics } from './support/uploads';

const subscriber = seedUser('subscriber@trailsense.example');
const RANCH = 'cedar-creek';
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => stopTestSandbox(sandbox));

/** A JPEG's first bytes and then noise: each call another photo. */
const photo = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64)]);

it('keeps counting objects after they are deleted', async () => {
  const { IdToken } = await passwordTokens(sandbox.config, subscriber.email, subscriber.password);
  const yearmo = countingMonth(new Date());
  const total = async () => Number((await uploadMetrics(sandbox.config, IdToken, RANCH, yearmo)).total || 0);
  const before = await total();

  const photos = [photo(), photo(), photo()];
  const reservation = await reserve(sandbox.config, IdToken, RANCH, photos.map(fingerprintOf));
  const bucket = sandbox.config.storage.bucket;
  const keys = photos.map(() => `public/${RANCH}/${randomUUID()}.jpg`);
  for (const [i, bytes] of photos.entries()) {
    const put = await operatorFetch(`http://localhost:${sandbox.ports.s3}/${bucket}/${keys[i]}`, {
      method: 'PUT',
      headers: { 'content-type': 'image/jpeg', 'if-none-match': '*', 'x-amz-meta-ranchid': RANCH, ...ledgerHeaders(reservation, fingerprintOf(bytes)) },
      body: bytes,
    });
    expect(put.status).toBe(200);
  }
  expect(sandbox.refusals().filter((r) => keys.includes(r.key))).toEqual([]);
  expect(await total()).toBe(before + 3);

  const one = await operatorFetch(`http://localhost:${sandbox.ports.s3}/${bucket}/${keys[0]}`, { method: 'DELETE' });
  expect(one.status).toBe(204);
  const many = await operatorS3(s3Endpoint(sandbox)).send(
    new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(1).map((Key) => ({ Key })) } }),
  );
  expect(many.Deleted?.map((d) => d.Key).sort()).toEqual(keys.slice(1).sort());
  for (const key of keys) {
    expect((await operatorFetch(`http://localhost:${sandbox.ports.s3}/${bucket}/${key}`, { method: 'HEAD' })).status).toBe(404);
  }

  expect(await total()).toBe(before + 3);
});

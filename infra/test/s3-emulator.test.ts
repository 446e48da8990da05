/**
 * The S3 emulator (s3rver, patched by patches/@20minutes+s3rver+4.0.4.patch) is as strict as S3
 * about conditional writes, which the deploy lock (src/deploy/lock.ts) relies on: `If-None-Match:
 * *` on a key that holds an object is 412 PreconditionFailed, `If-Match` with another ETag is 412
 * and on a missing key 404, and a conditional write that meets another write of the key still
 * under way is 409 ConditionalRequestConflict — through plain HTTP and through the AWS SDK. And
 * as S3 does, it replaces an object whole (support/s3rver-process.cjs): while a new body is on its
 * way, readers get the previous object, entire.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3RVER_KEYS, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';

let s3: S3Emulator;
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3Emulator('conditional');
  client = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: S3RVER_KEYS,
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

async function put(key: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(s3.url(key), { method: 'PUT', body, headers });
  return { status: res.status, body: await res.text() };
}

const read = async (key: string) => (await fetch(s3.url(key))).text();

test('If-None-Match: * writes a new key, and answers 412 PreconditionFailed on an existing one, leaving it as it was', async () => {
  expect((await put('create-only', 'first', { 'If-None-Match': '*' })).status).toBe(200);
  const second = await put('create-only', 'second', { 'If-None-Match': '*' });
  expect(second.status).toBe(412);
  expect(second.body).toContain('<Code>PreconditionFailed</Code>');
  expect(await read('create-only')).toBe('first');
  // Without the condition a write replaces the object, as before.
  expect((await put('create-only', 'third')).status).toBe(200);
  expect(await read('create-only')).toBe('third');
});

test('through the AWS SDK: PutObject with IfNoneMatch fails with PreconditionFailed (412)', async () => {
  await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'sdk', Body: 'one', IfNoneMatch: '*' }));
  const error = await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'sdk', Body: 'two', IfNoneMatch: '*' })).catch((e: unknown) => e);
  expect(error).toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
  const answer = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'sdk' }));
  expect(await answer.Body?.transformToString()).toBe('one');
});

test('If-Match replaces only the object with that ETag: 412 for another, 404 when there is none', async () => {
  await put('swap', 'v1');
  expect((await put('swap', 'v2', { 'If-Match': `"${md5('other')}"` })).status).toBe(412);
  expect(await read('swap')).toBe('v1');
  expect((await put('swap', 'v2', { 'If-Match': `"${md5('v1')}"` })).status).toBe(200);
  expect(await read('swap')).toBe('v2');
  expect((await put('never-written', 'x', { 'If-Match': `"${md5('x')}"` })).status).toBe(404);
});

test('If-None-Match with an ETag (S3 takes only *) is refused, not ignored', async () => {
  expect((await put('etag-condition', 'x', { 'If-None-Match': `"${md5('x')}"` })).status).toBe(501);
});

test('a conditional write that meets another write of the key still under way: 409 ConditionalRequestConflict; then 412', async () => {
  const url = new URL(s3.url('race'));
  // The first write sends its headers and half its body, and waits.
  let answerFirst!: (status: number) => void;
  const firstStatus = new Promise<number>((resolve) => (answerFirst = resolve));
  const first = http.request(url, { method: 'PUT', headers: { 'If-None-Match': '*', 'Content-Length': '10' } }, (res) => {
    res.resume();
    answerFirst(res.statusCode ?? 0);
  });
  first.write('01234');
  // Wait until the emulator is storing the first write (however long a busy machine takes to get
  // there): a fixed pause could end before the first request reached it, and the second write
  // would then find no write under way and succeed.
  while (!s3.storing('race')) await new Promise((resolve) => setTimeout(resolve, 10));
  const second = await put('race', 'other body', { 'If-None-Match': '*' });
  expect(second.status).toBe(409);
  expect(second.body).toContain('<Code>ConditionalRequestConflict</Code>');
  first.end('56789');
  expect(await firstStatus).toBe(200);
  expect(await read('race')).toBe('0123456789');
  expect((await put('race', 'late', { 'If-None-Match': '*' })).status).toBe(412);
});

test('an object being replaced is read whole: the previous one until the new one is complete', async () => {
  expect((await put('replaced', 'previous body')).status).toBe(200);
  let answerWrite!: (status: number) => void;
  const writeStatus = new Promise<number>((resolve) => (answerWrite = resolve));
  const writing = http.request(new URL(s3.url('replaced')), { method: 'PUT', headers: { 'Content-Length': '8' } }, (res) => {
    res.resume();
    answerWrite(res.statusCode ?? 0);
  });
  writing.write('next');
  while (!s3.storing('replaced')) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await read('replaced')).toBe('previous body');
  const head = await fetch(s3.url('replaced'), { method: 'HEAD' });
  expect(head.headers.get('content-length')).toBe(String('previous body'.length));
  writing.end('body');
  expect(await writeStatus).toBe(200);
  expect(await read('replaced')).toBe('nextbody');
});

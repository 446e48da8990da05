/**
 * S3's checksums on PutObject, over the wire (src/s3-checksum-rules.ts, src/s3-checksum-store.ts,
 * src/s3-checksum-front.ts): a body whose digest is not the one sent is refused with S3's
 * BadDigest and nothing of it is kept — no object, no object-created run, no count; a malformed,
 * doubled or mismatched checksum header is refused as S3 refuses it; a good one stores the object,
 * which answers its checksum on HeadObject and GetObject with checksum mode, as S3 does. Every
 * photo is a real upload (a slot reserved, the layout's key), so only the checksum decides.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { jpegBytes } from '../../test-support/jpeg';
import type { Sandbox } from '../src/index';
import { answered, checksumOf, errorOf, wrongChecksumOf, type Algorithm } from './support/checksums';
import type { RawAnswer } from './support/raw-http';
import { passwordTokens, s3Endpoint, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorRawRequest, operatorS3, signRequest } from './support/sign';
import { OPERATOR_CREDENTIALS } from '../src/s3';
import { ledgerHeaders, reservedMetadata } from './support/uploads';
import { until } from './support/until';

const subscriber = seedUser('subscriber@trailsense.example');
const RANCH = 'cedar-creek';
let sandbox: Sandbox;
let idToken: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  idToken = (await passwordTokens(sandbox.config, subscriber.email, subscriber.password)).IdToken;
});
afterAll(() => stopTestSandbox(sandbox));

const url = (key: string) => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/${key}`;
const objectFile = (key: string) => path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}._S3rver_object`);

/** The counted object's checksum as the ledger keeps it (undefined: not counted), in the sandbox's own database. */
function ledgerChecksum(key: string): string | null | undefined {
  const db = new DatabaseSync(path.join(sandbox.dataDir, 'sandbox.db'), { readOnly: true });
  try {
    return (db.prepare('SELECT checksum FROM uploads WHERE key = ?').get(key) as { checksum: string | null } | undefined)?.checksum;
  } finally {
    db.close();
  }
}
const counted = (key: string) => ledgerChecksum(key) !== undefined;

/** A photo PUT as the uploader makes one (a reserved slot, the ranch's metadata), with `headers` on top. */
async function putPhoto(headers: Record<string, string>, body?: Buffer): Promise<{ key: string; bytes: Buffer; answer: RawAnswer }> {
  const key = `public/${RANCH}/${randomUUID()}.jpg`;
  const bytes = jpegBytes(key, 2000);
  const ledger = await reservedMetadata(sandbox.config, idToken, RANCH, bytes);
  const answer = await operatorRawRequest(url(key), {
    method: 'PUT',
    headers: {
      'content-type': 'image/jpeg',
      'if-none-match': '*',
      'x-amz-meta-ranchid': RANCH,
      ...ledgerHeaders(ledger.reservation, ledger.fingerprint),
      ...headers,
    },
    body: body ?? bytes,
  });
  return { key, bytes, answer: answered(answer) };
}

/** A refused PUT left nothing: no object, nothing half-received, no object-created decision, no refusal recorded. */
function expectNothingKept(key: string, refusalsBefore: number) {
  expect(existsSync(objectFile(key))).toBe(false);
  expect(readdirSync(path.join(sandbox.dataDir, 's3-incoming'))).toEqual([]);
  expect(counted(key)).toBe(false);
  expect(sandbox.refusals()).toHaveLength(refusalsBefore);
}

const ALGORITHMS: Algorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256', 'MD5', 'SHA512'];

describe('the test reference checksums', () => {
  it('give the published check values of "123456789"', () => {
    const check = Buffer.from('123456789');
    expect(Buffer.from(checksumOf('CRC32', check), 'base64').toString('hex')).toBe('cbf43926');
    expect(Buffer.from(checksumOf('CRC32C', check), 'base64').toString('hex')).toBe('e3069283');
    expect(Buffer.from(checksumOf('CRC64NVME', check), 'base64').toString('hex')).toBe('ae8b14860a799888');
  });
});

describe('a PutObject with a checksum', () => {
  it.each(ALGORITHMS)('%s: stored and counted when the bytes match, answered on HeadObject and GetObject with checksum mode', async (algorithm) => {
    const header = `x-amz-checksum-${algorithm.toLowerCase()}`;
    const key = `public/${RANCH}/${randomUUID()}.jpg`;
    const bytes = jpegBytes(key, 2000);
    const ledger = await reservedMetadata(sandbox.config, idToken, RANCH, bytes);
    const put = answered(
      await operatorRawRequest(url(key), {
        method: 'PUT',
        headers: {
          'content-type': 'image/jpeg',
          'x-amz-meta-ranchid': RANCH,
          ...ledgerHeaders(ledger.reservation, ledger.fingerprint),
          [header]: checksumOf(algorithm, bytes),
        },
        body: bytes,
      }),
    );
    expect(put.status).toBe(200);
    expect(put.headers[header]).toBe(checksumOf(algorithm, bytes));
    expect(readFileSync(objectFile(key))).toEqual(bytes);
    // The object-created function read it into the ledger.
    expect(ledgerChecksum(key)).toBe(`${algorithm}:FULL_OBJECT:${checksumOf(algorithm, bytes)}`);

    const head = answered(await operatorRawRequest(url(key), { method: 'HEAD', headers: { 'x-amz-checksum-mode': 'ENABLED' } }));
    expect(head.status).toBe(200);
    expect(head.headers[header]).toBe(checksumOf(algorithm, bytes));
    expect(head.headers['x-amz-checksum-type']).toBe('FULL_OBJECT');
    // Without the mode, S3 says nothing of it; a range gets none either.
    const plain = answered(await operatorRawRequest(url(key), { method: 'HEAD' }));
    expect(Object.keys(plain.headers).filter((h) => h.startsWith('x-amz-checksum'))).toEqual([]);
    const range = answered(await operatorRawRequest(url(key), { method: 'GET', headers: { 'x-amz-checksum-mode': 'enabled', range: 'bytes=0-2' } }));
    expect(range.status).toBe(206);
    expect(range.headers[header]).toBeUndefined();
  });

  it('through the AWS SDK v3 (which computes the CRC32 itself): HeadObject and GetObject answer it, and the SDK checks the body against it', async () => {
    const s3 = operatorS3(s3Endpoint(sandbox));
    const Key = `public/${RANCH}/${randomUUID()}.jpg`;
    const bytes = jpegBytes(Key, 5000);
    const ledger = await reservedMetadata(sandbox.config, idToken, RANCH, bytes);
    const Bucket = sandbox.config.storage.bucket;
    const put = await s3.send(
      new PutObjectCommand({ Bucket, Key, Body: bytes, ContentType: 'image/jpeg', ChecksumAlgorithm: 'CRC32', Metadata: { ranchid: RANCH, ...ledger } }),
    );
    expect(put.ChecksumCRC32).toBe(checksumOf('CRC32', bytes));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key, ChecksumMode: 'ENABLED' }));
    expect({ crc32: head.ChecksumCRC32, type: head.ChecksumType }).toEqual({ crc32: checksumOf('CRC32', bytes), type: 'FULL_OBJECT' });
    const get = await s3.send(new GetObjectCommand({ Bucket, Key, ChecksumMode: 'ENABLED' }));
    expect(Buffer.from(await get.Body!.transformToByteArray())).toEqual(bytes);
    expect(get.ChecksumCRC32).toBe(checksumOf('CRC32', bytes));
  });

  it('without one: stored with S3’s default, a CRC64NVME of the bytes received', async () => {
    const { key, bytes, answer } = await putPhoto({});
    expect(answer.status).toBe(200);
    const head = answered(await operatorRawRequest(url(key), { method: 'HEAD', headers: { 'x-amz-checksum-mode': 'ENABLED' } }));
    expect(head.headers['x-amz-checksum-crc64nvme']).toBe(checksumOf('CRC64NVME', bytes));
    expect(head.headers['x-amz-checksum-type']).toBe('FULL_OBJECT');
    expect(ledgerChecksum(key)).toBe(`CRC64NVME:FULL_OBJECT:${checksumOf('CRC64NVME', bytes)}`);
  });
});

describe('a body that is not the bytes its checksum names', () => {
  it.each(ALGORITHMS)('%s: 400 BadDigest in S3’s words, and nothing is kept or counted', async (algorithm) => {
    const refusals = sandbox.refusals().length;
    const key = `public/${RANCH}/${randomUUID()}.jpg`;
    const bytes = jpegBytes(key, 2000);
    const sent = Buffer.from(bytes);
    // One byte changed on the way, after the client computed its checksum.
    sent[1000] = (sent[1000] as number) ^ 0x01;
    const ledger = await reservedMetadata(sandbox.config, idToken, RANCH, bytes);
    const send = async (body: Buffer) =>
      answered(
        await operatorRawRequest(url(key), {
          method: 'PUT',
          headers: {
            'content-type': 'image/jpeg',
            'if-none-match': '*',
            'x-amz-meta-ranchid': RANCH,
            ...ledgerHeaders(ledger.reservation, ledger.fingerprint),
            [`x-amz-checksum-${algorithm.toLowerCase()}`]: checksumOf(algorithm, bytes),
          },
          body,
        }),
      );
    const answer = await send(sent);
    expect(errorOf(answer)).toEqual({ status: 400, code: 'BadDigest', message: `The ${algorithm} you specified did not match the calculated checksum.` });
    expectNothingKept(key, refusals);
    // The same photo sent again intact (the uploader's retry, the same key) is stored.
    const again = await send(bytes);
    expect(again.status).toBe(200);
    expect(counted(key)).toBe(true);
  });

  it('Content-MD5: 400 BadDigest with the expected (hex) and calculated (base64) digests, nothing kept', async () => {
    const refusals = sandbox.refusals().length;
    const wrong = checksumOf('MD5', Buffer.from('other bytes'));
    const { key, bytes, answer } = await putPhoto({ 'content-md5': wrong });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({ status: 400, code: 'BadDigest', message: 'The Content-MD5 you specified did not match what we received.' });
    expect(answer.body).toContain(`<ExpectedDigest>${Buffer.from(wrong, 'base64').toString('hex')}</ExpectedDigest>`);
    expect(answer.body).toContain(`<CalculatedDigest>${checksumOf('MD5', bytes)}</CalculatedDigest>`);
    expectNothingKept(key, refusals);
  });

  it('a good checksum with a wrong Content-MD5 is still refused', async () => {
    const refusals = sandbox.refusals().length;
    const key = `public/${RANCH}/${randomUUID()}.jpg`;
    const bytes = jpegBytes(key);
    const { answer } = await putPhoto({ 'x-amz-checksum-crc32': checksumOf('CRC32', bytes), 'content-md5': wrongChecksumOf('MD5', bytes) }, bytes);
    expect(errorOf(answer).code).toBe('BadDigest');
    expect(sandbox.refusals()).toHaveLength(refusals);
  });
});

describe('checksum headers S3 refuses before reading the body', () => {
  const refusedWith = async (headers: Record<string, string>, code: string, message: string, status = 400) => {
    const refusals = sandbox.refusals().length;
    const { key, answer } = await putPhoto(headers);
    expect(errorOf(answer)).toEqual({ status, code, message });
    expectNothingKept(key, refusals);
    return answer;
  };
  const crc32 = checksumOf('CRC32', Buffer.from('x'));

  it.each([
    ['not base64', 'not*base64'],
    ['too short', 'AAAA'],
    ['too long (a CRC64’s 8 bytes)', checksumOf('CRC64NVME', Buffer.from('x'))],
    ['empty', ''],
  ])('a malformed value (%s): 400 InvalidRequest', (_what, value) =>
    refusedWith({ 'x-amz-checksum-crc32': value }, 'InvalidRequest', 'Value for x-amz-checksum-crc32 header is invalid.'),
  );

  it('two checksum headers: 400 InvalidRequest', () =>
    refusedWith(
      { 'x-amz-checksum-crc32': crc32, 'x-amz-checksum-sha1': checksumOf('SHA1', Buffer.from('x')) },
      'InvalidRequest',
      'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
    ));

  it('x-amz-sdk-checksum-algorithm naming another algorithm than the header sent: 400 InvalidRequest', () =>
    refusedWith(
      { 'x-amz-sdk-checksum-algorithm': 'SHA256', 'x-amz-checksum-crc32': crc32 },
      'InvalidRequest',
      'Value for x-amz-sdk-checksum-algorithm header is invalid.',
    ));

  it('x-amz-sdk-checksum-algorithm without a checksum: 400 InvalidRequest', () =>
    refusedWith(
      { 'x-amz-sdk-checksum-algorithm': 'CRC32' },
      'InvalidRequest',
      'x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.',
    ));

  it('an algorithm S3 does not know, named by x-amz-sdk-checksum-algorithm or by the header: 400 InvalidRequest', async () => {
    await refusedWith(
      { 'x-amz-sdk-checksum-algorithm': 'CRC16', 'x-amz-checksum-crc32': crc32 },
      'InvalidRequest',
      'Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, MD5, SHA1, SHA256, SHA512, XXHASH128, XXHASH3, XXHASH64]',
    );
    await refusedWith({ 'x-amz-checksum-crc16': 'AAA=' }, 'InvalidRequest', 'The algorithm type you specified in x-amz-checksum- header is invalid.');
  });

  it('a malformed Content-MD5: 400 InvalidDigest, naming it', async () => {
    const answer = await refusedWith({ 'content-md5': '<not an md5>' }, 'InvalidDigest', 'The Content-MD5 you specified was invalid.');
    expect(answer.body).toContain('<Content-MD5>&lt;not an md5&gt;</Content-MD5>');
  });

  it('a trailing checksum (aws-chunked, x-amz-trailer) is not emulated: 501 NotImplemented, saying so', async () => {
    const answer = await refusedWith(
      { 'x-amz-trailer': 'x-amz-checksum-crc32', 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '4' },
      'NotImplemented',
      'The sandbox does not emulate trailing checksums (aws-chunked with x-amz-trailer); send the checksum in an x-amz-checksum-crc32 (or -crc32c, -crc64nvme, -sha1, -sha256) header.',
      501,
    );
    expect(answer.headers['content-type']).toContain('application/xml');
  });

  it('an xxHash checksum (S3 takes it; the sandbox does not emulate it): 501 NotImplemented', () =>
    refusedWith(
      { 'x-amz-checksum-xxhash64': 'AAAAAAAAAAA=' },
      'NotImplemented',
      'The sandbox does not emulate the XXHASH64 checksum algorithm; send the checksum in an x-amz-checksum-crc32 (or -crc32c, -crc64nvme, -sha1, -sha256) header.',
      501,
    ));
});

describe('bodies that never arrive whole', () => {
  it('a client that stops mid-body leaves nothing behind, and the sandbox goes on answering', async () => {
    const refusals = sandbox.refusals().length;
    const key = `public/${RANCH}/${randomUUID()}.jpg`;
    const bytes = jpegBytes(key, 200_000);
    const signed = await signRequest(OPERATOR_CREDENTIALS, {
      method: 'PUT',
      path: `/${sandbox.config.storage.bucket}/${key}`,
      headers: { 'content-type': 'image/jpeg', 'x-amz-checksum-crc32': checksumOf('CRC32', bytes), 'content-length': String(bytes.length) },
      host: `localhost:${sandbox.ports.s3}`,
    });
    await new Promise<void>((resolve) => {
      const req = http.request(url(key), { method: 'PUT', headers: signed.headers, agent: false });
      req.on('error', () => resolve());
      req.write(bytes.subarray(0, 50_000), () => setTimeout(() => (req.destroy(), resolve()), 100));
    });
    // The server notices the close, then cleans up.
    await until(() => readdirSync(path.join(sandbox.dataDir, 's3-incoming')).length === 0);
    expectNothingKept(key, refusals);
    const { answer } = await putPhoto({});
    expect(answer.status).toBe(200);
  });
});

/**
 * S3's checksums on a multipart upload, as Amplify sends a photo over 5 MiB (a FULL_OBJECT CRC32:
 * each part's CRC32 on its UploadPart and in the complete request's XML, the whole file's on the
 * complete request) and as S3 refuses what is not so: a part whose bytes are not its CRC32, a part
 * of another algorithm, a complete request whose final CRC32 is not the object's, or whose parts'
 * checksums or mode are not the upload's. A refused part or completion stores nothing and counts
 * nothing; the upload stays open for the right request, as on S3.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CompleteMultipartUploadCommand, CreateMultipartUploadCommand, HeadObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { jpegBytes } from '../../test-support/jpeg';
import type { Sandbox } from '../src/index';
import { answered, checksumOf, errorOf } from './support/checksums';
import { passwordTokens, s3Endpoint, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorRawRequest, operatorS3 } from './support/sign';
import { reservedMetadata } from './support/uploads';

const subscriber = seedUser('subscriber@trailsense.example');
const RANCH = 'cedar-creek';
let sandbox: Sandbox;
let idToken: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  idToken = (await passwordTokens(sandbox.config, subscriber.email, subscriber.password)).IdToken;
});
afterAll(() => stopTestSandbox(sandbox));

const url = (key: string, query: string) => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/${key}?${query}`;
const objectFile = (key: string) => path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}._S3rver_object`);

/** A photo in two parts, and a multipart upload of it created as Amplify creates one (CRC32, FULL_OBJECT unless said). */
async function createUpload(checksum: { algorithm?: string; type?: string } = { algorithm: 'CRC32', type: 'FULL_OBJECT' }) {
  const key = `public/${RANCH}/${randomUUID()}.jpg`;
  const bytes = jpegBytes(key, 300_000);
  const parts = [bytes.subarray(0, 200_000), bytes.subarray(200_000)];
  const ledger = await reservedMetadata(sandbox.config, idToken, RANCH, bytes);
  const s3 = operatorS3(s3Endpoint(sandbox));
  const { UploadId } = await s3.send(
    new CreateMultipartUploadCommand({
      Bucket: sandbox.config.storage.bucket,
      Key: key,
      ContentType: 'image/jpeg',
      Metadata: { ranchid: RANCH, ...ledger },
      ...(checksum.algorithm ? { ChecksumAlgorithm: checksum.algorithm as 'CRC32' } : {}),
      ...(checksum.type ? { ChecksumType: checksum.type as 'FULL_OBJECT' } : {}),
    }),
  );
  return { key, bytes, parts, uploadId: UploadId!, s3 };
}

/** A raw UploadPart with `headers` (its checksum, or a wrong one). */
const uploadPart = async (key: string, uploadId: string, n: number, body: Buffer, headers: Record<string, string>) =>
  answered(await operatorRawRequest(url(key, `partNumber=${n}&uploadId=${uploadId}`), { method: 'PUT', headers, body }));

/** Both parts sent with their CRC32s: their ETags. */
async function sendParts(key: string, uploadId: string, parts: Buffer[]): Promise<string[]> {
  const etags: string[] = [];
  for (const [i, part] of parts.entries()) {
    const answer = await uploadPart(key, uploadId, i + 1, part, { 'x-amz-checksum-crc32': checksumOf('CRC32', part) });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-amz-checksum-crc32']).toBe(checksumOf('CRC32', part));
    etags.push(String(answer.headers.etag));
  }
  return etags;
}

/** A raw CompleteMultipartUpload listing `parts` (numbered in order unless said), each with the checksum elements given. */
async function complete(
  key: string,
  uploadId: string,
  parts: { etag: string; crc32?: string | null; number?: number; checksums?: Record<string, string> }[],
  headers: Record<string, string>,
) {
  const xml = parts
    .map((p, i) => {
      const checksums = Object.entries({ ...(p.crc32 ? { ChecksumCRC32: p.crc32 } : {}), ...p.checksums }).map(
        ([name, value]) => `<${name}>${value}</${name}>`,
      );
      return `<Part><ETag>${p.etag}</ETag><PartNumber>${p.number ?? i + 1}</PartNumber>${checksums.join('')}</Part>`;
    })
    .join('');
  return answered(
    await operatorRawRequest(url(key, `uploadId=${uploadId}`), {
      method: 'POST',
      headers: { 'content-type': 'application/xml', ...headers },
      body: `<CompleteMultipartUpload>${xml}</CompleteMultipartUpload>`,
    }),
  );
}

const listed = (etags: string[], parts: Buffer[]) => etags.map((etag, i) => ({ etag, crc32: checksumOf('CRC32', parts[i] as Buffer) }));

describe('a FULL_OBJECT CRC32 multipart upload (what Amplify sends for a photo over 5 MiB)', () => {
  it('is stored when every CRC32 holds, and answers the whole object’s CRC32 on HeadObject with checksum mode', async () => {
    const { key, bytes, parts, uploadId, s3 } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const done = await complete(key, uploadId, listed(etags, parts), {
      'x-amz-checksum-crc32': checksumOf('CRC32', bytes),
      'x-amz-checksum-type': 'FULL_OBJECT',
    });
    expect(done.status).toBe(200);
    expect(done.body).toContain(`<ChecksumCRC32>${checksumOf('CRC32', bytes)}</ChecksumCRC32><ChecksumType>FULL_OBJECT</ChecksumType>`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: sandbox.config.storage.bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect({ crc32: head.ChecksumCRC32, type: head.ChecksumType, size: head.ContentLength }).toEqual({
      crc32: checksumOf('CRC32', bytes),
      type: 'FULL_OBJECT',
      size: bytes.length,
    });
  });

  it('refuses a part whose bytes are not its CRC32 (400 BadDigest), keeping nothing of it; the part sent again intact completes', async () => {
    const { key, bytes, parts, uploadId } = await createUpload();
    const damaged = Buffer.from(parts[0] as Buffer);
    damaged[5000] = (damaged[5000] as number) ^ 0x80;
    const refused = await uploadPart(key, uploadId, 1, damaged, { 'x-amz-checksum-crc32': checksumOf('CRC32', parts[0] as Buffer) });
    expect(errorOf(refused)).toEqual({ status: 400, code: 'BadDigest', message: 'The CRC32 you specified did not match the calculated checksum.' });
    // The part is not there: completing with it listed is an InvalidPart.
    const early = await complete(key, uploadId, [{ etag: 'x', crc32: checksumOf('CRC32', parts[0] as Buffer) }], {});
    expect(errorOf(early).code).toBe('InvalidPart');
    const etags = await sendParts(key, uploadId, parts);
    const done = await complete(key, uploadId, listed(etags, parts), {
      'x-amz-checksum-crc32': checksumOf('CRC32', bytes),
      'x-amz-checksum-type': 'FULL_OBJECT',
    });
    expect(done.status).toBe(200);
  });

  it('refuses a completion whose final CRC32 is not the assembled object’s (BadDigest), storing nothing; the right one then completes', async () => {
    const { key, bytes, parts, uploadId } = await createUpload();
    const refusals = sandbox.refusals().length;
    const etags = await sendParts(key, uploadId, parts);
    const wrong = await complete(key, uploadId, listed(etags, parts), {
      'x-amz-checksum-crc32': checksumOf('CRC32', Buffer.from('not it')),
      'x-amz-checksum-type': 'FULL_OBJECT',
    });
    expect(errorOf(wrong)).toEqual({ status: 400, code: 'BadDigest', message: 'The crc32 you specified did not match the calculated checksum.' });
    expect(existsSync(objectFile(key))).toBe(false);
    expect(sandbox.refusals()).toHaveLength(refusals);
    const right = await complete(key, uploadId, listed(etags, parts), {
      'x-amz-checksum-crc32': checksumOf('CRC32', bytes),
      'x-amz-checksum-type': 'FULL_OBJECT',
    });
    expect(right.status).toBe(200);
  });

  it('refuses a final CRC32 without the FULL_OBJECT mode named (BadDigest), as AWS answers it', async () => {
    const { key, bytes, parts, uploadId } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const answer = await complete(key, uploadId, listed(etags, parts), { 'x-amz-checksum-crc32': checksumOf('CRC32', bytes) });
    expect(errorOf(answer)).toEqual({ status: 400, code: 'BadDigest', message: 'The crc32 you specified did not match the calculated checksum.' });
  });

  it('refuses a listed part CRC32 that is not the stored part’s (InvalidPart), or is malformed (InvalidArgument)', async () => {
    const { key, parts, uploadId } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const swapped = await complete(key, uploadId, [{ etag: etags[0]!, crc32: checksumOf('CRC32', parts[1]!) }, listed(etags, parts)[1]!], {});
    expect(errorOf(swapped)).toMatchObject({ status: 400, code: 'InvalidPart' });
    const malformed = await complete(key, uploadId, [{ etag: etags[0]!, crc32: 'nope' }, listed(etags, parts)[1]!], {});
    expect(errorOf(malformed)).toEqual({ status: 400, code: 'InvalidArgument', message: 'Invalid Base64 or multiple checksums present in request' });
  });

  it('refuses a completion in another checksum mode than the upload’s', async () => {
    const { key, parts, uploadId } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const answer = await complete(key, uploadId, listed(etags, parts), { 'x-amz-checksum-type': 'COMPOSITE' });
    expect(errorOf(answer)).toEqual({
      status: 400,
      code: 'InvalidRequest',
      message: 'The upload was created using the FULL_OBJECT checksum mode. The complete request must use the same checksum mode.',
    });
  });

  it('refuses a part of another algorithm than the upload’s; takes one without a checksum (S3 computes it)', async () => {
    const { key, bytes, parts, uploadId } = await createUpload();
    const other = await uploadPart(key, uploadId, 1, parts[0]!, { 'x-amz-checksum-sha256': checksumOf('SHA256', parts[0]!) });
    expect(errorOf(other)).toEqual({
      status: 400,
      code: 'InvalidRequest',
      message: 'Checksum Type mismatch occurred, expected checksum Type: crc32, actual checksum Type: sha256',
    });
    const bare = await uploadPart(key, uploadId, 1, parts[0]!, {});
    expect(bare.status).toBe(200);
    expect(bare.headers['x-amz-checksum-crc32']).toBe(checksumOf('CRC32', parts[0]!));
    const second = await uploadPart(key, uploadId, 2, parts[1]!, { 'x-amz-checksum-crc32': checksumOf('CRC32', parts[1]!) });
    const done = await complete(key, uploadId, listed([String(bare.headers.etag), String(second.headers.etag)], parts), {
      'x-amz-checksum-crc32': checksumOf('CRC32', bytes),
      'x-amz-checksum-type': 'FULL_OBJECT',
    });
    expect(done.status).toBe(200);
  });

  it('through the AWS SDK v3, as Amplify’s calls go: stored, the final CRC32 the file’s', async () => {
    const { key, bytes, parts, uploadId, s3 } = await createUpload();
    const Bucket = sandbox.config.storage.bucket;
    const sent = [];
    for (const [i, part] of parts.entries()) {
      const { ETag, ChecksumCRC32 } = await s3.send(
        new UploadPartCommand({ Bucket, Key: key, UploadId: uploadId, PartNumber: i + 1, Body: part, ChecksumCRC32: checksumOf('CRC32', part) }),
      );
      sent.push({ ETag, ChecksumCRC32, PartNumber: i + 1 });
    }
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: key,
        UploadId: uploadId,
        ChecksumCRC32: checksumOf('CRC32', bytes),
        ChecksumType: 'FULL_OBJECT',
        MultipartUpload: { Parts: sent },
      }),
    );
    expect(done.ChecksumCRC32).toBe(checksumOf('CRC32', bytes));
  });
});

describe('the other checks of a completion', () => {
  it('parts out of order: 400 InvalidPartOrder', async () => {
    const { key, parts, uploadId } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const [first, second] = listed(etags, parts);
    const answer = await complete(
      key,
      uploadId,
      [
        { ...second!, number: 2 },
        { ...first!, number: 1 },
      ],
      {},
    );
    expect(errorOf(answer)).toMatchObject({ status: 400, code: 'InvalidPartOrder' });
  });

  it('a part listed with another algorithm’s checksum: 400 BadDigest naming the part', async () => {
    const { key, parts, uploadId } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const answer = await complete(
      key,
      uploadId,
      [{ etag: etags[0]!, checksums: { ChecksumSHA256: checksumOf('SHA256', parts[0]!) } }, listed(etags, parts)[1]!],
      {},
    );
    expect(errorOf(answer)).toEqual({ status: 400, code: 'BadDigest', message: 'The sha256 you specified for part 1 did not match what we received.' });
  });

  it('a checksum mode that is none: 400 InvalidRequest', async () => {
    const { key, parts, uploadId } = await createUpload();
    const etags = await sendParts(key, uploadId, parts);
    const answer = await complete(key, uploadId, listed(etags, parts), { 'x-amz-checksum-type': 'WHOLE' });
    expect(errorOf(answer)).toEqual({ status: 400, code: 'InvalidRequest', message: 'Value for x-amz-checksum-type header is invalid.' });
  });

  it('a COMPOSITE upload: each part’s checksum required, and the object’s checksum the digest of the parts’, `-<parts>`', async () => {
    const { key, parts, uploadId, s3 } = await createUpload({ algorithm: 'SHA256', type: 'COMPOSITE' });
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) {
      const answer = await uploadPart(key, uploadId, i + 1, part, { 'x-amz-checksum-sha256': checksumOf('SHA256', part) });
      etags.push(String(answer.headers.etag));
    }
    const missing = await complete(
      key,
      uploadId,
      [{ etag: etags[0]! }, { etag: etags[1]!, checksums: { ChecksumSHA256: checksumOf('SHA256', parts[1]!) } }],
      {},
    );
    expect(errorOf(missing)).toEqual({
      status: 400,
      code: 'InvalidRequest',
      message:
        'The upload was created using a sha256 checksum. The complete request must include the checksum for each part. It was missing for part 1 in the request.',
    });
    const sums = parts.map((part) => checksumOf('SHA256', part));
    const done = await complete(
      key,
      uploadId,
      etags.map((etag, i) => ({ etag, checksums: { ChecksumSHA256: sums[i]! } })),
      { 'x-amz-checksum-type': 'COMPOSITE' },
    );
    expect(done.status).toBe(200);
    const composite = `${checksumOf('SHA256', Buffer.concat(sums.map((sum) => Buffer.from(sum, 'base64'))))}-2`;
    const head = await s3.send(new HeadObjectCommand({ Bucket: sandbox.config.storage.bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect({ sha256: head.ChecksumSHA256, type: head.ChecksumType }).toEqual({ sha256: composite, type: 'COMPOSITE' });
  });

  it('an upload created without a checksum: stored with S3’s default CRC64NVME of the whole object; a part listed with a checksum is an InvalidPart', async () => {
    const { key, bytes, parts, uploadId, s3 } = await createUpload({});
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) etags.push(String((await uploadPart(key, uploadId, i + 1, part, {})).headers.etag));
    const listedWithOne = await complete(key, uploadId, [{ etag: etags[0]!, crc32: checksumOf('CRC32', parts[0]!) }, { etag: etags[1]! }], {});
    expect(errorOf(listedWithOne)).toMatchObject({ status: 400, code: 'InvalidPart' });
    expect(
      (
        await complete(
          key,
          uploadId,
          etags.map((etag) => ({ etag })),
          {},
        )
      ).status,
    ).toBe(200);
    const head = await s3.send(new HeadObjectCommand({ Bucket: sandbox.config.storage.bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect({ crc64: head.ChecksumCRC64NVME, type: head.ChecksumType }).toEqual({ crc64: checksumOf('CRC64NVME', bytes), type: 'FULL_OBJECT' });
  });
});

describe('what S3 refuses of a multipart upload’s checksums, and of its ids', () => {
  const created = async (headers: Record<string, string>) =>
    answered(
      await operatorRawRequest(url(`public/${RANCH}/${randomUUID()}.jpg`, 'uploads'), {
        method: 'POST',
        headers: { 'content-type': 'image/jpeg', ...headers },
      }),
    );

  it.each([
    [{ 'x-amz-checksum-type': 'FULL_OBJECT' }, 'The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.'],
    [
      { 'x-amz-checksum-algorithm': 'CRC64NVME', 'x-amz-checksum-type': 'COMPOSITE' },
      'The COMPOSITE checksum type cannot be used with the crc64nvme checksum algorithm.',
    ],
    [
      { 'x-amz-checksum-algorithm': 'SHA1', 'x-amz-checksum-type': 'FULL_OBJECT' },
      'The FULL_OBJECT checksum type cannot be used with the sha1 checksum algorithm.',
    ],
    [{ 'x-amz-checksum-algorithm': 'CRC32', 'x-amz-checksum-type': 'WHOLE' }, 'Value for x-amz-checksum-type header is invalid.'],
  ])('CreateMultipartUpload with %j: 400 InvalidRequest', async (headers, message) => {
    expect(errorOf(await created(headers))).toEqual({ status: 400, code: 'InvalidRequest', message });
  });

  it('a COMPOSITE upload’s part without its checksum: refused', async () => {
    const { key, parts, uploadId } = await createUpload({ algorithm: 'SHA256', type: 'COMPOSITE' });
    const answer = await uploadPart(key, uploadId, 1, parts[0]!, {});
    expect(errorOf(answer).message).toBe('Checksum Type mismatch occurred, expected checksum Type: sha256, actual checksum Type: null');
  });

  it('an upload id s3rver never made, or a path in one, or another key’s: 404 NoSuchUpload, and nothing written', async () => {
    const { key, parts, uploadId } = await createUpload();
    for (const [target, id] of [
      [key, '../../../../escape'],
      [key, '0123456789abcdef0123456789abcdef'],
      [`public/${RANCH}/${randomUUID()}.jpg`, uploadId],
    ] as const) {
      const answer = await uploadPart(target, id, 1, parts[0]!, { 'x-amz-checksum-crc32': checksumOf('CRC32', parts[0]!) });
      expect(errorOf(answer)).toMatchObject({ status: 404, code: 'NoSuchUpload' });
    }
    expect(existsSync(path.join(sandbox.dataDir, 'escape'))).toBe(false);
    const part = await uploadPart(key, uploadId, 0, parts[0]!, {});
    expect(errorOf(part)).toMatchObject({ status: 400, code: 'InvalidArgument' });
  });
});

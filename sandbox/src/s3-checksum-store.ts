/**
 * s3rver's file store, made to keep S3's promise on checksums: every object and part is written
 * to a file of its own under `<dataDir>/s3-incoming/` while its digests are computed as the bytes
 * stream by (nothing held in memory), checked against the checksum and `Content-MD5` the request
 * sent (s3-checksum-rules.ts), and only then renamed into s3rver's folder. A body whose digest is
 * not the one sent is refused with S3's BadDigest and leaves nothing behind: no object, no event,
 * so the object-created function never sees it and nothing is counted. A client that aborts
 * mid-body leaves nothing either (s3rver's own store wrote into the object's file as it read, so a
 * cut-off PUT stayed stored, truncated, and its retry met `If-None-Match`).
 *
 * The object keeps its checksum in s3rver's metadata file (`x-amz-checksum-<algorithm>` and
 * `x-amz-checksum-type`, which s3rver itself never answers), S3's as S3 keeps it: the client's
 * when it sent one, else S3's default, a CRC64NVME of the bytes received; a multipart upload's
 * FULL_OBJECT checksum is the whole object's, a COMPOSITE one the digest of its parts'.
 * s3-checksum-front.ts answers it on HeadObject and GetObject with `x-amz-checksum-mode: ENABLED`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from '@20minutes/s3rver';
import S3Error from '@20minutes/s3rver/lib/models/error';
import S3Object from '@20minutes/s3rver/lib/models/object';
import { createHasher, digestOf } from './s3-checksum-hash';
import { compositeOf, completeChecks, finalMismatch, listedParts, type StoredPart } from './s3-checksum-multipart';
import {
  algorithmNamed,
  badContentMd5,
  badDigest,
  checksumHeader,
  uploadChecksum,
  type ChecksumAlgorithm,
  type ChecksumRefusal,
  type Headers,
  type StoredChecksum,
  type UploadChecksum,
  type WriteChecks,
} from './s3-checksum-rules';

type Store = S3rver['store'];

/** What the S3 front tells the store of the request under way (s3-checksum-front.ts), and what the store tells it back. */
export interface ChecksumRequest {
  /** The object key the request names. */
  key: string;
  headers: Headers;
  /** PutObject and UploadPart: the checksums its headers carry (already valid). */
  write?: WriteChecks;
  /** The request body as s3rver parsed it (CompleteMultipartUpload's XML). */
  body: () => unknown;
  /** Set once the object or part is stored: its checksum, which the answer carries. */
  stored?: StoredChecksum;
}

/** The request each store call belongs to (Koa runs s3rver's controller inside the front's `run`). */
export const checksumRequests = new AsyncLocalStorage<ChecksumRequest>();

/** s3rver's own upload ids: 16 random bytes in hex. Anything else names no upload (and no path). */
export const UPLOAD_ID = /^[0-9a-f]{32}$/;

export const noSuchUpload = (uploadId: string): ChecksumRefusal => ({
  status: 404,
  code: 'NoSuchUpload',
  message: 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  details: { UploadId: uploadId.replace(/[<>&'"]/g, '?') },
  why: `no upload ${JSON.stringify(uploadId)}`,
});

/** A refusal as s3rver's own error, which its error handler answers (with the CORS headers its CORS step set). */
export function s3Error(refusal: ChecksumRefusal): Error {
  return new S3Error(refusal.code, refusal.message, refusal.details ?? {});
}

/** The checksum s3rver's metadata file keeps for an object (or null: none, an object stored before checksums were kept). */
export function storedChecksumOf(metadata: Readonly<Record<string, unknown>>): StoredChecksum | null {
  const type = metadata['x-amz-checksum-type'];
  for (const [name, value] of Object.entries(metadata)) {
    const algorithm = name.startsWith('x-amz-checksum-') ? algorithmNamed(name.slice('x-amz-checksum-'.length)) : undefined;
    if (algorithm && typeof value === 'string') return { algorithm, type: type === 'COMPOSITE' ? 'COMPOSITE' : 'FULL_OBJECT', value };
  }
  return null;
}

const checksumFields = (checksum: StoredChecksum) => ({ [checksumHeader(checksum.algorithm)]: checksum.value, 'x-amz-checksum-type': checksum.type });

interface Received {
  file: string;
  size: number;
  md5: Buffer;
  digest: Buffer | null;
}

/** Streams `content` into a new file of `incomingDir`, hashing it (MD5 and `algorithm`); nothing is left behind when it fails. */
async function receive(incomingDir: string, content: Buffer | NodeJS.ReadableStream, algorithm: ChecksumAlgorithm | null): Promise<Received> {
  await fs.mkdir(incomingDir, { recursive: true });
  const file = path.join(incomingDir, randomUUID());
  const md5 = createHash('md5');
  const hasher = algorithm ? createHasher(algorithm) : null;
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      hasher?.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, tap, createWriteStream(file));
    return { file, size, md5: md5.digest(), digest: hasher ? await hasher.digest() : null };
  } catch (error) {
    await fs.rm(file, { force: true });
    throw error;
  }
}

/** Throws S3's refusal of a received body (its file removed) when `refusal` is one. */
async function refuseReceived(received: Received, refusal: ChecksumRefusal | undefined): Promise<void> {
  if (!refusal) return;
  await fs.rm(received.file, { force: true });
  throw s3Error(refusal);
}

/** The refusal of a body whose digests are not the ones its request sent. */
function writeRefusal(received: Received, write: WriteChecks | undefined): ChecksumRefusal | undefined {
  if (write?.checksum && received.digest?.toString('base64') !== write.checksum.value) return badDigest(write.checksum.algorithm);
  if (write?.contentMd5 && received.md5.toString('base64') !== write.contentMd5) return badContentMd5(write.contentMd5, received.md5.toString('base64'));
  return undefined;
}

/** Puts a received object in place: its metadata file (with its checksum) and MD5 first, so it is never visible without them. */
async function commitObject(
  store: Store,
  object: { bucket: string; key: string; metadata: Record<string, string> },
  received: Received,
  checksum: StoredChecksum,
) {
  const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
  await fs.mkdir(path.dirname(objectPath), { recursive: true });
  const kept = Object.entries(object.metadata).filter(([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-'));
  const json = { ...Object.fromEntries(kept), ...checksumFields(checksum) };
  await fs.writeFile(store.getResourcePath(object.bucket, object.key, 'metadata.json'), JSON.stringify(json, null, 2));
  await fs.writeFile(store.getResourcePath(object.bucket, object.key, 'object.md5'), received.md5.toString('hex'));
  await fs.rename(received.file, objectPath);
  const request = checksumRequests.getStore();
  if (request) request.stored = checksum;
  return { size: received.size, md5: received.md5.toString('hex') };
}

/** The folder of an upload (its `key`, `metadata` and parts), for an id s3rver could have made. */
function uploadDir(store: Store, bucket: string, uploadId: string): string {
  if (!UPLOAD_ID.test(uploadId)) throw s3Error(noSuchUpload(uploadId));
  return path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId);
}

/** A multipart upload as CreateMultipartUpload recorded it: its key, its request headers, and the checksum it asked for. */
export async function readUpload(
  store: Store,
  bucket: string,
  uploadId: string,
): Promise<{ key: string; headers: Record<string, string>; checksum: UploadChecksum | null } | null> {
  const dir = uploadDir(store, bucket, uploadId);
  try {
    const [key, metadata] = await Promise.all([fs.readFile(path.join(dir, 'key'), 'utf8'), fs.readFile(path.join(dir, 'metadata'), 'utf8')]);
    const headers = JSON.parse(metadata) as Record<string, string>;
    const checksum = uploadChecksum(headers);
    // Refused at its creation otherwise (s3-checksum-front.ts).
    return { key, headers, checksum: checksum && 'status' in checksum ? null : checksum };
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
}

async function storedPart(partPath: string): Promise<StoredPart | undefined> {
  try {
    const [etag, checksum] = await Promise.all([
      fs.readFile(`${partPath}.md5`, 'utf8'),
      fs.readFile(`${partPath}.checksum.json`, 'utf8').then(
        (text) => JSON.parse(text) as StoredChecksum,
        () => null,
      ),
    ]);
    return { etag, checksum };
  } catch {
    return undefined;
  }
}

/** Every part file, in order, as one stream. */
function partsStream(files: readonly string[]): Readable {
  return Readable.from(
    (async function* () {
      for (const file of files) yield* createReadStream(file);
    })(),
  );
}

/** CompleteMultipartUpload: the request checked against the upload and its parts, then the object assembled and its checksum verified. */
async function completeUpload(store: Store, incomingDir: string, bucket: string, uploadId: string) {
  const request = checksumRequests.getStore();
  const upload = await readUpload(store, bucket, uploadId);
  if (!upload || (request && request.key !== upload.key)) throw s3Error(noSuchUpload(uploadId));
  const dir = uploadDir(store, bucket, uploadId);
  const listed = listedParts(request?.body());
  const stored = new Map<number, StoredPart>();
  for (const part of listed) {
    const found =
      Number.isInteger(part.number) && part.number >= 1 && part.number <= 10_000 ? await storedPart(path.join(dir, String(part.number))) : undefined;
    if (found) stored.set(part.number, found);
  }
  const checks = completeChecks(upload.checksum, request?.headers ?? {}, listed, stored, uploadId);
  if ('status' in checks) throw s3Error(checks);
  const { checksum } = upload;
  const whole = checksum?.type === 'COMPOSITE' ? null : (checksum?.algorithm ?? 'CRC64NVME');
  const received = await receive(incomingDir, partsStream(listed.map((p) => path.join(dir, String(p.number)))), whole);
  let final: StoredChecksum;
  if (checksum?.type === 'COMPOSITE') {
    const digest = await digestOf(checksum.algorithm, compositeOf(listed.map((p) => stored.get(p.number)?.checksum ?? null)) ?? Buffer.alloc(0));
    await refuseReceived(
      received,
      checks.expected && checks.expected.value !== digest ? finalMismatch(checksum, 'the final COMPOSITE checksum is not the parts’') : undefined,
    );
    final = { algorithm: checksum.algorithm, type: 'COMPOSITE', value: `${digest}-${listed.length}` };
  } else {
    const value = (received.digest as Buffer).toString('base64');
    await refuseReceived(
      received,
      checksum && checks.expected && checks.expected.value !== value
        ? finalMismatch(checksum, 'the assembled object’s checksum is not the one sent')
        : undefined,
    );
    final = { algorithm: whole as ChecksumAlgorithm, type: 'FULL_OBJECT', value };
  }
  const object = new S3Object(bucket, upload.key, null, upload.headers);
  const result = await commitObject(store, object, received, final);
  await fs.rm(dir, { recursive: true, force: true });
  return result;
}

/** UploadPart: the part received and verified against its checksum (sent, or the upload's, computed), then put beside the others. */
async function putPart(store: Store, incomingDir: string, bucket: string, uploadId: string, partNumber: string, content: Buffer | NodeJS.ReadableStream) {
  const dir = uploadDir(store, bucket, uploadId);
  if (!/^\d{1,5}$/.test(String(partNumber)) || Number(partNumber) < 1 || Number(partNumber) > 10_000) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', { ArgumentName: 'partNumber' });
  }
  const upload = await readUpload(store, bucket, uploadId);
  if (!upload) throw s3Error(noSuchUpload(uploadId));
  const write = checksumRequests.getStore()?.write;
  const algorithm = write?.checksum?.algorithm ?? upload.checksum?.algorithm ?? null;
  const received = await receive(incomingDir, content, algorithm);
  await refuseReceived(received, writeRefusal(received, write));
  const partPath = path.join(dir, String(Number(partNumber)));
  const checksum: StoredChecksum | null = algorithm && received.digest ? { algorithm, type: 'FULL_OBJECT', value: received.digest.toString('base64') } : null;
  if (checksum) await fs.writeFile(`${partPath}.checksum.json`, JSON.stringify(checksum));
  else await fs.rm(`${partPath}.checksum.json`, { force: true });
  await fs.writeFile(`${partPath}.md5`, received.md5.toString('hex'));
  await fs.rename(received.file, partPath);
  const request = checksumRequests.getStore();
  if (request && checksum) request.stored = checksum;
  return { size: received.size, md5: received.md5.toString('hex') };
}

/**
 * Replaces the store's writes (PutObject, UploadPart, CompleteMultipartUpload) with verified
 * ones that write under `incomingDir` first (outside s3rver's folder, on the same file system,
 * so the rename is atomic). Files a stopped sandbox left there half-received are removed.
 */
export async function verifyChecksumsOnStore(store: Store, incomingDir: string): Promise<void> {
  await fs.rm(incomingDir, { recursive: true, force: true });
  store.putObject = async (object) => {
    const write = checksumRequests.getStore()?.write;
    const algorithm = write?.checksum?.algorithm ?? 'CRC64NVME';
    const received = await receive(incomingDir, object.content, algorithm);
    await refuseReceived(received, writeRefusal(received, write));
    return commitObject(store, object, received, { algorithm, type: 'FULL_OBJECT', value: (received.digest as Buffer).toString('base64') });
  };
  store.putPart = (bucket, uploadId, partNumber, content) => putPart(store, incomingDir, bucket, uploadId, String(partNumber), content);
  store.putObjectMultipart = (bucket, uploadId) => completeUpload(store, incomingDir, bucket, uploadId);
}

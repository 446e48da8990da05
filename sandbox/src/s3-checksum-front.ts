/**
 * The S3 front's part in checksums (src/s3.ts calls these three, apart from its other steps):
 * - `checksumRefusal`, before s3rver sees a write: what S3 refuses from the headers alone (a
 *   malformed or second checksum, an SDK algorithm that is not the header's, a trailing checksum,
 *   an UploadPart of another algorithm than its upload's, a CreateMultipartUpload's bad mode);
 * - `withChecksums`, around s3rver: the request's checks handed to the store
 *   (s3-checksum-store.ts), which verifies the bytes and refuses a mismatch with BadDigest;
 * - `answerChecksums`, after s3rver: the stored checksum on the write's answer, and on HeadObject
 *   and GetObject when asked with `x-amz-checksum-mode: ENABLED`, as S3 answers them.
 */
import type S3rver from '@20minutes/s3rver';
import type { KoaContext } from '@20minutes/s3rver';
import { checksumHeader, partChecksumRefusal, uploadChecksum, writeChecks, type ChecksumRefusal } from './s3-checksum-rules';
import { checksumRequests, noSuchUpload, readUpload, storedChecksumOf, UPLOAD_ID, type ChecksumRequest } from './s3-checksum-store';

type Store = S3rver['store'];

/** Which write a request is, as far as checksums go. */
type Write = 'PutObject' | 'UploadPart' | 'CreateMultipartUpload' | 'CompleteMultipartUpload';

/** The bucket and key of a path-style object request (`/<bucket>/<key>`), or null for a bucket-level one. */
function objectOf(ctx: KoaContext): { bucket: string; key: string } | null {
  const [bucket, ...rest] = ctx.path.split('/').filter(Boolean);
  if (!bucket || rest.length === 0) return null;
  try {
    return { bucket: decodeURIComponent(bucket), key: rest.map((s) => decodeURIComponent(s)).join('/') };
  } catch {
    return null;
  }
}

const SUBRESOURCES = ['tagging', 'acl', 'legal-hold', 'retention', 'torrent', 'select', 'attributes', 'restore'];

function writeOf(ctx: KoaContext): Write | undefined {
  if (!objectOf(ctx) || SUBRESOURCES.some((name) => name in ctx.query)) return undefined;
  if (ctx.method === 'PUT') return 'uploadId' in ctx.query || 'partNumber' in ctx.query ? 'UploadPart' : 'PutObject';
  if (ctx.method === 'POST' && 'uploads' in ctx.query) return 'CreateMultipartUpload';
  if (ctx.method === 'POST' && 'uploadId' in ctx.query) return 'CompleteMultipartUpload';
  return undefined;
}

const queryValue = (ctx: KoaContext, name: string) => {
  const value = ctx.query[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
};

/** What S3 refuses of a write before reading its body (undefined: nothing); the store then checks the bytes. */
export async function checksumRefusal(ctx: KoaContext, store: Store): Promise<ChecksumRefusal | undefined> {
  const write = writeOf(ctx);
  if (write === 'CreateMultipartUpload') {
    const upload = uploadChecksum(ctx.headers);
    return upload && 'status' in upload ? upload : undefined;
  }
  // CompleteMultipartUpload is checked once s3rver has parsed its XML (src/s3-checksum-store.ts).
  if (write !== 'PutObject' && write !== 'UploadPart') return undefined;
  const checks = writeChecks(ctx.headers);
  if ('status' in checks || write === 'PutObject') return 'status' in checks ? checks : undefined;
  const uploadId = queryValue(ctx, 'uploadId');
  if (!UPLOAD_ID.test(uploadId)) return noSuchUpload(uploadId);
  const part = queryValue(ctx, 'partNumber');
  if (!/^\d{1,5}$/.test(part) || Number(part) < 1 || Number(part) > 10_000) {
    return {
      status: 400,
      code: 'InvalidArgument',
      message: 'Part number must be an integer between 1 and 10000, inclusive',
      details: { ArgumentName: 'partNumber' },
      why: `part number ${JSON.stringify(part)}`,
    };
  }
  const upload = await readUpload(store, (objectOf(ctx) as { bucket: string }).bucket, uploadId);
  if (!upload || upload.key !== objectOf(ctx)?.key) return noSuchUpload(uploadId);
  return partChecksumRefusal(upload.checksum, checks);
}

/** Runs s3rver (`next`) with the request's checks where the store finds them; resolves to what the store recorded. */
export async function withChecksums(ctx: KoaContext, next: () => Promise<void>): Promise<ChecksumRequest> {
  const write = writeOf(ctx);
  const checks = write === 'PutObject' || write === 'UploadPart' ? writeChecks(ctx.headers) : undefined;
  const request: ChecksumRequest = {
    key: objectOf(ctx)?.key ?? '',
    headers: ctx.headers,
    ...(checks && !('status' in checks) ? { write: checks } : {}),
    body: () => ctx.request.body,
  };
  await checksumRequests.run(request, next);
  return request;
}

/** Whether a HeadObject or GetObject asks for the checksum (S3 takes `ENABLED` in any case). */
const wantsChecksum = (ctx: KoaContext) => (ctx.get('x-amz-checksum-mode') || '').toUpperCase() === 'ENABLED';

/**
 * The stored checksum on the answer, as S3 gives it: a PutObject's and a multipart upload's
 * object with `x-amz-checksum-type`, an UploadPart's alone; a HeadObject or GetObject asked with
 * checksum mode, for the whole object (a range of it gets none).
 */
export async function answerChecksums(ctx: KoaContext, store: Store, request: ChecksumRequest): Promise<void> {
  if (ctx.status !== 200 && ctx.status !== 206) return;
  const write = writeOf(ctx);
  const stored = request.stored;
  if (stored && (write === 'PutObject' || write === 'UploadPart')) {
    ctx.set(checksumHeader(stored.algorithm), stored.value);
    if (write === 'PutObject') ctx.set('x-amz-checksum-type', stored.type);
    return;
  }
  if (stored && write === 'CompleteMultipartUpload' && typeof ctx.body === 'string') {
    const element = `Checksum${stored.algorithm}`;
    ctx.body = ctx.body.replace(
      '</CompleteMultipartUploadResult>',
      `<${element}>${stored.value}</${element}><ChecksumType>${stored.type}</ChecksumType></CompleteMultipartUploadResult>`,
    );
    return;
  }
  const object = objectOf(ctx);
  if (!object || (ctx.method !== 'GET' && ctx.method !== 'HEAD') || SUBRESOURCES.some((name) => name in ctx.query) || !wantsChecksum(ctx)) return;
  if (ctx.status === 206) return;
  const metadata = await store.getMetadata(object.bucket, object.key).catch(() => null);
  const checksum = metadata && storedChecksumOf(metadata);
  if (!checksum) return;
  ctx.set(checksumHeader(checksum.algorithm), checksum.value);
  ctx.set('x-amz-checksum-type', checksum.type);
}

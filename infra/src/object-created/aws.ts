/**
 * The object-created function's production adapter of its objects (handler.ts's ObjectPort) on
 * S3; the ledger's and the ranch table's are src/ledger/dynamo.ts and src/ledger/ranches.ts.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import type { GetObjectCommandOutput, HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import type { CommandSender } from '../ledger/dynamo';
import type { ObjectChecksum } from '../ledger/port';
import { RANCH_OBJECT_TAG } from '../upload-access';
import type { ObjectPort } from './handler';

/** The checksum a HeadObject answered with checksum mode, or null (an object stored before S3 kept one). */
export function headChecksum(head: HeadObjectCommandOutput): ObjectChecksum | null {
  const algorithms = [
    ['CRC32', head.ChecksumCRC32],
    ['CRC32C', head.ChecksumCRC32C],
    ['CRC64NVME', head.ChecksumCRC64NVME],
    ['SHA1', head.ChecksumSHA1],
    ['SHA256', head.ChecksumSHA256],
    ['SHA512', head.ChecksumSHA512],
    ['MD5', head.ChecksumMD5],
    ['XXHASH64', head.ChecksumXXHASH64],
    ['XXHASH3', head.ChecksumXXHASH3],
    ['XXHASH128', head.ChecksumXXHASH128],
  ] as const;
  const found = algorithms.find(([, value]) => typeof value === 'string' && value !== '');
  if (!found) return null;
  const type = head.ChecksumType === 'COMPOSITE' || /-\d+$/.test(found[1] as string) ? 'COMPOSITE' : 'FULL_OBJECT';
  return { algorithm: found[0], type, value: found[1] as string };
}

const isGone = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/** S3: HeadObject (metadata, size, type), ranged GetObjects (the first bytes, an original's samples), PutObjectTagging, DeleteObject. */
export function s3Objects(client: CommandSender): ObjectPort {
  return {
    async head(bucket, key) {
      try {
        // ChecksumMode: S3 answers the object's checksum only when asked (s3:GetObject allows it).
        const head = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }))) as HeadObjectCommandOutput;
        return { metadata: head.Metadata ?? {}, size: head.ContentLength ?? 0, contentType: head.ContentType ?? '', checksum: headChecksum(head) };
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
        // HeadObject of an SSE-C object without its key: 400, on every attempt.
        if (e.$metadata?.httpStatusCode === 400) return 'unreadable';
        throw error;
      }
    },
    async firstBytes(bucket, key, count) {
      try {
        const answer = (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=0-${count - 1}` }))) as GetObjectCommandOutput;
        if (!answer.Body) return new Uint8Array();
        const bytes = await answer.Body.transformToByteArray();
        // A server that ignores Range sends the whole object: only the first bytes matter.
        return bytes.subarray(0, count);
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
        // An empty object has no byte 0: 416, nothing to read.
        if (e.name === 'InvalidRange' || e.$metadata?.httpStatusCode === 416) return new Uint8Array();
        throw error;
      }
    },
    async range(bucket, key, start, end) {
      try {
        const answer = (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${end - 1}` }))) as GetObjectCommandOutput;
        const bytes = answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
        // A server that ignores Range sends the whole object (no Content-Range): the range is cut from it.
        return answer.ContentRange === undefined && bytes.length > end - start ? bytes.subarray(start, end) : bytes;
      } catch (error) {
        if (isGone(error)) return null;
        throw error;
      }
    },
    async putRanchTag(bucket, key, ranchId) {
      await client.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: key, Tagging: { TagSet: [{ Key: RANCH_OBJECT_TAG, Value: ranchId }] } }));
    },
    async remove(bucket, key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

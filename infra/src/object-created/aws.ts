/**
 * The object-created function's production adapter of its objects (handler.ts's ObjectPort) on
 * S3; the ledger's and the ranch table's are src/ledger/dynamo.ts and src/ledger/ranches.ts.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import type { GetObjectCommandOutput, HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import type { CommandSender } from '../ledger/dynamo';
import { RANCH_OBJECT_TAG } from '../upload-access';
import type { ObjectPort } from './handler';

const isGone = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/** S3: HeadObject (metadata, size, type), ranged GetObjects (the first bytes, an original's samples), PutObjectTagging, DeleteObject. */
export function s3Objects(client: CommandSender): ObjectPort {
  return {
    async head(bucket, key) {
      try {
        const head = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))) as HeadObjectCommandOutput;
        return { metadata: head.Metadata ?? {}, size: head.ContentLength ?? 0, contentType: head.ContentType ?? '' };
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

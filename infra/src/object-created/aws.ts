/**
 * The object-created function's production adapters (handler.ts's ports) on S3 and the ranch
 * table; the ledger's is src/ledger/dynamo.ts.
 *
 * The ranches (`RANCH_TABLE`, the product's ranch records, read only): partition key `ranchid`
 * (string), `max_monthly_uploads` (number; absent is 0, the product's default).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import type { GetObjectCommandOutput, HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import type { CommandSender } from '../ledger/dynamo';
import type { RanchPort } from '../ledger/port';
import { RANCH_OBJECT_TAG } from '../upload-access';
import type { ObjectPort } from './handler';

export { LEDGER_TABLE } from '../ledger/dynamo';
export type { CommandSender } from '../ledger/dynamo';

/** The ranch table's assumed item shape: keyed by `ranchid`, the ceiling in `max_monthly_uploads`. */
export const RANCH_TABLE = { partitionKey: 'ranchid', maxMonthlyUploads: 'max_monthly_uploads' } as const;

const s = (value: string) => ({ S: value });

/** S3: HeadObject (metadata, size, type), a ranged GetObject (the first bytes), PutObjectTagging, DeleteObject. */
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
    async putRanchTag(bucket, key, ranchId) {
      await client.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: key, Tagging: { TagSet: [{ Key: RANCH_OBJECT_TAG, Value: ranchId }] } }));
    },
    async remove(bucket, key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

/** DynamoDB: the ranch's `max_monthly_uploads` (null: no such ranch). */
export function dynamoRanches(client: CommandSender, tableName: string): RanchPort {
  return {
    async maxMonthlyUploads(ranchId) {
      const answer = (await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { [RANCH_TABLE.partitionKey]: s(ranchId) },
          ProjectionExpression: '#max',
          ExpressionAttributeNames: { '#max': RANCH_TABLE.maxMonthlyUploads },
        }),
      )) as GetItemCommandOutput;
      if (!answer.Item) return null;
      const max = Number(answer.Item[RANCH_TABLE.maxMonthlyUploads]?.N ?? '0');
      return Number.isFinite(max) && max >= 0 ? max : 0;
    },
  };
}

/**
 * The object-created function's production adapters (handler.ts's ports) on S3 and DynamoDB.
 *
 * Tables (the stack creates them with these keys, src/stacks/; this file is the one definition of
 * what the function reads and writes):
 * - the ledger (`LEDGER_TABLE`, string keys `pk`/`sk`):
 *   - one item per counted object: pk `OBJECT#<bucket>/<key>`, sk `OBJECT`, with ranchid, yearmo, at;
 *   - one counter per ranch and month: pk `RANCH#<ranchid>`, sk `UPLOADS#<YYYY_MM>`, `total` (number)
 *     — the month's count of stored uploads, what upload-metrics reports;
 *   - one item per refusal: pk `REFUSAL#<YYYY_MM>`, sk `<bucket>/<key>`, with reason, ranchid, at.
 * - the ranches (`RANCH_TABLE`, the product's ranch records, read only): partition key `ranchid`
 *   (string), `max_monthly_uploads` (number; absent is 0, the product's default).
 */
import { GetItemCommand, PutItemCommand, TransactionCanceledException, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type { CancellationReason, GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, HeadObjectCommand, PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import type { HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import { RANCH_OBJECT_TAG } from '../upload-access';
import type { CountResult, LedgerEntry, LedgerPort, ObjectPort, RanchPort, Refusal } from './handler';

/** The ledger table's key schema. */
export const LEDGER_TABLE = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** The ranch table's assumed item shape: keyed by `ranchid`, the ceiling in `max_monthly_uploads`. */
export const RANCH_TABLE = { partitionKey: 'ranchid', maxMonthlyUploads: 'max_monthly_uploads' } as const;

/** The ledger's item keys (see the file's comment). */
export const ledgerKeys = {
  object: (bucket: string, key: string) => ({ pk: `OBJECT#${bucket}/${key}`, sk: 'OBJECT' }),
  monthCounter: (ranchId: string, yearmo: string) => ({ pk: `RANCH#${ranchId}`, sk: `UPLOADS#${yearmo}` }),
  refusal: (bucket: string, key: string, yearmo: string) => ({ pk: `REFUSAL#${yearmo}`, sk: `${bucket}/${key}` }),
};

/** What the adapters need of an SDK client (an S3Client or DynamoDBClient; a test's fake). */
export interface CommandSender {
  send(command: object): Promise<unknown>;
}

const s = (value: string) => ({ S: value });

function keyAttributes(k: { pk: string; sk: string }) {
  return { [LEDGER_TABLE.partitionKey]: s(k.pk), [LEDGER_TABLE.sortKey]: s(k.sk) };
}

/** S3: HeadObject's user metadata, PutObjectTagging, DeleteObject. */
export function s3Objects(client: CommandSender): ObjectPort {
  return {
    async headMetadata(bucket, key) {
      try {
        const head = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))) as HeadObjectCommandOutput;
        return head.Metadata ?? {};
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
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

/**
 * What a cancelled count transaction means, from its cancellation reasons (in the order of the
 * transaction's items: the object item, then the month counter). The object already counted wins
 * over the ceiling (a redelivered event for an object counted when the month was full is still a
 * duplicate). Undefined: cancelled for another reason (throttling, a conflict), to be thrown.
 */
export function countResultOfCancellation(reasons: readonly CancellationReason[] | undefined): Exclude<CountResult, 'counted'> | undefined {
  const failed = (i: number) => reasons?.[i]?.Code === 'ConditionalCheckFailed';
  if (failed(0)) return 'duplicate';
  if (failed(1)) return 'over-limit';
  return undefined;
}

/** DynamoDB: the ledger (one transaction per count) and refusals. */
export function dynamoLedger(client: CommandSender, tableName: string): LedgerPort {
  return {
    async count(entry: LedgerEntry, ceiling: number): Promise<CountResult> {
      const command = new TransactWriteItemsCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keyAttributes(ledgerKeys.object(entry.bucket, entry.key)),
                ranchid: s(entry.ranchId),
                yearmo: s(entry.yearmo),
                at: s(entry.at),
              },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: keyAttributes(ledgerKeys.monthCounter(entry.ranchId, entry.yearmo)),
              UpdateExpression: 'ADD #total :one',
              ConditionExpression: 'attribute_not_exists(#total) OR #total < :ceiling',
              ExpressionAttributeNames: { '#total': 'total' },
              ExpressionAttributeValues: { ':one': { N: '1' }, ':ceiling': { N: String(ceiling) } },
            },
          },
        ],
      });
      try {
        await client.send(command);
        return 'counted';
      } catch (error) {
        const cancelled = error instanceof TransactionCanceledException || (error as { name?: unknown } | null)?.name === 'TransactionCanceledException';
        const result = cancelled ? countResultOfCancellation((error as TransactionCanceledException).CancellationReasons) : undefined;
        if (result) return result;
        throw error;
      }
    },
    async recordRefusal(refusal: Refusal) {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: {
            ...keyAttributes(ledgerKeys.refusal(refusal.bucket, refusal.key, refusal.yearmo)),
            bucket: s(refusal.bucket),
            key: s(refusal.key),
            reason: s(refusal.reason),
            at: s(refusal.at),
            ...(refusal.ranchId === null ? {} : { ranchid: s(refusal.ranchId) }),
            ...(refusal.claimedRanchId === undefined ? {} : { claimed_ranchid: s(refusal.claimedRanchId) }),
          },
        }),
      );
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

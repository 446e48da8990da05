/** The sweep's production adapter (sweep.ts's port): S3 for the objects, the DynamoDB ledger for counts and refusals. */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectTaggingCommand, ListObjectsV2Command, PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import type { GetObjectTaggingCommandOutput, ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';
import { dynamoLedger, LEDGER_TABLE, ledgerKeys, objectFate } from '../ledger/dynamo';
import type { CommandSender } from '../ledger/dynamo';
import { RANCH_OBJECT_TAG } from '../upload-access';
import type { ListedObject, SweepPort } from './sweep';

export function awsSweepPort(s3: CommandSender, dynamo: CommandSender, ledgerTableName: string): SweepPort {
  const ledger = dynamoLedger(dynamo, ledgerTableName);
  return {
    async *list(bucket, prefix) {
      let token: string | undefined;
      do {
        const page = (await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }))) as ListObjectsV2CommandOutput;
        const objects: ListedObject[] = (page.Contents ?? []).flatMap((o) => (o.Key && o.LastModified ? [{ key: o.Key, lastModified: o.LastModified }] : []));
        yield objects;
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async tags(bucket, key) {
      try {
        const answer = (await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: key }))) as GetObjectTaggingCommandOutput;
        return Object.fromEntries((answer.TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
        throw error;
      }
    },
    async putRanchTag(bucket, key, ranchId) {
      await s3.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: key, Tagging: { TagSet: [{ Key: RANCH_OBJECT_TAG, Value: ranchId }] } }));
    },
    async remove(bucket, key) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async counted(bucket, key) {
      const k = ledgerKeys.object(bucket, key);
      const answer = (await dynamo.send(
        new GetItemCommand({
          TableName: ledgerTableName,
          Key: { [LEDGER_TABLE.partitionKey]: { S: k.pk }, [LEDGER_TABLE.sortKey]: { S: k.sk } },
          ConsistentRead: true,
          ProjectionExpression: '#pk, #refused',
          ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey, '#refused': 'refused' },
        }),
      )) as GetItemCommandOutput;
      // An object the ledger refused is recorded too (src/ledger/dynamo.ts); only a counted one is kept.
      return objectFate(answer.Item) === 'counted';
    },
    recordRefusal: (refusal) => ledger.recordRefusal(refusal),
  };
}

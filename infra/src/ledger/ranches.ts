/**
 * The ranch records on DynamoDB (RanchPort, src/ledger/port.ts): the product back end's ranch
 * table, read only, for a ranch's monthly ceiling — by the object-created function
 * (src/object-created/lambda.ts) and the uploads API (src/uploads-api/lambda.ts). The ledger's own
 * table is src/ledger/dynamo.ts.
 *
 * The ranches (`RANCH_TABLE`): partition key `ranchid` (string), `max_monthly_uploads` (number;
 * absent is 0, the product's default).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import type { CommandSender } from './dynamo';
import type { RanchPort } from './port';

/** The ranch table's assumed item shape: keyed by `ranchid`, the ceiling in `max_monthly_uploads`. */
export const RANCH_TABLE = { partitionKey: 'ranchid', maxMonthlyUploads: 'max_monthly_uploads' } as const;

/** DynamoDB: the ranch's `max_monthly_uploads` (null: no such ranch). */
export function dynamoRanches(client: CommandSender, tableName: string): RanchPort {
  return {
    async maxMonthlyUploads(ranchId) {
      const answer = (await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { [RANCH_TABLE.partitionKey]: { S: ranchId } },
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

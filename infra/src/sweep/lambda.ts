/**
 * The sweep's Lambda entry (bundled by src/stacks/uploads-stack.ts, run hourly by an EventBridge
 * rule): sweep.ts on the adapters of aws.ts. Environment: BUCKET_NAME (the upload bucket) and
 * LEDGER_TABLE_NAME, set by the stack.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { requiredEnv } from '../lambda-env';
import { awsSweepPort } from './aws';
import { sweepUntagged } from './sweep';
import type { SweepSummary } from './sweep';

/** Throws when an object failed, so the run counts as the function's error. */
export const handler = async (): Promise<SweepSummary> => {
  const summary = await sweepUntagged(requiredEnv('sweep', 'BUCKET_NAME'), {
    port: awsSweepPort(new S3Client({}), new DynamoDBClient({}), requiredEnv('sweep', 'LEDGER_TABLE_NAME')),
    clock: { now: () => new Date() },
  });
  console.log(JSON.stringify({ source: 'sweep', decision: 'summary', ...summary }));
  return summary;
};

/**
 * The sweep's Lambda entry (bundled by src/stacks/uploads-stack.ts, run hourly by an EventBridge
 * rule): sweep.ts on the adapters of aws.ts. Environment: BUCKET_NAME (the upload bucket) and
 * LEDGER_TABLE_NAME, set by the stack.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { awsSweepPort } from './aws';
import { sweepUntagged } from './sweep';
import type { SweepSummary } from './sweep';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`sweep: the environment variable ${name} is not set`);
  return value;
}

/** Throws when an object failed, so the run counts as the function's error. */
export const handler = async (): Promise<SweepSummary> => {
  const summary = await sweepUntagged(requiredEnv('BUCKET_NAME'), {
    port: awsSweepPort(new S3Client({}), new DynamoDBClient({}), requiredEnv('LEDGER_TABLE_NAME')),
    clock: { now: () => new Date() },
  });
  console.log(JSON.stringify({ source: 'sweep', decision: 'summary', ...summary }));
  return summary;
};

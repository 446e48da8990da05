/**
 * The object-created function's Lambda entry (bundled with esbuild by the stack in src/stacks/):
 * handler.ts's core on the production adapters (aws.ts; src/ledger/dynamo.ts, src/ledger/ranches.ts). Environment: LEDGER_TABLE_NAME (the
 * upload ledger) and RANCHES_TABLE_NAME (the ranch records), set by the stack, and
 * METRICS_ENVIRONMENT (the environment's name: the decision lines carry the upload counts,
 * metrics.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import { requiredEnv } from '../lambda-env';
import { dynamoLedger } from '../ledger/dynamo';
import { dynamoRanches } from '../ledger/ranches';
import { s3Objects } from './aws';
import { handleObjectCreated } from './handler';
import type { ObjectCreatedDeps } from './handler';
import { decisionLogLine, METRICS_ENVIRONMENT_VARIABLE } from './metrics';

/** How long one count may retry lost races on a busy month: 200 counts for one ranch at once need some seconds (src/ledger/dynamo.ts). */
export const OBJECT_CREATED_RETRY_BUDGET_MS = 20_000;

let deps: ObjectCreatedDeps | undefined;

/** Clients and tables, made on the first event and kept for the life of the execution environment. */
function productionDeps(): ObjectCreatedDeps {
  if (deps) return deps;
  const dynamo = new DynamoDBClient({});
  deps = {
    objects: s3Objects(new S3Client({})),
    // 20 s of retries for a contended month, inside the function's 30 s (src/stacks/uploads-stack.ts).
    ledger: dynamoLedger(dynamo, requiredEnv('object-created', 'LEDGER_TABLE_NAME'), { budgetMs: OBJECT_CREATED_RETRY_BUDGET_MS }),
    ranches: dynamoRanches(dynamo, requiredEnv('object-created', 'RANCHES_TABLE_NAME')),
    clock: { now: () => new Date() },
    // CloudWatch reads the embedded metric format from Lambda's log lines as written (console.log's prefix included).
    log: (decision) => console.log(JSON.stringify(decisionLogLine(decision, process.env[METRICS_ENVIRONMENT_VARIABLE], new Date()))),
  };
  return deps;
}

/** Throws when a record failed, so Lambda retries the event (handler.ts: every step is idempotent). */
export const handler = async (event: S3Event): Promise<void> => {
  await handleObjectCreated(event, productionDeps());
};

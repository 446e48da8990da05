/**
 * DynamoDB Local for the infra tests: Amazon's own DynamoDB engine (scripts/dynamodb-local.mjs),
 * started once per jest run by the infra project's global setup (dynamodb-global-setup.cjs), which
 * passes its endpoint in TRAILSENSE_DYNAMODB_ENDPOINT. It keeps one in-memory database for every
 * client (`-sharedDb`) and every test file of the run, so each test makes its own uniquely named
 * tables and never lists or deletes others'.
 */
import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';

export const ENDPOINT_VARIABLE = 'TRAILSENSE_DYNAMODB_ENDPOINT';

/** The endpoint of the run's DynamoDB Local. */
export function localDynamoEndpoint(): string {
  const endpoint = process.env[ENDPOINT_VARIABLE];
  if (!endpoint) {
    throw new Error(
      `${ENDPOINT_VARIABLE} is not set: DynamoDB Local is started by the global setup of jest's infra project (infra/jest.config.cjs). ` +
        'Run the test with jest from the repository root (npx jest infra/test/…), or set it to the endpoint `node scripts/dynamodb-local.mjs start` prints.',
    );
  }
  return endpoint;
}

/**
 * A client of the run's DynamoDB Local: region us-east-1, dummy credentials (it accepts any with
 * `-sharedDb`), and no SDK retries (maxAttempts 1), so a test sees each refusal as the engine gave it.
 * Destroy it when done (`client.destroy()`), which closes its kept-alive sockets.
 */
export function localDynamo(): DynamoDBClient {
  return localDynamoAt(localDynamoEndpoint());
}

/** The same client for a DynamoDB Local started elsewhere (a benchmark's own `startDynamoDbLocal()`). */
export function localDynamoAt(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

/**
 * A new, empty table shaped as the ledger's (infra/src/stacks/uploads-stack.ts): string keys `pk`
 * (HASH) and `sk` (RANGE), on demand, time to live on `ttl`. A unique name unless one is given.
 * DynamoDB Local makes the table ACTIVE at once (no waiting) and accepts UpdateTimeToLive, whose
 * status it reports ENABLED at once where DynamoDB may take up to an hour to finish enabling.
 * Resolves to the table's name.
 */
export async function createLedgerTable(client: DynamoDBClient, name = `ledger-${randomBytes(6).toString('hex')}`): Promise<string> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } }));
  return name;
}

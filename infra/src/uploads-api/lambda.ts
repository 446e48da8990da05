/**
 * The uploads API's Lambda entry (bundled with esbuild by src/stacks/uploads-api.ts): handler.ts's
 * core behind an HTTP API (payload 2.0) whose JWT authorizer has already verified the user pool's
 * id token; its claims arrive in `requestContext.authorizer.jwt.claims`. Environment:
 * LEDGER_TABLE_NAME and RANCHES_TABLE_NAME, set by the stack.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { requiredEnv } from '../lambda-env';
import { dynamoLedger } from '../ledger/dynamo';
import { dynamoRanches } from '../ledger/ranches';
import { handleUploadsApi } from './handler';
import type { UploadsApiDeps, UploadsApiRequest } from './handler';

let deps: UploadsApiDeps | undefined;

function productionDeps(): UploadsApiDeps {
  if (deps) return deps;
  const dynamo = new DynamoDBClient({});
  deps = {
    ledger: dynamoLedger(dynamo, requiredEnv('uploads-api', 'LEDGER_TABLE_NAME')),
    ranches: dynamoRanches(dynamo, requiredEnv('uploads-api', 'RANCHES_TABLE_NAME')),
    clock: { now: () => new Date() },
    newId: () => randomBytes(16).toString('base64url'),
  };
  return deps;
}

/** The API request of an HTTP API event (the `$default` stage: the raw path has no stage prefix). */
export function requestOf(event: APIGatewayProxyEventV2WithJWTAuthorizer): UploadsApiRequest {
  const claims = event.requestContext.authorizer?.jwt?.claims;
  const ranchId = claims?.['custom:ranchid'];
  const sub = claims?.['sub'];
  const body = event.body === undefined ? null : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return {
    method: event.requestContext.http.method,
    path: event.rawPath,
    query: event.queryStringParameters ?? {},
    body,
    caller: claims ? { ranchId: typeof ranchId === 'string' && ranchId !== '' ? ranchId : null, ...(typeof sub === 'string' && sub ? { sub } : {}) } : null,
  };
}

export const handler = async (event: APIGatewayProxyEventV2WithJWTAuthorizer): Promise<APIGatewayProxyStructuredResultV2> => {
  const { status, body } = await handleUploadsApi(requestOf(event), productionDeps());
  return { statusCode: status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
};

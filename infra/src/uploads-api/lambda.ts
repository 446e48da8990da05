/**
 * The uploads API's Lambda entry (bundled with esbuild by src/stacks/uploads-api.ts): handler.ts's
 * core behind a REST API's Lambda proxy integration (payload 1.0) whose Cognito user pool
 * authorizer has already verified the user pool's id token; its claims arrive in
 * `requestContext.authorizer.claims`.
 *
 * That authorizer accepts an id token of any app client of the pool (the mobile apps share it), so
 * the entry keeps the API to the web client itself: a token whose `aud` is not WEB_CLIENT_ID has no
 * caller, which the core answers 401. Environment: LEDGER_TABLE_NAME, RANCHES_TABLE_NAME,
 * WEB_CLIENT_ID (the runtime config's `auth.userPoolClientId`) and SITE_ORIGINS (a JSON array, for
 * the answers' CORS headers), set by the stack.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { requiredEnv } from '../lambda-env';
import { dynamoLedger } from '../ledger/dynamo';
import { dynamoRanches } from '../ledger/ranches';
import { handleUploadsApi } from './handler';
import type { UploadsApiDeps, UploadsApiRequest } from './handler';
import { bodyOf, jsonAnswer } from './proxy-event';

/** The proxy event's parts the entry reads. */
export type UploadsApiEvent = Pick<APIGatewayProxyEvent, 'httpMethod' | 'path' | 'queryStringParameters' | 'body' | 'isBase64Encoded' | 'headers'> & {
  requestContext: Pick<APIGatewayProxyEvent['requestContext'], 'authorizer'>;
};

let deps: (UploadsApiDeps & { webClientId: string; siteOrigins: readonly string[] }) | undefined;

function productionDeps(): NonNullable<typeof deps> {
  if (deps) return deps;
  const dynamo = new DynamoDBClient({});
  deps = {
    ledger: dynamoLedger(dynamo, requiredEnv('uploads-api', 'LEDGER_TABLE_NAME')),
    ranches: dynamoRanches(dynamo, requiredEnv('uploads-api', 'RANCHES_TABLE_NAME')),
    clock: { now: () => new Date() },
    newId: () => randomBytes(16).toString('base64url'),
    webClientId: requiredEnv('uploads-api', 'WEB_CLIENT_ID'),
    siteOrigins: JSON.parse(requiredEnv('uploads-api', 'SITE_ORIGINS')) as string[],
  };
  return deps;
}

/**
 * The API request of a proxy event. `path` is the request's path without the stage: through the
 * custom domain, whose root the stage is mapped at, and through the execute-api endpoint alike
 * (`/ranches/cedar-creek/reservations`). The caller is the verified claims' `custom:ranchid` and
 * `sub`, and only when the id token was issued to `webClientId`.
 */
export function requestOf(event: UploadsApiEvent, webClientId: string): UploadsApiRequest {
  const claims = (event.requestContext.authorizer?.['claims'] ?? undefined) as Record<string, unknown> | undefined;
  const ranchId = claims?.['custom:ranchid'];
  const sub = claims?.['sub'];
  const fromWebClient = claims !== undefined && claims['aud'] === webClientId;
  return {
    method: event.httpMethod,
    path: event.path,
    query: event.queryStringParameters ?? {},
    body: bodyOf(event),
    caller: fromWebClient
      ? { ranchId: typeof ranchId === 'string' && ranchId !== '' ? ranchId : null, ...(typeof sub === 'string' && sub ? { sub } : {}) }
      : null,
  };
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { webClientId, siteOrigins, ...core } = productionDeps();
  return jsonAnswer(await handleUploadsApi(requestOf(event, webClientId), core), event, siteOrigins);
};

/**
 * The Lambda entry of the monitoring events' collection route, `POST /events` (events.ts; bundled by
 * src/stacks/uploads-api.ts): a function of its own, behind no authorizer, whose role may only
 * `firehose:PutRecordBatch` on the analytics stream — it cannot reach the ledger the uploads API's
 * function writes. Environment: ANALYTICS_STREAM_NAME and SITE_ORIGINS (a JSON array), set by the stack.
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { CollectedEvent } from '@trailsense/shared/analytics-events';
import { requiredEnv } from '../lambda-env';
import { handleMonitoringEvents } from './events';
import type { EventsDeps, EventsRequest, MonitoringEventsPort } from './events';

/** What the adapter needs of the Firehose client (a fake in tests). */
export interface FirehoseSender {
  send(command: PutRecordBatchCommand): Promise<{ FailedPutCount?: number | undefined; RequestResponses?: { ErrorCode?: string | undefined }[] | undefined }>;
}

/** Times the records Firehose did not take are put again before the request fails. */
const RETRIES = 2;

/**
 * Firehose's adapter: one PutRecordBatch of the events, each record one event's JSON and a
 * newline (what `npm run report` reads from the delivered files). Records Firehose refuses in a
 * partly failed batch (throttled, an internal error) are put again, twice at most.
 */
export function firehoseEvents(client: FirehoseSender, streamName: string): MonitoringEventsPort {
  const encoder = new TextEncoder();
  return {
    async put(events: readonly CollectedEvent[]) {
      let records = events.map((event) => ({ Data: encoder.encode(`${JSON.stringify(event)}\n`) }));
      for (let attempt = 0; ; attempt++) {
        const answer = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: streamName, Records: records }));
        if (!answer.FailedPutCount) return;
        const failed = records.filter((_, i) => answer.RequestResponses?.[i]?.ErrorCode !== undefined);
        if (attempt >= RETRIES || failed.length === 0) throw new Error(`Firehose refused ${answer.FailedPutCount} of ${records.length} records`);
        records = failed;
      }
    },
  };
}

let deps: EventsDeps | undefined;

function productionDeps(): EventsDeps {
  deps ??= {
    events: firehoseEvents(new FirehoseClient({}), requiredEnv('monitoring-events', 'ANALYTICS_STREAM_NAME')),
    siteOrigins: JSON.parse(requiredEnv('monitoring-events', 'SITE_ORIGINS')) as string[],
  };
  return deps;
}

/** The route's request of an HTTP API event (payload 2.0: header names in lower case). */
export function eventsRequestOf(event: APIGatewayProxyEventV2): EventsRequest {
  const body = event.body === undefined ? null : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const origin = event.headers?.['origin'];
  return { method: event.requestContext.http.method, body, ...(origin !== undefined ? { origin } : {}) };
}

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const { status, body } = await handleMonitoringEvents(eventsRequestOf(event), productionDeps());
  return { statusCode: status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
};

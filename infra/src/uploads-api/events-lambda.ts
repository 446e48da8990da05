/**
 * The Lambda entry of the monitoring events' collection route, `POST /events` (events.ts; bundled by
 * src/stacks/uploads-api.ts): a function of its own, behind no authorizer, whose role may only
 * `firehose:PutRecordBatch` on the analytics stream — it cannot reach the ledger the uploads API's
 * function writes. Behind the REST API's Lambda proxy integration (payload 1.0). Environment:
 * ANALYTICS_STREAM_NAME and SITE_ORIGINS (a JSON array: the origins whose pages may send events,
 * named in the answers' CORS headers), set by the stack.
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { CollectedEvent } from '@trailsense/shared/analytics-events';
import { requiredEnv } from '../lambda-env';
import { handleMonitoringEvents } from './events';
import type { EventsDeps, EventsRequest, MonitoringEventsPort } from './events';
import { bodyOf, headerOf, jsonAnswer } from './proxy-event';

/** What the adapter needs of the Firehose client (a fake in tests). */
export interface FirehoseSender {
  send(command: PutRecordBatchCommand): Promise<{ FailedPutCount?: number | undefined; RequestResponses?: { ErrorCode?: string | undefined }[] | undefined }>;
}

/** Times the records Firehose did not take are put again before the request fails. */
const RETRIES = 2;

/**
 * Firehose's limits on what the adapter puts (a little under each): a record up to 1,000 KiB, a
 * PutRecordBatch of at most 500 records and 4 MiB. Firehose bills ingestion per record in 5 KB
 * steps, so the events of one request go in as few records as these allow — one, for any batch
 * the route accepts (16 KiB at most: MONITORING_BATCH_LIMITS in shared/src/analytics/event-schema.ts).
 */
export const FIREHOSE_LIMITS = { recordBytes: 1_000_000, batchRecords: 500, batchBytes: 4_000_000 } as const;

/**
 * The events as Firehose records: each event's JSON and a newline (newline-delimited JSON, what
 * `npm run report` and the delivered files' readers take line by line), packed in order into as
 * few records as `maxBytes` allows. An event is never split across records; one that does not fit
 * a record alone is an error (a request that could carry one is refused long before: 16 KiB).
 */
export function recordsOf(events: readonly CollectedEvent[], maxBytes: number = FIREHOSE_LIMITS.recordBytes): Uint8Array[] {
  const encoder = new TextEncoder();
  const records: Uint8Array[] = [];
  let lines: Uint8Array[] = [];
  let size = 0;
  const close = () => {
    if (lines.length === 0) return;
    const record = new Uint8Array(size);
    let at = 0;
    for (const line of lines) {
      record.set(line, at);
      at += line.length;
    }
    records.push(record);
    lines = [];
    size = 0;
  };
  for (const event of events) {
    const line = encoder.encode(`${JSON.stringify(event)}\n`);
    if (line.length > maxBytes) throw new Error(`An event of ${line.length} bytes does not fit one Firehose record (${maxBytes} bytes)`);
    if (size + line.length > maxBytes) close();
    lines.push(line);
    size += line.length;
  }
  close();
  return records;
}

/** The records in order, as PutRecordBatch calls of at most `batchRecords` records and `batchBytes` bytes each. */
export function putBatchesOf(records: readonly Uint8Array[], limits: { batchRecords: number; batchBytes: number } = FIREHOSE_LIMITS): Uint8Array[][] {
  const batches: Uint8Array[][] = [];
  let batch: Uint8Array[] = [];
  let size = 0;
  for (const record of records) {
    if (batch.length > 0 && (batch.length >= limits.batchRecords || size + record.length > limits.batchBytes)) {
      batches.push(batch);
      batch = [];
      size = 0;
    }
    batch.push(record);
    size += record.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Firehose's adapter: the request's events packed by `recordsOf`, put with `putBatchesOf`'s
 * PutRecordBatch calls (one, for any request the route accepts). Records Firehose refuses in a
 * partly failed call (throttled, an internal error) are put again, twice at most; then the put
 * fails (the route answers 500).
 */
export function firehoseEvents(client: FirehoseSender, streamName: string): MonitoringEventsPort {
  return {
    async put(events: readonly CollectedEvent[]) {
      for (const batch of putBatchesOf(recordsOf(events))) {
        let records = batch.map((Data) => ({ Data }));
        for (let attempt = 0; ; attempt++) {
          const answer = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: streamName, Records: records }));
          if (!answer.FailedPutCount) break;
          const failed = records.filter((_, i) => answer.RequestResponses?.[i]?.ErrorCode !== undefined);
          if (attempt >= RETRIES || failed.length === 0) throw new Error(`Firehose refused ${answer.FailedPutCount} of ${records.length} records`);
          records = failed;
        }
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

/** The route's request of a REST API proxy event (payload 1.0: header names as the client sent them). */
export function eventsRequestOf(event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'body' | 'isBase64Encoded' | 'headers'>): EventsRequest {
  const origin = headerOf(event, 'origin');
  return { method: event.httpMethod, body: bodyOf(event), ...(origin !== undefined ? { origin } : {}) };
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const eventsDeps = productionDeps();
  return jsonAnswer(await handleMonitoringEvents(eventsRequestOf(event), eventsDeps), event, eventsDeps.siteOrigins);
};

/**
 * The collection route of monitoring events, `POST /events` (docs/monitoring.md#delivery): a pure
 * core over a port, run by production behind the uploads API without its authorizer
 * (events-lambda.ts, src/stacks/uploads-api.ts) and by the sandbox on its API port
 * (sandbox/src/api.ts). Any visitor's page sends its vitals and client errors here, signed in or
 * not: the identity pool has no identities for signed-out visitors, so Firehose cannot take them
 * from the browser.
 *
 * The body is `{ "events": [...] }` (`MonitoringBatch`), sent as `text/plain` (a beacon: no
 * preflight) or `application/json`; the content type is not checked, the JSON is. Every event
 * must be a `webVital` or `clientError` exactly as the shared schema says
 * (`parseCollectedEvent`: no extra field; no control character or line break in any string; no
 * e-mail address, URL query or fragment or run of 6 digits in its free texts — the page scrubs
 * them, the route refuses what is left; a route of the route table); one wrong event refuses the
 * whole request, and the message names it and its field (`events[2]: release holds …`). At most `MONITORING_BATCH_LIMITS` per request. A request whose `Origin` is not one of
 * the site's is refused: another site cannot make its visitors' browsers send events (a script
 * outside a browser can, within the route's throttle; the events carry nothing anyone can bill).
 *
 * Answers: 202 `{ accepted }`; 400 malformed body or event; 403 a foreign origin; 405 a method
 * other than POST; 413 too many events or bytes (the limit in the message); 500 the port failed.
 */
import { MONITORING_BATCH_LIMITS, parseCollectedEvent, quoted } from '@trailsense/shared/analytics-events';
import type { BatchLimits, CollectedEvent } from '@trailsense/shared/analytics-events';
import type { UploadsApiResponse } from './response';

/** The route's path (no stage prefix: the `$default` stage). */
export const EVENTS_PATH = '/events';

/** Where accepted events go: Firehose in production, the sandbox's analytics sink locally. */
export interface MonitoringEventsPort {
  /** Stores every event, or throws. */
  put(events: readonly CollectedEvent[]): Promise<void>;
}

export interface EventsRequest {
  method: string;
  body: string | null;
  /** The request's `Origin` header, when it has one (a browser's request does). */
  origin?: string;
}

export interface EventsDeps {
  events: MonitoringEventsPort;
  /** The site's origins (`https://host`): the only ones a browser may send from. */
  siteOrigins: readonly string[];
}

const SHAPE = 'The body must be a JSON object: { "events": [ ... ] }';

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The events of a request body, or a Refusal that says what is wrong. Pure. */
export function parseEventBatch(body: string | null, limits: BatchLimits = MONITORING_BATCH_LIMITS): CollectedEvent[] {
  const text = body ?? '';
  if (Buffer.byteLength(text) > limits.maxBytes) {
    throw new Refusal(
      413,
      `The body is larger than ${limits.maxBytes} bytes (${limits.maxBytes / 1024} KiB), the most one request may carry: send fewer events at once`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(400, `The body is not JSON. ${SHAPE}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Refusal(400, SHAPE);
  const extra = Object.keys(parsed).find((key) => key !== 'events');
  if (extra !== undefined) throw new Refusal(400, `"${quoted(extra)}" is not a field of the body. ${SHAPE}`);
  const { events } = parsed as { events?: unknown };
  if (!Array.isArray(events)) throw new Refusal(400, `"events" must be an array. ${SHAPE}`);
  if (events.length === 0) throw new Refusal(400, '"events" is empty: send at least one event');
  if (events.length > limits.maxEvents) throw new Refusal(413, `Too many events: ${events.length} in one request, at most ${limits.maxEvents}`);
  return events.map((event, index) => {
    const checked = parseCollectedEvent(event);
    if (!checked.ok) throw new Refusal(400, `events[${index}]: ${checked.message}`);
    return checked.event;
  });
}

/** Answers one request to `POST /events`; never throws (a failure of the port is a 500, logged). */
export async function handleMonitoringEvents(
  request: EventsRequest,
  deps: EventsDeps,
  logError: (error: unknown) => void = (error) => console.error(JSON.stringify({ source: 'monitoring-events', error: String(error) })),
): Promise<UploadsApiResponse> {
  try {
    if (request.method.toUpperCase() !== 'POST') throw new Refusal(405, `Method ${request.method.toUpperCase()} not allowed: POST events`);
    if (request.origin !== undefined && !deps.siteOrigins.includes(request.origin)) throw new Refusal(403, 'Events are taken from the site’s own pages only');
    const events = parseEventBatch(request.body);
    await deps.events.put(events);
    return { status: 202, body: { accepted: events.length } };
  } catch (error) {
    if (error instanceof Refusal) return { status: error.status, body: { message: error.message } };
    logError(error);
    return { status: 500, body: { message: 'Internal error' } };
  }
}

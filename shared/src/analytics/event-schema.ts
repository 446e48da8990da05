/**
 * Validation of the monitoring events (docs/monitoring.md) as they arrive at a sink: the sandbox's
 * (sandbox/src/analytics.ts) and the report's reader (scripts/report.mjs). Exact: a field not in
 * the schema is refused, so personal data cannot ride along in an extra field. Pure.
 */
import { hasControlCharacters, hasPersonalData } from './client-errors';
import type { BatchFailures, ClientErrorKind, CollectedEvent, MonitoringEvent, VitalName, WebVitalEvent } from './events';

export type { BatchFailures, ClientErrorEvent, CollectedEvent, MonitoringEvent, UploadAnalyticsEvent, WebVitalEvent, BatchOutcomeEvent } from './events';

export type EventCheck = { ok: true; event: MonitoringEvent } | { ok: false; message: string };

/** The event names this module validates. */
export const MONITORING_EVENT_NAMES = ['webVital', 'batchOutcome', 'clientError'] as const;

const VITALS: readonly VitalName[] = ['LCP', 'INP', 'CLS', 'TTFB'];
const RATINGS: readonly WebVitalEvent['rating'][] = ['good', 'needs-improvement', 'poor'];
const NAVIGATION_TYPES: readonly WebVitalEvent['navigationType'][] = [
  'navigate',
  'reload',
  'back-forward',
  'back-forward-cache',
  'prerender',
  'restore',
  'soft-navigation',
];
const ERROR_KINDS: readonly ClientErrorKind[] = ['error', 'rejection', 'remote-load'];
const FAILURE_KINDS: readonly (keyof BatchFailures)[] = ['upload', 'stalled', 'limit', 'unavailable', 'unreadable'];

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isAmount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
/** Text of 1 to `max` characters on one line: no control character or line break, in any field (they would forge rows or escape codes in a report). */
const isText =
  (max: number) =>
  (v: unknown): v is string =>
    typeof v === 'string' && v.length > 0 && v.length <= max && !hasControlCharacters(v);
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (v: unknown): v is T =>
    typeof v === 'string' && (values as readonly string[]).includes(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Field = [name: string, test: (v: unknown) => boolean, expected: string, optional?: boolean];

/** The first problem of `body` against `fields`: a missing or malformed field, or one not in the list. */
function problem(body: Record<string, unknown>, fields: readonly Field[]): string | null {
  for (const [name, test, expected, optional] of fields) {
    const value = body[name];
    if (value === undefined && optional) continue;
    if (!test(value)) return `${name} must be ${expected}`;
  }
  const known = new Set(['name', ...fields.map(([name]) => name)]);
  const extra = Object.keys(body).find((key) => !known.has(key));
  return extra === undefined ? null : `${extra} is not a field of ${String(body['name'])}`;
}

/** A route table's path (`/`, `/about`, `/login`) or `404`: never an address with an id, a query or a name in it. */
const ROUTE_PATTERN = /^(?:\/|(?:\/[a-z0-9-]+)+|404)$/;
const ROUTE: Field = ['route', (v) => isText(64)(v) && ROUTE_PATTERN.test(v), 'a route of the route table (/, /about, …) or 404'];
/** Free text from the browser: the client scrubs it (scrubText), so what is left unscrubbed is refused. */
const isScrubbedText = (max: number) => (v: unknown) => isText(max)(v) && !hasPersonalData(v);
const SCRUBBED = 'on one line, with no control character, e-mail address, URL query or run of 6 or more digits';

const SCHEMAS: Record<(typeof MONITORING_EVENT_NAMES)[number], readonly Field[]> = {
  webVital: [
    ['metric', oneOf(VITALS), `one of ${VITALS.join(', ')}`],
    ['value', isAmount, 'a non-negative number'],
    ['rating', oneOf(RATINGS), `one of ${RATINGS.join(', ')}`],
    ROUTE,
    ['navigationType', oneOf(NAVIGATION_TYPES), `one of ${NAVIGATION_TYPES.join(', ')}`],
  ],
  batchOutcome: [
    ['photos', isCount, 'a non-negative integer'],
    ['bytes', isCount, 'a non-negative integer'],
    ['durationMs', isCount, 'a non-negative integer'],
    ['goodputBytesPerSecond', isAmount, 'a non-negative number'],
    ['retries', isCount, 'a non-negative integer'],
    [
      'failures',
      (v) => isObject(v) && Object.keys(v).length === FAILURE_KINDS.length && FAILURE_KINDS.every((kind) => isCount(v[kind])),
      `an object of non-negative integers: ${FAILURE_KINDS.join(', ')}`,
    ],
    ['hiddenMs', isCount, 'a non-negative integer'],
    ['skippedDuplicates', isCount, 'a non-negative integer'],
    ['stopped', (v) => typeof v === 'boolean', 'true or false'],
    ['smallerCopies', (v) => typeof v === 'boolean', 'true or false', true],
    ['copies', isCount, 'a non-negative integer', true],
    ['bytesSaved', isCount, 'a non-negative integer', true],
  ],
  clientError: [
    ['kind', oneOf(ERROR_KINDS), `one of ${ERROR_KINDS.join(', ')}`],
    ['message', isScrubbedText(300), `a non-empty string of at most 300 characters ${SCRUBBED}`],
    ['source', isScrubbedText(300), `a non-empty string of at most 300 characters ${SCRUBBED}`, true],
    ['module', isScrubbedText(100), `a non-empty string of at most 100 characters ${SCRUBBED}`, true],
    ROUTE,
    ['release', isScrubbedText(100), `a non-empty string of at most 100 characters ${SCRUBBED}`],
    ['suppressed', isCount, 'a non-negative integer'],
  ],
};

/** Whether `name` is a monitoring event's name. */
export function isMonitoringEventName(name: unknown): name is MonitoringEvent['name'] {
  return typeof name === 'string' && (MONITORING_EVENT_NAMES as readonly string[]).includes(name);
}

/** Validates one monitoring event; the message names the first thing wrong. */
export function parseMonitoringEvent(body: unknown): EventCheck {
  if (!isObject(body)) return { ok: false, message: 'Body must be a JSON object' };
  const { name } = body;
  if (!isMonitoringEventName(name)) return { ok: false, message: `name must be one of ${MONITORING_EVENT_NAMES.join(', ')}` };
  const wrong = problem(body, SCHEMAS[name]);
  return wrong === null ? { ok: true, event: body as unknown as MonitoringEvent } : { ok: false, message: wrong };
}

/**
 * The events the collection route takes from any visitor, signed in or not (`POST <uploads API>/events`,
 * docs/monitoring.md#delivery): a page's vitals and client errors. `batchOutcome` is not among them:
 * only a signed-in member's uploader makes one, at a batch's end, and it goes through the analytics port.
 */
export const COLLECTED_EVENT_NAMES = ['webVital', 'clientError'] as const satisfies readonly MonitoringEvent['name'][];

/**
 * One request to the collection route: `{ "events": [...] }`, at most `maxEvents` events and
 * `maxBytes` bytes of UTF-8 JSON. The sender splits its queue to fit (monitoring-sender.ts); the
 * route answers 413 beyond (infra/src/uploads-api/events.ts). 20 of the largest client errors
 * (about 800 bytes each) fit in 16 KiB; a page sends 4 vitals and at most 20 errors in all.
 */
export const MONITORING_BATCH_LIMITS: BatchLimits = { maxEvents: 20, maxBytes: 16 * 1024 };

/** How much one request to the collection route may carry. */
export interface BatchLimits {
  readonly maxEvents: number;
  /** UTF-8 bytes of the body. */
  readonly maxBytes: number;
}

/** The body of one request to the collection route. */
export interface MonitoringBatch {
  events: CollectedEvent[];
}

/** Validates one event the collection route takes (webVital or clientError): exact, as parseMonitoringEvent. */
export function parseCollectedEvent(body: unknown): { ok: true; event: CollectedEvent } | { ok: false; message: string } {
  const checked = parseMonitoringEvent(body);
  if (!checked.ok) return checked;
  const { event } = checked;
  if (event.name !== 'webVital' && event.name !== 'clientError') {
    return { ok: false, message: `${event.name} is not taken here: only ${COLLECTED_EVENT_NAMES.join(' and ')}` };
  }
  return { ok: true, event };
}

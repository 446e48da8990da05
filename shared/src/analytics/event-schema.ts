/**
 * `@trailsense/shared/analytics-events`: the analytics and monitoring events — their types
 * (`./events`) and their validation as they arrive at a sink: the uploads API's collection route
 * (infra/src/uploads-api/events.ts), the sandbox's (sandbox/src/analytics.ts) and the report's
 * reader (scripts/report.mjs). Exact: a field not in the schema is refused, so personal data
 * cannot ride along in an extra field. Pure. Source-shared: each app that imports it bundles its
 * own copy, so an event changes with the app that sends it and the server, never with the shell
 * (docs/federation.md#shared-singletons).
 */
import { firstControlCharacter, personalDataIn } from './client-errors';
import type { BatchFailures, ClientErrorKind, CollectedEvent, MonitoringEvent, VitalName, WebVitalEvent } from './events';

export type {
  Analytics,
  AnalyticsEvent,
  BatchFailures,
  BatchOutcomeEvent,
  ClientErrorEvent,
  ClientErrorKind,
  CollectedEvent,
  MonitoringEvent,
  UploadAnalyticsEvent,
  VitalName,
  WebVitalEvent,
} from './events';

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
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (v: unknown): v is T =>
    typeof v === 'string' && (values as readonly string[]).includes(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What is wrong with one field's value, after its name (`must be a non-negative integer`), or
 * null when it is right.
 */
type Check = (v: unknown) => string | null;
type Field = [name: string, check: Check, optional?: boolean];

/** A check that `test` passes, saying what is `expected` when it does not. */
const must =
  (test: (v: unknown) => boolean, expected: string): Check =>
  (v) =>
    test(v) ? null : `must be ${expected}`;

/**
 * Why `text` may not be stored as it is: a control character (C0, DEL, C1) or a line break (CR,
 * LF, U+2028, U+2029) would forge rows or send escape codes to a terminal (`npm run report`), in
 * any text field, one of a fixed list included. Null when it holds none.
 */
export function controlProblem(text: string): string | null {
  const found = firstControlCharacter(text);
  return found === null
    ? null
    : `holds a control character or line break (${found.code} at character ${found.at + 1}): text must be one line of printable characters`;
}

/**
 * Free text from the browser, 1 to `max` characters: the page scrubs it (scrubText) before it
 * sends, so personal data still in it is refused, never scrubbed here — what is stored is what the
 * page sent, and a page that forgot to scrub hears of it.
 */
const freeText =
  (max: number): Check =>
  (v) => {
    if (typeof v !== 'string' || v.length === 0 || v.length > max) return `must be a non-empty string of at most ${max} characters`;
    const personal = personalDataIn(v);
    return personal === null ? null : `holds ${personal}, personal data: scrub it before sending (scrubText) — the route refuses it, it does not scrub it`;
  };

/** A route table's path (`/`, `/about`, `/login`) or `404`: never an address with an id, a query or a name in it. */
const ROUTE_PATTERN = /^(?:\/|(?:\/[a-z0-9-]+)+|404)$/;
const ROUTE: Field = [
  'route',
  (v) => {
    if (typeof v !== 'string' || v.length > 64 || !ROUTE_PATTERN.test(v)) return 'must be a route of the route table (/, /about, …) or 404';
    const personal = personalDataIn(v);
    return personal === null ? null : `holds ${personal}: a route of the route table has no id in it`;
  },
];

const COUNT = must(isCount, 'a non-negative integer');
const AMOUNT = must(isAmount, 'a non-negative number');
const BOOLEAN = must((v) => typeof v === 'boolean', 'true or false');

/**
 * The first problem of `body` against `fields`: a control character in any string (first, so the
 * message says so whatever the field's kind), a missing or malformed field, or one not in the list.
 */
function problem(body: Record<string, unknown>, fields: readonly Field[]): string | null {
  for (const [name, check, optional] of fields) {
    const value = body[name];
    if (value === undefined && optional) continue;
    const wrong = (typeof value === 'string' ? controlProblem(value) : null) ?? check(value);
    if (wrong !== null) return `${name} ${wrong}`;
  }
  const known = new Set(['name', ...fields.map(([name]) => name)]);
  const extra = Object.keys(body).find((key) => !known.has(key));
  return extra === undefined ? null : `${quoted(extra)} is not a field of ${String(body['name'])}`;
}

/**
 * Text the sender chose (a field's name), fit to be quoted in an answer: its control characters
 * and line breaks as `\uXXXX` escapes, at most 40 characters.
 */
export function quoted(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  // eslint-disable-next-line no-control-regex -- showing control characters is the point
  return shown.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const SCHEMAS: Record<(typeof MONITORING_EVENT_NAMES)[number], readonly Field[]> = {
  webVital: [
    ['metric', must(oneOf(VITALS), `one of ${VITALS.join(', ')}`)],
    ['value', AMOUNT],
    ['rating', must(oneOf(RATINGS), `one of ${RATINGS.join(', ')}`)],
    ROUTE,
    ['navigationType', must(oneOf(NAVIGATION_TYPES), `one of ${NAVIGATION_TYPES.join(', ')}`)],
  ],
  batchOutcome: [
    ['photos', COUNT],
    ['bytes', COUNT],
    ['durationMs', COUNT],
    ['goodputBytesPerSecond', AMOUNT],
    ['retries', COUNT],
    [
      'failures',
      must(
        (v) => isObject(v) && Object.keys(v).length === FAILURE_KINDS.length && FAILURE_KINDS.every((kind) => isCount(v[kind])),
        `an object of non-negative integers: ${FAILURE_KINDS.join(', ')}`,
      ),
    ],
    ['hiddenMs', COUNT],
    ['skippedDuplicates', COUNT],
    ['stopped', BOOLEAN],
    ['smallerCopies', BOOLEAN, true],
    ['copies', COUNT, true],
    ['bytesSaved', COUNT, true],
  ],
  clientError: [
    ['kind', must(oneOf(ERROR_KINDS), `one of ${ERROR_KINDS.join(', ')}`)],
    ['message', freeText(300)],
    ['source', freeText(300), true],
    ['module', freeText(100), true],
    ROUTE,
    ['release', freeText(100)],
    ['suppressed', COUNT],
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
  if (!isMonitoringEventName(name)) {
    const control = typeof name === 'string' ? controlProblem(name) : null;
    return { ok: false, message: `name ${control ?? `must be one of ${MONITORING_EVENT_NAMES.join(', ')}`}` };
  }
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

// The pure half of `npm run report` (scripts/report.mjs): monitoring events (docs/monitoring.md)
// read from a stream of JSON objects, aggregated and printed as tables. No I/O here.
import { parseMonitoringEvent } from '@trailsense/shared/analytics-events';

export const VITALS = ['LCP', 'INP', 'CLS', 'TTFB'];

/**
 * The JSON objects in `text`, one after another: newline-delimited, or concatenated as Firehose
 * writes records that carry no delimiter. Returns the objects and how many pieces did not parse.
 */
export function splitJsonObjects(text) {
  const objects = [];
  let unreadable = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) {
        try {
          objects.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          unreadable++;
        }
      }
    }
  }
  if (depth > 0) unreadable++;
  return { objects, unreadable };
}

/** The monitoring events among `values` (validated as the sink does), and how many were not. Upload events are not counted as either. */
export function monitoringEvents(values) {
  const events = [];
  let malformed = 0;
  for (const value of values) {
    if (value && (value.name === 'imageUpload' || value.name === 'uploadFailure')) continue;
    const checked = parseMonitoringEvent(value);
    if (checked.ok) events.push(checked.event);
    else malformed++;
  }
  return { events, malformed };
}

/** The p-th percentile (0–1) of `values` by nearest rank, or null for none. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** How a route's page view began: loaded (a navigation, a reload, …) or reached by a click (a soft navigation). */
export const reachedBy = (event) => (event.navigationType === 'soft-navigation' ? 'click' : 'load');

/**
 * The report's figures: p75 of each vital per route and how it was reached (with how many
 * samples), the batches' outcomes (median goodput; failure rate: photos given up of those tried;
 * copies and the bytes they spared), client errors by kind and route.
 */
export function aggregate(events) {
  const byRoute = new Map();
  const batches = [];
  const errors = new Map();
  for (const event of events) {
    if (event.name === 'webVital') {
      const key = `${event.route}\t${reachedBy(event)}`;
      const route = byRoute.get(key) ?? Object.fromEntries(VITALS.map((v) => [v, []]));
      route[event.metric].push(event.value);
      byRoute.set(key, route);
    } else if (event.name === 'batchOutcome') batches.push(event);
    else if (event.name === 'clientError') {
      const key = `${event.kind}\t${event.route}\t${event.module ?? ''}\t${event.message}`;
      const seen = errors.get(key) ?? { kind: event.kind, route: event.route, module: event.module, message: event.message, count: 0, releases: new Set() };
      seen.count += 1 + event.suppressed;
      seen.releases.add(event.release);
      errors.set(key, seen);
    }
  }
  const vitals = [...byRoute.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, values]) => {
      const [route, reached] = key.split('\t');
      return { route, reached, ...Object.fromEntries(VITALS.map((v) => [v, { p75: percentile(values[v], 0.75), samples: values[v].length }])) };
    });
  const sum = (pick) => batches.reduce((total, b) => total + pick(b), 0);
  const sent = sum((b) => b.photos);
  const givenUp = sum((b) => b.failures.upload);
  const batchTime = sum((b) => b.durationMs);
  return {
    vitals,
    batches: {
      count: batches.length,
      stopped: batches.filter((b) => b.stopped).length,
      withFailures: batches.filter((b) => b.failures.upload + b.failures.limit + b.failures.unavailable + b.failures.unreadable > 0).length,
      photos: sent,
      bytes: sum((b) => b.bytes),
      medianGoodput: percentile(
        batches.filter((b) => b.photos > 0).map((b) => b.goodputBytesPerSecond),
        0.5,
      ),
      failureRate: sent + givenUp > 0 ? givenUp / (sent + givenUp) : null,
      failures: {
        upload: givenUp,
        stalled: sum((b) => b.failures.stalled),
        limit: sum((b) => b.failures.limit),
        unavailable: sum((b) => b.failures.unavailable),
        unreadable: sum((b) => b.failures.unreadable),
      },
      retries: sum((b) => b.retries),
      skippedDuplicates: sum((b) => b.skippedDuplicates),
      withCopies: batches.filter((b) => b.smallerCopies === true).length,
      copies: sum((b) => b.copies ?? 0),
      bytesSaved: sum((b) => b.bytesSaved ?? 0),
      hiddenShare: batchTime > 0 ? sum((b) => b.hiddenMs) / batchTime : null,
    },
    errors: [...errors.values()].sort((a, b) => b.count - a.count).map((e) => ({ ...e, releases: [...e.releases].sort() })),
  };
}

/** Bytes in the largest unit that keeps them at 1 or more: `512 B`, `48.2 kB`, `3.1 MB`, `1.20 GB`. */
export function formatBytes(bytes) {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${Math.round(bytes)} B`;
}
const mb = formatBytes;

/**
 * Text from the events made safe to print in a Markdown table on a terminal, whatever the store
 * holds: control characters (C0, DEL, C1: escape codes) and line breaks (CR, LF, U+2028, U+2029:
 * forged rows) become U+FFFD, and so do the bidirectional overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), which would make a row read otherwise than it is; `\` and `|` are escaped (a `|`
 * would end the cell), runs of spaces fold. The sink's schema refuses control characters and line
 * breaks already (shared/src/analytics/event-schema.ts); events stored before it did, or a file
 * from elsewhere, are printed through this too.
 */
export function safeCell(value) {
  return safeText(value).replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

/** Text made safe for a terminal line outside a table (safeCell without the Markdown escapes). */
export function safeText(value) {
  return (
    String(value)
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '\ufffd')
      .replace(/ {2,}/g, ' ')
  );
}
const percent = (share) => (share === null ? '–' : `${(share * 100).toFixed(1)} %`);
const cell = (vital, { p75, samples }) => (p75 === null ? '–' : `${vital === 'CLS' ? p75.toFixed(3) : Math.round(p75)} (${samples})`);

/** The report as text: Markdown tables, so it pastes into a note. */
export function formatReport(report, { source, malformed = 0, unreadable = 0 }) {
  const lines = [
    `Real-user report from ${safeText(source)}${malformed + unreadable > 0 ? ` (${malformed + unreadable} records skipped: malformed or unreadable)` : ''}`,
    '',
  ];
  lines.push(
    'Core Web Vitals, p75 per route (samples): LCP, INP, TTFB in ms; CLS unitless. Reached: load (the page was loaded on it) or click (a soft navigation, measured where the browser can: Chromium 151+; no TTFB)',
    '',
  );
  if (report.vitals.length === 0) lines.push('(no vitals recorded)');
  else {
    lines.push('| route | reached | LCP | INP | CLS | TTFB |', '|---|---|---:|---:|---:|---:|');
    for (const row of report.vitals) lines.push(`| ${safeCell(row.route)} | ${row.reached} | ${VITALS.map((v) => cell(v, row[v])).join(' | ')} |`);
  }
  const b = report.batches;
  lines.push('', 'Upload batches', '');
  if (b.count === 0) lines.push('(no batch recorded)');
  else {
    lines.push(
      '| batches | stopped | with a failure | photos | bytes | median goodput | failure rate | retries | skipped as duplicates | time hidden |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      `| ${b.count} | ${b.stopped} | ${b.withFailures} | ${b.photos} | ${mb(b.bytes)} | ${b.medianGoodput === null ? '–' : `${mb(b.medianGoodput)}/s`} | ${percent(b.failureRate)} | ${b.retries} | ${b.skippedDuplicates} | ${percent(b.hiddenShare)} |`,
      '',
      `Failures by kind: given up ${b.failures.upload} (stalled ${b.failures.stalled}), monthly limit ${b.failures.limit}, uploads API unavailable ${b.failures.unavailable}, unreadable ${b.failures.unreadable}.`,
      `Smaller copies: ${b.withCopies} of ${b.count} batches sent them; ${b.copies} photos as copies, ${mb(b.bytesSaved)} spared.`,
    );
  }
  lines.push('', 'Client errors', '');
  if (report.errors.length === 0) lines.push('(none)');
  else {
    lines.push('| count | kind | route | module | message | releases |', '|---:|---|---|---|---|---|');
    for (const e of report.errors.slice(0, 20))
      lines.push(
        `| ${e.count} | ${safeCell(e.kind)} | ${safeCell(e.route)} | ${safeCell(e.module ?? '')} | ${safeCell(e.message)} | ${e.releases.map(safeCell).join(', ')} |`,
      );
  }
  return lines.join('\n');
}

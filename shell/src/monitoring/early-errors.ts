/**
 * Client errors from the page's first script on (docs/monitoring.md#clienterror). This part is
 * in the page's first load, so it is small: it listens, turns each error into plain data and
 * keeps it until the monitoring chunk (start-monitoring.ts, loaded after the page) takes over.
 */
import type { ClientErrorInput } from '@trailsense/shared/monitoring';

/** Errors kept before the monitoring chunk arrives; beyond this a page is broken anyway. */
const MAX_EARLY = 20;

let early: ClientErrorInput[] = [];
let sink: ((input: ClientErrorInput) => void) | null = null;

/** Reports an error: now if monitoring runs, else when it starts. */
export function reportClientError(input: ClientErrorInput): void {
  if (sink) sink(input);
  else if (early.length < MAX_EARLY) early.push(input);
}

/** An error's name and message, as plain text. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.name}: ${error.cause.message})` : '';
    return `${error.name}: ${error.message}${cause}`;
  }
  return typeof error === 'string' ? error : Object.prototype.toString.call(error);
}

/** Listens for uncaught errors and unhandled rejections on `target` (the window). */
export function captureErrors(target: Pick<Window, 'addEventListener'>): void {
  target.addEventListener('error', (event: ErrorEvent) => {
    reportClientError({
      kind: 'error',
      message: event.error !== undefined && event.error !== null ? errorText(event.error) : event.message,
      source: event.filename,
    });
  });
  target.addEventListener('unhandledrejection', (event: PromiseRejectionEvent) => reportClientError({ kind: 'rejection', message: errorText(event.reason) }));
}

/** From now on errors go to `report`; the ones kept so far go first. */
export function sendClientErrorsTo(report: (input: ClientErrorInput) => void): void {
  sink = report;
  const kept = early;
  early = [];
  for (const input of kept) report(input);
}

/**
 * The page's sender of monitoring events to the collection route, `POST <api.uploadsBaseUrl>/events`
 * (docs/monitoring.md#delivery): for every visitor, signed in or not, with no credentials. Events
 * are queued and sent in batches — when 20 are waiting, a few seconds after the first, and at once
 * when the page is hidden or left (`visibilitychange` to hidden, `pagehide`), with
 * `navigator.sendBeacon`, which the browser delivers after the tab has closed. While the page is
 * hidden every event goes at once: web-vitals reports CLS, INP and LCP from its own
 * `visibilitychange` listener, which may run after ours.
 *
 * The body is `text/plain` JSON: a CORS "simple request", so no preflight precedes the beacon
 * (the route takes it, infra/src/uploads-api/events.ts). Timers, the transport and the page's
 * lifecycle are injected: the rules here run in tests without a browser.
 */
import type { CollectedEvent } from './events';
import { MONITORING_BATCH_LIMITS } from './event-schema';
import type { BatchLimits, MonitoringBatch } from './event-schema';

/** Sends one body; `leaving` when the page is being hidden or closed (a beacon, then). */
export type BatchTransport = (body: string, leaving: boolean) => void;

export interface SenderOptions {
  transport: BatchTransport;
  /** Whether the page is hidden now (`document.visibilityState === 'hidden'`). */
  hidden: () => boolean;
  setTimer: (callback: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
  /** How long the first queued event waits for others (default 5 s). */
  delayMs?: number;
  limits?: BatchLimits;
}

export interface MonitoringSender {
  /** Queues an event (or sends it at once while the page is hidden). */
  send(event: CollectedEvent): void;
  /** Sends everything queued now; `leaving` as the transport's. */
  flush(leaving: boolean): void;
}

/** How long a first event waits for others before its batch goes: most pages report TTFB, then nothing until hidden. */
export const DEFAULT_SEND_DELAY_MS = 5_000;

const byteLength = (text: string) => new TextEncoder().encode(text).length;

/** The body of a batch, exactly as sent. */
export function batchBody(events: readonly CollectedEvent[]): string {
  const batch: MonitoringBatch = { events: [...events] };
  return JSON.stringify(batch);
}

/**
 * The request bodies for `events`, in order, each within `limits` (events and UTF-8 bytes). An
 * event too large for a request of its own is left out (the route would refuse the request).
 * Pure.
 */
export function batchBodies(events: readonly CollectedEvent[], limits: BatchLimits = MONITORING_BATCH_LIMITS): string[] {
  const bodies: string[] = [];
  let current: CollectedEvent[] = [];
  for (const event of events) {
    if (byteLength(batchBody([event])) > limits.maxBytes) continue;
    const next = [...current, event];
    if (next.length > limits.maxEvents || byteLength(batchBody(next)) > limits.maxBytes) {
      bodies.push(batchBody(current));
      current = [event];
    } else current = next;
  }
  if (current.length > 0) bodies.push(batchBody(current));
  return bodies;
}

/** A sender of batches through `transport` (see the module's comment). */
export function createMonitoringSender(options: SenderOptions): MonitoringSender {
  const { transport, hidden, setTimer, clearTimer, delayMs = DEFAULT_SEND_DELAY_MS, limits = MONITORING_BATCH_LIMITS } = options;
  let queue: CollectedEvent[] = [];
  let timer: unknown = null;

  const flush = (leaving: boolean) => {
    if (timer !== null) {
      clearTimer(timer);
      timer = null;
    }
    const events = queue;
    queue = [];
    for (const body of batchBodies(events, limits)) transport(body, leaving);
  };

  return {
    send(event) {
      queue.push(event);
      if (hidden()) return flush(true);
      if (queue.length >= limits.maxEvents) return flush(false);
      timer ??= setTimer(() => {
        timer = null;
        flush(false);
      }, delayMs);
    },
    flush,
  };
}

/** Calls `onLeave` when the page is hidden (`visibilitychange`) or left (`pagehide`, also into the back-forward cache). */
export function onPageLeave(win: Pick<Window, 'addEventListener'>, doc: Pick<Document, 'addEventListener' | 'visibilityState'>, onLeave: () => void): void {
  doc.addEventListener('visibilitychange', () => {
    if (doc.visibilityState === 'hidden') onLeave();
  });
  win.addEventListener('pagehide', onLeave);
}

/**
 * The browser's transport: a beacon when leaving (it outlives the page; a string body is
 * `text/plain;charset=UTF-8`), else — or when the browser refuses the beacon (its queue is
 * full) — `fetch` with `keepalive`, `text/plain`, no credentials. Failures are logged, never thrown
 * (docs/style.md#errors-and-messages).
 */
export function browserTransport(
  url: string,
  beacon: ((url: string, body: string) => boolean) | undefined,
  fetchImpl: typeof fetch,
  logFailure: (error: unknown) => void = (error) => console.warn('Could not send monitoring events', error),
): BatchTransport {
  return (body, leaving) => {
    try {
      if (leaving && beacon?.(url, body)) return;
    } catch (error) {
      logFailure(error);
    }
    fetchImpl(url, { method: 'POST', body, keepalive: true, credentials: 'omit', headers: { 'Content-Type': 'text/plain;charset=UTF-8' } })
      .then((res) => {
        if (!res.ok) logFailure(new Error(`the collection route answered ${res.status}`));
      })
      .catch(logFailure);
  };
}

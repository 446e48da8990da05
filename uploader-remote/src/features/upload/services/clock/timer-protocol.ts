/**
 * The timer worker's messages (timer.worker.ts) and its rule for noticing that the computer slept.
 *
 * Timers in a hidden tab are throttled by the browser (Chromium: woken at most once a second, and
 * once a minute after 5 minutes hidden); a dedicated worker's timers are not, and its messages
 * reach the hidden page at once (measured: bench/hidden-tab.ts). So the uploader's waits run in
 * the worker (background-clock.ts).
 */

/** Page → worker: arm timer `id` for `ms`, or disarm it. */
export type TimerRequest = { kind: 'set'; id: number; ms: number } | { kind: 'clear'; id: number };

/**
 * Worker → page: it runs (its first message); timer `id` is due; or the worker's own heartbeat
 * came `sleptMs` late (the computer slept, or the page was frozen).
 */
export type TimerMessage = { kind: 'ready' } | { kind: 'fire'; id: number } | { kind: 'woke'; sleptMs: number };

/** The worker's heartbeat. */
export const HEARTBEAT_MS = 1000;

/**
 * A heartbeat this much later than due means the thread did not run: a suspend or a frozen page.
 * Far above what a busy machine delays a worker's timer (measured under 0.4 s in a hidden tab).
 */
export const WAKE_THRESHOLD_MS = 5000;

/** How long the thread was stopped, if a heartbeat due after `expectedMs` came after `elapsedMs`; null if it ran. */
export function sleptFor(expectedMs: number, elapsedMs: number, thresholdMs = WAKE_THRESHOLD_MS): number | null {
  const late = elapsedMs - expectedMs;
  return late >= thresholdMs ? late : null;
}

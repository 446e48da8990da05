import type { TimerMessage, TimerRequest } from './timer-protocol';
import type { Timers } from '../upload/upload-engine';

/** Tells when the computer woke from sleep or the browser resumed the frozen page. */
export interface WakeSource {
  /** `sleptMs`: how long the page could not run, as far as known. */
  subscribe(listener: (sleptMs: number) => void): () => void;
}

/**
 * The uploader's waits (the flush of engine events, the stall watchdog, retry backoff, reservation
 * retries) and its wakes, kept at their pace in a hidden tab (docs/uploader.md#a-batch-left-running).
 */
export interface BackgroundClock {
  timers: Timers;
  /** Resolves after `ms`, or early (resolves) when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  wakes: WakeSource;
}

/** The part of a dedicated worker the clock uses. */
export interface TimerWorker {
  postMessage(message: TimerRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<TimerMessage>) => void): void;
  addEventListener(type: 'error' | 'messageerror', listener: (event: Event) => void): void;
  terminate(): void;
}

/** The page's lifecycle events (Chromium's `freeze` and `resume` on document). */
export interface PageLifecycle {
  addEventListener(type: 'freeze' | 'resume', listener: () => void): void;
}

export interface BackgroundClockOptions {
  /** Starts the timer worker (timer.worker.ts); may throw or report an error: then the page's timers are used. */
  createWorker?: () => TimerWorker | Promise<TimerWorker>;
  /** The page's own timers: before the worker answers for the first time nothing is lost, and the fallback. */
  pageTimers?: Timers;
  lifecycle?: PageLifecycle | null;
  /** Wall-clock milliseconds. */
  now?: () => number;
  warn?: (message: string, detail: unknown) => void;
}

interface Pending {
  callback: () => void;
  dueAt: number;
  /** The page timer that stands in for it when the worker is not used. */
  page: unknown;
}

const browserTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Timers in a dedicated worker (timer.worker.ts): Chromium throttles a hidden tab's own timers (to
 * once a second, and once a minute after 5 minutes hidden), not a worker's, and the worker's
 * messages reach the hidden page at once. The worker starts on first use (nothing at page load).
 * If it cannot start (a CSP without `worker-src blob:`, an old browser), every timer falls back
 * to the page's, with the time it had left: slower when hidden, never lost.
 *
 * Wakes: the worker's heartbeat arriving late (a suspend stops every thread; a frozen page's
 * workers are frozen too), and the page's own `resume` event after a `freeze`.
 */
export function createBackgroundClock(options: BackgroundClockOptions = {}): BackgroundClock {
  const pageTimers = options.pageTimers ?? browserTimers;
  const now = options.now ?? (() => Date.now());
  const warn = options.warn ?? ((message, detail) => console.warn(message, detail));
  const createWorker = options.createWorker ?? defaultCreateWorker;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(sleptMs: number) => void>();
  let nextId = 1;
  let worker: TimerWorker | null = null;
  let mode: 'idle' | 'starting' | 'worker' | 'page' = 'idle';

  const wake = (sleptMs: number) => {
    for (const listener of [...listeners]) listener(sleptMs);
  };

  const fire = (id: number) => {
    const timer = pending.get(id);
    if (!timer) return;
    pending.delete(id);
    timer.callback();
  };

  const armOnPage = (id: number, timer: Pending) => {
    timer.page = pageTimers.setTimeout(() => fire(id), Math.max(0, timer.dueAt - now()));
  };

  const fallBack = (error: unknown) => {
    if (mode === 'page') return;
    mode = 'page';
    warn('The timer worker could not start; the page keeps the uploader’s timers (slower in a hidden tab)', error);
    try {
      worker?.terminate();
    } catch {
      // Already gone.
    }
    worker = null;
    for (const [id, timer] of pending) if (timer.page === null) armOnPage(id, timer);
  };

  const start = () => {
    if (mode !== 'idle') return;
    mode = 'starting';
    Promise.resolve()
      .then(createWorker)
      .then(
        (started) => {
          if (mode !== 'starting') return started.terminate();
          worker = started;
          started.addEventListener('message', (event) => {
            const message = event.data;
            if (mode === 'starting') {
              // The worker runs: the timers the page held meanwhile move to it.
              mode = 'worker';
              for (const [id, timer] of pending) {
                if (timer.page === null) continue;
                pageTimers.clearTimeout(timer.page);
                timer.page = null;
                started.postMessage({ kind: 'set', id, ms: Math.max(0, timer.dueAt - now()) });
              }
            }
            if (message.kind === 'fire') fire(message.id);
            else if (message.kind === 'woke') wake(message.sleptMs);
          });
          started.addEventListener('error', (event) => fallBack(event));
          started.addEventListener('messageerror', (event) => fallBack(event));
          // Its first message ('ready') says it runs; until then the page's timers hold every timer.
        },
        (error: unknown) => fallBack(error),
      );
  };

  let frozenAt: number | null = null;
  options.lifecycle?.addEventListener('freeze', () => (frozenAt = now()));
  options.lifecycle?.addEventListener('resume', () => {
    const slept = frozenAt === null ? 0 : now() - frozenAt;
    frozenAt = null;
    wake(slept);
  });

  const timers: Timers = {
    setTimeout(callback, ms) {
      start();
      const id = nextId++;
      const timer: Pending = { callback, dueAt: now() + ms, page: null };
      pending.set(id, timer);
      if (mode === 'worker' && worker) worker.postMessage({ kind: 'set', id, ms });
      else armOnPage(id, timer);
      return id;
    },
    clearTimeout(handle) {
      const id = handle as number;
      const timer = pending.get(id);
      if (!timer) return;
      pending.delete(id);
      if (timer.page !== null) pageTimers.clearTimeout(timer.page);
      else worker?.postMessage({ kind: 'clear', id });
    },
  };

  return {
    timers,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          timers.clearTimeout(handle);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const handle = timers.setTimeout(done, ms);
        signal.addEventListener('abort', done);
      }),
    wakes: {
      subscribe(listener) {
        start();
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    },
  };
}

/** The real worker, from a module of its own: `import.meta` there does not compile for jest. */
async function defaultCreateWorker(): Promise<TimerWorker> {
  const { startTimerWorker } = await import(/* webpackMode: "eager" */ './start-timer-worker');
  return startTimerWorker();
}

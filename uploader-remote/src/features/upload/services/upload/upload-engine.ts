import { stallReason } from '../../model/batch-outcome';
import { backoffDelay, classifyUploadError, type RetryPolicy } from '../../model/retry';
import type { DropReason, EngineEvent, NotSentReason } from '../../model/upload-queue';

/** One file to upload: its id in the list, its fixed object key, its bytes. */
export interface UploadJob {
  id: string;
  key: string;
  file: Blob;
}

/**
 * Whether a job may be sent: its checks passed (with the key to send it under, when the journal
 * already had one for the photo), it is dropped (never sent) for a reason, or it is kept in the
 * list but not sent in this batch (the server granted it no upload slot).
 */
export type Admission = { go: true; key?: string } | { go: false; reason: DropReason } | { go: false; notSent: NotSentReason };

/** Timers, injected so that tests run on a fake clock. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The side effects the engine needs, injected (docs/style.md#where-logic-lives): fakes in tests, Amplify in the app. */
export interface EngineDeps {
  /** Uploads one file; rejects with what the storage client threw. Must stop when `signal` aborts. */
  upload(job: UploadJob, context: { onProgress: (fraction: number) => void; signal: AbortSignal }): Promise<void>;
  /** Gets fresh temporary credentials after an expired-credentials error; gives up when `signal` aborts. */
  refreshCredentials(signal: AbortSignal): Promise<void>;
  /** Waits `ms`, or ends early when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
  timers: Timers;
  /**
   * Decides, before a job's first attempt, whether it is sent at all (the uploader: its first
   * bytes are a JPEG's, and the journal does not have it as uploaded already). Absent: every job
   * goes. A rejection drops the job as unreadable.
   */
  admit?(job: UploadJob, signal: AbortSignal): Promise<Admission>;
  /** Whether the browser believes it is online; a network error while offline burns no attempt. */
  isOnline?(): boolean;
  /**
   * Told when an upload failed because the browser is offline. The caller pauses the batch (and
   * resumes it when the network is back); without this, the engine pauses itself.
   */
  networkLost?(): void;
  /**
   * Whether the computer woke from sleep (or the page was resumed) moments ago: a transient
   * failure then is the link coming back, not the file, and burns no attempt.
   */
  wokeRecently?(): boolean;
}

export interface BatchOptions {
  /** Uploads at once. */
  concurrency: number;
  /** At most this many successes in this batch (the over-allowance answer), whatever the concurrency. */
  limit: number;
  retry: RetryPolicy;
  /** An attempt with no progress for this long is aborted and retried with the same key. */
  stallMs: number;
  /**
   * The month's allowance left right now (successes already subtracted, from this and other
   * tabs). Read before each start: uploads in flight count as if they will succeed.
   */
  allowance?: () => number;
}

export interface BatchResult {
  succeeded: number;
  failed: number;
  /** Jobs dropped by `admit`. */
  dropped: number;
  /** Jobs `admit` kept back: no upload slot. */
  notSent: number;
  /** Jobs never started or returned by Stop. */
  untouched: number;
  stopped: boolean;
}

export interface RunningBatch {
  /** Stops the batch: nothing new starts, in-flight uploads are aborted and go back to waiting. */
  stop(): void;
  /**
   * Pauses (offline, session lost, …): in-flight uploads are aborted and go back to waiting
   * without using up an attempt; nothing starts until `resume()`. The batch does not end while
   * paused, unless stopped.
   */
  pause(): void;
  resume(): void;
  /**
   * Aborts the uploads in flight and starts them again at once, without using up an attempt (after
   * a sleep their connections are dead, and may hang rather than fail).
   */
  restart(): void;
  /** Adds jobs to the end of the queue (files checked while the batch runs). */
  add(jobs: readonly UploadJob[]): void;
  done: Promise<BatchResult>;
}

/** The default stall bound: a rural uplink can be slow, but not silent for a minute. */
export const DEFAULT_STALL_MS = 60_000;
/** Credential refreshes per job before its failure is reported (they burn no attempt). */
const MAX_CREDENTIAL_REFRESHES = 3;

/**
 * Whether another upload may start. The allowance counts uploads in flight as if they will
 * succeed, so concurrency can never push the successes past the limit; a failure frees its slot.
 */
export function mayStartAnother(s: {
  succeeded: number;
  active: number;
  limit: number;
  allowance: number;
  concurrency: number;
  halted: boolean;
  queued: number;
}): boolean {
  return !s.halted && s.queued > 0 && s.active < s.concurrency && s.succeeded + s.active < s.limit && s.active < s.allowance;
}

/** A real sleep that ends early (resolves) on abort. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/** `work`, or a rejection as soon as `signal` aborts (for calls that take no signal of their own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Why an attempt's own signal aborted. */
type AbortWhy = 'stopped' | 'paused' | 'stalled';
type Outcome = 'succeeded' | 'failed' | 'returned' | 'requeued' | { dropped: DropReason } | { notSent: NotSentReason };

/**
 * One attempt at one upload, under its own signal: aborted with the batch's (a pause, a stop), or
 * when no progress was heard for `stallMs` ('stalled').
 */
async function attemptUpload(
  job: UploadJob,
  signal: AbortSignal,
  deps: Pick<EngineDeps, 'upload' | 'timers'>,
  stallMs: number,
  emit: (event: EngineEvent) => void,
): Promise<{ ok: true } | { ok: false; why: AbortWhy | null; error: unknown }> {
  const own = new AbortController();
  const relay = () => own.abort(signal.reason);
  signal.addEventListener('abort', relay, { once: true });
  if (signal.aborted) relay();
  let timer: unknown = null;
  let live = true;
  const arm = () => {
    if (timer !== null) deps.timers.clearTimeout(timer);
    timer = deps.timers.setTimeout(() => own.abort('stalled' satisfies AbortWhy), stallMs);
  };
  arm();
  try {
    await deps.upload(job, {
      signal: own.signal,
      onProgress: (fraction) => {
        // A late event from an attempt that has ended must not bring its file back to "uploading".
        if (!live) return;
        arm();
        emit({ type: 'progress', id: job.id, percent: fraction * 100 });
      },
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, why: own.signal.aborted ? (own.signal.reason as AbortWhy) : null, error };
  } finally {
    live = false;
    if (timer !== null) deps.timers.clearTimeout(timer);
    signal.removeEventListener('abort', relay);
  }
}

/** A batch's counts of how its jobs ended (BatchResult's, less the untouched). */
interface Counts {
  succeeded: number;
  failed: number;
  returned: number;
  dropped: number;
  notSent: number;
}

/** Counts how a job ended and says so (`requeue` puts a paused job back in its place). */
function settle(counts: Counts, job: UploadJob, outcome: Outcome, emit: (event: EngineEvent) => void, requeue: (job: UploadJob) => void): void {
  if (outcome === 'succeeded') counts.succeeded++;
  else if (outcome === 'failed') counts.failed++;
  else if (outcome === 'requeued') {
    requeue(job);
    emit({ type: 'returned', id: job.id });
  } else if (outcome === 'returned') {
    counts.returned++;
    emit({ type: 'returned', id: job.id });
  } else if ('notSent' in outcome) {
    counts.notSent++;
    emit({ type: 'not-sent', id: job.id, reason: outcome.notSent });
  } else {
    counts.dropped++;
    emit({ type: 'dropped', id: job.id, reason: outcome.dropped });
  }
}

/** The batch's waiting jobs in order; a job sent back by a pause goes back to its place. */
function jobQueue(jobs: readonly UploadJob[]) {
  const queue: UploadJob[] = [];
  const order = new Map<string, number>();
  let nextOrder = 0;
  const append = (more: readonly UploadJob[]) => {
    for (const job of more) order.set(job.id, nextOrder++);
    queue.push(...more);
  };
  const requeue = (job: UploadJob) => {
    const at = order.get(job.id) ?? 0;
    const index = queue.findIndex((j) => (order.get(j.id) ?? 0) > at);
    queue.splice(index === -1 ? queue.length : index, 0, job);
  };
  append(jobs);
  return { queue, requeue, append };
}

/**
 * Runs a batch with a bounded pool (docs/style.md#where-logic-lives: a framework-free core under a thin hook). Events go to
 * `emit` in order; the caller batches them into state updates.
 */
export function runBatch(jobs: readonly UploadJob[], options: BatchOptions, deps: EngineDeps, emit: (event: EngineEvent) => void): RunningBatch {
  const { queue, requeue, append } = jobQueue(jobs);
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const limit = Math.max(0, Math.floor(options.limit));
  const allowance = () => (options.allowance ? Math.max(0, options.allowance()) : Number.POSITIVE_INFINITY);
  // Attempts used per job; a pause gives back the attempt it interrupted.
  const attempts = new Map<string, number>();
  const refreshes = new Map<string, number>();
  const admitted = new Set<string>();
  // Aborted on pause ('paused') or stop ('stopped'); a fresh one after each resume.
  let run = new AbortController();
  let stopped = false;
  let paused = false;
  let active = 0;
  const counts: Counts = { succeeded: 0, failed: 0, returned: 0, dropped: 0, notSent: 0 };
  let resolveDone!: (result: BatchResult) => void;
  let finished = false;
  const done = new Promise<BatchResult>((resolve) => (resolveDone = resolve));

  const halted = () => stopped || paused;
  const canStart = () =>
    mayStartAnother({ succeeded: counts.succeeded, active, limit, allowance: allowance(), concurrency, halted: halted(), queued: queue.length });

  const finishIfIdle = () => {
    if (finished || active > 0) return;
    if (!stopped && (paused || canStart())) return;
    finished = true;
    const { succeeded, failed, dropped, notSent, returned } = counts;
    resolveDone({ succeeded, failed, dropped, notSent, untouched: queue.length + returned, stopped });
  };

  // The key each admitted job is sent under (the journal's, when it had one).
  const keys = new Map<string, string>();

  async function runJob(queued: UploadJob): Promise<Outcome> {
    const signal = run.signal;
    if (deps.admit && !admitted.has(queued.id)) {
      const admission = await deps.admit(queued, signal).catch((): Admission => ({ go: false, reason: 'unreadable' }));
      if (!admission.go) return 'notSent' in admission ? { notSent: admission.notSent } : { dropped: admission.reason };
      admitted.add(queued.id);
      if (admission.key) keys.set(queued.id, admission.key);
    }
    const job = { ...queued, key: keys.get(queued.id) ?? queued.key };
    for (;;) {
      if (stopped) return 'returned';
      if (paused) return 'requeued';
      const current = run.signal;
      const n = (attempts.get(job.id) ?? 0) + 1;
      attempts.set(job.id, n);
      emit({ type: 'started', id: job.id, attempt: n });
      const result = await attemptUpload(job, current, deps, options.stallMs, emit);
      if (result.ok) {
        emit({ type: 'succeeded', id: job.id });
        return 'succeeded';
      }
      if (result.why === 'stopped' || stopped) return 'returned';
      if (result.why === 'paused' || paused) {
        attempts.set(job.id, n - 1);
        return 'requeued';
      }
      const classified = result.why === 'stalled' ? { kind: 'transient' as const, message: stallReason(options.stallMs) } : classifyUploadError(result.error);
      if (classified.kind === 'cancelled') return 'returned';
      if (classified.kind === 'transient' && deps.isOnline && !deps.isOnline()) {
        // The link is down, not the file: give the attempt back and wait for the network.
        attempts.set(job.id, n - 1);
        if (deps.networkLost) deps.networkLost();
        else pause();
        return 'requeued';
      }
      if (classified.kind === 'transient' && deps.wokeRecently?.()) {
        // The link is coming back after a sleep: try again soon, the attempt given back.
        attempts.set(job.id, n - 1);
        emit({ type: 'retrying', id: job.id, attempt: n, reason: classified.message });
        try {
          await deps.sleep(backoffDelay(1, options.retry, deps.random), current);
        } catch {
          // As below: the loop goes on.
        }
        continue;
      }
      if (classified.kind === 'credentials') {
        // Expired temporary credentials are no fault of the file: refresh and go again, a few
        // times at most. A refresh that fails (the session is over) is the caller's to handle:
        // it pauses the batch, and the file waits.
        const used = (refreshes.get(job.id) ?? 0) + 1;
        refreshes.set(job.id, used);
        attempts.set(job.id, n - 1);
        if (used <= MAX_CREDENTIAL_REFRESHES) {
          emit({ type: 'retrying', id: job.id, attempt: n, reason: classified.message });
          try {
            await untilAborted(deps.refreshCredentials(current), current);
          } catch {
            // Stopped, paused, or refused: the loop's checks decide what happens next.
          }
          continue;
        }
      }
      if (classified.kind === 'permanent' || classified.kind === 'credentials' || n >= options.retry.maxAttempts) {
        emit({ type: 'failed', id: job.id, reason: classified.message });
        return 'failed';
      }
      emit({ type: 'retrying', id: job.id, attempt: n, reason: classified.message });
      try {
        await deps.sleep(backoffDelay(n, options.retry, deps.random), current);
      } catch {
        // A sleep that rejects ends early: the loop goes on (it must never hang the batch).
      }
    }
  }

  const pump = () => {
    while (canStart()) {
      const job = queue.shift()!;
      active++;
      void runJob(job)
        .catch((error: unknown): Outcome => {
          // A bug in a dependency must not leave the batch waiting forever.
          emit({ type: 'failed', id: job.id, reason: error instanceof Error ? error.message : String(error) });
          return 'failed';
        })
        .then((outcome) => {
          active--;
          settle(counts, job, outcome, emit, requeue);
          pump();
          finishIfIdle();
        });
    }
  };

  function pause() {
    if (paused || stopped) return;
    paused = true;
    run.abort('paused' satisfies AbortWhy);
  }

  pump();
  finishIfIdle();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      run.abort('stopped' satisfies AbortWhy);
      finishIfIdle();
    },
    pause,
    resume() {
      if (!paused || stopped) return;
      paused = false;
      run = new AbortController();
      pump();
      finishIfIdle();
    },
    restart() {
      if (paused || stopped || finished) return;
      // As a pause and a resume at once: the aborted jobs come back to their places and start again.
      run.abort('paused' satisfies AbortWhy);
      run = new AbortController();
    },
    add(more) {
      if (stopped || finished) return;
      append(more);
      pump();
    },
    done,
  };
}

import { stallReason } from '../../model/batch-outcome';
import type { FitPolicy } from '../../model/link-fit';
import { backoffDelay, classifyUploadError, type RetryPolicy } from '../../model/retry';
import { stallPolicy } from '../../model/stall-watch';
import type { DropReason, EngineEvent, NotSentReason } from '../../model/upload-queue';
import { LinkWatch, type FlightEnd } from './link-watch';

/** One file to upload: its id in the list, its fixed object key, its bytes. */
export interface UploadJob {
  id: string;
  key: string;
  file: Blob;
}

/**
 * Whether a job may be sent: its checks passed (with the key to send it under, when the journal
 * already had one for the photo, and the bytes it sends when they are not its file's: a smaller
 * copy's), it is dropped (never sent) for a reason, or it is kept in the
 * list but not sent in this batch (the server granted it no upload slot).
 */
export type Admission = { go: true; key?: string; bytes?: number } | { go: false; reason: DropReason } | { go: false; notSent: NotSentReason };

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
  /** Milliseconds now (only differences are used); default Date.now. */
  now?: () => number;
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
  /**
   * Uploads at once: 'fit', as many as keep the link full (model/link-fit.ts), or a fixed number
   * (`?concurrency=N`, tests).
   */
  concurrency: number | 'fit';
  /** How 'fit' climbs (model/link-fit.ts DEFAULT_FIT by default). */
  fit?: FitPolicy;
  /** At most this many successes in this batch (the over-allowance answer), whatever the concurrency. */
  limit: number;
  retry: RetryPolicy;
  /**
   * No attempt quiet for less than this is given up as stalled; past it, only once its bytes
   * really stopped moving (model/stall-watch.ts). A stalled attempt is retried with the same key.
   */
  stallMs: number;
  /** The member's cap in bytes/s, read before each attempt; null or absent: none (model/upload-cap.ts). */
  pace?: () => number | null;
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

/**
 * The default quiet bound: no upload quiet for less is given up (model/stall-watch.ts gives up a
 * quiet one later still, once its bytes really stopped moving; a silent link waits 3 × this).
 */
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
type AttemptResult = { ok: true } | { ok: false; why: AbortWhy | null; error: unknown; quietMs: number };

/** What an attempt's end tells of the link (link-watch.ts). */
function flightEnd(result: AttemptResult): FlightEnd {
  if (result.ok) return 'delivered';
  if (result.why === 'stalled') return 'setback';
  if (result.why !== null) return 'aborted';
  const kind = classifyUploadError(result.error).kind;
  return kind === 'transient' ? 'setback' : kind === 'cancelled' ? 'aborted' : 'answered';
}

/**
 * One attempt at one upload of `bytes`, under its own signal: aborted with the batch's (a pause, a
 * stop), or when the link watch finds it stalled ('stalled', after `quietMs` without progress).
 */
async function attemptUpload(
  job: UploadJob,
  bytes: number,
  signal: AbortSignal,
  deps: Pick<EngineDeps, 'upload'>,
  watch: LinkWatch,
  emit: (event: EngineEvent) => void,
): Promise<AttemptResult> {
  const own = new AbortController();
  const relay = () => own.abort(signal.reason);
  signal.addEventListener('abort', relay, { once: true });
  if (signal.aborted) relay();
  let quietMs = 0;
  let live = true;
  watch.begin(job.id, bytes, (quiet) => {
    quietMs = quiet;
    own.abort('stalled' satisfies AbortWhy);
  });
  let result: AttemptResult;
  try {
    await deps.upload(job, {
      signal: own.signal,
      onProgress: (fraction) => {
        // A late event from an attempt that has ended must not bring its file back to "uploading".
        if (!live) return;
        watch.progress(job.id, fraction);
        emit({ type: 'progress', id: job.id, percent: fraction * 100 });
      },
    });
    result = { ok: true };
  } catch (error) {
    result = { ok: false, why: own.signal.aborted ? (own.signal.reason as AbortWhy) : null, error, quietMs };
  }
  live = false;
  watch.end(job.id, flightEnd(result));
  signal.removeEventListener('abort', relay);
  return result;
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

/** What the loop does after a failed attempt: go again, or end the job so. */
type Next = 'again' | Outcome;

/**
 * One running batch (`runBatch`): a pool of jobs as wide as the link watch allows (link-watch.ts),
 * each admitted once, then attempted until it succeeds, fails for good or is sent back by a stop or
 * a pause. Events go to `emit` in order; the caller batches them into state updates.
 */
class EngineRun implements RunningBatch {
  readonly done: Promise<BatchResult>;
  private readonly queue: ReturnType<typeof jobQueue>;
  private readonly limit: number;
  private readonly watch: LinkWatch;
  // Attempts used per job; a pause gives back the attempt it interrupted.
  private readonly attempts = new Map<string, number>();
  private readonly refreshes = new Map<string, number>();
  /** Admitted jobs: the key each is sent under (the journal's, when it had one) and its bytes. */
  private readonly admitted = new Map<string, { key?: string; bytes: number }>();
  // Aborted on pause ('paused') or stop ('stopped'); a fresh one after each resume.
  private run = new AbortController();
  private stopped = false;
  private paused = false;
  private finished = false;
  private active = 0;
  private readonly counts: Counts = { succeeded: 0, failed: 0, returned: 0, dropped: 0, notSent: 0 };
  private resolveDone!: (result: BatchResult) => void;

  constructor(
    jobs: readonly UploadJob[],
    private readonly options: BatchOptions,
    private readonly deps: EngineDeps,
    private readonly emit: (event: EngineEvent) => void,
  ) {
    this.queue = jobQueue(jobs);
    this.limit = Math.max(0, Math.floor(options.limit));
    const now = deps.now ?? (() => Date.now());
    this.watch = new LinkWatch(
      {
        concurrency: options.concurrency,
        ...(options.fit ? { fit: options.fit } : {}),
        stall: stallPolicy(options.stallMs),
        ...(options.pace ? { pace: options.pace } : {}),
      },
      { setTimeout: (cb, ms) => deps.timers.setTimeout(cb, ms), clearTimeout: (h) => deps.timers.clearTimeout(h), now },
    );
    this.done = new Promise<BatchResult>((resolve) => (this.resolveDone = resolve));
    this.pump();
    this.finishIfIdle();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.run.abort('stopped' satisfies AbortWhy);
    this.finishIfIdle();
  }

  readonly pause = (): void => {
    if (this.paused || this.stopped) return;
    this.paused = true;
    this.run.abort('paused' satisfies AbortWhy);
  };

  resume(): void {
    if (!this.paused || this.stopped) return;
    this.paused = false;
    this.run = new AbortController();
    this.watch.restart();
    this.pump();
    this.finishIfIdle();
  }

  restart(): void {
    if (this.paused || this.stopped || this.finished) return;
    // As a pause and a resume at once: the aborted jobs come back to their places and start again.
    this.run.abort('paused' satisfies AbortWhy);
    this.run = new AbortController();
    this.watch.restart();
  }

  add(more: readonly UploadJob[]): void {
    if (this.stopped || this.finished) return;
    this.queue.append(more);
    this.pump();
  }

  private canStart(): boolean {
    const allowance = this.options.allowance ? Math.max(0, this.options.allowance()) : Number.POSITIVE_INFINITY;
    const { succeeded } = this.counts;
    const { active, limit } = this;
    return mayStartAnother({
      succeeded,
      active,
      limit,
      allowance,
      concurrency: this.watch.limit(),
      halted: this.stopped || this.paused,
      queued: this.queue.queue.length,
    });
  }

  private finishIfIdle(): void {
    if (this.finished || this.active > 0) return;
    if (!this.stopped && (this.paused || this.canStart())) return;
    this.finished = true;
    this.watch.dispose();
    const { succeeded, failed, dropped, notSent, returned } = this.counts;
    this.resolveDone({ succeeded, failed, dropped, notSent, untouched: this.queue.queue.length + returned, stopped: this.stopped });
  }

  private pump(): void {
    while (this.canStart()) {
      const job = this.queue.queue.shift()!;
      this.active++;
      void this.runJob(job)
        .catch((error: unknown): Outcome => {
          // A bug in a dependency must not leave the batch waiting forever.
          this.emit({ type: 'failed', id: job.id, reason: error instanceof Error ? error.message : String(error) });
          return 'failed';
        })
        .then((outcome) => {
          this.active--;
          settle(this.counts, job, outcome, this.emit, this.queue.requeue);
          this.pump();
          this.finishIfIdle();
        });
    }
  }

  /** Admits the job once (its key and bytes); an outcome when it is not to be sent. */
  private async admit(queued: UploadJob): Promise<{ key?: string; bytes: number } | Outcome> {
    const known = this.admitted.get(queued.id);
    if (known) return known;
    if (!this.deps.admit) return { bytes: queued.file.size };
    const admission = await this.deps.admit(queued, this.run.signal).catch((): Admission => ({ go: false, reason: 'unreadable' }));
    if (!admission.go) return 'notSent' in admission ? { notSent: admission.notSent } : { dropped: admission.reason };
    const admitted = { ...(admission.key ? { key: admission.key } : {}), bytes: admission.bytes ?? queued.file.size };
    this.admitted.set(queued.id, admitted);
    return admitted;
  }

  private async runJob(queued: UploadJob): Promise<Outcome> {
    const admitted = await this.admit(queued);
    if (typeof admitted === 'string' || 'dropped' in admitted || 'notSent' in admitted) return admitted;
    const job = { ...queued, key: admitted.key ?? queued.key };
    for (;;) {
      if (this.stopped) return 'returned';
      if (this.paused) return 'requeued';
      // Fewer in flight since it started (a stall or an error halved them): a retry waits its turn.
      if (this.active > this.watch.limit()) return 'requeued';
      const current = this.run.signal;
      try {
        // The member's cap: the attempt waits its turn (no wait without one).
        await this.watch.turn(admitted.bytes, current);
      } catch {
        continue; // stopped, paused or restarted: the checks above decide
      }
      const n = (this.attempts.get(job.id) ?? 0) + 1;
      this.attempts.set(job.id, n);
      this.emit({ type: 'started', id: job.id, attempt: n });
      const result = await attemptUpload(job, admitted.bytes, current, this.deps, this.watch, this.emit);
      if (result.ok) {
        this.emit({ type: 'succeeded', id: job.id });
        return 'succeeded';
      }
      const next = await this.afterFailure(job, n, result, current);
      if (next !== 'again') return next;
    }
  }

  /** After attempt `n` of `job` failed: whether it goes again (after what wait) or ends, and how. */
  private async afterFailure(job: UploadJob, n: number, result: Extract<AttemptResult, { ok: false }>, current: AbortSignal): Promise<Next> {
    const { deps, options } = this;
    if (result.why === 'stopped' || this.stopped) return 'returned';
    if (result.why === 'paused' || this.paused) {
      this.attempts.set(job.id, n - 1);
      return 'requeued';
    }
    const classified = result.why === 'stalled' ? { kind: 'transient' as const, message: stallReason(result.quietMs) } : classifyUploadError(result.error);
    if (classified.kind === 'cancelled') return 'returned';
    if (classified.kind === 'transient' && deps.isOnline && !deps.isOnline()) {
      // The link is down, not the file: give the attempt back and wait for the network.
      this.attempts.set(job.id, n - 1);
      if (deps.networkLost) deps.networkLost();
      else this.pause();
      return 'requeued';
    }
    if (classified.kind === 'transient' && deps.wokeRecently?.()) {
      // The link is coming back after a sleep: try again soon, the attempt given back.
      this.attempts.set(job.id, n - 1);
      this.emit({ type: 'retrying', id: job.id, attempt: n, reason: classified.message });
      await this.wait(backoffDelay(1, options.retry, deps.random), current);
      return 'again';
    }
    if (classified.kind === 'credentials') {
      // Expired temporary credentials are no fault of the file: refresh and go again, a few
      // times at most. A refresh that fails (the session is over) is the caller's to handle:
      // it pauses the batch, and the file waits.
      const used = (this.refreshes.get(job.id) ?? 0) + 1;
      this.refreshes.set(job.id, used);
      this.attempts.set(job.id, n - 1);
      if (used <= MAX_CREDENTIAL_REFRESHES) {
        this.emit({ type: 'retrying', id: job.id, attempt: n, reason: classified.message });
        try {
          await untilAborted(deps.refreshCredentials(current), current);
        } catch {
          // Stopped, paused, or refused: the loop's checks decide what happens next.
        }
        return 'again';
      }
    }
    if (classified.kind === 'permanent' || classified.kind === 'credentials' || n >= options.retry.maxAttempts) {
      this.emit({ type: 'failed', id: job.id, reason: classified.message });
      return 'failed';
    }
    this.emit({ type: 'retrying', id: job.id, attempt: n, reason: classified.message });
    await this.wait(backoffDelay(n, options.retry, deps.random), current);
    return 'again';
  }

  /** The backoff; a sleep that rejects ends early (the loop goes on: it must never hang the batch). */
  private async wait(ms: number, signal: AbortSignal): Promise<void> {
    try {
      await this.deps.sleep(ms, signal);
    } catch {
      // The loop's checks decide what happens next.
    }
  }
}

/**
 * Runs a batch with a pool as wide as the link allows (docs/style.md#where-logic-lives: a
 * framework-free core under a thin hook; docs/architecture.md#uploads-that-fit-the-link).
 */
export function runBatch(jobs: readonly UploadJob[], options: BatchOptions, deps: EngineDeps, emit: (event: EngineEvent) => void): RunningBatch {
  return new EngineRun(jobs, options, deps, emit);
}

import { backoffDelay, classifyUploadError, type RetryPolicy } from '../model/retry';
import type { EngineEvent } from '../model/upload-queue';

/** One file to upload: its id in the list, its fixed object key, its bytes. */
export interface UploadJob {
  id: string;
  key: string;
  file: Blob;
}

/** The side effects the engine needs, injected (AU "services"): fakes in tests, Amplify in the app. */
export interface EngineDeps {
  /** Uploads one file; rejects with what the storage client threw. Must stop when `signal` aborts. */
  upload(job: UploadJob, context: { onProgress: (fraction: number) => void; signal: AbortSignal }): Promise<void>;
  /** Gets fresh temporary credentials after an expired-credentials error. */
  refreshCredentials(): Promise<void>;
  /** Waits `ms`, or rejects/resolves early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
  /**
   * Decides, before a job's first attempt, whether it may be uploaded at all (the uploader: its
   * first bytes are a JPEG's). A refused job is dropped: it is neither a success nor a failure and
   * does not count against the limit. Absent: every job is admitted.
   */
  admit?(job: UploadJob): Promise<boolean>;
}

export interface BatchOptions {
  /** Uploads at once. */
  concurrency: number;
  /** At most this many successes (the remaining allowance), whatever the concurrency. */
  limit: number;
  retry: RetryPolicy;
}

export interface BatchResult {
  succeeded: number;
  failed: number;
  /** Jobs `admit` refused. */
  refused: number;
  /** Files never started or returned by Stop. */
  untouched: number;
  stopped: boolean;
}

export interface RunningBatch {
  /** Stops the batch: nothing new starts, in-flight uploads are aborted and go back to waiting. */
  stop(): void;
  done: Promise<BatchResult>;
}

/**
 * Whether another upload may start. The allowance counts uploads in flight as if they will
 * succeed, so concurrency can never push the successes past the limit; a failure frees its slot.
 */
export function mayStartAnother(s: { succeeded: number; active: number; limit: number; concurrency: number; stopping: boolean; queued: number }): boolean {
  return !s.stopping && s.queued > 0 && s.active < s.concurrency && s.succeeded + s.active < s.limit;
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

/**
 * Runs a batch with a bounded pool (UP: a framework-free core under a thin hook). Events go to
 * `emit` in order; the caller batches them into state updates.
 */
export function runBatch(jobs: readonly UploadJob[], options: BatchOptions, deps: EngineDeps, emit: (event: EngineEvent) => void): RunningBatch {
  const queue = [...jobs];
  const controller = new AbortController();
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const limit = Math.max(0, Math.floor(options.limit));
  let active = 0;
  let succeeded = 0;
  let failed = 0;
  let returned = 0;
  let refused = 0;
  let resolveDone!: (result: BatchResult) => void;
  const done = new Promise<BatchResult>((resolve) => (resolveDone = resolve));

  const finishIfIdle = () => {
    if (active > 0) return;
    if (!controller.signal.aborted && mayStartAnother({ succeeded, active, limit, concurrency, stopping: false, queued: queue.length })) return;
    resolveDone({ succeeded, failed, refused, untouched: queue.length + returned, stopped: controller.signal.aborted });
  };

  async function runJob(job: UploadJob): Promise<'succeeded' | 'failed' | 'returned' | 'refused'> {
    // Holds its slot while admitted, so the limit can never be passed by jobs admitted at once.
    if (deps.admit && !(await deps.admit(job).catch(() => false))) return 'refused';
    for (let attempt = 1; ; attempt++) {
      if (controller.signal.aborted) return 'returned';
      emit({ type: 'started', id: job.id, attempt });
      try {
        await deps.upload(job, {
          signal: controller.signal,
          onProgress: (fraction) => emit({ type: 'progress', id: job.id, percent: fraction * 100 }),
        });
        emit({ type: 'succeeded', id: job.id });
        return 'succeeded';
      } catch (error) {
        if (controller.signal.aborted) return 'returned';
        const classified = classifyUploadError(error);
        if (classified.kind === 'cancelled') return 'returned';
        if (classified.kind === 'permanent' || attempt >= options.retry.maxAttempts) {
          emit({ type: 'failed', id: job.id, reason: classified.message });
          return 'failed';
        }
        emit({ type: 'retrying', id: job.id, attempt, reason: classified.message });
        if (classified.kind === 'credentials') {
          // Silent refresh; if it fails, the next attempt reports the real error.
          await deps.refreshCredentials().catch(() => undefined);
        }
        await deps.sleep(backoffDelay(attempt, options.retry, deps.random), controller.signal);
      }
    }
  }

  const pump = () => {
    while (mayStartAnother({ succeeded, active, limit, concurrency, stopping: controller.signal.aborted, queued: queue.length })) {
      const job = queue.shift()!;
      active++;
      void runJob(job).then((outcome) => {
        active--;
        if (outcome === 'succeeded') succeeded++;
        else if (outcome === 'failed') failed++;
        else if (outcome === 'refused') {
          refused++;
          emit({ type: 'refused', id: job.id });
        } else {
          returned++;
          emit({ type: 'returned', id: job.id });
        }
        pump();
        finishIfIdle();
      });
    }
  };

  pump();
  finishIfIdle();
  return { stop: () => controller.abort(), done };
}

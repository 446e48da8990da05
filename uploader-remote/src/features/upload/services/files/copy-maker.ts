import type { PhotoExif } from '../../model/photo-exif';
import { COPY_LONG_EDGE, COPY_QUALITY, type CopyResult } from '../../model/smaller-copy';
import type { CopyRequest, CopyResponse } from './copy-protocol';

/** Makes the smaller copies of "Send smaller copies" (model/smaller-copy.ts), off the main thread. */
export interface CopyMaker {
  /**
   * A smaller copy of `file` with `exif` written into it, or why the original is sent instead.
   * Never rejects for the photo (one the browser cannot decode is `undecodable`, and where no copy
   * can be made at all every photo is `unavailable`); rejects with a DOMException named
   * "AbortError" when `signal` aborts first (the worker drops the job), and with
   * CopyMakerDisposedError once disposed.
   */
  make(file: Blob, exif: PhotoExif | null, signal?: AbortSignal): Promise<CopyResult>;
  /** Stops the workers; copies not yet answered reject with CopyMakerDisposedError. */
  dispose(): void;
}

/**
 * Workers making copies at once. On the 2-core build machine one worker makes 6.6 copies a second
 * of 12–20 MP photos and two make 12, with no main-thread task over 50 ms either way
 * (docs/performance.md#smaller-copies); a 3 Mbit/s link sends 1.7 copies a second. Two keep the
 * copies ahead of the link on a machine several times slower than that one, for at most two
 * decoded photos (up to 80 MB each) in memory at once.
 */
export const COPY_WORKERS = 2;

/** Workers that crash one after another, none answering in between, before copies are given up for this maker's life. */
export const MAX_CONSECUTIVE_CRASHES = 3;

/** Thrown to copies still pending when their maker is disposed, and to every later one. */
export class CopyMakerDisposedError extends Error {
  constructor() {
    super('The copy maker was disposed');
    this.name = 'CopyMakerDisposedError';
  }
}

/** The part of a Worker the maker uses (a fake one in tests). */
export interface CopyWorker {
  postMessage(message: CopyRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<CopyResponse>) => void): void;
  addEventListener(type: 'error' | 'messageerror', listener: (event: Event) => void): void;
  terminate(): void;
}

export interface CopyMakerOptions {
  /** Workers at most, started as copies are asked for. Default COPY_WORKERS. */
  workers?: number;
  /**
   * Starts one worker. Default: the real copy worker (start-copy-worker.ts). A throw or rejection
   * means "no worker here": every copy is then answered `unavailable`.
   */
  startWorker?: () => CopyWorker | Promise<CopyWorker>;
  /** The copy's long edge and JPEG quality. Default COPY_LONG_EDGE and COPY_QUALITY; the bench varies them. */
  longEdge?: number;
  quality?: number;
  /** Where the one notice that copies are given up goes. Default: console.warn. */
  warn?: (message: string, detail: unknown) => void;
}

interface Job {
  id: number;
  file: Blob;
  exif: PhotoExif | null;
  resolve: (result: CopyResult) => void;
  reject: (error: unknown) => void;
  /** Stops listening to the job's signal. */
  forget: () => void;
}

interface Slot {
  /** Null while starting. */
  worker: CopyWorker | null;
  /** The id of the job posted to it and not answered yet (an aborted job's too: the worker is busy until it answers). */
  busy: number | null;
}

const UNAVAILABLE: CopyResult = { kind: 'original', reason: 'unavailable' };

const abortError = () => new DOMException('The copy was aborted', 'AbortError');

/**
 * A pool of up to `workers` copy workers (copy.worker.ts), started as copies are asked for and
 * kept until disposed. Copies are posted one at a time per worker, in the order asked; the rest
 * wait here. The page's thread only posts the file (a reference, not its bytes) and takes back the
 * copy's Blob: no task of its own beyond bookkeeping.
 *
 * A worker that crashes (an error or messageerror event) is terminated and replaced when a copy
 * next needs one; the copy it was making is answered `unavailable` (it may be what crashed it, so
 * it is not tried again). After MAX_CONSECUTIVE_CRASHES crashes with no answer in between (the
 * worker's script cannot load: a CSP without `worker-src blob:`, a chunk that failed), or when no
 * worker can be constructed, copies are given up: every copy, pending or later, is `unavailable`,
 * with one warning.
 */
export function createCopyMaker(options: CopyMakerOptions = {}): CopyMaker {
  const maxWorkers = Math.max(1, options.workers ?? COPY_WORKERS);
  const startWorker = options.startWorker ?? defaultStartWorker;
  const longEdge = options.longEdge ?? COPY_LONG_EDGE;
  const quality = options.quality ?? COPY_QUALITY;
  const warn = options.warn ?? ((message, detail) => console.warn(message, detail));

  let state: 'open' | 'unavailable' | 'disposed' = 'open';
  let nextId = 1;
  let crashes = 0;
  const queue: Job[] = [];
  /** Posted and not answered, by id; an aborted job leaves it at once. */
  const running = new Map<number, Job>();
  const slots: Slot[] = [];

  const settle = (job: Job, result: CopyResult) => {
    job.forget();
    job.resolve(result);
  };

  const stopWorker = (slot: Slot) => {
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    try {
      slot.worker?.terminate();
    } catch {
      // Already gone.
    }
  };

  const giveUp = (reason: unknown) => {
    if (state !== 'open') return;
    state = 'unavailable';
    warn('Smaller copies cannot be made in this browser; the originals are sent.', reason);
    for (const slot of [...slots]) stopWorker(slot);
    for (const job of [...queue.splice(0), ...running.values()]) settle(job, UNAVAILABLE);
    running.clear();
  };

  const post = (slot: Slot, job: Job) => {
    slot.busy = job.id;
    running.set(job.id, job);
    try {
      slot.worker!.postMessage({ kind: 'copy', id: job.id, file: job.file, exif: job.exif, longEdge, quality });
    } catch {
      // This file or EXIF could not be sent (not cloneable): the worker is fine.
      slot.busy = null;
      running.delete(job.id);
      settle(job, UNAVAILABLE);
    }
  };

  const pump = () => {
    if (state !== 'open') return;
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (slot.worker && slot.busy === null) post(slot, queue.shift()!);
    }
    const starting = slots.filter((s) => !s.worker).length;
    for (let wanted = Math.min(queue.length - starting, maxWorkers - slots.length); wanted > 0; wanted--) start();
  };

  const crash = (slot: Slot, event: Event) => {
    if (state !== 'open' || !slots.includes(slot)) return;
    stopWorker(slot);
    const job = slot.busy === null ? undefined : running.get(slot.busy);
    if (job) {
      running.delete(job.id);
      settle(job, UNAVAILABLE);
    }
    if (++crashes >= MAX_CONSECUTIVE_CRASHES) giveUp(errorOf(event));
    else pump();
  };

  const onMessage = (slot: Slot, answer: CopyResponse) => {
    if (state !== 'open' || answer.id !== slot.busy) return;
    slot.busy = null;
    crashes = 0;
    const job = running.get(answer.id);
    running.delete(answer.id);
    // An aborted job has left `running`: its answer only frees the worker.
    if (job && 'result' in answer) settle(job, answer.result);
    pump();
  };

  const start = () => {
    const slot: Slot = { worker: null, busy: null };
    slots.push(slot);
    // Through a promise: a synchronous throw and a rejection are handled alike.
    Promise.resolve()
      .then(startWorker)
      .then(
        (worker) => {
          if (state !== 'open' || !slots.includes(slot)) return worker.terminate();
          slot.worker = worker;
          worker.addEventListener('message', (event) => onMessage(slot, event.data));
          // An uncaught error in the worker, or its script failing to load.
          worker.addEventListener('error', (event) => crash(slot, event));
          // An answer that could not be received: its copy would wait forever.
          worker.addEventListener('messageerror', (event) => crash(slot, event));
          pump();
        },
        (error: unknown) => {
          stopWorker(slot);
          giveUp(error);
        },
      );
  };

  return {
    make(file, exif, signal) {
      if (state === 'disposed') return Promise.reject(new CopyMakerDisposedError());
      if (signal?.aborted) return Promise.reject(abortError());
      if (state === 'unavailable') return Promise.resolve(UNAVAILABLE);
      return new Promise<CopyResult>((resolve, reject) => {
        const job: Job = { id: nextId++, file, exif, resolve, reject, forget: () => undefined };
        if (signal) {
          const onAbort = () => {
            const at = queue.indexOf(job);
            if (at >= 0) queue.splice(at, 1);
            if (running.delete(job.id)) {
              // The worker stays busy until it answers the cancel: its slot is not given away meanwhile.
              const slot = slots.find((s) => s.busy === job.id);
              try {
                slot?.worker?.postMessage({ kind: 'cancel', id: job.id });
              } catch {
                // A worker that cannot be posted to errors out on its own.
              }
            }
            reject(abortError());
          };
          signal.addEventListener('abort', onAbort, { once: true });
          job.forget = () => signal.removeEventListener('abort', onAbort);
        }
        queue.push(job);
        pump();
      });
    },
    dispose() {
      if (state === 'disposed') return;
      state = 'disposed';
      for (const slot of [...slots]) stopWorker(slot);
      const error = new CopyMakerDisposedError();
      for (const job of [...queue.splice(0), ...running.values()]) {
        job.forget();
        job.reject(error);
      }
      running.clear();
    },
  };
}

/** The real worker, from a module of its own: `import.meta` there does not compile for jest. */
async function defaultStartWorker(): Promise<CopyWorker> {
  // Eager: bundled into this chunk, no extra request; it is a module of a few lines.
  const { startCopyWorker } = await import(/* webpackMode: "eager" */ './start-copy-worker');
  return startCopyWorker();
}

/** What an error or messageerror event says, for the warning (see file-prober.ts's errorOf). */
function errorOf(event: Event): unknown {
  if ('error' in event && event.error) return event.error;
  if ('message' in event && event.message) return event.message;
  return event.type === 'messageerror' ? 'an answer could not be received (messageerror)' : 'the worker failed to start or crashed (no details)';
}

import type { PhotoExif } from '../../model/photo-exif';
import { COPY_LONG_EDGE, COPY_QUALITY, type CopyResult } from '../../model/smaller-copy';
import { createWorkerPool, NoWorkerAnswerError, WorkerPoolDisposedError, type PoolWorker } from '../browser/worker-pool';
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
export type CopyWorker = PoolWorker<CopyRequest, CopyResponse>;

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

const UNAVAILABLE: CopyResult = { kind: 'original', reason: 'unavailable' };

/**
 * A pool of up to `workers` copy workers (copy.worker.ts; services/browser/worker-pool.ts), started
 * as copies are asked for and kept until disposed. Copies are posted one at a time per worker, in
 * the order asked; the rest wait in the pool. The page's thread only posts the file (a reference,
 * not its bytes) and takes back the copy's Blob: no task of its own beyond bookkeeping.
 *
 * A worker that crashes is terminated and replaced when a copy next needs one; the copy it was
 * making is answered `unavailable` (it may be what crashed it, so it is not tried again). After
 * MAX_CONSECUTIVE_CRASHES crashes with no answer in between, or when no worker can be constructed,
 * copies are given up: every copy, pending or later, is `unavailable`, with one warning.
 */
export function createCopyMaker(options: CopyMakerOptions = {}): CopyMaker {
  const startWorker = options.startWorker ?? defaultStartWorker;
  const longEdge = options.longEdge ?? COPY_LONG_EDGE;
  const quality = options.quality ?? COPY_QUALITY;
  const warn = options.warn ?? ((message, detail) => console.warn(message, detail));
  const pool = createWorkerPool<CopyRequest, CopyResponse>({
    start: startWorker,
    workers: options.workers ?? COPY_WORKERS,
    perWorker: 1,
    maxCrashes: MAX_CONSECUTIVE_CRASHES,
    onGiveUp: (reason) => warn('Smaller copies cannot be made in this browser; the originals are sent.', reason),
  });
  return {
    make(file, exif, signal) {
      const answer = pool.run((id) => ({ kind: 'copy', id, file, exif, longEdge, quality }), {
        ...(signal ? { signal } : {}),
        cancel: (id) => ({ kind: 'cancel', id }),
      });
      return answer.then(
        // A cancelled copy's answer never reaches here: its promise rejected when it was aborted.
        (response) => ('result' in response ? response.result : UNAVAILABLE),
        (error: unknown) => {
          if (error instanceof NoWorkerAnswerError) return UNAVAILABLE;
          throw error instanceof WorkerPoolDisposedError ? new CopyMakerDisposedError() : error;
        },
      );
    },
    dispose: () => pool.dispose(),
  };
}

/** The real worker, from a module of its own: `import.meta` there does not compile for jest. */
async function defaultStartWorker(): Promise<CopyWorker> {
  // Eager: bundled into this chunk, no extra request; it is a module of a few lines.
  const { startCopyWorker } = await import(/* webpackMode: "eager" */ './start-copy-worker');
  return startCopyWorker();
}

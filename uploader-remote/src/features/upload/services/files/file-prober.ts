import { createWorkerPool, NoWorkerAnswerError, WorkerPoolDisposedError, type PoolWorker } from '../browser/worker-pool';
import { probeFile, type FileProbe } from './file-probe';
import type { ProbeRequest, ProbeResponse } from './probe-protocol';
import { makeThumbnail } from './thumbnail';

/** A chosen file's size and modified time. */
export interface FileStat {
  size: number;
  lastModified: number;
}

/** Probes chosen files (fingerprint, JPEG signature and EXIF, file-probe.ts) and makes their thumbnails. */
export interface FileProber {
  /** Never rejects for a file it cannot read (that is `unreadable`); rejects once disposed. */
  probe(file: Blob): Promise<FileProbe>;
  /**
   * A thumbnail of a row on screen, as a `data:` URL (thumbnail.ts), or null when none can be made
   * or `signal` aborted first (the row scrolled away). Never rejects, except once disposed. Apart
   * from the probes and newest first: see ThumbnailQueue.
   */
  thumbnail(file: Blob, signal?: AbortSignal): Promise<string | null>;
  /** The size and modified time of many files, in slices that leave the main thread free between them. */
  stat(files: readonly Blob[]): Promise<FileStat[]>;
  /** Stops the worker, if any; probes and thumbnails not yet answered reject. */
  dispose(): void;
}

/**
 * Probes in flight at once. A selection is 2,000–10,000 files: starting every read at once would
 * hold that many pending reads (and their buffers) in the browser. 32 keeps an SD card's reads
 * queued deep enough to stay busy while bounding memory to 32 × 128 KiB of samples.
 */
export const MAX_PROBES_IN_FLIGHT = 32;

/**
 * Thumbnails made at once. Only rows on screen ask (a dozen or two), and one without an EXIF
 * thumbnail reads and decodes a whole photo: 4 keep the visible rows filling in without taking
 * the card's reads or the memory from the probes.
 */
export const MAX_THUMBNAILS_IN_FLIGHT = 4;

/**
 * At most this many files' sizes are read per task, and for at most `STAT_BUDGET_MS`. In Chromium
 * the first `File.size` (or a postMessage of the file) of a picked file is a synchronous trip to
 * the disk: 0.15 ms each on a quiet machine, 0.3 ms on a busy one, so 10,000 read in one go hold
 * the page for seconds, and a fixed count per task still made 59–77 ms tasks on the intake
 * benchmark. The time budget adapts to the disk; clicks and frames get in between.
 * (A worker cannot take this over: posting a file to it captures the same metadata first.)
 */
export const STAT_SLICE = 250;
export const STAT_BUDGET_MS = 25;

/**
 * The size and modified time of each file, a slice per task. Every slice, the first too, runs in
 * a task of its own: the caller (listing a card chunk by chunk) has just done its own work in the
 * current task.
 */
export async function statInSlices(files: readonly Blob[], clock: () => number = () => performance.now()): Promise<FileStat[]> {
  const stats: FileStat[] = [];
  let next = 0;
  while (next < files.length) {
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    const deadline = clock() + STAT_BUDGET_MS;
    const end = Math.min(files.length, next + STAT_SLICE);
    do {
      const file = files[next++]!;
      stats.push({ size: file.size, lastModified: 'lastModified' in file ? (file as File).lastModified : 0 });
    } while (next < end && clock() < deadline);
  }
  return stats;
}

/** Thrown to probes still pending when their prober is disposed. */
export class ProberDisposedError extends Error {
  constructor() {
    super('The file prober was disposed');
    this.name = 'ProberDisposedError';
  }
}

interface Waiting {
  file: Blob;
  resolve: (probe: FileProbe) => void;
  reject: (error: unknown) => void;
}

interface ThumbnailWaiting {
  file: Blob;
  resolve: (thumbnail: string | null) => void;
  reject: (error: unknown) => void;
  /** Stops listening to the request's signal. */
  forget: () => void;
}

/**
 * Thumbnail requests, kept apart from the probes: a row shown while 10,000 files are being probed
 * must not wait behind them. The newest request starts first (the rows just scrolled to; the
 * older ones may be off screen by then), at most `limit` run at once, and one whose signal aborts
 * resolves null at once and, if it was still waiting, leaves the queue. An aborted one already
 * running keeps its slot until it ends: its work goes on all the same.
 *
 * `make` makes one thumbnail (a rejection counts as none); nothing starts while `canStart` says no
 * (the worker is still starting).
 */
class ThumbnailQueue {
  private readonly waiting: ThumbnailWaiting[] = [];
  private readonly running = new Set<ThumbnailWaiting>();
  private disposed = false;

  constructor(
    private readonly limit: number,
    private readonly make: (file: Blob) => Promise<string | null>,
    private readonly canStart: () => boolean = () => true,
  ) {}

  request(file: Blob, signal?: AbortSignal): Promise<string | null> {
    if (this.disposed) return Promise.reject(new ProberDisposedError());
    if (signal?.aborted) return Promise.resolve(null);
    return new Promise<string | null>((resolve, reject) => {
      const item: ThumbnailWaiting = { file, resolve, reject, forget: () => undefined };
      if (signal) {
        const onAbort = () => {
          const at = this.waiting.indexOf(item);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve(null);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        item.forget = () => signal.removeEventListener('abort', onAbort);
      }
      this.waiting.push(item);
      this.pump();
    });
  }

  pump(): void {
    while (!this.disposed && this.running.size < this.limit && this.waiting.length > 0 && this.canStart()) {
      const item = this.waiting.pop()!;
      this.running.add(item);
      void this.make(item.file)
        .catch(() => null)
        .then((thumbnail) => {
          if (!this.running.delete(item)) return; // disposed meanwhile
          item.forget();
          item.resolve(thumbnail);
          this.pump();
        });
    }
  }

  dispose(): void {
    this.disposed = true;
    const error = new ProberDisposedError();
    // A settled promise ignores a second settle: an aborted request keeps its null.
    for (const item of [...this.waiting.splice(0), ...this.running]) {
      item.forget();
      item.reject(error);
    }
    this.running.clear();
  }
}

/**
 * Probes on the calling thread, at most `maxInFlight` at once: jest tests, and the worker
 * prober's fallback. On the main thread each read and digest is asynchronous, but the hashing
 * and the bookkeeping of thousands of files still compete with rendering.
 *
 * Its thumbnails are only the ones embedded in the EXIF (no decoder is given to makeThumbnail):
 * decoding whole photos is left to the worker, never done on the page's thread.
 */
export function createInlineProber(subtle: SubtleCrypto, maxInFlight = MAX_PROBES_IN_FLIGHT, maxThumbnailsInFlight = MAX_THUMBNAILS_IN_FLIGHT): FileProber {
  const thumbnails = new ThumbnailQueue(maxThumbnailsInFlight, (file) => makeThumbnail(file, null));
  const queue: Waiting[] = [];
  const running = new Set<Waiting>();
  let disposed = false;
  const pump = () => {
    while (!disposed && running.size < maxInFlight && queue.length > 0) {
      const item = queue.shift()!;
      running.add(item);
      probeFile(item.file, subtle)
        .then(item.resolve, item.reject)
        .finally(() => {
          running.delete(item);
          pump();
        });
    }
  };
  return {
    stat: (files) => (disposed ? Promise.reject(new ProberDisposedError()) : statInSlices(files)),
    probe(file) {
      if (disposed) return Promise.reject(new ProberDisposedError());
      return new Promise<FileProbe>((resolve, reject) => {
        queue.push({ file, resolve, reject });
        pump();
      });
    },
    thumbnail: (file, signal) => thumbnails.request(file, signal),
    dispose() {
      disposed = true;
      thumbnails.dispose();
      const error = new ProberDisposedError();
      // A settled promise ignores a second settle, so the running probes' later answers are moot.
      for (const item of [...queue.splice(0), ...running]) item.reject(error);
      running.clear();
    },
  };
}

/** The part of a Worker the prober uses (a fake one in tests). */
export type ProbeWorker = PoolWorker<ProbeRequest, ProbeResponse>;

export interface WorkerProberOptions {
  /**
   * Starts the worker; called once, on the first probe. Default: the real probe worker
   * (start-probe-worker.ts). A throw or rejection means "no worker": everything runs inline.
   */
  createWorker?: () => ProbeWorker | Promise<ProbeWorker>;
  /** The prober used when the worker is unavailable. Default: inline, with the page's crypto.subtle. */
  createFallback?: () => FileProber;
  maxInFlight?: number;
  /** Thumbnails posted (or on the fallback) at once; they have their own queue. */
  maxThumbnailsInFlight?: number;
  /** Where the one fallback notice goes. Default: console.warn. */
  warn?: (message: string, detail: unknown) => void;
}

/**
 * Probes in a Web Worker, off the main thread: reading and hashing thousands of files must not
 * take the page's frames. The worker (a pool of one: services/browser/worker-pool.ts) starts on
 * the first probe (most visits never pick files); at most `maxInFlight` probes are posted to it,
 * the rest wait in the pool.
 *
 * Thumbnails go to the same worker through their own queue (ThumbnailQueue), at most
 * `maxThumbnailsInFlight` posted, whatever the probes are doing.
 *
 * If the worker cannot be created (no Worker, CSP without `worker-src blob:`, its chunk failed to
 * load) or errors out later, every probe and thumbnail posted and not answered, and every later
 * one, runs on the fallback (inline) prober instead, with one console warning: a probe never
 * hangs on a dead worker.
 */
export function createWorkerProber(options: WorkerProberOptions = {}): FileProber {
  const maxInFlight = options.maxInFlight ?? MAX_PROBES_IN_FLIGHT;
  // Its probes as bounded as the worker's; its thumbnails are bounded by the queue here.
  const createFallback = options.createFallback ?? (() => createInlineProber(globalThis.crypto.subtle, maxInFlight, Number.MAX_SAFE_INTEGER));
  const warn = options.warn ?? ((message, detail) => console.warn(message, detail));
  let fallback: FileProber | undefined;
  const onFallback = () => (fallback ??= createFallback());
  let disposed = false;

  const pool = createWorkerPool<ProbeRequest, ProbeResponse>({
    start: options.createWorker ?? defaultCreateWorker,
    perWorker: maxInFlight,
    onStarted: () => thumbnails.pump(),
    onGiveUp: (reason) => {
      warn('The file probe worker is unavailable; probing files on the main thread instead.', reason);
      thumbnails.pump();
    },
  });
  /** What no worker will do runs on the fallback; a disposed pool is a disposed prober. */
  const elsewhere =
    <T>(onFallbackToo: () => Promise<T>) =>
    (error: unknown): Promise<T> => {
      if (error instanceof NoWorkerAnswerError) return onFallbackToo();
      throw error instanceof WorkerPoolDisposedError ? new ProberDisposedError() : error;
    };

  /** Makes one thumbnail, in the worker if it runs, else on the fallback; called by the queue. */
  const makeOne = (file: Blob) =>
    pool
      .run((id) => ({ id, kind: 'thumbnail', file }), { now: true })
      .then(
        (answer) => ('thumbnail' in answer ? answer.thumbnail : null),
        elsewhere(() =>
          onFallback()
            .thumbnail(file)
            .catch(() => null),
        ),
      );
  const thumbnails = new ThumbnailQueue(
    options.maxThumbnailsInFlight ?? MAX_THUMBNAILS_IN_FLIGHT,
    makeOne,
    () => pool.status === 'running' || pool.status === 'gone',
  );

  return {
    stat: (files) => (disposed ? Promise.reject(new ProberDisposedError()) : statInSlices(files)),
    probe(file) {
      if (disposed) return Promise.reject(new ProberDisposedError());
      return pool
        .run((id) => ({ id, kind: 'probe', file }))
        .then(
          (answer) => {
            if ('result' in answer) return answer.result;
            throw new Error('error' in answer ? answer.error : 'The probe worker answered a probe with a thumbnail');
          },
          elsewhere(() => onFallback().probe(file)),
        );
    },
    thumbnail(file, signal) {
      const thumbnail = thumbnails.request(file, signal);
      // The first request starts the worker, as the first probe does.
      if (pool.status === 'idle' && !signal?.aborted) pool.warm();
      return thumbnail;
    },
    dispose() {
      disposed = true;
      pool.dispose();
      thumbnails.dispose();
      fallback?.dispose();
    },
  };
}

/** The real worker, from a module of its own: `import.meta` there does not compile for jest. */
async function defaultCreateWorker(): Promise<ProbeWorker> {
  // Eager: bundled into this chunk, no extra request; it is a module of a few lines.
  const { startProbeWorker } = await import(/* webpackMode: "eager" */ './start-probe-worker');
  return startProbeWorker();
}

/**
 * A small pool of Web Workers that answer requests by id: the one the file prober probes in
 * (services/files/file-prober.ts) and the ones the copy maker makes copies in
 * (services/files/copy-maker.ts). Workers start as requests come (most visits never need one) and
 * stay until disposed; requests are posted in the order asked, at most `perWorker` to a worker at
 * once, the rest wait here. What the page's thread does is post a message and take the answer.
 *
 * A worker that crashes (an error or messageerror event) is terminated; the requests it had are
 * answered NoWorkerAnswerError, and it is replaced when a request next needs one. After
 * `maxCrashes` crashes with no answer in between (the worker's script cannot load: a CSP without
 * `worker-src blob:`, a chunk that failed), or when no worker can be constructed, the pool gives
 * up: every request, pending or later, is answered NoWorkerAnswerError, and `onGiveUp` is told once.
 * What the caller does then is its own (the prober probes on the page's thread, the copy maker
 * sends the originals).
 */

/** The part of a Worker the pool uses (a fake one in tests: test/support/fake-worker.ts). */
export interface PoolWorker<Request, Response> {
  postMessage(message: Request): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<Response>) => void): void;
  addEventListener(type: 'error' | 'messageerror', listener: (event: Event) => void): void;
  terminate(): void;
}

export interface WorkerPoolOptions<Request, Response> {
  /** Starts one worker. A throw or rejection means "no worker here": the pool gives up. */
  start: () => PoolWorker<Request, Response> | Promise<PoolWorker<Request, Response>>;
  /** Workers at most. Default 1. */
  workers?: number;
  /** Requests posted to one worker at once. Default 1. */
  perWorker?: number;
  /** Crashes in a row, none answered in between, before the pool gives up. Default 1. */
  maxCrashes?: number;
  /** Told once, when the pool gives up, with why (what the failed event or start said). */
  onGiveUp?: (reason: unknown) => void;
  /** Told when a worker has started (requests asked `now` are posted at once from then on). */
  onStarted?: () => void;
}

export interface RunOptions<Request> {
  /** Aborts the request: one waiting leaves the queue, one posted is cancelled (`cancel`). It rejects with an AbortError at once. */
  signal?: AbortSignal;
  /** The message that tells a worker to drop a posted request; its worker stays busy with it until it answers. */
  cancel?: (id: number) => Request;
  /** Posted at once to a running worker, ahead of the queue and beside `perWorker`: for requests bounded by a queue of their own. */
  now?: boolean;
}

/** idle: no worker asked for yet; starting: one is starting, none runs; gone: the pool gave up. */
export type PoolStatus = 'idle' | 'starting' | 'running' | 'gone' | 'disposed';

export interface WorkerPool<Request, Response> {
  /** Posts `request(id)` when a worker is free, and resolves with the worker's answer of that id. */
  run(request: (id: number) => Request, options?: RunOptions<Request>): Promise<Response>;
  /** Starts a worker if none runs or starts yet (for requests that wait for one before asking). */
  warm(): void;
  readonly status: PoolStatus;
  /** Stops the workers; requests not yet answered, and later ones, reject with WorkerPoolDisposedError. */
  dispose(): void;
}

/** Why a request was not answered by a worker: the pool gave up, its worker crashed, or it could not be posted (not cloneable). */
export class NoWorkerAnswerError extends Error {
  constructor(
    readonly why: 'gone' | 'crashed' | 'unpostable',
    readonly detail?: unknown,
  ) {
    super(`No worker answered the request (${why})`);
    this.name = 'NoWorkerAnswerError';
  }
}

/** Thrown to requests still pending when the pool is disposed, and to every later one. */
export class WorkerPoolDisposedError extends Error {
  constructor() {
    super('The worker pool was disposed');
    this.name = 'WorkerPoolDisposedError';
  }
}

interface Job<Request, Response> {
  request: (id: number) => Request;
  now: boolean;
  resolve: (answer: Response) => void;
  reject: (error: unknown) => void;
  /** Stops listening to the request's signal. */
  forget: () => void;
}

/** A request posted to a worker: its job, or null once aborted (the worker is busy with it until it answers). */
interface Posted<Request, Response> {
  job: Job<Request, Response> | null;
  now: boolean;
}

interface Slot<Request, Response> {
  /** Null while starting. */
  worker: PoolWorker<Request, Response> | null;
  posted: Map<number, Posted<Request, Response>>;
}

const abortError = () => new DOMException('The request was aborted', 'AbortError');

/** Requests posted to `slot` that count against `perWorker` (not those asked `now`). */
function load<Request, Response>(slot: Slot<Request, Response>): number {
  let n = 0;
  for (const p of slot.posted.values()) if (!p.now) n++;
  return n;
}

/** The jobs `slot` was answering (not the aborted ones), its record of them cleared. */
function orphansOf<Request, Response>(slot: Slot<Request, Response>): Job<Request, Response>[] {
  const jobs = [...slot.posted.values()].flatMap((p) => (p.job ? [p.job] : []));
  slot.posted.clear();
  return jobs;
}

function answerNone<Request, Response>(job: Job<Request, Response>, error: unknown): void {
  job.forget();
  job.reject(error);
}

export function createWorkerPool<Request, Response extends { id: number }>(options: WorkerPoolOptions<Request, Response>): WorkerPool<Request, Response> {
  return new Pool(options);
}

class Pool<Request, Response extends { id: number }> implements WorkerPool<Request, Response> {
  private state: 'open' | 'gone' | 'disposed' = 'open';
  private nextId = 1;
  private crashes = 0;
  private readonly queue: Job<Request, Response>[] = [];
  private readonly slots: Slot<Request, Response>[] = [];
  private readonly maxWorkers: number;
  private readonly perWorker: number;
  private readonly maxCrashes: number;

  constructor(private readonly options: WorkerPoolOptions<Request, Response>) {
    this.maxWorkers = Math.max(1, options.workers ?? 1);
    this.perWorker = Math.max(1, options.perWorker ?? 1);
    this.maxCrashes = Math.max(1, options.maxCrashes ?? 1);
  }

  get status(): PoolStatus {
    if (this.state !== 'open') return this.state;
    if (this.slots.some((s) => s.worker)) return 'running';
    return this.slots.length > 0 ? 'starting' : 'idle';
  }

  run(request: (id: number) => Request, { signal, cancel, now = false }: RunOptions<Request> = {}): Promise<Response> {
    if (this.state === 'disposed') return Promise.reject(new WorkerPoolDisposedError());
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.state === 'gone') return Promise.reject(new NoWorkerAnswerError('gone'));
    return new Promise<Response>((resolve, reject) => {
      const job: Job<Request, Response> = { request, now, resolve, reject, forget: () => undefined };
      if (signal) {
        const onAbort = () => {
          this.abort(job, cancel);
          reject(abortError());
        };
        signal.addEventListener('abort', onAbort, { once: true });
        job.forget = () => signal.removeEventListener('abort', onAbort);
      }
      // Asked `now`: ahead of the others, after those asked `now` before it.
      const at = now ? this.queue.findIndex((j) => !j.now) : -1;
      this.queue.splice(at === -1 ? this.queue.length : at, 0, job);
      this.pump();
    });
  }

  warm(): void {
    if (this.state === 'open' && this.slots.length === 0) this.start();
  }

  dispose(): void {
    if (this.state === 'disposed') return;
    this.state = 'disposed';
    const error = new WorkerPoolDisposedError();
    const pending = this.queue.splice(0);
    for (const slot of [...this.slots]) {
      this.stopWorker(slot);
      pending.push(...orphansOf(slot));
    }
    for (const job of pending) answerNone(job, error);
  }

  private stopWorker(slot: Slot<Request, Response>): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    try {
      slot.worker?.terminate();
    } catch {
      // Already gone.
    }
  }

  private giveUp(reason: unknown): void {
    if (this.state !== 'open') return;
    this.state = 'gone';
    const error = new NoWorkerAnswerError('gone', reason);
    for (const slot of [...this.slots]) {
      this.stopWorker(slot);
      for (const job of orphansOf(slot)) answerNone(job, error);
    }
    for (const job of this.queue.splice(0)) answerNone(job, error);
    this.options.onGiveUp?.(reason);
  }

  private post(slot: Slot<Request, Response>, job: Job<Request, Response>): void {
    const id = this.nextId++;
    slot.posted.set(id, { job, now: job.now });
    try {
      slot.worker!.postMessage(job.request(id));
    } catch (error) {
      // This request could not be sent (not cloneable): the worker is fine.
      slot.posted.delete(id);
      answerNone(job, new NoWorkerAnswerError('unpostable', error));
    }
  }

  /** Posts what waits to the workers that have room, and starts the workers the rest needs. */
  private pump(): void {
    if (this.state !== 'open') return;
    const { queue, slots, perWorker } = this;
    for (const slot of slots) {
      if (!slot.worker) continue;
      while (queue.length > 0 && (queue[0]!.now || load(slot) < perWorker)) this.post(slot, queue.shift()!);
    }
    const starting = slots.filter((s) => !s.worker).length;
    for (let wanted = Math.min(Math.ceil(queue.length / perWorker) - starting, this.maxWorkers - slots.length); wanted > 0; wanted--) this.start();
  }

  private crash(slot: Slot<Request, Response>, event: Event): void {
    if (this.state !== 'open' || !this.slots.includes(slot)) return;
    this.stopWorker(slot);
    for (const job of orphansOf(slot)) answerNone(job, new NoWorkerAnswerError('crashed', errorOf(event)));
    if (++this.crashes >= this.maxCrashes) this.giveUp(errorOf(event));
    else this.pump();
  }

  private answer(slot: Slot<Request, Response>, answer: Response): void {
    if (this.state !== 'open') return;
    const posted = slot.posted.get(answer.id);
    // Nobody asked (or an answer for another worker's request).
    if (!posted) return;
    slot.posted.delete(answer.id);
    this.crashes = 0;
    // An aborted request's answer only frees its worker.
    if (posted.job) {
      posted.job.forget();
      posted.job.resolve(answer);
    }
    this.pump();
  }

  private start(): void {
    const slot: Slot<Request, Response> = { worker: null, posted: new Map() };
    this.slots.push(slot);
    // Through a promise: a synchronous throw and a rejection are handled alike.
    Promise.resolve()
      .then(this.options.start)
      .then(
        (worker) => {
          if (this.state !== 'open' || !this.slots.includes(slot)) return worker.terminate();
          slot.worker = worker;
          worker.addEventListener('message', (event) => this.answer(slot, event.data));
          // An uncaught error in the worker, or its script failing to load.
          worker.addEventListener('error', (event) => this.crash(slot, event));
          // An answer that could not be received: its request would wait forever.
          worker.addEventListener('messageerror', (event) => this.crash(slot, event));
          this.options.onStarted?.();
          this.pump();
        },
        (error: unknown) => {
          if (this.state !== 'open') return;
          this.stopWorker(slot);
          this.giveUp(error);
        },
      );
  }

  /** Aborts `job`: out of the queue, or cancelled in the worker it was posted to. */
  private abort(job: Job<Request, Response>, cancel: RunOptions<Request>['cancel']): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) return void this.queue.splice(at, 1);
    for (const slot of this.slots) {
      for (const [id, posted] of slot.posted) {
        if (posted.job !== job) continue;
        posted.job = null;
        try {
          if (cancel) slot.worker?.postMessage(cancel(id));
        } catch {
          // A worker that cannot be posted to errors out on its own.
        }
        return;
      }
    }
  }
}

/**
 * What an error or messageerror event says, for the warning. A worker blocked by CSP, or whose
 * script failed to load or is of another origin, reports an error event with no details.
 */
export function errorOf(event: Event): unknown {
  if ('error' in event && event.error) return event.error;
  if ('message' in event && event.message) return event.message;
  return event.type === 'messageerror' ? 'an answer could not be received (messageerror)' : 'the worker failed to start or crashed (no details)';
}

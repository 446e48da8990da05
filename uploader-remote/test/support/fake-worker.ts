/**
 * A Worker the test drives, for every worker the uploader starts (the probe worker, the copy
 * workers, the timer worker): it records what is posted, and answers, crashes or breaks its
 * messages on demand. `script`, when given, runs on each message posted, as the worker's own code
 * would (the timer worker's fake arms its timers there).
 */
export class FakeWorker<Request, Response> {
  readonly posted: Request[] = [];
  terminated = false;
  private readonly listeners = new Map<string, ((event: never) => void)[]>();

  constructor(private readonly script?: (message: Request, worker: FakeWorker<Request, Response>) => void) {}

  addEventListener(type: string, listener: (event: never) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  removeEventListener(type: string, listener: (event: never) => void): void {
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((l) => l !== listener),
    );
  }

  postMessage(message: Request): void {
    if (this.terminated) throw new Error('posted to a terminated worker');
    this.posted.push(message);
    this.script?.(message, this);
  }

  terminate(): void {
    this.terminated = true;
  }

  private dispatch(type: string, event: object): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event as never);
  }

  /** The worker posts `response` to the page. */
  answer(response: Response): void {
    this.dispatch('message', { type: 'message', data: response });
  }

  /** An uncaught error in the worker (or its script failing to load: then with no message). */
  crash(message = 'Uncaught ReferenceError: x is not defined'): void {
    this.dispatch('error', { type: 'error', message, error: null });
  }

  /** An answer that could not be received (messageerror). */
  breakMessages(): void {
    this.dispatch('messageerror', { type: 'messageerror' });
  }
}

import { DEFAULT_FIT, LinkFit, type FitPolicy } from '../../model/link-fit';
import { LinkActivity, stalledFlights, type FlightView, type StallPolicy } from '../../model/stall-watch';
import { PaceBucket } from '../../model/upload-cap';

/** Timers and a clock, injected so that tests run on a fake one. */
export interface WatchClock {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds (a monotonic or wall clock: only differences are used). */
  now(): number;
}

export interface LinkWatchOptions {
  /** A fixed number of uploads at once (`?concurrency=N`, tests), or 'fit': as many as the link needs (model/link-fit.ts). */
  concurrency: number | 'fit';
  fit?: FitPolicy;
  stall: StallPolicy;
  /** The cap in bytes/s, read before each attempt (it may change mid-batch); null: none (model/upload-cap.ts). */
  pace?: () => number | null;
}

/** How an attempt ended, as the link saw it. */
export type FlightEnd =
  /** Its answer came: the link delivered its bytes. */
  | 'delivered'
  /** An answer came, but not success (a refusal the photo is to blame for): the link works. */
  | 'answered'
  /** A stall or a transient failure: the link is struggling. */
  | 'setback'
  /** Stopped, paused or cancelled: says nothing of the link. */
  | 'aborted';

interface Flight extends FlightView {
  bytes: number;
  abort: (quietMs: number) => void;
}

/**
 * What the upload engine knows of the link (services/upload/upload-engine.ts): the uploads in
 * flight and when each last moved, what completed uploads delivered, and from those how many may
 * be in flight (`limit`), which are stalled (given up through their `abort`), and when the next
 * may start under the member's cap (`turn`). One per batch.
 */
export class LinkWatch {
  private readonly flights = new Map<string, Flight>();
  private readonly fit: LinkFit | null;
  private readonly fixed: number;
  private readonly bucket: PaceBucket;
  private readonly activity: LinkActivity;
  private timer: unknown = null;
  private readonly checkMs: number;

  constructor(
    private readonly options: LinkWatchOptions,
    private readonly clock: WatchClock,
  ) {
    this.fit = options.concurrency === 'fit' ? new LinkFit(options.fit ?? DEFAULT_FIT) : null;
    this.fixed = options.concurrency === 'fit' ? 1 : Math.max(1, Math.floor(options.concurrency));
    this.activity = new LinkActivity(clock.now());
    this.bucket = new PaceBucket(clock.now());
    // Often enough that a stall is seen within a tenth of its bound, never busier than once a second.
    this.checkMs = Math.max(1000, Math.round(options.stall.quietMs / 10));
  }

  /** Uploads to keep in flight now. */
  limit(): number {
    return this.fit ? this.fit.limit() : this.fixed;
  }

  /**
   * Waits until an attempt of `bytes` may start under the cap, then counts it against the cap.
   * Resolves at once without a cap; rejects with `signal.reason` when it aborts first.
   */
  async turn(bytes: number, signal: AbortSignal): Promise<void> {
    const rate = () => this.options.pace?.() ?? null;
    for (let wait = this.bucket.waitMs(rate(), this.clock.now()); wait > 0; wait = this.bucket.waitMs(rate(), this.clock.now())) {
      // At most a second at a time: a cap raised (or lifted) mid-wait takes effect at once.
      await this.sleep(Math.min(wait, 1000), signal);
    }
    signal.throwIfAborted();
    this.bucket.take(bytes, rate(), this.clock.now());
  }

  /** An attempt of `bytes` starts; `abort(quietMs)` gives it up as stalled. */
  begin(id: string, bytes: number, abort: (quietMs: number) => void): void {
    this.fit?.sized(bytes);
    this.flights.set(id, { id, bytes, written: 0, quietSince: this.clock.now(), deliveredBefore: this.activity.delivered, peers: 1, abort });
    for (const flight of this.flights.values()) flight.peers = Math.max(flight.peers, this.flights.size);
    this.arm();
  }

  /** The attempt handed `fraction` of its bytes to the socket. */
  progress(id: string, fraction: number): void {
    const flight = this.flights.get(id);
    if (!flight) return;
    const written = Math.max(0, Math.min(1, fraction)) * flight.bytes;
    if (written <= flight.written) return;
    flight.written = written;
    flight.quietSince = this.clock.now();
    flight.deliveredBefore = this.activity.delivered;
    flight.peers = this.flights.size;
    this.activity.moved(flight.quietSince);
  }

  /** The attempt ended. */
  end(id: string, how: FlightEnd): void {
    const flight = this.flights.get(id);
    if (!flight) return;
    this.flights.delete(id);
    const now = this.clock.now();
    if (how === 'delivered' || how === 'answered') this.activity.moved(now, how === 'delivered' ? flight.bytes : 0);
    if (how === 'delivered') this.fit?.delivered(flight.bytes, now);
    else if (how === 'setback') this.fit?.setback();
    if (this.flights.size === 0) this.disarm();
  }

  /** The batch paused or resumed: the time in between is no measure of the link. */
  restart(): void {
    this.activity.restart(this.clock.now());
    this.fit?.restart();
  }

  dispose(): void {
    this.disarm();
    this.flights.clear();
  }

  private check = (): void => {
    this.timer = null;
    const now = this.clock.now();
    const { movedAt, activeSince, delivered, deliveredAtActive } = this.activity;
    const link = { now, movedAt, activeSince, delivered, deliveredAtActive };
    for (const { id, quietMs } of stalledFlights([...this.flights.values()], link, this.options.stall)) this.flights.get(id)?.abort(quietMs);
    if (this.flights.size > 0) this.arm();
  };

  private arm(): void {
    if (this.timer === null) this.timer = this.clock.setTimeout(this.check, this.checkMs);
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const onAbort = () => {
        this.clock.clearTimeout(handle);
        reject(signal.reason as Error);
      };
      const handle = this.clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * The link emulator's scheduling, without sockets: one `SharedLink` (the uplink every connection
 * shares, following its profile's timeline) and, per connection and direction, a `LinkDirection`
 * that takes the bytes one side wrote and hands them to the other side when the emulated link
 * would have: serialised through the shared bucket (upload only), held by a loss or an outage as a
 * TCP flow would be (link-flow.ts), then half a round trip later, in order, never while the link
 * is down. The proxy (link-proxy.ts) wires sockets to it; tests drive it on a fake clock.
 */
import { performance } from 'node:perf_hooks';
import { burstFor, bytesPerSecond, PIECE_BYTES, TimelineBucket } from './link';
import { arrivalTime, handshakeDoneAt, lossRecoveredAt, outageRecoveredAt } from './link-flow';
import { linkTimeline } from './link-profile';
import type { LinkSpec, LinkTimeline } from './link-profile';
import { seededRandom } from './link-random';

/** Where the link's time comes from: the real clock, or a fake one in tests. */
export interface LinkClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: LinkClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * What the link decided, as it decides it (SharedLink.watch), in the timeline's time (ms since the
 * link started): a connection opened and when its handshake is done; a piece of an upload
 * reserved on the shared uplink and how long it must wait to have crossed it; a chunk of either
 * direction taken for delivery and when it is due at the far end. Nothing is decided differently
 * for being watched: tests read the emulator's decisions here instead of timing its effects.
 */
export type LinkDecision =
  | { kind: 'connection'; connection: number; openedAt: number; handshakeAt: number }
  | { kind: 'transmit'; connection?: number; bytes: number; at: number; wait: number }
  | { kind: 'deliver'; connection?: number; shaped: boolean; bytes: number; at: number; due: number };

/** One uplink shared by every connection through the proxy, following its profile's timeline. */
export class SharedLink {
  readonly timeline: LinkTimeline;
  private readonly bucket: TimelineBucket;
  private readonly startedAt: number;
  /** The loss and outage draws (seeded: a run can be repeated as far as its timing allows). */
  readonly random: () => number;
  /** Bytes that have crossed the uplink. */
  sent = 0;
  /** Times a flow was held by a loss or an outage (a retransmission emulated). */
  stalls = 0;
  /** Connections opened (openConnection): the last one's number. */
  private opened = 0;
  private readonly watchers = new Set<(decision: LinkDecision) => void>();

  /** `timeline`: the spec's own unless given (a test's hand-made one). */
  constructor(
    readonly spec: LinkSpec,
    readonly clock: LinkClock = realClock,
    timeline?: LinkTimeline,
  ) {
    this.timeline = timeline ?? linkTimeline(spec);
    this.startedAt = clock.now();
    this.bucket = new TimelineBucket(this.timeline, burstFor(bytesPerSecond(this.timeline.segmentAt(0).mbit)), 0);
    this.random = seededRandom('profile' in spec ? spec.seed : 1);
  }

  /** The timeline's time now: ms since the link started. */
  elapsed(): number {
    return this.clock.now() - this.startedAt;
  }

  /** Resolves at the timeline's time `t` (at once if it has passed). */
  until(t: number): Promise<void> {
    const wait = t - this.elapsed();
    return wait >= 1 ? new Promise<void>((resolve) => this.clock.setTimeout(resolve, wait)) : Promise.resolve();
  }

  /** Calls `listener` with each decision the link makes from now on, until the returned function is called. */
  watch(listener: (decision: LinkDecision) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** Whether anyone watches (a decision is only described for a watcher). */
  watching(): boolean {
    return this.watchers.size > 0;
  }

  /** Tells the watchers (link-direction's own use). */
  decided(decision: LinkDecision): void {
    for (const watcher of this.watchers) watcher(decision);
  }

  /** Resolves once `bytes` have been serialised onto the link (queued behind everyone else's); `connection`: whose, for the watchers. */
  transmit(bytes: number, connection?: number): Promise<void> {
    const now = this.elapsed();
    const wait = this.bucket.reserve(bytes, now);
    this.sent += bytes;
    if (this.watching()) this.decided({ kind: 'transmit', ...(connection === undefined ? {} : { connection }), bytes, at: now, wait });
    return this.until(now + wait);
  }

  /**
   * When a flow that asked to send `bytes` at `requested` and got them onto the link at `sent` may
   * go on: later if an outage came meanwhile (its backed-off retransmission) or a packet was lost.
   */
  recoveredAt(requested: number, sent: number, bytes: number): number {
    const afterOutage = outageRecoveredAt(requested, sent, this.timeline, this.random);
    const goOn = lossRecoveredAt(afterOutage, bytes, this.timeline, this.random);
    if (goOn > sent) this.stalls++;
    return goOn;
  }

  /** When a connection opened now is established (a SYN lost or sent into an outage is retried). */
  handshakeDone(): number {
    return this.openConnection().handshakeAt;
  }

  /** A connection opened now: its number (for the watchers) and when its handshake is done (`handshakeDone`). */
  openConnection(): { connection: number; handshakeAt: number } {
    const openedAt = this.elapsed();
    const handshakeAt = handshakeDoneAt(openedAt, this.timeline, this.random);
    const connection = ++this.opened;
    this.decided({ kind: 'connection', connection, openedAt, handshakeAt });
    return { connection, handshakeAt };
  }
}

/** Where a direction's output goes. */
export interface DirectionSink {
  /** The bytes, in order, when the far end would see them. */
  deliver(chunk: Buffer): void;
  /** Everything handed over: the source ended and all has been delivered. */
  finished(): void;
  /** Bytes left the direction (the source may be read again). */
  released(): void;
}

export interface LinkDirection {
  push(chunk: Buffer): void;
  /** The source ended: finish once everything is delivered. */
  end(): void;
  /** Drops whatever is held; nothing more is delivered. */
  stop(): void;
  /** Bytes taken in and not delivered yet. */
  held(): number;
  /** Finished or stopped. */
  done(): boolean;
}

/**
 * One direction of one connection: `shaped` (the upload) serialises through the shared link and
 * suffers its losses and outages, the other (responses) is only delayed, and waits out outages.
 * `handshakeAt`: the connection's data waits for its emulated handshake.
 */
export function createLinkDirection(
  link: SharedLink,
  opts: { shaped: boolean; handshakeAt?: number; connection?: number },
  sink: DirectionSink,
): LinkDirection {
  const { clock } = link;
  const toShape: Buffer[] = [];
  const line: { due: number; chunk: Buffer }[] = [];
  let held = 0;
  let lastDue = -Infinity;
  let shaping = false;
  let ended = false;
  let done = false;
  let timer: unknown;

  const finish = () => {
    if (!done && ended && !shaping && toShape.length === 0 && line.length === 0) {
      done = true;
      sink.finished();
    }
  };
  const pump = () => {
    timer = undefined;
    if (done) return;
    const now = link.elapsed();
    let released = false;
    while (line.length > 0 && line[0]!.due <= now + 0.5) {
      const { chunk } = line.shift()!;
      held -= chunk.length;
      released = true;
      sink.deliver(chunk);
      if (done) return;
    }
    if (line.length > 0) timer = clock.setTimeout(pump, Math.max(1, line[0]!.due - now));
    if (released) sink.released();
    finish();
  };
  const enqueue = (chunk: Buffer) => {
    const at = link.elapsed();
    lastDue = arrivalTime(at, link.timeline, { handshakeAt: opts.handshakeAt, after: lastDue });
    const { connection, shaped } = opts;
    if (link.watching()) link.decided({ kind: 'deliver', ...(connection === undefined ? {} : { connection }), shaped, bytes: chunk.length, at, due: lastDue });
    line.push({ due: lastDue, chunk });
    if (timer === undefined) pump();
  };
  const shape = async () => {
    if (shaping) return;
    shaping = true;
    // The sender cannot start before the connection's handshake has completed.
    if (opts.handshakeAt !== undefined) await link.until(opts.handshakeAt);
    while (toShape.length > 0 && !done) {
      const chunk = toShape.shift()!;
      for (let at = 0; at < chunk.length && !done; at += PIECE_BYTES) {
        const piece = chunk.subarray(at, at + PIECE_BYTES);
        const requested = link.elapsed();
        await link.transmit(piece.length, opts.connection);
        if (done) break;
        const sent = link.elapsed();
        const goOn = link.recoveredAt(requested, sent, piece.length);
        if (goOn > sent) await link.until(goOn);
        if (!done) enqueue(piece);
      }
    }
    shaping = false;
    finish();
  };
  return {
    push(chunk) {
      if (done) return;
      held += chunk.length;
      if (opts.shaped) {
        toShape.push(chunk);
        void shape();
      } else {
        enqueue(chunk);
      }
    },
    end() {
      ended = true;
      finish();
    },
    stop() {
      done = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      toShape.length = 0;
      line.length = 0;
    },
    held: () => held,
    done: () => done,
  };
}

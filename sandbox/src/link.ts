/**
 * The link emulator's pure parts: the `<mbit>:<rttMs>` spec and the shared uplink's token bucket.
 * No clocks or sockets here (time is passed in), so the math is unit-tested directly; the proxy
 * that applies it to the S3 port is `link-proxy.ts`.
 */

/** A shared uplink: `mbit` megabits per second (10^6 bits) from the site to S3, and a round-trip time. */
export interface LinkSpec {
  mbit: number;
  rttMs: number;
}

export type ParsedLink = { link: LinkSpec | null } | { error: string };

/**
 * `"20:80"` → 20 Mbit/s, 80 ms RTT; `"20"` → 20 Mbit/s, no added latency; `""`, `"off"`, `"0"` → off.
 */
export function parseLink(spec: string): ParsedLink {
  const text = spec.trim().toLowerCase();
  if (text === '' || text === 'off' || text === '0' || text === 'none') return { link: null };
  const m = /^(\d*\.?\d+)\s*(?:mbit)?\s*(?::\s*(\d*\.?\d+)\s*(?:ms)?)?$/.exec(text);
  if (!m) return { error: `bad link "${spec}": expected <mbit>[:<rttMs>], e.g. 20:80 (20 Mbit/s, 80 ms round trip), or off` };
  const mbit = Number(m[1]);
  const rttMs = m[2] === undefined ? 0 : Number(m[2]);
  if (!(mbit > 0 && mbit <= 100_000)) return { error: `bad link "${spec}": the bandwidth must be above 0 and at most 100000 Mbit/s` };
  if (!(rttMs >= 0 && rttMs <= 10_000)) return { error: `bad link "${spec}": the round-trip time must be 0–10000 ms` };
  return { link: { mbit, rttMs } };
}

export function formatLink(link: LinkSpec): string {
  return `${link.mbit} Mbit/s, ${link.rttMs} ms RTT`;
}

/** Bytes per second of a link of `mbit` megabits per second. */
export function bytesPerSecond(mbit: number): number {
  return (mbit * 1e6) / 8;
}

/**
 * How the link serialises data: every connection hands it pieces of at most this many bytes, one
 * piece at a time, so the FIFO below interleaves concurrent connections at this grain (as a
 * router's queue interleaves packets) and a single connection cannot hog it.
 */
export const PIECE_BYTES = 16 * 1024;

/**
 * A token bucket that may go into debt: `reserve(n, now)` takes n bytes' worth of tokens at once and
 * answers how long (ms) the caller must wait before its bytes have crossed the link. Reservations
 * are served in call order (each one queues behind the debt of the earlier ones), which makes it a
 * FIFO queue in front of one link of `bytesPerSec` — shared by whoever holds the bucket.
 * `burstBytes` is how much unused capacity an idle link banks (keep it small: a few pieces, enough
 * to absorb timer lateness so a lone sender still sees the whole rate).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly bytesPerSec: number,
    readonly burstBytes: number,
    now: number,
  ) {
    if (!(bytesPerSec > 0)) throw new Error('bytesPerSec must be positive');
    this.tokens = burstBytes;
    this.last = now;
  }

  /** Takes `bytes` of capacity at time `now` (ms); returns the wait in ms (0 when there was enough). */
  reserve(bytes: number, now: number): number {
    this.refill(now);
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.bytesPerSec) * 1000;
  }

  /** Tokens available at `now` (negative: the queue's backlog in bytes). */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.burstBytes, this.tokens + ((now - this.last) / 1000) * this.bytesPerSec);
      this.last = now;
    }
  }
}

/** The burst to give a link: two pieces or 5 ms of its rate, whichever is more. */
export function burstFor(bytesPerSec: number): number {
  return Math.max(2 * PIECE_BYTES, bytesPerSec * 0.005);
}

/**
 * When data becomes visible at the far end: after its serialisation (`sentAt`) plus half the round
 * trip, and never before the connection's emulated handshake (one round trip after it was opened)
 * plus that same half — so a request and its response cost one RTT, and a new connection one more.
 */
export function deliveryTime(sentAt: number, rttMs: number, openedAt?: number): number {
  const oneWay = rttMs / 2;
  return Math.max(sentAt + oneWay, openedAt === undefined ? -Infinity : openedAt + rttMs + oneWay);
}

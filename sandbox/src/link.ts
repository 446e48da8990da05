/**
 * The link emulator's pure parts: the `--link` spec (`<mbit>[:<rttMs>]` or a profile), the shared
 * uplink's token buckets (a fixed rate, or one that follows a profile's timeline) and delivery
 * times. No clocks or sockets here (time is passed in), so the math is unit-tested directly; the
 * proxy that applies it to the S3 port is `link-proxy.ts`, the profiles are `link-profile.ts`.
 */
import { describeProfile, PROFILE_NAMES } from './link-profile';
import type { CleanLink, LinkSpec, LinkTimeline, ProfileName } from './link-profile';

export type { CleanLink, LinkSpec, ProfileLink, ProfileName } from './link-profile';

export type ParsedLink = { link: LinkSpec | null } | { error: string };

const EXPECTED =
  'expected <mbit>[:<rttMs>], e.g. 20:80 (20 Mbit/s, 80 ms round trip), a profile (starlink, geo or lte, optionally :<seed>, e.g. starlink:7), or off';

/**
 * `"20:80"` → 20 Mbit/s, 80 ms RTT; `"20"` → 20 Mbit/s, no added latency; `"starlink"`, `"geo"`,
 * `"lte"` → that profile (seed 1), `"lte:7"` → seed 7; `""`, `"off"`, `"0"` → off.
 */
export function parseLink(spec: string): ParsedLink {
  const text = spec.trim().toLowerCase();
  if (text === '' || text === 'off' || text === '0' || text === 'none') return { link: null };
  const named = /^([a-z]+)\s*(?::\s*(.*))?$/.exec(text);
  if (named && (PROFILE_NAMES as readonly string[]).includes(named[1]!)) {
    const profile = named[1] as ProfileName;
    if (named[2] === undefined) return { link: { profile, seed: 1 } };
    const seed = /^\d{1,10}$/.test(named[2]) ? Number(named[2]) : NaN;
    if (!(seed <= 0xffffffff)) return { error: `bad link "${spec}": the seed after "${profile}:" must be a whole number from 0 to 4294967295` };
    return { link: { profile, seed } };
  }
  const m = /^(\d*\.?\d+)\s*(?:mbit)?\s*(?::\s*(\d*\.?\d+)\s*(?:ms)?)?$/.exec(text);
  if (!m) return { error: `bad link "${spec}": ${named ? `"${named[1]}" is not a profile; ` : ''}${EXPECTED}` };
  const mbit = Number(m[1]);
  const rttMs = m[2] === undefined ? 0 : Number(m[2]);
  if (!(mbit > 0 && mbit <= 100_000)) return { error: `bad link "${spec}": the bandwidth must be above 0 and at most 100000 Mbit/s` };
  if (!(rttMs >= 0 && rttMs <= 10_000)) return { error: `bad link "${spec}": the round-trip time must be 0–10000 ms` };
  return { link: { mbit, rttMs } };
}

/** `parseLink` for a caller that needs a clean pipe (a rate and an RTT to compute with): a profile is refused. */
export function parseCleanLink(spec: string): { link: CleanLink | null } | { error: string } {
  const parsed = parseLink(spec);
  if ('error' in parsed) return parsed;
  if (parsed.link !== null && 'profile' in parsed.link)
    return { error: `bad link "${spec}": a clean <mbit>[:<rttMs>] link is needed here (e.g. 20:80), not the ${parsed.link.profile} profile` };
  return { link: parsed.link };
}

/** `20 Mbit/s, 80 ms RTT`, or what a profile is. */
export function formatLink(link: LinkSpec): string {
  return 'profile' in link ? describeProfile(link) : `${link.mbit} Mbit/s, ${link.rttMs} ms RTT`;
}

/** A short name for a link: `20:80`, `starlink`, `lte:7`. */
export function linkName(link: LinkSpec): string {
  if (!('profile' in link)) return `${link.mbit}:${link.rttMs}`;
  return link.seed === 1 ? link.profile : `${link.profile}:${link.seed}`;
}

/** The clean link's own fields, whatever the caller put around them. */
export function cleanLink(link: CleanLink): CleanLink {
  return { mbit: link.mbit, rttMs: link.rttMs };
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

/**
 * The same bucket on a link whose rate changes over time (a profile's timeline): tokens refill at
 * whatever rate the timeline has, none during an outage, and a reservation's wait runs until the
 * timeline has carried the debt — so a sender queued through an outage waits it out. Time is the
 * timeline's (ms since the link started). On a clean link's timeline it is exactly `TokenBucket`.
 */
export class TimelineBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly timeline: LinkTimeline,
    readonly burstBytes: number,
    now: number,
  ) {
    this.tokens = burstBytes;
    this.last = now;
  }

  /** Takes `bytes` of capacity at time `now`; returns the wait in ms (0 when there was enough). */
  reserve(bytes: number, now: number): number {
    this.refill(now);
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : this.timeline.timeToCarry(now, -this.tokens) - now;
  }

  /** Tokens available at `now` (negative: the queue's backlog in bytes). */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.burstBytes, this.tokens + this.timeline.capacityBytes(this.last, now));
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

/**
 * "Upload speed" (docs/uploader.md#sending-over-a-rural-link): room left on the link for the household. On a
 * ranch the satellite link is everyone's; the member may cap what the uploader uses at a speed or
 * a share of what the link was measured to give. Pure: the pacing's clock is passed in.
 *
 * How it holds: a browser cannot slow one upload down (an HTTP/1.1 PUT's body goes as fast as the
 * socket takes it; streaming a body needs HTTP/2, which S3 does not speak), so the cap is kept by
 * when uploads start — a token bucket with debt: each attempt takes its bytes when it starts, and
 * the next one waits until the bucket is out of debt. Over a minute the uploader sends at most the
 * cap (plus one photo, the one under way); a photo itself crosses at the link's own rate, shared
 * with the household's traffic the way TCP shares a link.
 */

export type UploadCap =
  /** As fast as the link allows. */
  | { kind: 'none' }
  /** At most `mbit` megabits per second (10^6 bits). */
  | { kind: 'mbit'; mbit: number }
  /** At most `share` of the link's speed as last measured. */
  | { kind: 'share'; share: number };

export const NO_CAP: UploadCap = { kind: 'none' };
/** The shares offered: half and a quarter of the link. */
export const CAP_SHARES = [0.5, 0.25] as const;
export const MIN_CAP_MBIT = 0.1;
export const MAX_CAP_MBIT = 1000;

/** A cap as remembered (localStorage `trailsense:upload-cap`): `{"mbit":1.5}`, `{"share":0.5}`; anything else is no cap. */
export function parseCap(stored: unknown): UploadCap {
  if (!stored || typeof stored !== 'object') return NO_CAP;
  const { mbit, share } = stored as { mbit?: unknown; share?: unknown };
  if (typeof mbit === 'number' && Number.isFinite(mbit) && mbit >= MIN_CAP_MBIT && mbit <= MAX_CAP_MBIT) return { kind: 'mbit', mbit };
  if (typeof share === 'number' && Number.isFinite(share) && share > 0 && share < 1) return { kind: 'share', share };
  return NO_CAP;
}

/** What `parseCap` reads back; null for no cap. */
export function storedCap(cap: UploadCap): { mbit: number } | { share: number } | null {
  if (cap.kind === 'mbit') return { mbit: cap.mbit };
  if (cap.kind === 'share') return { share: cap.share };
  return null;
}

/** A speed typed by the member ("1.5", "2,5", " 3 "), in Mbit/s, or null when it is not one the cap can be. */
export function parseMbit(text: string): number | null {
  const trimmed = text.trim().replace(',', '.');
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(trimmed)) return null;
  const mbit = Number(trimmed);
  return mbit >= MIN_CAP_MBIT && mbit <= MAX_CAP_MBIT ? mbit : null;
}

export const bytesPerSecondOfMbit = (mbit: number): number => (mbit * 1e6) / 8;
export const mbitOfBytesPerSecond = (bytesPerSecond: number): number => (bytesPerSecond * 8) / 1e6;

/**
 * The cap in bytes per second, or null when nothing is capped: no cap, or a share of a link whose
 * speed is not measured yet (the first batch on this browser measures it at full speed).
 */
export function capRate(cap: UploadCap, linkBytesPerSecond: number | null): number | null {
  if (cap.kind === 'mbit') return bytesPerSecondOfMbit(cap.mbit);
  if (cap.kind === 'share' && linkBytesPerSecond !== null && linkBytesPerSecond > 0) return cap.share * linkBytesPerSecond;
  return null;
}

/** The speed an estimate should assume: the measured one, held to the cap (null while nothing is measured). */
export function cappedSpeed(measured: number | null, cap: number | null): number | null {
  return measured === null || cap === null ? measured : Math.min(measured, cap);
}

/**
 * Whether a batch's measured speed says what the link gives: an uncapped batch's does; a capped
 * one's only when it ran well below its cap (then the link was the limit, not the cap).
 */
export function measuresTheLink(measured: number, cap: number | null): boolean {
  return cap === null || measured < 0.9 * cap;
}

/** How much idle time the bucket banks: one second of the cap (enough to absorb timer lateness, not a burst). */
const BURST_SECONDS = 1;

/** The pacing of a capped batch: a token bucket that may go into debt. */
export class PaceBucket {
  private tokens = 0;
  private last: number;

  constructor(now: number) {
    this.last = now;
  }

  /** How long (ms) until an attempt may start at `rate` bytes/s: 0 when the bucket is not in debt. */
  waitMs(rate: number | null, now: number): number {
    if (rate === null || !(rate > 0)) return 0;
    this.refill(rate, now);
    return this.tokens >= 0 ? 0 : (-this.tokens / rate) * 1000;
  }

  /** An attempt of `bytes` starts at `now`. */
  take(bytes: number, rate: number | null, now: number): void {
    if (rate === null || !(rate > 0)) {
      this.last = now;
      return;
    }
    this.refill(rate, now);
    this.tokens -= Math.max(0, bytes);
  }

  private refill(rate: number, now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(rate * BURST_SECONDS, this.tokens + ((now - this.last) / 1000) * rate);
      this.last = now;
    }
  }
}

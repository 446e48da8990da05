import { formatBytes, UNKNOWN_SIZE } from './format-size';
import { progressAnnouncement } from './messages';
import { durationText } from './selection-summary';

/**
 * The upload speed and time left, smoothed so the line under the progress bar does not jump with
 * every progress event. Clock-free: every call takes the time (ms) from the caller.
 *
 * The speed is an exponentially weighted moving average over time: each interval between two
 * samples weighs 1 − 2^(−interval / half-life), so a burst of events and a long quiet interval
 * count by how long they lasted, not by how many samples they were. With the default 20 s
 * half-life, what the link did a minute ago still counts an eighth.
 *
 * Honest at the start: no speed is given until a warm-up of at least `warmupMs` and `warmupBytes`
 * has passed (the first requests pay for connections and credentials, and a few progress events
 * of a 1–5 MB photo say little). The warm-up's plain average then starts the moving average.
 *
 * Bytes going backwards (a failed upload's progress taken back) count as nothing sent in that
 * interval, never as a negative speed; the bytes sent again are then counted as sent, as the link
 * did carry them.
 *
 * Pauses: call `reset(now)` on resuming. The time paused is then not averaged in (it would read
 * as a speed of zero), the speed measured before is kept and shown, and a new warm-up starts
 * whose average is blended in as one interval once it is complete. A gap without `reset` is taken
 * as the link being slow, which is what it was.
 */

export interface SpeedMeterOptions {
  /** How long until an interval's weight halves (default 20 s). */
  halfLifeMs?: number;
  /** The least time measured before a speed is given (default 5 s). */
  warmupMs?: number;
  /** The least bytes sent before a speed is given (default 2 MiB). */
  warmupBytes?: number;
}

export const DEFAULT_SPEED_HALF_LIFE_MS = 20_000;
export const DEFAULT_SPEED_WARMUP_MS = 5_000;
export const DEFAULT_SPEED_WARMUP_BYTES = 2 * 1024 * 1024;

export class SpeedMeter {
  private readonly halfLifeMs: number;
  private readonly warmupMs: number;
  private readonly warmupBytes: number;
  /** The last sample's time and total, or null before the first. */
  private lastAt: number | null = null;
  private lastBytes: number | null = null;
  /** The moving average (bytes/s), null until the first warm-up is complete. */
  private average: number | null = null;
  /** The warm-up under way: when it started (null until a first sample) and what it has seen. */
  private warming = true;
  private warmStartAt: number | null = null;
  private warmBytes = 0;

  constructor(options: SpeedMeterOptions = {}) {
    this.halfLifeMs = positive(options.halfLifeMs, DEFAULT_SPEED_HALF_LIFE_MS);
    this.warmupMs = Math.max(0, options.warmupMs ?? DEFAULT_SPEED_WARMUP_MS);
    this.warmupBytes = Math.max(0, options.warmupBytes ?? DEFAULT_SPEED_WARMUP_BYTES);
  }

  /**
   * The total bytes sent so far (all files of the batch) at `now`. A sample at or before the last
   * one's time is ignored; its bytes are counted with the next interval.
   */
  sample(now: number, totalBytesSent: number): void {
    if (!Number.isFinite(now) || !Number.isFinite(totalBytesSent)) return;
    if (this.lastAt === null || this.lastBytes === null) {
      this.lastAt = now;
      this.lastBytes = totalBytesSent;
      this.warmStartAt ??= now;
      return;
    }
    const ms = now - this.lastAt;
    if (ms <= 0) return;
    const sent = Math.max(0, totalBytesSent - this.lastBytes);
    this.lastAt = now;
    this.lastBytes = totalBytesSent;
    if (this.warming) {
      this.warmBytes += sent;
      const elapsed = now - (this.warmStartAt ?? now);
      if (elapsed >= this.warmupMs && this.warmBytes >= this.warmupBytes && elapsed > 0) {
        this.blend(this.warmBytes / (elapsed / 1000), elapsed);
        this.warming = false;
      }
      return;
    }
    this.blend(sent / (ms / 1000), ms);
  }

  /**
   * After a pause, on resuming at `now`: the gap is forgotten, the speed measured so far is kept
   * (and still shown), and a new warm-up starts. Before the first warm-up is complete, it starts over.
   */
  reset(now: number): void {
    if (this.lastAt !== null) this.lastAt = now;
    this.warming = true;
    this.warmStartAt = now;
    this.warmBytes = 0;
  }

  /** The smoothed speed in bytes per second, or null until the first warm-up is complete. */
  rate(): number | null {
    return this.average;
  }

  /**
   * Seconds until `bytesLeft` more are sent at the smoothed speed; 0 when nothing is left; null
   * while the speed is unknown or zero (a stalled link has no time left to tell).
   */
  timeLeft(bytesLeft: number): number | null {
    if (!Number.isFinite(bytesLeft)) return null;
    if (bytesLeft <= 0) return 0;
    const rate = this.average;
    return rate === null || rate <= 0 ? null : bytesLeft / rate;
  }

  private blend(rate: number, ms: number): void {
    if (this.average === null) {
      this.average = rate;
      return;
    }
    const weight = 1 - 2 ** (-ms / this.halfLifeMs);
    this.average += weight * (rate - this.average);
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

/** A speed as shown: "1.4 MB/s", "320 KB/s", by `formatBytes`' rules; "—" when not a speed. */
export function speedText(bytesPerSecond: number): string {
  const size = formatBytes(bytesPerSecond);
  return size === UNKNOWN_SIZE ? UNKNOWN_SIZE : `${size}/s`;
}

/**
 * The line under the progress bar: "1.4 MB/s · about 48 min left", "1.4 MB/s" while no time
 * can be told, "Measuring speed…" while the speed is unknown.
 */
export function progressDetail(input: { rate: number | null; secondsLeft: number | null }): string {
  const { rate, secondsLeft } = input;
  if (rate === null || !Number.isFinite(rate) || rate < 0) return 'Measuring speed…';
  if (secondsLeft === null || !Number.isFinite(secondsLeft)) return speedText(rate);
  return `${speedText(rate)} · ${durationText(secondsLeft)} left`;
}

/** A quarter's announcement, with the time left once it is known: "50% uploaded: 1,000 of 2,000. About 48 min left." */
export function milestoneWithTimeLeft(uploaded: number, total: number, secondsLeft: number | null): string {
  const head = progressAnnouncement({ kind: 'milestone', uploaded, total });
  if (secondsLeft === null) return head;
  const left = durationText(secondsLeft);
  return `${head} ${left.charAt(0).toUpperCase()}${left.slice(1)} left.`;
}

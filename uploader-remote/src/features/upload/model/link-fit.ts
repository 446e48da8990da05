/**
 * How many uploads are in flight at once: as many as keep the link full, and no more
 * (docs/architecture.md#uploads-that-fit-the-link). Clock-free: every call takes the time (ms).
 *
 * Why not a fixed six: on a slow link six photos share it, each takes six times as long, the first
 * arrives late, and the browser hands each one's bytes to a socket buffer long before the link
 * carries them. One upload at a time leaves the link idle between photos (the answer's round trip,
 * the next photo's admission), which on a satellite's 700 ms costs most of a small copy's time.
 *
 * The rule is a hill climb on what the link delivers (bytes of uploads that completed): it starts
 * at `initial`, measures an epoch, and tries one more upload; an added upload is kept only if the
 * epoch after it delivered at least `gain` more, else it goes back and holds for `holdEpochs`
 * epochs before trying again (links change: an LTE hotspot's rate wanders). A stall or a
 * transient error halves it (as TCP halves its window on loss), and the climb starts again after
 * the hold. An epoch spans enough completions (two per upload in flight, three at least) and at
 * least `minEpochMs` between its first and last, so photos of unequal sizes average out.
 *
 * Below the climb, a floor by bytes: at least `minBytesInFlight` of photos in flight (by the
 * typical size of the attempts started, `sized`). Each photo costs round trips that carry nothing
 * (its PUT's request and answer, the calls between photos): a 230 KB copy crosses a 2.5 Mbit/s
 * satellite link in 0.7 s and its round trips take as long, so two at a time leave the link idle
 * about half the time, while four 4 MB originals would only share it. A megabyte covers a second or
 * more of a slow link's gaps; for originals the floor is one, and the climb decides. After a
 * setback the floor gives way to the halving until the hold is over.
 */

export interface FitPolicy {
  /** Uploads in flight at the start. */
  initial: number;
  /** Never fewer. */
  min: number;
  /** Never more: six is also the browser's HTTP/1.1 connection limit per host. */
  max: number;
  /** The share by which an added upload must raise the delivered rate to be kept. */
  gain: number;
  /** The least time between an epoch's first and last completion. */
  minEpochMs: number;
  /** Epochs to stay at a level after a failed try or a setback, before trying one more. */
  holdEpochs: number;
  /** At least this many bytes of photos in flight (by their typical size), within `max`. */
  minBytesInFlight: number;
}

export const DEFAULT_FIT: FitPolicy = { initial: 2, min: 1, max: 6, gain: 0.1, minEpochMs: 10_000, holdEpochs: 3, minBytesInFlight: 1_000_000 };

/** How fast the typical size follows the attempts started: a fifth of the way each time. */
const SIZE_WEIGHT = 0.2;

/** A finished epoch: the level it ran at and what it delivered (bytes/s). */
interface Measured {
  level: number;
  rate: number;
}

interface Epoch {
  /** The first completion counted (the level has had time to show in the link), or null before it. */
  firstAt: number | null;
  lastAt: number;
  /** Bytes of the completions after the first. */
  bytes: number;
  completions: number;
}

const freshEpoch = (): Epoch => ({ firstAt: null, lastAt: 0, bytes: 0, completions: 0 });

export class LinkFit {
  private level: number;
  private epoch: Epoch = freshEpoch();
  /** The epoch before this one, when it is comparable (no setback since). */
  private previous: Measured | null = null;
  private hold = 0;
  /** Epochs left before the bytes floor applies again, after a setback. */
  private floorOff = 0;
  /** The typical size of an attempt started (bytes), or null before the first. */
  private typical: number | null = null;

  constructor(private readonly policy: FitPolicy = DEFAULT_FIT) {
    this.level = clamp(policy.initial, policy);
  }

  /** Uploads to keep in flight now. */
  limit(): number {
    return this.level;
  }

  /** An attempt of `bytes` starts: the typical size follows it, and the level rises to the bytes floor. */
  sized(bytes: number): void {
    if (!(Number.isFinite(bytes) && bytes > 0)) return;
    this.typical = this.typical === null ? bytes : this.typical + SIZE_WEIGHT * (bytes - this.typical);
    if (this.floorOff === 0) this.level = Math.max(this.level, this.floor());
  }

  /** The fewest uploads that hold `minBytesInFlight` of typical photos, within the policy's bounds. */
  private floor(): number {
    if (this.typical === null) return this.policy.min;
    return clamp(Math.ceil(this.policy.minBytesInFlight / this.typical), this.policy);
  }

  /** An upload of `bytes` completed at `now` (its answer arrived): the link delivered it. */
  delivered(bytes: number, now: number): void {
    if (!Number.isFinite(now)) return;
    const e = this.epoch;
    if (e.firstAt === null) {
      e.firstAt = now;
      e.lastAt = now;
      e.completions = 1;
      return;
    }
    e.bytes += Math.max(0, bytes);
    e.completions++;
    e.lastAt = Math.max(e.lastAt, now);
    const span = e.lastAt - e.firstAt;
    if (e.completions >= Math.max(3, 2 * this.level) && span >= this.policy.minEpochMs) this.decide((e.bytes * 1000) / span);
  }

  /** A stall or a transient error: half as many, and a hold before climbing again. */
  setback(): void {
    this.level = clamp(Math.floor(this.level / 2), this.policy);
    this.previous = null;
    this.hold = this.policy.holdEpochs;
    this.floorOff = this.policy.holdEpochs;
    this.epoch = freshEpoch();
  }

  /** After a pause: what was being measured is forgotten (the time paused is no measure of the link). */
  restart(): void {
    this.epoch = freshEpoch();
  }

  private decide(rate: number): void {
    const { policy } = this;
    const previous = this.previous;
    const tried = previous !== null && previous.level === this.level - 1;
    this.epoch = freshEpoch();
    if (this.floorOff > 0) this.floorOff--;
    if (tried && rate < previous.rate * (1 + policy.gain)) {
      // The added upload did not pay: back to where the link was full, and stay a while.
      this.level = previous.level;
      this.previous = previous;
      this.hold = policy.holdEpochs;
      return;
    }
    this.previous = { level: this.level, rate };
    if (this.hold > 0) {
      this.hold--;
      return;
    }
    this.level = clamp(this.level + 1, policy);
    // At the most already: nothing to compare the next epoch with.
    if (this.level === this.previous.level) this.previous = null;
  }
}

function clamp(n: number, policy: FitPolicy): number {
  return Math.max(policy.min, Math.min(policy.max, Math.floor(n)));
}

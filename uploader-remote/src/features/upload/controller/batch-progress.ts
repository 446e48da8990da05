import { progressQuarter } from '../model/messages';
import { milestoneWithTimeLeft, SpeedMeter } from '../model/speed-meter';
import { cappedSpeed } from '../model/upload-cap';
import type { EngineEvent, ListedFile } from '../model/upload-queue';
import type { SpeedEstimate } from './uploader-state';

/** The bytes of the first `count` listed files still to send (failed ones are not sent again); `weigh` says what one sends (its size by default). */
export function bytesLeftOf(files: readonly ListedFile[], count: number, weigh: (file: ListedFile) => number = (f) => f.size): number {
  let bytesLeft = 0;
  let counted = 0;
  for (const f of files) {
    if (counted >= count) break;
    if (f.status.kind === 'failed' || f.status.kind === 'not-sent') continue;
    bytesLeft += weigh(f);
    counted++;
  }
  return bytesLeft;
}

/**
 * One running batch's speed and time left (bytes confirmed plus the bytes of uploads in flight,
 * sampled per flush of the engine's events), and its milestone announcements: a quarter of the
 * batch sent is said with the time left, a few times a batch, polite and rare.
 */
export class BatchProgress {
  private readonly meter = new SpeedMeter();
  private readonly inFlight = new Map<string, number>();
  private sentBytes = 0;
  private quarter: number;

  /**
   * `sizeOf`: the bytes a file sends, by id; `uploaded` of `total` were sent before this batch
   * began; `weigh`: what a photo still listed is expected to send (as the run's stages weigh it:
   * stages/pipeline.ts), its size when absent; `cap`: the member's cap now (bytes/s; model/upload-cap.ts), which
   * the time left follows at once when it changes.
   */
  constructor(
    private readonly sizeOf: (id: string) => number,
    now: number,
    uploaded: number,
    private readonly total: number,
    private readonly weigh?: (file: ListedFile) => number,
    private readonly cap: () => number | null = () => null,
  ) {
    this.meter.reset(now);
    this.quarter = progressQuarter(uploaded, total);
  }

  /** Counts an engine event's bytes: in flight while it progresses, sent once it succeeded. */
  track(event: EngineEvent): void {
    if (event.type === 'progress') this.inFlight.set(event.id, (this.sizeOf(event.id) * event.percent) / 100);
    else if (event.type === 'succeeded') {
      this.sentBytes += this.sizeOf(event.id);
      this.inFlight.delete(event.id);
    } else if (event.type !== 'started') this.inFlight.delete(event.id);
  }

  /** A pause is not slowness: the speed is measured again from where it resumes. */
  reset(now: number): void {
    this.meter.reset(now);
  }

  /** Samples the bytes sent by `now`; the time left is for the first `left` of `files`, less what is in flight. */
  estimate(now: number, files: readonly ListedFile[], left: number): SpeedEstimate {
    let moving = 0;
    for (const bytes of this.inFlight.values()) moving += bytes;
    this.meter.sample(now, this.sentBytes + moving);
    const bytesLeft = Math.max(0, bytesLeftOf(files, left, this.weigh) - moving);
    const bytesPerSecond = this.meter.rate();
    const pace = cappedSpeed(bytesPerSecond, this.cap());
    return { bytesPerSecond, secondsLeft: pace ? (bytesLeft === 0 ? 0 : bytesLeft / pace) : null };
  }

  /** The announcement when `uploaded` enters a new quarter of the batch (not its end), else null. */
  milestone(uploaded: number, secondsLeft: number | null): string | null {
    const q = progressQuarter(uploaded, this.total);
    if (q === this.quarter || uploaded >= this.total) return null;
    this.quarter = q;
    return milestoneWithTimeLeft(uploaded, this.total, secondsLeft);
  }

  /** The measured speed (bytes/s), null while still measured. */
  rate(): number | null {
    return this.meter.rate();
  }
}

import type { EngineEvent } from '../model/upload-queue';
import type { Timers } from '../services/upload/upload-engine';
import type { BatchProgress } from './batch-progress';
import type { RunTally } from './stages/settle/run-events';
import type { RunListener } from './stages/stage';
import type { UploaderStore } from './uploader-state';

/** Engine events are applied at most this often: one render per flush, not per file or byte. */
export const FLUSH_MS = 200;

/**
 * The running batch on the screen: engine events folded into the list a flush at a time, the
 * speed and time left measured at each flush, and a milestone said now and then.
 */
export class RunScreen {
  private pending: EngineEvent[] = [];
  private timer: unknown = null;

  constructor(
    private readonly store: UploaderStore,
    private readonly timers: Timers,
    private readonly now: () => number,
    private readonly progress: BatchProgress,
    private readonly tally: RunTally,
    /** How many the batch may still send: its limit less what it sent. */
    private readonly left: () => number,
  ) {
    store.set({ speed: { bytesPerSecond: null, secondsLeft: null } });
  }

  readonly listener: RunListener = (event) => {
    this.pending.push(event);
    this.timer ??= this.timers.setTimeout(() => this.flush(), FLUSH_MS);
  };

  /** Applies what is pending now. */
  flush(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    this.store.dispatch({ type: 'engine-events', events });
    this.store.set({ speed: this.progress.estimate(this.now(), this.store.getState().queue.files, Math.max(0, this.left())) });
    const milestone = this.progress.milestone(this.tally.uploaded, this.store.getState().speed?.secondsLeft ?? null);
    if (milestone !== null) this.store.set({ announcement: milestone });
  }
}

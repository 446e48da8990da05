import { batchOutcomeEvent, EMPTY_TALLY, sawVisibility, tallyEvent, VISIBLE_SO_FAR, type BatchTally, type HiddenTime } from '../model/batch-outcome';
import type { EngineEvent } from '../model/upload-queue';
import type { WakeLockPort } from '../services/browser/wake-lock';
import type { BatchOutcomeEvent } from '@trailsense/shared/analytics-events';
import type { SentFile } from './admission';

/**
 * Follows one running batch for its outcome event (model/batch-outcome.ts): each engine event
 * tallied, and the tab's visibility looked at with each event and when it shows again (a hidden
 * tab goes on sending, so its events keep coming).
 */
export class BatchOutcomeRecorder {
  private tally: BatchTally = EMPTY_TALLY;
  private hidden: HiddenTime = VISIBLE_SO_FAR;
  private readonly startedAt: number;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly now: () => number,
    private readonly page: Pick<WakeLockPort, 'visible' | 'onVisible'>,
    private readonly sizeOf: (id: string) => number,
    private readonly smallerCopies = false,
  ) {
    this.startedAt = now();
    this.look();
    this.unsubscribe = page.onVisible(() => (this.hidden = sawVisibility(this.hidden, true, this.now())));
  }

  private look(): void {
    this.hidden = sawVisibility(this.hidden, this.page.visible(), this.now());
  }

  /** `sent`: what was decided for the event's photo (a copy carries its original's size). */
  track(event: EngineEvent, sent?: Pick<SentFile, 'form' | 'entry'>): void {
    this.look();
    const original = sent?.form === 'copy' ? sent.entry.size : undefined;
    this.tally = tallyEvent(this.tally, event, event.type === 'succeeded' ? this.sizeOf(event.id) : 0, original);
  }

  /** The batch ended: its event. */
  finish(stopped: boolean): BatchOutcomeEvent {
    this.look();
    this.unsubscribe();
    return batchOutcomeEvent(this.tally, { startedAt: this.startedAt, endedAt: this.now(), hidden: this.hidden, stopped, smallerCopies: this.smallerCopies });
  }
}

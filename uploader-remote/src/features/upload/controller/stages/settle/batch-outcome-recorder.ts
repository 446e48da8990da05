import { batchOutcomeEvent, EMPTY_TALLY, sawVisibility, tallyEvent, VISIBLE_SO_FAR, type BatchTally, type HiddenTime } from '../../../model/batch-outcome';
import type { EngineEvent } from '../../../model/upload-queue';
import type { WakeLockPort } from '../../../services/browser/wake-lock';
import type { BatchOutcomeEvent } from '@trailsense/shared/analytics-events';

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
  ) {
    this.startedAt = now();
    this.look();
    this.unsubscribe = page.onVisible(() => (this.hidden = sawVisibility(this.hidden, true, this.now())));
  }

  private look(): void {
    this.hidden = sawVisibility(this.hidden, this.page.visible(), this.now());
  }

  track(event: EngineEvent): void {
    this.look();
    this.tally = tallyEvent(this.tally, event, event.type === 'succeeded' ? this.sizeOf(event.id) : 0);
  }

  /** The batch ended: its event, with the fields the transform stages add of their own (`stages`). */
  finish(stopped: boolean, stages: Partial<BatchOutcomeEvent> = {}): BatchOutcomeEvent {
    this.look();
    this.unsubscribe();
    return { ...batchOutcomeEvent(this.tally, { startedAt: this.startedAt, endedAt: this.now(), hidden: this.hidden, stopped }), ...stages };
  }
}

import type { Analytics } from '@trailsense/shared/analytics-events';
import type { PhotoExif } from '../../../model/photo-exif';
import type { EngineEvent } from '../../../model/upload-queue';
import type { UploaderServices } from '../../../services/uploader-services';
import type { AccountSync } from '../../account-sync';
import type { BatchJournal } from '../../batch-journal';
import type { UploaderIdentity } from '../../uploader-state';
import type { RunListener, RunPhoto } from '../stage';

/**
 * The settle stage (stages/stage.ts): the running batch's events, told to each part that follows
 * them in the order they subscribed — the measures, the tally, the account and the other tabs, the
 * journal, analytics, the screen, then the transform stages' own listeners. The engine calls back
 * one function (`emit`); who hears what is decided here, not in the run loop.
 */
export class RunEvents {
  private readonly listeners: RunListener[] = [];

  constructor(private readonly sentOf: (id: string) => RunPhoto | undefined) {}

  subscribe(listener: RunListener): void {
    this.listeners.push(listener);
  }

  readonly emit = (event: EngineEvent): void => {
    const sent = 'id' in event ? this.sentOf(event.id) : undefined;
    for (const listener of this.listeners) listener(event, sent);
  };
}

/** The running batch's counts: successes (from the list's count before it), failures, and the EXIF of what went up. */
export class RunTally {
  readonly sentExif: (PhotoExif | null)[] = [];

  constructor(
    public uploaded: number,
    public failures: number,
  ) {}

  readonly listener: RunListener = (event, sent) => {
    if (event.type === 'succeeded' && sent) {
      this.uploaded++;
      this.sentExif.push(sent.exif);
    } else if (event.type === 'failed') this.failures++;
  };
}

/** Each photo sent counts against the allowance at once, here and in this member's other tabs. */
export function shareSuccesses(account: AccountSync, tabs: UploaderServices['tabs'], identity: UploaderIdentity, now: () => number): RunListener {
  return (event, sent) => {
    // A photo the ranch has counted already (the original of its copy) is not counted again.
    if (event.type !== 'succeeded' || !sent?.counted) return;
    const at = now();
    account.recordSuccesses(at, 1);
    tabs.post({ type: 'uploaded', owner: identity.owner, ranchId: identity.ranchId, at, count: 1 });
  };
}

/** The journal keeps what went up (never sent again) and what was refused for good, with why. */
export function recordInJournal(journal: BatchJournal, now: () => number): RunListener {
  return (event, sent) => {
    if (!sent) return;
    if (event.type === 'succeeded') void journal.recordUploaded(sent.entry, now());
    else if (event.type === 'failed') void journal.recordFailed(sent.entry, event.reason, now());
  };
}

/** Analytics: each upload and each failure, with the batch's running counts (docs/product.md#analytics). */
export function reportToAnalytics(analytics: Analytics, ranchId: string, tally: RunTally): RunListener {
  return (event, sent) => {
    if (event.type === 'succeeded' && sent) void analytics.track({ name: 'imageUpload', ranchid: ranchId, key: sent.key, uploadCount: tally.uploaded });
    else if (event.type === 'failed') void analytics.track({ name: 'uploadFailure', ranchid: ranchId, failureCount: tally.failures });
  };
}

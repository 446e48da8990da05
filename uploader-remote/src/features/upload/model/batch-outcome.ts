/**
 * A batch's outcome as one analytics event (docs/monitoring.md#batchoutcome): its engine events
 * tallied, the time its tab was hidden, and the event made of them. Pure: sizes, times and
 * visibility come in as plain values. Nothing personal is kept: counts, bytes and times only.
 */
import type { BatchFailures, BatchOutcomeEvent } from '@trailsense/shared/analytics-events';
import type { EngineEvent } from './upload-queue';

export interface BatchTally {
  photos: number;
  bytes: number;
  retries: number;
  failures: BatchFailures;
  skippedDuplicates: number;
}

export const EMPTY_TALLY: BatchTally = {
  photos: 0,
  bytes: 0,
  retries: 0,
  failures: { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
  skippedDuplicates: 0,
};

/** The reason the engine (services/upload/upload-engine.ts) gives an upload that made no progress for `stallMs`. */
export function stallReason(stallMs: number): string {
  return `No progress for ${Math.round(stallMs / 1000)} s`;
}

/** Whether a failure's reason is `stallReason`'s. */
const STALLED = /^No progress for \d+ s$/;

/** `tally` with one engine event counted; `size` is the bytes the event's file sent. */
export function tallyEvent(tally: BatchTally, event: EngineEvent, size: number): BatchTally {
  const failures = (kind: keyof BatchFailures, also?: keyof BatchFailures) => ({
    ...tally,
    failures: { ...tally.failures, [kind]: tally.failures[kind] + 1, ...(also ? { [also]: tally.failures[also] + 1 } : {}) },
  });
  switch (event.type) {
    case 'succeeded':
      return { ...tally, photos: tally.photos + 1, bytes: tally.bytes + size };
    case 'retrying':
      return { ...tally, retries: tally.retries + 1 };
    case 'failed':
      return STALLED.test(event.reason) ? failures('upload', 'stalled') : failures('upload');
    case 'not-sent':
      // A refusal by the firewall is tallied with the other failures to reach the server.
      return failures(event.reason === 'refused' ? 'unavailable' : event.reason);
    case 'dropped':
      return event.reason === 'already-uploaded' || event.reason === 'duplicate'
        ? { ...tally, skippedDuplicates: tally.skippedDuplicates + 1 }
        : failures('unreadable');
    default:
      return tally;
  }
}

/** How long the tab has been hidden: the total so far, and since when it is hidden now (null: visible). */
export interface HiddenTime {
  hiddenMs: number;
  hiddenSince: number | null;
}

export const VISIBLE_SO_FAR: HiddenTime = { hiddenMs: 0, hiddenSince: null };

/** `time` after seeing the tab `visible` (or not) at `at` (ms). */
export function sawVisibility(time: HiddenTime, visible: boolean, at: number): HiddenTime {
  if (!visible) return time.hiddenSince === null ? { ...time, hiddenSince: at } : time;
  if (time.hiddenSince === null) return time;
  return { hiddenMs: time.hiddenMs + Math.max(0, at - time.hiddenSince), hiddenSince: null };
}

/**
 * The batch's outcome event: `startedAt` and `endedAt` in ms, goodput in bytes per second. The
 * fields the run's stages add of their own (smaller copies: controller/stages/) are theirs.
 */
export function batchOutcomeEvent(tally: BatchTally, run: { startedAt: number; endedAt: number; hidden: HiddenTime; stopped: boolean }): BatchOutcomeEvent {
  const durationMs = Math.max(0, Math.round(run.endedAt - run.startedAt));
  const hidden = sawVisibility(run.hidden, true, run.endedAt);
  return {
    name: 'batchOutcome',
    photos: tally.photos,
    bytes: tally.bytes,
    durationMs,
    goodputBytesPerSecond: durationMs > 0 ? Math.round((tally.bytes * 1000) / durationMs) : 0,
    retries: tally.retries,
    failures: { ...tally.failures },
    hiddenMs: Math.min(durationMs, Math.round(hidden.hiddenMs)),
    skippedDuplicates: tally.skippedDuplicates,
    stopped: run.stopped,
  };
}

import { BatchOutcomeRecorder } from '../src/features/upload/controller/stages/settle/batch-outcome-recorder';
import {
  batchOutcomeEvent,
  EMPTY_TALLY,
  sawVisibility,
  stallReason,
  tallyEvent,
  VISIBLE_SO_FAR,
  type BatchTally,
} from '../src/features/upload/model/batch-outcome';
import type { EngineEvent } from '../src/features/upload/model/upload-queue';
import { parseMonitoringEvent } from '@trailsense/shared/analytics-events';

const tally = (events: EngineEvent[], size = 1_000_000): BatchTally => events.reduce((t, e) => tallyEvent(t, e, size), EMPTY_TALLY);

describe('tallyEvent', () => {
  it('counts sent photos and their bytes, and retries', () => {
    const t = tally([
      { type: 'started', id: 'a', attempt: 1 },
      { type: 'progress', id: 'a', percent: 50 },
      { type: 'retrying', id: 'a', attempt: 1, reason: 'Failed to fetch' },
      { type: 'succeeded', id: 'a' },
      { type: 'succeeded', id: 'b' },
    ]);
    expect(t).toMatchObject({ photos: 2, bytes: 2_000_000, retries: 1 });
  });

  it('counts failures by kind: given up (and of those, stalled), no slot for the limit or the API, unreadable', () => {
    const t = tally([
      { type: 'failed', id: 'a', reason: 'Access Denied' },
      { type: 'failed', id: 'b', reason: stallReason(60_000) },
      { type: 'failed', id: 'b2', reason: stallReason(5_000) },
      { type: 'not-sent', id: 'c', reason: 'limit' },
      { type: 'not-sent', id: 'd', reason: 'unavailable' },
      { type: 'dropped', id: 'e', reason: 'not-jpeg' },
      { type: 'dropped', id: 'f', reason: 'unreadable' },
    ]);
    expect(t.failures).toEqual({ upload: 3, stalled: 2, limit: 1, unavailable: 1, unreadable: 2 });
    expect(t.photos).toBe(0);
  });

  it('counts photos already uploaded or already in the list as skipped duplicates, not failures', () => {
    const t = tally([
      { type: 'dropped', id: 'a', reason: 'already-uploaded' },
      { type: 'dropped', id: 'b', reason: 'duplicate' },
      { type: 'returned', id: 'c' },
    ]);
    expect(t).toEqual({ ...EMPTY_TALLY, skippedDuplicates: 2 });
  });
});

describe('sawVisibility', () => {
  it('adds up the time between hidden and visible again', () => {
    let h = sawVisibility(VISIBLE_SO_FAR, true, 0);
    h = sawVisibility(h, false, 1000);
    h = sawVisibility(h, false, 5000); // still hidden: counted from the first time seen
    h = sawVisibility(h, true, 11_000);
    h = sawVisibility(h, false, 20_000);
    h = sawVisibility(h, true, 21_000);
    expect(h).toEqual({ hiddenMs: 11_000, hiddenSince: null });
  });
});

describe('batchOutcomeEvent', () => {
  it('makes the event: duration, goodput in bytes per second, hidden time counted to the end', () => {
    const t = tally(
      [
        { type: 'succeeded', id: 'a' },
        { type: 'succeeded', id: 'b' },
        { type: 'retrying', id: 'c', attempt: 1, reason: 'x' },
      ],
      3_000_000,
    );
    const event = batchOutcomeEvent(t, { startedAt: 10_000, endedAt: 22_000, hidden: { hiddenMs: 1000, hiddenSince: 20_000 }, stopped: false });
    expect(event).toEqual({
      name: 'batchOutcome',
      photos: 2,
      bytes: 6_000_000,
      durationMs: 12_000,
      goodputBytesPerSecond: 500_000,
      retries: 1,
      failures: { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
      hiddenMs: 3000,
      skippedDuplicates: 0,
      stopped: false,
    });
    expect(parseMonitoringEvent(event)).toEqual({ ok: true, event });
  });

  it('gives an empty or instant batch a goodput of 0, and says it was stopped', () => {
    expect(batchOutcomeEvent(EMPTY_TALLY, { startedAt: 5, endedAt: 5, hidden: VISIBLE_SO_FAR, stopped: true })).toMatchObject({
      durationMs: 0,
      goodputBytesPerSecond: 0,
      stopped: true,
    });
  });

  it('carries counts and times only: no file name, key, ranch or member', () => {
    const event = batchOutcomeEvent(
      tally([{ type: 'failed', id: 'IMG_0042.JPG', reason: 'subscriber@trailsense.example denied on public/cedar-creek/x.jpg' }]),
      {
        startedAt: 0,
        endedAt: 1000,
        hidden: VISIBLE_SO_FAR,
        stopped: false,
      },
    );
    expect(JSON.stringify(event)).not.toMatch(/IMG_0042|subscriber|cedar-creek|\.jpe?g/i);
  });
});

describe('BatchOutcomeRecorder', () => {
  it('tallies the engine’s events with their files’ sizes and times the tab hidden between events and its return', () => {
    let now = 1000;
    let visible = true;
    let onVisible: () => void = () => undefined;
    const page = { visible: () => visible, onVisible: (listener: () => void) => ((onVisible = listener), () => (onVisible = () => undefined)) };
    const recorder = new BatchOutcomeRecorder(
      () => now,
      page,
      (id) => (id === 'a' ? 2_000_000 : 1_000_000),
    );
    recorder.track({ type: 'succeeded', id: 'a' });
    now = 3000;
    visible = false;
    recorder.track({ type: 'progress', id: 'b', percent: 10 });
    now = 7000;
    visible = true;
    onVisible();
    now = 9000;
    recorder.track({ type: 'succeeded', id: 'b' });
    expect(recorder.finish(false)).toMatchObject({ photos: 2, bytes: 3_000_000, durationMs: 8000, hiddenMs: 4000, goodputBytesPerSecond: 375_000 });
  });
});

/**
 * @jest-environment node
 */
// "Send smaller copies" (docs/uploader.md#smaller-copies) through the batch controller, on jest's
// fake clock with fakes at its boundary (test/support/fake-services.ts: its server counts a copy
// once and takes the original of a photo it has as a copy without counting it again), and the
// pure rules of model/photo-forms.ts.
import { CopyAhead } from '../src/features/upload/controller/stages/copies/copy-ahead';
import { tallyEvent, EMPTY_TALLY, batchOutcomeEvent, VISIBLE_SO_FAR } from '../src/features/upload/model/batch-outcome';
import {
  copyBytesOf,
  copyKeyOf,
  keyFor,
  NO_COPIES,
  onRecord,
  SUGGEST_COPIES_AFTER_S,
  tallyCopy,
  TYPICAL_COPY_BYTES,
} from '../src/features/upload/model/photo-forms';
import { selectionFacts } from '../src/features/upload/model/selection';
import type { ListedFile } from '../src/features/upload/model/upload-queue';
import { storedPreferences } from '../src/features/upload/services/browser/uploader-preferences';
import { parseMonitoringEvent } from '@trailsense/shared/analytics-events';
import { fakeServices, mapStorage, photo } from './support/fake-services';
import { memoryJournal } from './support/memory-journal';
import { idle, open, ready, until, uploadAll } from './support/controller-harness';

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-21T22:00:00') }));
afterEach(() => jest.useRealTimers());

/** Photos of a few KB (the fake copy maker makes copies of anything over 1 KB, an eighth of its size). */
const card = (n: number) => Array.from({ length: n }, (_, i) => photo(`IMG_${String(i + 1).padStart(4, '0')}.JPG`, `photo-${i + 1}-`.padEnd(4000, 'x')));

describe('model/photo-forms', () => {
  it('copies go under their own key, never an original’s: the bucket does not overwrite', () => {
    expect(copyKeyOf('3f2a.JPG')).toBe('3f2a-copy.jpg');
    expect(copyKeyOf('3f2a.jpeg')).toBe('3f2a-copy.jpg');
    expect(copyKeyOf('no-extension')).toBe('no-extension-copy.jpg');
    expect(keyFor('3f2a.JPG', 'original')).toBe('3f2a.JPG');
    expect(keyFor('3f2a.JPG', 'copy')).toBe('3f2a-copy.jpg');
  });

  it('what the ranch has: sending copies any form is enough; sending originals a copy-only photo is an upgrade, the server’s word first', () => {
    const uploadedCopy = { status: 'uploaded' as const, form: 'copy' as const };
    const uploadedOriginal = { status: 'uploaded' as const };
    const base = { known: false, copyOnly: false, asked: false };
    expect(onRecord({ ...base, entry: undefined, sendCopies: true })).toBe('new');
    expect(onRecord({ ...base, entry: uploadedCopy, sendCopies: true })).toBe('had');
    expect(onRecord({ ...base, entry: undefined, known: true, copyOnly: true, asked: true, sendCopies: true })).toBe('had');
    expect(onRecord({ ...base, entry: uploadedCopy, sendCopies: false })).toBe('upgrade');
    expect(onRecord({ ...base, entry: uploadedOriginal, sendCopies: false })).toBe('had');
    expect(onRecord({ ...base, entry: undefined, known: true, copyOnly: true, asked: true, sendCopies: false })).toBe('upgrade');
    // Another device sent the original since this browser sent the copy: the server says so.
    expect(onRecord({ entry: uploadedCopy, known: true, copyOnly: false, asked: true, sendCopies: false })).toBe('had');
    // A waiting entry (cut off mid-upload) is sent again, in the form chosen now.
    expect(onRecord({ ...base, entry: { status: 'waiting', form: 'copy' }, sendCopies: false })).toBe('new');
  });

  it('estimates copies as a typical copy each, or the photo itself when smaller', () => {
    expect(copyBytesOf([4_000_000, 3_000_000, 100_000])).toBe(2 * TYPICAL_COPY_BYTES + 100_000);
  });
});

describe('the estimates before Upload', () => {
  const listed = (size: number, upgrade = false): ListedFile => ({
    id: `${size}-${Math.random()}`,
    key: 'k.JPG',
    name: 'A.JPG',
    path: '',
    size,
    lastModified: 1,
    file: new Blob([]),
    status: { kind: 'waiting' },
    exif: null,
    ...(upgrade ? { upgrade: true as const } : {}),
  });
  const now = Date.parse('2026-11-21T22:00:00Z');
  // 3 Mbit/s: 375,000 bytes a second.
  const rate = 375_000;

  it('shows both when the originals would take more than a few hours, and the summary’s time follows the choice', () => {
    // 2,000 photos of 3.5 MB: 7 GB, 5 h 11 min at 3 Mbit/s; as copies 0.5 GB, 22 min.
    const files = Array.from({ length: 2000 }, () => listed(3_500_000));
    const off = selectionFacts(files, now, rate, false);
    expect(off.estimates).toBe('Originals: about 5 h 10 min · Smaller copies: about 22 min');
    expect(off.summary).toMatch(/about 5 h 10 min at your recent speed$/);
    const on = selectionFacts(files, now, rate, true);
    expect(on.summary).toMatch(/about 22 min at your recent speed$/);
    expect(on.estimates).toBe(off.estimates);
  });

  it('says nothing more when the originals go in a few hours or no speed was measured', () => {
    const files = Array.from({ length: 100 }, () => listed(3_500_000));
    expect(selectionFacts(files, now, rate, false).estimates).toBeNull();
    expect(
      selectionFacts(
        Array.from({ length: 5000 }, () => listed(3_500_000)),
        now,
        null,
        false,
      ).estimates,
    ).toBeNull();
    expect(SUGGEST_COPIES_AFTER_S).toBe(3 * 3600);
  });

  it('counts an original sent after its copy whole in the copies’ estimate', () => {
    const files = Array.from({ length: 1200 }, () => listed(3_750_000, true));
    expect(selectionFacts(files, now, rate, false).estimates).toBe('Originals: about 3 h 20 min · Smaller copies: about 3 h 20 min');
  });
});

describe('the batch outcome', () => {
  it('tallies copies and the bytes they spared, and the event with the copies stage’s fields passes the server’s schema', () => {
    let copies = tallyCopy(NO_COPIES, 500_000, 4_000_000);
    copies = tallyCopy(copies, 300_000, 200_000);
    expect(copies).toEqual({ copies: 2, bytesSaved: 3_500_000 });
    const event = {
      ...batchOutcomeEvent(tallyEvent(EMPTY_TALLY, { type: 'succeeded', id: 'a' }, 500_000), {
        startedAt: 0,
        endedAt: 10_000,
        hidden: VISIBLE_SO_FAR,
        stopped: false,
      }),
      smallerCopies: true,
      ...copies,
    };
    expect(parseMonitoringEvent(event)).toEqual({ ok: true, event });
    expect(parseMonitoringEvent({ ...event, copies: -1 })).toMatchObject({ ok: false });
    expect(parseMonitoringEvent({ ...event, smallerCopies: 'yes' })).toMatchObject({ ok: false });
  });
});

describe('CopyAhead', () => {
  it('makes the next copies while earlier photos send, at most its depth, never twice, never of an original after its copy', async () => {
    const asked: number[] = [];
    const maker = {
      make: (file: Blob, _exif: unknown, signal?: AbortSignal) => {
        if (signal?.aborted) return Promise.reject(new Error('stopped'));
        asked.push(file.size);
        return Promise.resolve({ kind: 'copy' as const, blob: new Blob(['c']), width: 1, height: 1 });
      },
    };
    const files = [1, 2, 3, 4, 5, 6].map((n): ListedFile => ({
      id: `f${n}`,
      key: `k${n}.JPG`,
      name: `${n}.JPG`,
      path: '',
      size: n,
      lastModified: 1,
      file: new Blob(['x'.repeat(n)]),
      status: n === 2 ? { kind: 'checking' } : { kind: 'waiting' },
      ...(n === 3 ? { upgrade: true as const } : {}),
    }));
    const ahead = new CopyAhead({ maker, upcoming: () => files, depth: 2 });
    await ahead.take(files[0]!, null);
    // f1 now; then two ahead: not f2 (still checked), not f3 (its copy is on the server), so f4 and f5.
    expect(asked).toEqual([1, 4, 5]);
    await ahead.take(files[3]!, null);
    expect(asked).toEqual([1, 4, 5, 6]);
    ahead.stop();
    await ahead.take(files[5]!, null).catch(() => undefined);
    expect(asked).toEqual([1, 4, 5, 6]);
  });
});

describe('BatchController: smaller copies', () => {
  it('is off by default and remembered per browser', () => {
    const prefs = storedPreferences(mapStorage());
    const first = open(fakeServices({ prefs }));
    expect(first.state().sendCopies).toBe(false);
    first.controller.setSendCopies(true);
    const later = open(fakeServices({ prefs }));
    expect(later.state().sendCopies).toBe(true);
  });

  it('sends each photo as a copy under its own key, counted once; the same card with the switch off sends the originals, counted no more', async () => {
    const journal = memoryJournal();
    const t = open(fakeServices({ journal }));
    await until(() => t.state().allowance.kind === 'known');
    t.controller.setSendCopies(true);
    const photos = card(5);
    await uploadAll(t, photos);
    expect(t.world.puts).toHaveLength(5);
    expect(t.world.puts.every((key) => key.endsWith('-copy.jpg'))).toBe(true);
    for (const key of t.world.puts) {
      expect(t.world.bodies.get(key)!.size).toBe(500);
      expect(t.world.stored.get(key)).toMatchObject({ form: 'copy', reservation: expect.stringMatching(/^r-/) as unknown });
    }
    expect(t.world.usageTotal).toBe(985 + 5);
    expect(t.journal.entriesOf('sub-1').map((e) => [e.status, e.form])).toEqual(Array(5).fill(['uploaded', 'copy']));
    const outcome = t.world.tracked.find((e) => e.name === 'batchOutcome');
    expect(outcome).toMatchObject({ smallerCopies: true, copies: 5, bytes: 2500, bytesSaved: 5 * 3500 });

    // The same card again, copies still on: nothing to send.
    t.controller.addFiles(photos);
    await until(() => idle(t.state()) && t.state().queue.notice !== null, 'the second pick to be checked');
    expect(t.state().queue.notice).toBe('5 files skipped: 5 already uploaded.');

    // Switch off: the originals go, under their listed keys, with no slot; the month does not move.
    t.controller.setSendCopies(false);
    t.controller.addFiles(photos);
    await until(() => ready(t.state()) && t.state().queue.files.length === 5, 'the originals to be listed');
    expect(t.state().queue.notice).toBe('5 photos the ranch has as smaller copies: sent as originals, already counted.');
    const reservationsBefore = t.world.reservations.length;
    t.controller.requestUpload();
    await until(() => t.state().queue.batch.kind === 'running');
    await until(() => idle(t.state()));
    const originals = t.world.puts.slice(5);
    expect(originals).toHaveLength(5);
    expect(originals.every((key) => !key.endsWith('-copy.jpg'))).toBe(true);
    for (const key of originals) {
      expect(t.world.bodies.get(key)!.size).toBe(4000);
      expect(t.world.stored.get(key)).toMatchObject({ form: 'original' });
      expect(t.world.stored.get(key)!.reservation).toBeUndefined();
    }
    expect(t.world.usageTotal).toBe(985 + 5);
    expect(t.world.serverCopies.size).toBe(0);
    // No slot was granted for them: the server said it has them as copies when asked.
    expect(t.world.reservations.length).toBeGreaterThan(reservationsBefore);
    expect(t.world.heldSlots).toBe(0);
    expect(t.world.released).toHaveLength(0);
    expect(t.journal.entriesOf('sub-1').map((e) => [e.status, e.form])).toEqual(Array(5).fill(['uploaded', 'original']));
    const [, offOutcome] = t.world.tracked.filter((e) => e.name === 'batchOutcome');
    expect(offOutcome).toMatchObject({ smallerCopies: false, copies: 0, photos: 5, bytes: 5 * 4000, bytesSaved: 0 });

    // And once more: they are had as originals now.
    t.controller.addFiles(photos);
    await until(() => idle(t.state()) && t.state().queue.notice === '5 files skipped: 5 already uploaded.', 'the third pick');
  });

  it('the originals of copies go even when the month is used up: they use no allowance', async () => {
    const t = open(fakeServices({ ranchMax: 10, world: { usageTotal: 0 } }));
    await until(() => t.state().allowance.kind === 'known');
    t.controller.setSendCopies(true);
    const photos = card(3);
    await uploadAll(t, photos);
    t.world.usageTotal = 1000;
    await t.controller.fetchUsage();
    t.controller.setSendCopies(false);
    t.controller.addFiles(photos);
    await until(() => ready(t.state()) && t.state().queue.files.length === 3, 'the originals to be listed');
    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.world.puts.length === 6, 'the originals to go');
    expect(t.state().confirm).toBeNull();
  });

  it('a photo no copy can be made of is sent as it is', async () => {
    const t = open();
    await until(() => t.state().allowance.kind === 'known');
    t.controller.setSendCopies(true);
    // 1 KB or less: the fake copy maker answers "small", as the real one does for a photo no larger than a copy.
    await uploadAll(t, [photo('TINY.JPG', 'tiny-photo')]);
    expect(t.world.puts).toHaveLength(1);
    expect(t.world.puts[0]).not.toMatch(/-copy\.jpg$/);
    expect(t.world.stored.get(t.world.puts[0]!)).toMatchObject({ form: 'original' });
  });

  it('after a crash mid-batch with copies, the same card resumes: the cut-off copy goes again under the same key, nothing twice', async () => {
    const first = open();
    await until(() => first.state().allowance.kind === 'known');
    first.controller.setSendCopies(true);
    first.world.autoAnswer = false;
    const photos = card(4);
    first.controller.addFiles(photos);
    await until(() => ready(first.state()));
    first.controller.requestUpload();
    await until(() => first.world.pending.size === 3, 'three uploads in flight');
    const [a, b, c] = [...first.world.pending.values()];
    a!.resolve();
    b!.resolve();
    await until(() => first.journal.entriesOf('sub-1').filter((e) => e.status === 'uploaded').length === 2);
    const cutOff = c!.job.key;
    expect(cutOff).toMatch(/-copy\.jpg$/);

    const second = open(fakeServices({ journal: first.journal, prefs: first.services.prefs }));
    await until(() => second.state().offer !== null, 'the resume offer');
    second.controller.resumeOffer();
    second.controller.addFiles(photos);
    await until(() => ready(second.state()) && second.state().queue.files.length === 2, 'the two left');
    second.controller.requestUpload();
    await until(() => second.state().queue.batch.kind === 'running');
    await until(() => idle(second.state()));
    expect(second.world.puts).toContain(cutOff);
    expect(second.world.puts.every((key) => key.endsWith('-copy.jpg'))).toBe(true);
    const all = [...first.world.stored.keys(), ...second.world.stored.keys()];
    expect(new Set(all).size).toBe(4);
  });
});

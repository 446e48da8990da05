/**
 * @jest-environment node
 */
// The batch controller without a DOM (it is framework-free), on jest's fake clock, with fakes at
// its boundary (test/support/fake-services.ts): storage, API, journal, browser ports; opened and
// waited on by the one controller harness (test/support/controller-harness.ts).
import { remainingOf } from '../src/features/upload/model/quota';
import { memoryJournal } from './support/memory-journal';
import { FOLDER_NOT_ALLOWED, serverWaitMessage } from '../src/features/upload/model/messages';
import { ApiRequestError } from '../src/features/upload/services/api/api-client';
import { UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import { storedPreferences } from '../src/features/upload/services/browser/uploader-preferences';
import { fakeLocks, fakeServices, fakeTabsBus, mapStorage, photo } from './support/fake-services';
import { idle, open, ready, until, uploadAll } from './support/controller-harness';

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-21T22:00:00') }));
afterEach(() => jest.useRealTimers());

const photos = (n: number, prefix = 'IMG_') =>
  Array.from({ length: n }, (_, i) => photo(`${prefix}${String(i + 1).padStart(4, '0')}.JPG`, `${prefix}${i + 1}`.padEnd(12, '.')));

describe('BatchController: the journal', () => {
  it('uploads what was picked and records it; the same card picked again sends nothing and says so', async () => {
    const t = open();
    const card = photos(5);
    await uploadAll(t, card);
    expect(t.world.stored.size).toBe(5);
    expect(t.journal.entriesOf('sub-1').map((e) => e.status)).toEqual(Array(5).fill('uploaded'));

    t.controller.addFiles(card);
    await until(() => idle(t.state()) && t.state().queue.notice !== null, 'the second pick to be checked');
    expect(t.state().queue.files).toHaveLength(0);
    expect(t.state().queue.notice).toBe('5 files skipped: 5 already uploaded.');
    expect(t.world.puts).toHaveLength(5);
  });

  it('a photo sent before the background check of its chunk ends stays recorded as uploaded', async () => {
    const t = open();
    let read!: () => void;
    const fast = photo('FAST.JPG', 'fast-bytes-1');
    const slow = photo('SLOW.JPG', 'slow-bytes-22', { readAfter: new Promise<void>((r) => (read = r)) });
    t.controller.addFiles([fast, slow]);
    await until(() => t.state().allowance.kind === 'known' && t.state().queue.files.length === 2);
    t.controller.requestUpload();
    await until(() => t.world.stored.size === 1, 'the fast photo to go up');
    read(); // the chunk's check ends after the upload, and must not undo its record
    await until(() => idle(t.state()));
    expect(
      t.journal
        .entriesOf('sub-1')
        .map((e) => [e.name, e.status])
        .sort(),
    ).toEqual([
      ['FAST.JPG', 'uploaded'],
      ['SLOW.JPG', 'uploaded'],
    ]);
    t.controller.addFiles([fast]);
    await until(() => t.state().queue.notice === '1 file skipped: 1 already uploaded.');
  });

  it('two identical photos in one selection count once', async () => {
    const t = open();
    t.controller.addFiles([photo('IMG_0001.JPG', 'same-bytes'), photo('copy of IMG_0001.JPG', 'same-bytes'), photo('IMG_0002.JPG', 'other-bytes')]);
    await until(() => ready(t.state()));
    expect(t.state().queue.files.map((f) => f.name)).toEqual(['IMG_0001.JPG', 'IMG_0002.JPG']);
    expect(t.state().queue.notice).toBe('1 file skipped: copy of IMG_0001.JPG (already in the list).');
  });

  it('after a crash mid-batch: offers to resume; the same card continues with the same keys and nothing twice', async () => {
    const first = open();
    first.world.autoAnswer = false;
    const card = photos(4);
    first.controller.addFiles(card);
    await until(() => ready(first.state()));
    first.controller.requestUpload();
    await until(() => first.world.pending.size === 3, 'three uploads in flight');
    const keysSent = new Map([...first.world.pending.values()].map((p) => [p.job.id, p.job.key]));
    // Two go up; the third is cut off mid-upload by the crash (its PUT may or may not have landed).
    const [a, b, c] = [...first.world.pending.values()];
    a!.resolve();
    b!.resolve();
    await until(() => first.journal.entriesOf('sub-1').filter((e) => e.status === 'uploaded').length === 2, 'two recorded as uploaded');
    const cutOff = c!.job.key;
    expect(keysSent.size).toBe(3);

    // The tab crashes: nothing is disposed; a new page opens on the same journal.
    const second = open(fakeServices({ journal: first.journal }));
    await until(() => second.state().offer !== null, 'the resume offer');
    expect(second.state().offer).toMatchObject({ uploaded: 2, total: 4 });

    second.controller.setCamera('Something else');
    second.controller.resumeOffer();
    expect(second.state().choices).toEqual({ camera: '', training: false });
    second.controller.addFiles(card);
    await until(() => ready(second.state()) && second.state().queue.files.length === 2, 'the two left to be listed');
    expect(second.state().queue.notice).toBe('2 files skipped: 2 already uploaded.');
    expect(second.state().queue.files.map((f) => f.key)).toContain(cutOff);
    second.controller.requestUpload();
    await until(() => idle(second.state()));
    expect(second.world.puts).toContain(cutOff);
    const allKeys = [...first.world.stored.keys(), ...second.world.stored.keys()];
    expect(new Set(allKeys).size).toBe(4);
    expect(second.state().offer).toBeNull();
    expect(await second.journal.openBatches({ owner: 'sub-1', ranchId: 'mesquite-flats' })).toEqual([]);
  });

  it('Discard forgets the unfinished batch but keeps what went up', async () => {
    const first = open();
    first.world.autoAnswer = false;
    first.controller.addFiles(photos(3));
    await until(() => ready(first.state()));
    first.controller.requestUpload();
    await until(() => first.world.pending.size === 3);
    [...first.world.pending.values()][0]!.resolve();
    await until(() => first.journal.entriesOf('sub-1').some((e) => e.status === 'uploaded'));

    const second = open(fakeServices({ journal: first.journal }));
    await until(() => second.state().offer !== null);
    await second.controller.discardOffer();
    expect(second.state().offer).toBeNull();
    expect(
      second.journal
        .entriesOf('sub-1')
        .map((e) => e.status)
        .sort(),
    ).toEqual(['uploaded', 'waiting', 'waiting']);
    expect(
      second.journal
        .entriesOf('sub-1')
        .filter((e) => e.status === 'waiting')
        .every((e) => e.batchId === null && e.target),
    ).toBe(true);
  });

  it('Clear List removes the list from the journal; nothing is offered after a reload', async () => {
    const t = open();
    t.controller.addFiles(photos(3));
    await until(() => ready(t.state()));
    expect(t.journal.entriesOf('sub-1')).toHaveLength(3);
    t.controller.clear();
    await until(() => t.journal.entriesOf('sub-1').length === 0, 'the entries to go');
    const again = open(fakeServices({ journal: t.journal }));
    await jest.advanceTimersByTimeAsync(1000);
    expect(again.state().offer).toBeNull();
  });
});

describe('BatchController: pauses', () => {
  it('a session that ends mid-batch pauses it and tells the sign-in page; the same user back continues it', async () => {
    const t = open();
    t.world.autoAnswer = false;
    t.controller.addFiles(photos(5));
    await until(() => ready(t.state()));
    t.controller.requestUpload();
    await until(() => t.world.pending.size === 3);
    [...t.world.pending.values()][0]!.resolve();
    await until(() => t.state().queue.uploaded === 1);

    t.world.endSession();
    await until(() => t.world.pending.size === 0, 'the uploads in flight to be aborted');
    expect(t.state().paused).toEqual(['session']);
    expect(t.world.notices.at(-1)).toBe('Your session ended, so uploading is paused: 1 of 5 images went up and nothing is lost. Sign in again to continue.');
    // The shell sends the user to /login: the screen goes, the batch waits.
    t.controller.detach();
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(t.state().queue.batch.kind).toBe('running');
    expect(t.state().queue.files.map((f) => f.status.kind)).toEqual(Array(4).fill('waiting'));

    t.world.autoAnswer = true;
    t.controller.attach();
    await until(() => idle(t.state()));
    expect(t.world.notices.at(-1)).toBeNull();
    expect(t.world.stored.size).toBe(5);
    expect(t.state().queue.failures).toBe(0);
  });

  it('offline pauses without using attempts, and the batch goes on when the network is back', async () => {
    const t = open();
    t.world.autoAnswer = false;
    t.controller.addFiles(photos(2));
    await until(() => ready(t.state()));
    t.controller.requestUpload();
    await until(() => t.world.pending.size === 2);
    t.world.setOnline(false);
    await until(() => t.world.pending.size === 0);
    expect(t.state().paused).toEqual(['offline']);
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(t.world.puts).toHaveLength(2);

    t.world.autoAnswer = true;
    t.world.setOnline(true);
    await until(() => idle(t.state()));
    expect(t.world.stored.size).toBe(2);
    expect(t.state().queue.failures).toBe(0);
  });
});

describe('BatchController: sleep and wake', () => {
  it('after the computer sleeps, the uploads in flight start again by themselves; failures while the link comes back use no attempt; each photo is stored once', async () => {
    const t = open();
    t.world.autoAnswer = false;
    t.controller.addFiles(photos(4));
    await until(() => ready(t.state()));
    t.controller.requestUpload();
    await until(() => t.world.pending.size === 3, 'three uploads in flight');
    const hung = [...t.world.pending.values()].map((p) => p.signal);

    // The connections died in the suspend without a word: the wake restarts them.
    t.world.wake(2 * 3600_000);
    await until(() => hung.every((signal) => signal.aborted) && t.world.pending.size === 3, 'the uploads to start again');
    // Wi-Fi is still coming back: more network errors than a photo has attempts (3), none counted.
    for (let round = 0; round < 4; round++) {
      await until(() => t.world.pending.size > 0, 'an attempt');
      for (const pending of [...t.world.pending.values()]) pending.reject(Object.assign(new Error('Network Error'), { name: 'ERR_NETWORK' }));
      await jest.advanceTimersByTimeAsync(1500);
    }
    t.world.autoAnswer = true;
    for (const pending of [...t.world.pending.values()]) pending.resolve();
    await until(() => idle(t.state()), 'the batch to end');
    expect(t.world.stored.size).toBe(4);
    expect(t.state().queue.failures).toBe(0);
    expect(t.state().queue.files).toHaveLength(0);
  });
});

describe('BatchController: the allowance', () => {
  it('a failed usage fetch disables Upload (fails closed) until Try again succeeds', async () => {
    const t = open(fakeServices({ world: { failUsage: true } }));
    t.controller.addFiles(photos(2));
    await until(() => t.state().allowance.kind === 'unknown' && t.state().queue.checks.kind === 'idle');
    expect(t.state().allowance).toEqual({ kind: 'unknown', reason: 'Request failed with status 500' });
    t.controller.requestUpload();
    await jest.advanceTimersByTimeAsync(1000);
    expect(t.world.puts).toHaveLength(0);

    t.world.failUsage = false;
    t.controller.retryAllowance();
    await until(() => t.state().allowance.kind === 'known');
    expect(remainingOf(t.state().allowance)).toBe(15);
  });

  it('successes count at once: a second batch before the usage is fetched again cannot overdraw', async () => {
    const t = open();
    t.world.autoAnswer = false;
    t.controller.addFiles(photos(20));
    await until(() => ready(t.state()));
    t.controller.requestUpload();
    expect(t.state().confirm).toEqual({ remaining: 15, listed: 20 });
    t.controller.answerConfirm(true);
    for (let done = 0; done < 15; done++) {
      await until(() => t.world.pending.size > 0);
      [...t.world.pending.values()][0]!.resolve();
    }
    await until(() => t.state().queue.batch.kind === 'idle');
    expect(remainingOf(t.state().allowance)).toBe(0);
    t.controller.retryFile(t.state().queue.files[0]!.id);
    expect(t.state().queue.notice).toBe('Nothing can be uploaded: your monthly limit is used up. Upgrade your subscription to upload more images.');
    expect(t.world.stored.size).toBe(15);
  });

  it("another tab's successes count here at once, before this tab fetches the usage again", async () => {
    const tabs = fakeTabsBus();
    const locks = fakeLocks();
    const a = open(fakeServices({ tabs, locks }));
    const b = open(fakeServices({ tabs, locks }));
    await until(() => b.state().allowance.kind === 'known' && a.state().allowance.kind === 'known');
    await jest.advanceTimersByTimeAsync(1000);
    a.world.autoAnswer = false;
    a.controller.addFiles(photos(10));
    await until(() => ready(a.state()));
    a.controller.requestUpload();
    for (let done = 0; done < 3; done++) {
      await until(() => a.world.pending.size > 0);
      [...a.world.pending.values()][0]!.resolve();
      await until(() => a.world.tracked.length === done + 1, 'the success to be recorded');
    }
    // b's own usage fetch (its fake API) still says 985: the 3 come from a, by the channel.
    expect(remainingOf(b.state().allowance)).toBe(12);
  });
});

describe('BatchController: two tabs', () => {
  it('never run the same files at once: the second waits for the first, then skips what it sent', async () => {
    const tabs = fakeTabsBus();
    const locks = fakeLocks();
    const a = open(fakeServices({ tabs, locks, ranchMax: 10_000 }));
    const shared = fakeServices({ tabs, locks, ranchMax: 10_000, journal: a.journal });
    const b = open(shared);
    const card = photos(6);
    a.world.autoAnswer = false;
    a.controller.addFiles(card);
    b.controller.addFiles(card);
    await until(() => ready(a.state()) && ready(b.state()));
    a.controller.requestUpload();
    await until(() => a.world.pending.size > 0);
    b.controller.requestUpload();
    await until(() => b.state().waitingForOtherTab, 'the second tab to wait');
    expect(b.world.puts).toHaveLength(0);

    a.world.autoAnswer = true;
    for (const p of [...a.world.pending.values()]) p.resolve();
    await until(() => idle(a.state()) && idle(b.state()), 'both batches to end');
    expect(a.world.stored.size).toBe(6);
    expect(b.world.puts).toHaveLength(0);
    expect(b.state().queue.notice).toBe('6 files skipped: 6 already uploaded.');
  });
});

describe('BatchController: sending', () => {
  it('a photo still being checked when Upload is pressed joins the running batch once found new', async () => {
    const t = open();
    // The journal knows a photo of this size (another photo): the new one is held until it is read.
    await t.journal.putEntries([
      {
        owner: 'sub-1',
        ranchId: 'mesquite-flats',
        fingerprint: 'v1-10-other-1234',
        batchId: null,
        name: 'OLD.JPG',
        path: '',
        size: 10,
        lastModified: 1,
        key: 'old.jpg',
        status: 'uploaded',
        updatedAt: Date.now(),
      },
    ]);
    let read!: () => void;
    const slow = photo('SLOW.JPG', 'slow-12345', { readAfter: new Promise<void>((r) => (read = r)) });
    t.world.autoAnswer = false;
    t.controller.addFiles([photo('FAST.JPG', 'a-longer-content'), slow]);
    await until(() => t.state().queue.files.length === 1 && t.state().allowance.kind === 'known', 'the fast one to be listed');
    t.controller.requestUpload();
    await until(() => t.world.pending.size === 1);
    read();
    await until(() => t.world.pending.size === 2, 'the slow one to join the batch');
    for (const p of [...t.world.pending.values()]) p.resolve();
    await until(() => idle(t.state()));
    expect(t.world.stored.size).toBe(2);
    expect(t.state().queue).toMatchObject({ uploaded: 2, total: 2 });
  });

  it('a photo found new while Upload waits to start (another tab holds the lock) joins the batch when it starts', async () => {
    const locks = fakeLocks();
    const tabs = fakeTabsBus();
    const other = open(fakeServices({ locks, tabs, world: { autoAnswer: false } }));
    other.controller.addFiles(photos(1, 'OTHER_'));
    await until(() => ready(other.state()), 'the other tab’s file to be checked');
    other.controller.requestUpload();
    await until(() => other.world.pending.size === 1, 'the other tab to upload');

    // The ranch has a photo of the slow one's size (from another device): it is held until read.
    const t = open(fakeServices({ locks, tabs, server: other.world }));
    other.world.serverPhotos.add('v1-10-from-another-device');
    let read!: () => void;
    const slow = photo('SLOW.JPG', 'slow-12345', { readAfter: new Promise<void>((r) => (read = r)) });
    t.controller.addFiles([photo('FAST.JPG', 'a-longer-content'), slow]);
    await until(() => t.state().queue.files.length === 1 && t.state().allowance.kind === 'known', 'the fast one to be listed');
    t.controller.requestUpload();
    await until(() => t.state().waitingForOtherTab, 'this tab to wait for the lock');
    read();
    await until(() => t.state().queue.files.length === 2, 'the slow one to be listed');
    for (const p of [...other.world.pending.values()]) p.resolve();
    await until(() => idle(t.state()) && t.state().queue.files.length === 0, 'this batch to send both');
    expect(t.world.stored.size).toBe(2);
  });

  it('sends with the chosen camera and level, records analytics, and a file once sent keeps its target', async () => {
    const t = open();
    t.controller.setCamera('Windmill Tank');
    await uploadAll(t, photos(2));
    // Each with its upload slot's reservation and its fingerprint, for the server to count and know it by.
    const slot = { reservation: expect.stringMatching(/^r-\d{4}_\d{2}-/) as unknown, fingerprint: expect.stringMatching(/^v1-/) as unknown, form: 'original' };
    expect([...t.world.stored.values()]).toEqual([
      { level: 'public', cameraName: 'Windmill Tank', ranchId: 'mesquite-flats', ...slot },
      { level: 'public', cameraName: 'Windmill Tank', ranchId: 'mesquite-flats', ...slot },
    ]);
    expect(t.world.tracked.map((e) => e.name)).toEqual(['imageUpload', 'imageUpload', 'batchOutcome']);
    // The batch's outcome: counts, bytes and times, nothing that names the ranch, a file or a member.
    const outcome = t.world.tracked[2]!;
    expect(outcome).toMatchObject({ photos: 2, retries: 0, skippedDuplicates: 0, stopped: false });
    expect(JSON.stringify(outcome)).not.toMatch(/mesquite|\.jpe?g|@|public\//i);
  });
});

describe('BatchController: a whole card', () => {
  const browning = { make: 'Browning', model: 'BTC-8E', serial: 'B1234' };
  const stealth = { make: 'Stealth Cam', model: 'G42NG' };
  const card = (n: number, exif: object, prefix = 'IMG_') =>
    Array.from({ length: n }, (_, i) =>
      photo(`${prefix}${String(i + 1).padStart(4, '0')}.JPG`, `${prefix}${i + 1}`.padEnd(12, '.'), {
        exif: { captureTime: `2026-10-0${(i % 9) + 1}T05:12:44`, ...exif },
      }),
    );

  it('sends each photo with what its EXIF says', async () => {
    const t = open();
    const [a] = card(1, { ...browning, captureOffset: '-05:00' });
    await uploadAll(t, [a!]);
    const [key] = [...t.world.stored.keys()];
    expect(t.world.photos.get(key!)).toEqual({ captureTime: '2026-10-01T05:12:44', captureOffset: '-05:00', ...browning });
  });

  it('remembers the camera a camera’s photos were sent as, and preselects it for that camera’s next card', async () => {
    const prefs = storedPreferences(mapStorage());
    const first = open(fakeServices({ prefs }));
    await until(() => first.state().cameras.length > 0, 'the cameras');
    first.controller.setCamera('Windmill Tank');
    await uploadAll(first, card(3, browning));
    first.controller.dispose();

    // Another visit: the same camera's next card.
    const next = open(fakeServices({ prefs }));
    next.controller.addFiles(card(2, browning, 'NEXT_'));
    await until(() => ready(next.state()) && next.state().cameras.length > 0, 'the next card to be checked');
    expect(next.state().choices.camera).toBe('Windmill Tank');

    // Another camera's card suggests nothing; "Indicate camera" stays.
    const other = open(fakeServices({ prefs }));
    other.controller.addFiles(card(2, stealth, 'STEALTH_'));
    await until(() => ready(other.state()), 'the other card to be checked');
    expect(other.state().choices.camera).toBe('');
  });

  it('Upload clicked before the checks read the EXIF: the photos still carry it, and the camera is still remembered', async () => {
    const prefs = storedPreferences(mapStorage());
    const t = open(fakeServices({ prefs }));
    await until(() => t.state().cameras.length > 0 && t.state().allowance.kind === 'known', 'the account');
    t.controller.setCamera('Windmill Tank');
    let read!: () => void;
    const slowCard = new Promise<void>((resolve) => (read = resolve));
    const files = [1, 2].map((i) =>
      photo(`IMG_000${i}.JPG`, `slow-${i}`.padEnd(12, '.'), { exif: { captureTime: '2026-10-03T05:12:44', ...browning }, readAfter: slowCard }),
    );
    t.controller.addFiles(files);
    await until(() => t.state().queue.files.length === 2, 'the files to be listed');
    expect(t.state().queue.checks.kind).toBe('running');
    t.controller.requestUpload();
    await until(() => t.state().queue.batch.kind === 'running', 'the batch to start');
    read();
    await until(() => idle(t.state()) && t.state().queue.files.length === 0, 'the batch to end');
    expect([...t.world.photos.values()].map((p) => p.model)).toEqual(['BTC-8E', 'BTC-8E']);
    expect(prefs.cameraNames('mesquite-flats').get('browning|btc-8e|b1234')).toBe('Windmill Tank');
  });

  it('a mixed selection is not given a camera, and a camera the user chose is never replaced', async () => {
    const prefs = storedPreferences(mapStorage());
    prefs.rememberCamera('mesquite-flats', 'browning|btc-8e|b1234', 'Windmill Tank');
    const mixed = open(fakeServices({ prefs }));
    mixed.controller.addFiles([...card(2, browning), ...card(1, stealth, 'S_')]);
    await until(() => ready(mixed.state()), 'the selection to be checked');
    expect(mixed.state().choices.camera).toBe('');

    const chosen = open(fakeServices({ prefs }));
    chosen.controller.setCamera('Sendero East');
    chosen.controller.addFiles(card(2, browning));
    await until(() => ready(chosen.state()), 'the selection to be checked');
    expect(chosen.state().choices.camera).toBe('Sendero East');
  });

  it('a picked folder is walked, subfolders too; system files and videos are counted in the one notice', async () => {
    const t = open();
    const photos = card(3, browning);
    const handle = dir('DCIM', [
      dir('100MEDIA', [...photos.slice(0, 2).map(fileHandle), fileHandle(new File(['x'], 'CLIP0001.AVI'))]),
      dir('101MEDIA', [fileHandle(photos[2]!)]),
      fileHandle(new File(['x'], '.DS_Store')),
    ]);
    t.controller.addFolder(handle);
    await until(() => ready(t.state()) && t.state().queue.files.length === 3, 'the folder to be listed');
    expect(t.state().queue.files.map((f) => f.path)).toEqual(['DCIM/100MEDIA/IMG_0001.JPG', 'DCIM/100MEDIA/IMG_0002.JPG', 'DCIM/101MEDIA/IMG_0003.JPG']);
    expect(t.state().queue.notice).toBe('2 files skipped: 1 video, 1 hidden or system file.');
    expect(t.state().reading).toBeNull();
  });

  it('Resume reads the kept folder again after asking, and sends only what did not go up', async () => {
    const journal = memoryJournal();
    const photos = card(4, browning);
    let permission = 'prompt';
    const asked: string[] = [];
    const handle = Object.assign(dir('DCIM', photos.map(fileHandle)), {
      queryPermission: async () => permission,
      requestPermission: async () => (asked.push('read'), permission),
    });
    const first = open(fakeServices({ journal, world: { autoAnswer: false } }));
    first.controller.addFolder(handle);
    await until(() => ready(first.state()) && first.state().queue.files.length === 4, 'the folder to be listed');
    first.controller.requestUpload();
    await until(() => first.world.pending.size === 3, 'three uploads in flight');
    [...first.world.pending.values()][0]!.resolve();
    await until(() => first.state().queue.uploaded === 1, 'one upload');
    first.controller.dispose(); // the tab crashed

    const denied = open(fakeServices({ journal }));
    await until(() => denied.state().offer !== null, 'the resume offer');
    expect(denied.state().offer?.folder).toBe('DCIM');
    permission = 'denied';
    expect(await denied.controller.resumeFromFolder()).toBe(false);
    expect(denied.state().queue.notice).toBe(FOLDER_NOT_ALLOWED);
    denied.controller.dispose();

    const again = open(fakeServices({ journal }));
    await until(() => again.state().offer !== null, 'the resume offer');
    permission = 'granted';
    expect(await again.controller.resumeFromFolder()).toBe(true);
    await until(() => ready(again.state()) && again.state().queue.files.length === 3, 'the rest to be listed');
    expect(again.state().queue.notice).toBe('1 file skipped: 1 already uploaded.');
    again.controller.requestUpload();
    await until(() => idle(again.state()) && again.state().queue.files.length === 0, 'the rest to be sent');
    expect(again.world.stored.size).toBe(3);
    expect(asked).toEqual(['read']); // asked once: the second visit found it granted
  });

  it('files a walk could not read are named in the notice; the rest are listed', async () => {
    const t = open();
    const [a] = card(1, browning);
    t.controller.addWalk(async (onProgress) => {
      onProgress(500);
      return { files: [{ file: a!, path: 'DCIM/IMG_0001.JPG' }], unreadable: [{ path: 'DCIM/101MEDIA', reason: 'NotReadableError' }] };
    });
    await until(() => ready(t.state()) && t.state().queue.files.length === 1, 'the walk to be listed');
    expect(t.state().queue.notice).toBe('1 file skipped: 101MEDIA (could not be read).');
  });

  it('measures the speed while sending (nothing at first), and remembers it for the next summary', async () => {
    const t = open(fakeServices({ world: { autoAnswer: false } }));
    const big = Array.from({ length: 12 }, (_, i) => photo(`BIG_${i}.JPG`, `big-${i}`.padEnd(512 * 1024, '.')));
    t.controller.addFiles(big);
    await until(() => ready(t.state()), 'the files to be checked');
    expect(t.state().recentSpeed).toBeNull();
    t.controller.requestUpload();
    await until(() => t.world.pending.size === 3, 'uploads in flight');
    // One 512 KiB photo confirmed per second.
    const seen: (number | null)[] = [];
    while (t.state().queue.uploaded < 12) {
      await jest.advanceTimersByTimeAsync(1000);
      [...t.world.pending.values()][0]?.resolve();
      await jest.advanceTimersByTimeAsync(0);
      seen.push(t.state().speed?.bytesPerSecond ?? null);
    }
    expect(seen[0]).toBeNull(); // honest at the start
    const last = seen.at(-2)!;
    expect(last / (512 * 1024)).toBeCloseTo(1, 1);
    await until(() => idle(t.state()), 'the batch to end');
    expect(t.state().speed).toBeNull();
    expect(t.state().recentSpeed! / (512 * 1024)).toBeCloseTo(1, 1);
  });
});

/** A fake FileSystemDirectoryHandle over files and folders (the File System Access API's shape). */
function dir(name: string, children: { kind: 'file' | 'directory'; name: string }[]) {
  return {
    kind: 'directory' as const,
    name,
    async *values() {
      yield* children;
    },
  };
}
function fileHandle(file: File) {
  return { kind: 'file' as const, name: file.name, getFile: async () => file };
}

describe('BatchController: the server vouches (upload slots, photos known on every device, one month)', () => {
  it('two members of one ranch with 15 left pick 15 each and upload together: 15 go up, the rest stay "not sent" with the reason', async () => {
    const a = open();
    const b = open(fakeServices({ server: a.world }));
    a.controller.addFiles(photos(15, 'A_'));
    b.controller.addFiles(photos(15, 'B_'));
    await until(() => ready(a.state()) && ready(b.state()), 'both lists to be checked');
    expect(remainingOf(a.state().allowance)).toBe(15);
    expect(remainingOf(b.state().allowance)).toBe(15);
    a.controller.requestUpload();
    b.controller.requestUpload();
    await until(() => a.state().queue.batch.kind === 'running' || idle(a.state()), 'a to start');
    await until(() => idle(a.state()) && idle(b.state()), 'both batches to end');

    expect(a.world.stored.size + b.world.stored.size).toBe(15);
    expect(a.world.usageTotal).toBe(1000);
    const notSent = [...a.state().queue.files, ...b.state().queue.files].filter((f) => f.status.kind === 'not-sent');
    expect(notSent).toHaveLength(15);
    expect(notSent.every((f) => f.status.kind === 'not-sent' && f.status.reason === 'limit')).toBe(true);
    for (const t of [a, b]) {
      const left = t.state().queue.files.length;
      if (left > 0)
        expect(t.state().queue.notice).toBe(
          `Your ranch reached its monthly limit while this batch ran: ${left} ${left === 1 ? 'photo was' : 'photos were'} not sent.`,
        );
    }
    // The slots not used went back at once.
    expect(a.world.heldSlots).toBe(0);
  });

  it('a photo not sent for lack of a slot goes when Upload is pressed after the limit allows it again', async () => {
    const t = open(fakeServices({ world: { usageTotal: 998 } }));
    t.controller.addFiles(photos(3));
    await until(() => ready(t.state()), 'the files to be checked');
    // The member sees 2 left and agrees to send those; meanwhile another member took one.
    t.world.usageTotal = 999;
    t.controller.requestUpload();
    t.controller.answerConfirm(true);
    await until(() => idle(t.state()) && t.state().queue.files.some((f) => f.status.kind === 'not-sent'), 'the batch to end');
    expect(t.world.stored.size).toBe(1);
    expect(t.state().queue.notice).toMatch(/photos? (was|were) not sent\.$/);
    // Next month (or a raised limit): the same files go.
    t.world.usageTotal = 0;
    await t.controller.fetchUsage();
    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.state().queue.files.length === 0, 'the rest to go');
    expect(t.world.stored.size).toBe(3);
  });

  it('the same card from a second browser (nothing in its journal): every photo is known to the server, skipped, none sent', async () => {
    const first = open();
    const card = photos(5);
    await uploadAll(first, card);
    expect(first.world.stored.size).toBe(5);

    const second = open(fakeServices({ server: first.world }));
    second.controller.addFiles(card);
    await until(() => idle(second.state()) && second.state().queue.notice !== null, 'the pick to be checked');
    expect(second.state().queue.files).toHaveLength(0);
    expect(second.state().queue.notice).toBe('5 files skipped: 5 already uploaded.');
    expect(second.world.puts).toHaveLength(0);
  });

  it('a photo the server learns of between the check and the upload is skipped by the reservation, not sent', async () => {
    const t = open();
    const card = photos(3);
    t.controller.addFiles(card);
    await until(() => ready(t.state()), 'the files to be checked');
    // Another member's device sent the second photo meanwhile.
    t.world.serverPhotos.add(t.state().queue.files[1]!.fingerprint!);
    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.state().queue.files.length === 0, 'the batch to end');
    expect(t.world.puts).toHaveLength(2);
    expect(t.state().queue.notice).toBe('1 file skipped: 1 already uploaded.');
  });

  it("the firewall's 429 is waited out as its Retry-After says, in words on screen, then the batch goes on by itself", async () => {
    const t = open();
    const edge = UPLOADS_EDGE_ANSWERS.rateLimited;
    t.world.failReserve = new ApiRequestError({ kind: 'http', status: edge.status, message: edge.message, retryAfterMs: edge.retryAfterSeconds * 1000 });
    t.controller.addFiles(photos(2));
    await until(() => ready(t.state()), 'the files to be checked');
    t.controller.requestUpload();
    await until(() => t.state().serverWait !== null, 'the wait to be said');
    expect(t.state().serverWait!.why).toBe('address');
    expect(serverWaitMessage(t.state().serverWait!.seconds, t.state().serverWait!.why)).toBe(
      'The upload service asked to wait: too many requests came from this network address. Uploading continues by itself in 60 seconds.',
    );
    t.world.failReserve = null;
    await jest.advanceTimersByTimeAsync(59_000);
    expect(t.world.stored.size).toBe(0);
    await until(() => idle(t.state()) && t.state().queue.files.length === 0, 'the batch to end');
    expect(t.world.stored.size).toBe(2);
    expect(t.state().serverWait).toBeNull();
  });

  it("the firewall's refusal (403) leaves the photos not sent, and the notice says the firewall refused this address", async () => {
    const t = open();
    const { status, message } = UPLOADS_EDGE_ANSWERS.refused;
    t.world.failReserve = new ApiRequestError({ kind: 'http', status, message });
    t.controller.addFiles(photos(2));
    await until(() => ready(t.state()), 'the files to be checked');
    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.state().queue.files.every((f) => f.status.kind === 'not-sent'), 'the batch to end');
    expect(t.world.puts).toHaveLength(0);
    expect(t.state().queue.notice).toBe(
      '2 photos were not sent: the upload service’s firewall refused requests from this network address. Try again later or from another connection.',
    );
  });

  it('when slots cannot be reserved (the API is down), nothing is sent and the list says why; Upload again sends', async () => {
    const t = open();
    t.world.failReserve = new Error('Network Error');
    t.controller.addFiles(photos(2));
    await until(() => ready(t.state()), 'the files to be checked');
    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.state().queue.files.every((f) => f.status.kind === 'not-sent'), 'the batch to end');
    expect(t.world.puts).toHaveLength(0);
    expect(t.state().queue.notice).toBe('2 photos were not sent: the server could not be asked for upload slots. Press Upload to try them again.');
    t.world.failReserve = null;
    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.state().queue.files.length === 0, 'the batch to end');
    expect(t.world.stored.size).toBe(2);
  });

  it.each([
    ['23:30 on Oct 31 in America/Chicago', '2026-11-01T04:30:00Z'],
    ['00:30 on Nov 1 UTC', '2026-11-01T00:30:00Z'],
  ])('at %s the allowance is asked for November, the month the server counts in', async (_when, at) => {
    jest.setSystemTime(new Date(at));
    const asked: string[] = [];
    const services = fakeServices();
    const metrics = services.services.uploads.getUploadMetrics.bind(services.services.uploads);
    services.services.uploads.getUploadMetrics = (ranchId, yearmo) => (asked.push(yearmo), metrics(ranchId, yearmo));
    const t = open(services);
    await until(() => t.state().allowance.kind === 'known', 'the allowance');
    expect(asked).toEqual(['2026_11']);
  });

  it('a browser clock off at the turn of the month shows the server’s month: asked again for the month the server names', async () => {
    jest.setSystemTime(new Date('2026-10-31T23:58:00Z'));
    const asked: string[] = [];
    const services = fakeServices({ world: { serverMonth: '2026_11' } });
    const metrics = services.services.uploads.getUploadMetrics.bind(services.services.uploads);
    services.services.uploads.getUploadMetrics = (ranchId, yearmo) => (asked.push(yearmo), metrics(ranchId, yearmo));
    const t = open(services);
    await until(() => t.state().allowance.kind === 'known', 'the allowance');
    expect(asked).toEqual(['2026_10', '2026_11']);
  });
});

describe('BatchController: slots a batch left behind', () => {
  it('a page reloaded mid-batch leaves its reservation; the next visit gives its unused slots back at once', async () => {
    const prefs = storedPreferences(mapStorage());
    const first = open(fakeServices({ prefs, world: { autoAnswer: false } }));
    first.controller.addFiles(photos(5));
    await until(() => ready(first.state()), 'the files to be checked');
    first.controller.requestUpload();
    await until(() => first.world.pending.size > 0, 'uploads to be in flight');
    expect(first.world.heldSlots).toBe(5);
    const [reservation] = prefs.openReservations('sub-1/mesquite-flats');
    expect(reservation).toMatch(/^r-/);

    // The page is gone (its lock with it); the same browser opens the uploader again.
    const again = open(fakeServices({ prefs, server: first.world }));
    await until(() => first.world.released.length > 0, 'the slots to be given back');
    expect(first.world.released).toEqual([reservation]);
    expect(prefs.openReservations('sub-1/mesquite-flats')).toEqual([]);
    await until(() => again.state().allowance.kind === 'known', 'the allowance');
  });

  it('never gives back the slots of a batch still running in another tab (the upload lock is taken)', async () => {
    const prefs = storedPreferences(mapStorage());
    const locks = fakeLocks();
    const tabs = fakeTabsBus();
    const running = open(fakeServices({ prefs, locks, tabs, world: { autoAnswer: false } }));
    running.controller.addFiles(photos(3));
    await until(() => ready(running.state()), 'the files to be checked');
    running.controller.requestUpload();
    await until(() => running.world.pending.size > 0, 'uploads to be in flight');

    open(fakeServices({ prefs, locks, tabs, server: running.world }));
    await jest.advanceTimersByTimeAsync(1000);
    expect(running.world.released).toEqual([]);
    expect(prefs.openReservations('sub-1/mesquite-flats')).toHaveLength(1);
  });
});

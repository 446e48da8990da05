/**
 * @jest-environment node
 */
// The camera-clock stage (controller/stages/clock/, docs/uploader.md#camera-clocks): its settings
// as the journal keeps them, a photo's EXIF as they leave it, and the stage in a running batch
// through the one controller harness — the corrected time and the turn reach what is sent, a
// crash mid-batch keeps the correction, Clear List forgets it. On jest's fake clock.
import {
  CLOCK_STAGE,
  correctedExif,
  parseClockSettings,
  photoKey,
  withCorrection,
  withTurn,
  NO_CLOCK_SETTINGS,
} from '../src/features/upload/controller/stages/clock/clock-settings';
import { clockView, correctRunTo } from '../src/features/upload/controller/stages/clock/clock-view';
import type { PhotoExif } from '../src/features/upload/model/photo-exif';
import type { ListedFile } from '../src/features/upload/model/upload-queue';
import { fakeServices, photo } from './support/fake-services';
import { idle, open, ready, until } from './support/controller-harness';

const NOW = new Date('2026-11-21T22:00:00Z');
beforeEach(() => jest.useFakeTimers({ now: NOW }));
afterEach(() => jest.useRealTimers());

const BROWNING = { make: 'Browning', model: 'BTC-8E', serial: 'BR-9' };
const CAMERA = 'browning|btc-8e|br-9';
/** Three photos with the clock right, then three after the batteries were changed. */
const CARD: readonly [string, string][] = [
  ['IMG_0001.JPG', '2026-11-10T06:00:00'],
  ['IMG_0002.JPG', '2026-11-11T06:00:00'],
  ['IMG_0003.JPG', '2026-11-12T06:00:00'],
  ['IMG_0004.JPG', '2000-01-01T00:00:12'],
  ['IMG_0005.JPG', '2000-01-01T06:10:00'],
  ['IMG_0006.JPG', '2000-01-02T19:30:00'],
];
const card = () => CARD.map(([name, captureTime], i) => photo(name, `photo-${i}-${name}`, { exif: { ...BROWNING, captureTime } }));
const listedOf = (name: string, exif: PhotoExif | null, size = 100): ListedFile => ({
  id: name,
  key: `${name}.jpg`,
  name,
  path: `DCIM/100MEDIA/${name}`,
  size,
  lastModified: 1,
  file: new Blob(['x']),
  status: { kind: 'waiting' },
  exif,
});

describe('the clock settings', () => {
  it('keep what is well formed from a journal record and drop the rest', () => {
    expect(parseClockSettings(null)).toBe(NO_CLOCK_SETTINGS);
    expect(parseClockSettings('junk')).toBe(NO_CLOCK_SETTINGS);
    const read = parseClockSettings({
      corrections: [
        { camera: CAMERA, offsetSeconds: 3600 },
        { camera: CAMERA, offsetSeconds: 0 },
        { camera: CAMERA, offsetSeconds: 1.5 },
        { camera: CAMERA, offsetSeconds: 1e12 },
        { camera: 7, offsetSeconds: 60 },
        { camera: CAMERA, offsetSeconds: -60, ids: ['a|1', 2] },
        { camera: CAMERA, offsetSeconds: -60, ids: ['a|1'] },
        'junk',
      ],
      turns: { [CAMERA]: 90, other: 45, third: '180' },
      kept: ['x', 3],
    });
    expect(read).toEqual({
      corrections: [
        { camera: CAMERA, offsetSeconds: 3600 },
        { camera: CAMERA, offsetSeconds: -60, ids: ['a|1'] },
      ],
      turns: { [CAMERA]: 90 },
      kept: ['x'],
    });
  });

  it('move only the photos a correction names, keep the camera’s own time beside the new one, and turn the camera’s photos', () => {
    const run = listedOf('IMG_0004.JPG', { ...BROWNING, captureTime: '2000-01-01T00:00:12', captureOffset: '-06:00' });
    const before = listedOf('IMG_0003.JPG', { ...BROWNING, captureTime: '2026-11-12T06:00:00' });
    const other = listedOf('PICT0001.JPG', { make: 'Stealth Cam', model: 'G42NG', captureTime: '2000-01-01T00:00:12' });
    let settings = withCorrection(NO_CLOCK_SETTINGS, { camera: CAMERA, offsetSeconds: 86_400 + 3600, ids: [photoKey(run)] });
    settings = withTurn(settings, CAMERA, 270);
    expect(correctedExif(run.exif!, run, settings)).toEqual({
      ...BROWNING,
      captureTime: '2000-01-02T01:00:12',
      captureOffset: '-06:00',
      cameraCaptureTime: '2000-01-01T00:00:12',
      turn: 270,
    });
    expect(correctedExif(before.exif!, before, settings)).toEqual({ ...before.exif, turn: 270 });
    expect(correctedExif(other.exif!, other, settings)).toBe(other.exif);
    // A whole-camera correction after the run's adds up, and still names the camera's own value.
    settings = withCorrection(settings, { camera: CAMERA, offsetSeconds: -3600 });
    expect(correctedExif(run.exif!, run, settings)).toMatchObject({ captureTime: '2000-01-02T00:00:12', cameraCaptureTime: '2000-01-01T00:00:12' });
    expect(correctedExif(before.exif!, before, settings)).toMatchObject({ captureTime: '2026-11-12T05:00:00', cameraCaptureTime: '2026-11-12T06:00:00' });
    // A photo without EXIF belongs to the batch's camera: turned when that one is, never moved.
    const bare = listedOf('SCAN.JPG', null);
    expect(correctedExif(null, bare, withTurn(NO_CLOCK_SETTINGS, '', 180))).toEqual({ turn: 180 });
  });

  it('name photos by path and size, so a card listed again after a reload finds its corrections', () => {
    expect(photoKey({ path: 'DCIM/100MEDIA/IMG_0004.JPG', name: 'IMG_0004.JPG', size: 4096 })).toBe('DCIM/100MEDIA/IMG_0004.JPG|4096');
    expect(photoKey({ path: '', name: 'IMG_0004.JPG', size: 4096 })).toBe('IMG_0004.JPG|4096');
  });
});

describe('the clock stage in a batch', () => {
  it('finds the run, corrects it in one step, and sends the corrected times beside the camera’s own; the list shows them first', async () => {
    const t = open(fakeServices(), { concurrency: 2 });
    t.controller.addFiles(card());
    await until(() => ready(t.state()) && t.state().queue.files.length === 6, 'the card to be listed');
    const files = t.state().queue.files;
    const view = clockView(files, NO_CLOCK_SETTINGS, NOW.getTime(), '');
    expect(view.runs).toHaveLength(1);
    expect(view.runs[0]!.ids).toHaveLength(3);
    const made = correctRunTo(view, view.runs[0]!, new Date('2026-11-13T07:00:00Z'), NOW.getTime());
    expect(made.verdict).toEqual({ ok: true, moved: 3 });
    t.controller.setStageSettings(CLOCK_STAGE, withCorrection(NO_CLOCK_SETTINGS, made.correction));

    // Before anything is sent: the list reads the corrected times, and the run is gone.
    const shown = files.map((f) => t.controller.exifFor(f)?.captureTime);
    expect(shown).toEqual([
      '2026-11-10T06:00:00',
      '2026-11-11T06:00:00',
      '2026-11-12T06:00:00',
      '2026-11-13T07:00:00',
      '2026-11-13T13:09:48',
      '2026-11-15T02:29:48',
    ]);
    const settings = parseClockSettings(t.state().stageSettings[CLOCK_STAGE]);
    expect(clockView(t.state().queue.files, settings, NOW.getTime(), '').runs).toEqual([]);

    t.controller.requestUpload();
    await until(() => idle(t.state()) && t.world.stored.size === 6, 'the batch to end');
    const sent = [...t.world.photos.values()];
    expect(sent).toEqual(
      expect.arrayContaining([
        { ...BROWNING, captureTime: '2026-11-12T06:00:00' },
        { ...BROWNING, captureTime: '2026-11-13T07:00:00', cameraCaptureTime: '2000-01-01T00:00:12' },
        { ...BROWNING, captureTime: '2026-11-15T02:29:48', cameraCaptureTime: '2000-01-02T19:30:00' },
      ]),
    );
    // All of it went up: the batch is done, and its settings with it.
    expect(t.state().stageSettings).toEqual({});
  });

  it('keeps the correction with the batch: a page opened after a crash resumes it corrected; Clear List forgets it', async () => {
    const first = open(fakeServices(), { concurrency: 1 });
    first.world.autoAnswer = false;
    first.controller.addFiles(card());
    await until(() => ready(first.state()) && first.state().queue.files.length === 6);
    const view = clockView(first.state().queue.files, NO_CLOCK_SETTINGS, NOW.getTime(), '');
    const { correction } = correctRunTo(view, view.runs[0]!, new Date('2026-11-13T07:00:00Z'), NOW.getTime());
    first.controller.setStageSettings(CLOCK_STAGE, withTurn(withCorrection(NO_CLOCK_SETTINGS, correction), CAMERA, 90));
    first.controller.requestUpload();
    await until(() => first.world.pending.size === 1, 'an upload in flight');
    // Settings are fixed while the batch runs.
    first.controller.setStageSettings(CLOCK_STAGE, NO_CLOCK_SETTINGS);
    expect(parseClockSettings(first.state().stageSettings[CLOCK_STAGE]).corrections).toHaveLength(1);

    // The tab crashes; a new page opens on the same journal and resumes.
    const second = open(fakeServices({ journal: first.journal }), { concurrency: 2 });
    await until(() => second.state().offer !== null, 'the resume offer');
    expect(second.state().stageSettings).toEqual({});
    second.controller.resumeOffer();
    expect(parseClockSettings(second.state().stageSettings[CLOCK_STAGE])).toEqual({ corrections: [correction], turns: { [CAMERA]: 90 }, kept: [] });
    second.controller.addFiles(card());
    await until(() => ready(second.state()) && second.state().queue.files.length === 6, 'the card listed again');
    expect(second.state().queue.files.map((f) => second.controller.exifFor(f)?.captureTime)[5]).toBe('2026-11-15T02:29:48');
    second.controller.requestUpload();
    await until(() => idle(second.state()) && second.world.stored.size >= 5, 'the batch to end');
    for (const exif of second.world.photos.values()) expect(exif?.turn).toBe(90);
    expect([...second.world.photos.values()].map((e) => e?.captureTime)).toContain('2026-11-15T02:29:48');

    second.controller.addFiles([photo('IMG_0100.JPG', 'photo-late', { exif: { ...BROWNING, captureTime: '2000-01-03T00:00:00' } })]);
    await until(() => ready(second.state()) && second.state().queue.files.length === 1);
    second.controller.setStageSettings(CLOCK_STAGE, withTurn(NO_CLOCK_SETTINGS, CAMERA, 180));
    second.controller.clear();
    expect(second.state().stageSettings).toEqual({});
  });
});

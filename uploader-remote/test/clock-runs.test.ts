import { cameraKey, cameraLabel, type CameraIdentity } from '../src/features/upload/model/camera-match';
import { clockProblem } from '../src/features/upload/model/clock-check';
import {
  applyCorrection,
  BATCH_CAMERA,
  checkCorrection,
  type ClockPhoto,
  type ClockRun,
  CORRECTION_REFUSALS,
  fileOrder,
  findClockRuns,
  offsetToMake,
  RUN_GAP_DAYS,
  runNotice,
  shiftCaptureTime,
} from '../src/features/upload/controller/stages/clock/clock-runs';

/** A capture time as model/photo-exif.ts `captureDate` builds it: the camera's clock in the UTC fields. */
const at = (text: string): Date => new Date(`${text}Z`);
const now = Date.parse('2026-11-22T12:00:00Z');
const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const BROWNING: CameraIdentity = { make: 'Browning', model: 'BTC-8E', serial: 'K123' };
const SPYPOINT: CameraIdentity = { make: 'SPYPOINT', model: 'FORCE-20' };
const B = cameraKey(BROWNING)!;
const S = cameraKey(SPYPOINT)!;
const label = (camera: string): string => (camera === B ? cameraLabel(BROWNING) : camera === S ? cameraLabel(SPYPOINT) : 'The camera chosen');

/** `count` capture times from `start` (camera clock), `stepSeconds` apart. */
function every(start: string, count: number, stepSeconds: number): string[] {
  const from = at(start).getTime();
  return Array.from({ length: count }, (_, i) => new Date(from + i * stepSeconds * 1000).toISOString().slice(0, 19));
}

/** A camera's photos as it numbers them: IMG_<first>.JPG, IMG_<first + 1>.JPG… in `folder` ("" for files picked one by one). */
function shots(camera: string, folder: string, first: number, times: readonly string[]): ClockPhoto[] {
  return times.map((time, i) => {
    const name = `IMG_${String(first + i).padStart(4, '0')}.JPG`;
    const path = folder === '' ? '' : `${folder}/${name}`;
    return { id: `${camera}:${path || name}`, name, path, capture: at(time), camera };
  });
}

/** The same photos listed in another order (as a folder walk may return them), deterministically. */
const shuffled = <T>(items: readonly T[]): T[] =>
  items
    .map((item, i) => ({ item, k: (i * 7919) % 104729 }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.item);
const names = (photos: readonly ClockPhoto[], run: ClockRun): string[] => run.ids.map((id) => photos.find((p) => p.id === id)!.name);

/** Browning, good 10–14 November (IMG_0001–0010), batteries changed, then reset to 2000 (IMG_0011–0016). */
const goodNovember = shots(B, 'DCIM/100MEDIA', 1, [...every('2026-11-10T06:00:00', 9, 11 * HOUR), '2026-11-14T06:02:00']);
const resetRun = shots(B, 'DCIM/100MEDIA', 11, [
  '2000-01-01T00:00:12',
  '2000-01-01T06:40:00',
  '2000-01-01T19:15:30',
  '2000-01-02T05:02:00',
  '2000-01-02T18:44:10',
  '2000-01-03T17:40:00',
]);
const midCard = [...goodNovember, ...resetRun];

describe('findClockRuns', () => {
  it('finds a reset mid-card as one run of exactly the photos after it, in file order', () => {
    const runs = findClockRuns(shuffled(midCard), now);
    expect(runs).toHaveLength(1);
    const [run] = runs as [ClockRun];
    expect(run.camera).toBe(B);
    expect(run.cause).toBe('reset');
    expect(run.ids).toEqual(resetRun.map((p) => p.id));
    expect(run.first).toBe(resetRun[0]);
    expect(run.last).toBe(resetRun[5]);
  });

  it('follows a clock reset to 2020-01-01 into 2020-01-19: one run of all of them', () => {
    const photos = shots(B, 'DCIM/100MEDIA', 1, every('2020-01-01T00:00:05', 37, 12 * HOUR));
    expect(photos[36]!.capture.toISOString()).toBe('2020-01-19T00:00:05.000Z');
    // Alone, the second day looks believable: the run is what finds it.
    expect(clockProblem(photos[2]!.capture, now)).toBeNull();
    const runs = findClockRuns(photos, now);
    expect(runs.map((r) => [r.cause, r.ids.length, r.first.name, r.last.name])).toEqual([['reset', 37, 'IMG_0001.JPG', 'IMG_0037.JPG']]);
  });

  it('finds a run only for the reset camera of two on one card, across DCIM/100MEDIA and 101MEDIA', () => {
    const spypoint = [
      ...shots(S, 'DCIM/100MEDIA', 9998, every('2026-11-08T07:00:00', 2, DAY)),
      ...shots(S, 'DCIM/101MEDIA', 1, every('2026-11-10T07:00:00', 10, 6 * HOUR)),
    ];
    const browning = [
      ...shots(B, 'DCIM/100MEDIA', 1, every('2026-11-09T05:00:00', 3, DAY)),
      ...shots(B, 'DCIM/100MEDIA', 4, every('2010-01-01T00:00:09', 2, HOUR)),
      ...shots(B, 'DCIM/101MEDIA', 5, every('2010-01-01T02:00:09', 4, 9 * HOUR)),
    ];
    // The walk interleaves the cameras' files.
    const listed = shuffled([...spypoint, ...browning]);
    const runs = findClockRuns(listed, now);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.camera).toBe(B);
    expect(runs[0]!.ids).toEqual(browning.slice(3).map((p) => p.id));
    expect(runs[0]!.first.path).toBe('DCIM/100MEDIA/IMG_0004.JPG');
    expect(runs[0]!.last.path).toBe('DCIM/101MEDIA/IMG_0008.JPG');
  });

  it('ends a run where the clock was set right again; the later photos are in none', () => {
    const setRight = shots(B, 'DCIM/100MEDIA', 17, every('2026-11-20T08:00:00', 4, 5 * HOUR));
    const runs = findClockRuns([...midCard, ...setRight], now);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.ids).toEqual(resetRun.map((p) => p.id));
    expect(runs[0]!.last.name).toBe('IMG_0016.JPG');
  });

  it('finds two runs when the clock was reset a second time after being set right', () => {
    const setRight = shots(B, 'DCIM/100MEDIA', 17, every('2026-11-20T08:00:00', 3, 5 * HOUR));
    const again = shots(B, 'DCIM/100MEDIA', 20, every('2000-01-01T00:00:07', 3, 4 * HOUR));
    const photos = [...midCard, ...setRight, ...again];
    const runs = findClockRuns(photos, now);
    expect(runs.map((r) => [r.cause, names(photos, r)])).toEqual([
      ['reset', resetRun.map((p) => p.name)],
      ['reset', ['IMG_0020.JPG', 'IMG_0021.JPG', 'IMG_0022.JPG']],
    ]);
  });

  it('starts a new run at a reset day reached by a step forward, but not across 31 December', () => {
    const photos = shots(B, '', 1, ['2009-11-15T10:00:00', '2009-12-31T23:58:00', '2010-01-01T00:02:00', '2010-01-04T09:00:00']);
    expect(findClockRuns(photos, now).map((r) => [r.cause, r.ids.length])).toEqual([['before-2010', 4]]);
    const reset = shots(B, '', 1, ['2009-11-15T10:00:00', '2009-11-16T10:00:00', '2010-01-01T00:00:05', '2010-01-01T04:00:00']);
    expect(findClockRuns(reset, now).map((r) => [r.cause, r.first.name, r.last.name])).toEqual([
      ['before-2010', 'IMG_0001.JPG', 'IMG_0002.JPG'],
      ['reset', 'IMG_0003.JPG', 'IMG_0004.JPG'],
    ]);
  });

  it(`keeps a run over a pause of ${RUN_GAP_DAYS} days, and ends it at a longer jump ahead`, () => {
    const within = shots(B, '', 1, ['2000-01-01T00:00:10', `2000-04-30T00:00:10`]);
    expect(findClockRuns(within, now).map((r) => r.ids.length)).toEqual([2]);
    const beyond = shots(B, '', 1, ['2000-01-01T00:00:10', '2000-04-30T00:00:11']);
    expect(findClockRuns(beyond, now).map((r) => [r.cause, r.ids.length])).toEqual([
      ['reset', 1],
      ['before-2010', 1],
    ]);
  });

  it('finds nothing for a camera an hour off (daylight saving never set)', () => {
    const photos = [
      ...shots(S, 'DCIM/100MEDIA', 1, every('2026-11-10T07:00:00', 20, 3 * HOUR)),
      ...shots(B, '', 1, every('2026-11-10T08:00:00', 20, 3 * HOUR)),
    ];
    expect(findClockRuns(photos, now)).toEqual([]);
  });

  it('finds a clock set in the future as one run, while it runs on, ended by a jump back to believable times', () => {
    const setRight = shots(B, 'DCIM/100MEDIA', 19, every('2026-11-16T08:00:00', 3, HOUR));
    const photos = [...goodNovember, ...shots(B, 'DCIM/100MEDIA', 11, every('2031-06-01T09:00:00', 8, 7 * HOUR)), ...setRight];
    const runs = findClockRuns(photos, now);
    expect(runs.map((r) => [r.cause, r.first.name, r.last.name, r.ids.length])).toEqual([['future', 'IMG_0011.JPG', 'IMG_0018.JPG', 8]]);
  });

  it('orders runs by camera, and photos naming no camera form their own (BATCH_CAMERA)', () => {
    const photos = [
      ...shots(S, '', 1, every('1980-01-01T00:00:00', 2, HOUR)),
      ...shots(BATCH_CAMERA, '', 1, every('2015-01-01T00:00:00', 3, HOUR)),
      ...resetRun,
    ];
    expect(findClockRuns(photos, now).map((r) => [r.camera, r.ids.length])).toEqual([
      [BATCH_CAMERA, 3],
      [B, 6],
      [S, 2],
    ]);
  });

  it('handles 10,000 photos', () => {
    const cameras = [B, S, BATCH_CAMERA, 'reconyx|hf2x|'];
    const photos = cameras.flatMap((camera, c) => [
      ...shots(camera, 'DCIM/100MEDIA', 1, every('2026-08-01T00:00:00', 1500, HOUR)),
      ...shots(camera, 'DCIM/101MEDIA', 1, every(`${2010 + c}-01-01T00:00:00`, 1000, HOUR)),
    ]);
    expect(photos).toHaveLength(10000);
    const runs = findClockRuns(shuffled(photos), now);
    expect(runs.map((r) => r.ids.length)).toEqual([1000, 1000, 1000, 1000]);
    expect(runs.every((r) => r.first.path === 'DCIM/101MEDIA/IMG_0001.JPG' && r.last.path === 'DCIM/101MEDIA/IMG_1000.JPG')).toBe(true);
  });
});

describe('fileOrder', () => {
  const sorted = (list: { path: string; name: string }[]) => [...list].sort(fileOrder).map((p) => p.path || p.name);

  it('compares numbers as numbers, folders before their files', () => {
    expect(
      sorted([
        { path: '', name: 'IMG_1000.JPG' },
        { path: '', name: 'IMG_0999.JPG' },
        { path: '', name: 'IMG_10000.JPG' },
      ]),
    ).toEqual(['IMG_0999.JPG', 'IMG_1000.JPG', 'IMG_10000.JPG']);
    expect(
      sorted([
        { path: 'DCIM/101MEDIA/IMG_0001.JPG', name: 'IMG_0001.JPG' },
        { path: 'DCIM/100MEDIA/IMG_9999.JPG', name: 'IMG_9999.JPG' },
        { path: 'DCIM/100MEDIA/IMG_0009.JPG', name: 'IMG_0009.JPG' },
        { path: 'DCIM/100MEDIA/IMG_0010.JPG', name: 'IMG_0010.JPG' },
      ]),
    ).toEqual(['DCIM/100MEDIA/IMG_0009.JPG', 'DCIM/100MEDIA/IMG_0010.JPG', 'DCIM/100MEDIA/IMG_9999.JPG', 'DCIM/101MEDIA/IMG_0001.JPG']);
  });

  it('ignores case, and is consistent both ways', () => {
    expect(fileOrder({ path: '', name: 'img_0002.jpg' }, { path: '', name: 'IMG_0010.JPG' })).toBeLessThan(0);
    expect(fileOrder({ path: '', name: 'IMG_0010.JPG' }, { path: '', name: 'img_0002.jpg' })).toBeGreaterThan(0);
    expect(fileOrder({ path: 'a/IMG_1.JPG', name: 'IMG_1.JPG' }, { path: 'a/IMG_1.JPG', name: 'IMG_1.JPG' })).toBe(0);
    expect(fileOrder({ path: '', name: 'IMG_001.JPG' }, { path: '', name: 'IMG_01.JPG' })).not.toBe(0);
  });
});

describe('offsetToMake and shiftCaptureTime', () => {
  it('gives the offset that makes a photo read the real time, in whole seconds', () => {
    const photo = resetRun[0]!;
    const offset = offsetToMake(photo, at('2026-11-14T18:30:00'));
    expect(offset).toBe(Math.round((Date.parse('2026-11-14T18:30:00Z') - Date.parse('2000-01-01T00:00:12Z')) / 1000));
    expect(shiftCaptureTime('2000-01-01T00:00:12', offset)).toBe('2026-11-14T18:30:00');
    expect(shiftCaptureTime('2000-01-03T17:40:00', offset)).toBe('2026-11-17T12:09:48');
    expect(Number.isNaN(offsetToMake(photo, new Date(Number.NaN)))).toBe(true);
  });

  it('moves across a month, a year and a leap day', () => {
    expect(shiftCaptureTime('2026-01-31T23:00:00', HOUR)).toBe('2026-02-01T00:00:00');
    expect(shiftCaptureTime('2025-12-31T23:59:59', 1)).toBe('2026-01-01T00:00:00');
    expect(shiftCaptureTime('2026-01-01T00:00:00', -1)).toBe('2025-12-31T23:59:59');
    expect(shiftCaptureTime('2024-02-28T12:00:00', DAY)).toBe('2024-02-29T12:00:00');
    expect(shiftCaptureTime('2024-02-29T12:00:00', DAY)).toBe('2024-03-01T12:00:00');
    expect(shiftCaptureTime('2023-02-28T12:00:00', DAY)).toBe('2023-03-01T12:00:00');
    expect(shiftCaptureTime('2026-11-10T08:00:00', -HOUR)).toBe('2026-11-10T07:00:00');
  });

  it('refuses what is not a capture time, or would leave four-digit years', () => {
    expect(() => shiftCaptureTime('2026:11:10 08:00:00', 1)).toThrow(RangeError);
    expect(() => shiftCaptureTime('9999-12-31T23:59:59', 1)).toThrow(RangeError);
  });
});

describe('checkCorrection', () => {
  const runIds = resetRun.map((p) => p.id);
  const realStart = (time: string) => ({ camera: B, ids: runIds, offsetSeconds: offsetToMake(resetRun[0]!, at(time)) });

  it('accepts moving a reset run to after the last good photo', () => {
    expect(checkCorrection(midCard, realStart('2026-11-14T18:30:00'), now, label)).toEqual({ ok: true, moved: 6 });
    const corrected = applyCorrection(midCard, realStart('2026-11-14T18:30:00'));
    expect(findClockRuns(corrected, now)).toEqual([]);
    expect(corrected.slice(0, 10)).toEqual(goodNovember);
  });

  it('refuses a date in the future', () => {
    const verdict = checkCorrection(midCard, realStart('2026-12-01T00:00:00'), now, label);
    expect(verdict).toEqual({
      ok: false,
      reason: 'future',
      message: 'This would date IMG_0016.JPG after today (December 3, 2026, 5:39 PM). Check the time you entered for Browning BTC-8E #K123.',
    });
  });

  it('refuses putting the run before the good photo the camera took earlier', () => {
    const verdict = checkCorrection(midCard, realStart('2026-11-13T20:00:00'), now, label);
    expect(verdict).toEqual({
      ok: false,
      reason: 'out-of-order',
      message:
        "This would put IMG_0011.JPG before IMG_0010.JPG, which Browning BTC-8E #K123 took earlier (November 14, 2026, 6:02 AM). A camera's photos must stay in the order it took them.",
    });
  });

  it('refuses putting the run after the good photo the camera took later', () => {
    const photos = [...midCard, ...shots(B, 'DCIM/100MEDIA', 17, every('2026-11-18T08:00:00', 3, HOUR))];
    const verdict = checkCorrection(photos, realStart('2026-11-16T00:00:00'), now, label);
    expect(verdict).toEqual({
      ok: false,
      reason: 'out-of-order',
      message:
        "This would put IMG_0016.JPG after IMG_0017.JPG, which Browning BTC-8E #K123 took later (November 18, 2026, 8:00 AM). A camera's photos must stay in the order it took them.",
    });
    // Started on the evening of the 14th, it fits between them.
    expect(checkCorrection(photos, realStart('2026-11-14T18:30:00'), now, label)).toEqual({ ok: true, moved: 6 });
  });

  it('skips photos still in another run when looking for the correct neighbours', () => {
    const again = shots(B, 'DCIM/100MEDIA', 17, every('2000-01-01T00:00:07', 3, 4 * HOUR));
    expect(findClockRuns([...midCard, ...again], now)).toHaveLength(2);
    expect(checkCorrection([...midCard, ...again], realStart('2026-11-14T18:30:00'), now, label)).toEqual({ ok: true, moved: 6 });
  });

  it('refuses a correction that leaves the photos before 2010', () => {
    const verdict = checkCorrection(midCard, { camera: B, ids: runIds, offsetSeconds: 365 * DAY }, now, label);
    expect(verdict).toEqual({
      ok: false,
      reason: 'still-wrong',
      message:
        "This would still date IMG_0011.JPG before 2010 (December 31, 2000, 12:00 AM), so Browning BTC-8E #K123's clock would still be wrong. Check the time you entered.",
    });
  });

  it('has nothing to move for a zero offset, no photos, or no time', () => {
    expect(checkCorrection(midCard, { camera: B, ids: runIds, offsetSeconds: 0 }, now, label)).toEqual({
      ok: false,
      reason: 'nothing',
      message: CORRECTION_REFUSALS.noOffset('Browning BTC-8E #K123'),
    });
    expect(checkCorrection(midCard, { camera: S, offsetSeconds: HOUR }, now, label)).toEqual({
      ok: false,
      reason: 'nothing',
      message: "Nothing to correct: none of SPYPOINT FORCE-20's photos are listed.",
    });
    expect(checkCorrection(midCard, { camera: B, ids: [], offsetSeconds: HOUR }, now, label)).toMatchObject({ ok: false, reason: 'nothing' });
    const noTime = checkCorrection(midCard, { camera: B, ids: runIds, offsetSeconds: offsetToMake(resetRun[0]!, new Date(Number.NaN)) }, now, label);
    expect(noTime).toEqual({ ok: false, reason: 'nothing', message: CORRECTION_REFUSALS.noTime('Browning BTC-8E #K123') });
  });

  it('moves a whole camera an hour back for daylight saving never set', () => {
    const spypoint = shots(S, 'DCIM/100MEDIA', 1, every('2026-11-10T07:00:00', 20, 3 * HOUR));
    const browning = shots(B, '', 1, every('2026-11-10T08:00:00', 20, 3 * HOUR));
    const photos = [...spypoint, ...browning];
    expect(checkCorrection(photos, { camera: B, offsetSeconds: -HOUR }, now, label)).toEqual({ ok: true, moved: 20 });
    const moved = applyCorrection(photos, { camera: B, offsetSeconds: -HOUR });
    expect(moved.slice(20).map((p) => p.capture)).toEqual(spypoint.map((p) => p.capture));
    expect(moved.slice(0, 20)).toEqual(spypoint);
  });

  it('moves a future run back by its offset', () => {
    const future = shots(B, 'DCIM/100MEDIA', 11, every('2031-06-01T09:00:00', 8, 7 * HOUR));
    const photos = [...goodNovember, ...future];
    const [run] = findClockRuns(photos, now) as [ClockRun];
    const correction = { camera: B, ids: run.ids, offsetSeconds: offsetToMake(run.first, at('2026-11-15T09:00:00')) };
    expect(checkCorrection(photos, correction, now, label)).toEqual({ ok: true, moved: 8 });
    expect(findClockRuns(applyCorrection(photos, correction), now)).toEqual([]);
  });
});

describe('runNotice', () => {
  const photos = [...midCard];
  const [run] = findClockRuns(photos, now) as [ClockRun];

  it('names the camera, the first and last photo and how many', () => {
    expect(runNotice(run, 'Browning BTC-8E #K123')).toBe(
      'Browning BTC-8E #K123: 6 photos, IMG_0011.JPG (January 1, 2000, 12:00 AM) to IMG_0016.JPG (January 3, 2000, 5:40 PM), were taken after its clock was reset.',
    );
  });

  it('says one photo in the singular, and each cause in its words', () => {
    const one = (time: string) => findClockRuns(shots(S, '', 4, [time]), now)[0]!;
    expect(runNotice(one('2000-01-01T12:03:00'), 'SPYPOINT FORCE-20')).toBe(
      'SPYPOINT FORCE-20: 1 photo, IMG_0004.JPG (January 1, 2000, 12:03 PM), was taken after its clock was reset.',
    );
    expect(runNotice(one('2031-06-01T09:05:00'), 'SPYPOINT FORCE-20')).toBe(
      'SPYPOINT FORCE-20: 1 photo, IMG_0004.JPG (June 1, 2031, 9:05 AM), was taken with its clock set in the future.',
    );
    expect(runNotice(one('2005-03-03T23:59:00'), 'SPYPOINT FORCE-20')).toBe(
      'SPYPOINT FORCE-20: 1 photo, IMG_0004.JPG (March 3, 2005, 11:59 PM), was taken with its clock set before 2010.',
    );
  });

  it('writes counts with thousands separators', () => {
    const many = findClockRuns(shots(S, '', 1, every('2005-03-03T00:00:00', 1234, MINUTE)), now)[0]!;
    expect(runNotice(many, 'SPYPOINT FORCE-20')).toMatch(/^SPYPOINT FORCE-20: 1,234 photos, IMG_0001\.JPG \(March 3, 2005, 12:00 AM\) to IMG_1234\.JPG /);
  });
});

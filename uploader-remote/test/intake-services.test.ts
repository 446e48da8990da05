/**
 * @jest-environment node
 */
// What the whole-card intake keeps and sends: remembered cameras and speed, the row thumbnails'
// cache, the selection's facts before Upload, and the object metadata from EXIF.
import { captureCorrectionOf } from '@trailsense/shared/uploads-wire';
import { selectionFacts } from '../src/features/upload/model/selection';
import type { ListedFile } from '../src/features/upload/model/upload-queue';
import { objectPath, uploadMetadata } from '../src/features/upload/services/upload/amplify-storage';
import { thumbnailCache } from '../src/features/upload/services/files/thumbnail-cache';
import { MAX_REMEMBERED_CAMERAS, storedPreferences } from '../src/features/upload/services/browser/uploader-preferences';
import { mapStorage } from './support/fake-services';

describe('storedPreferences', () => {
  it('remembers cameras per ranch, most recent first, and the recent speed', () => {
    const items = new Map<string, string>();
    const prefs = storedPreferences(mapStorage(items));
    prefs.rememberCamera('ranch-a', 'browning|btc-8e|', 'Feeder');
    prefs.rememberCamera('ranch-b', 'browning|btc-8e|', 'Creek');
    prefs.rememberCamera('ranch-a', 'browning|btc-8e|', 'Feeder North');
    // Another page of the same browser reads the same storage.
    const again = storedPreferences(mapStorage(items));
    expect([...again.cameraNames('ranch-a')]).toEqual([['browning|btc-8e|', 'Feeder North']]);
    expect(again.cameraNames('ranch-b').get('browning|btc-8e|')).toBe('Creek');
    expect(again.recentSpeed()).toBeNull();
    again.setRecentSpeed(1_234_567.8);
    expect(storedPreferences(mapStorage(items)).recentSpeed()).toBe(1_234_568);
  });

  it('keeps the latest cameras only', () => {
    const prefs = storedPreferences(mapStorage());
    for (let i = 0; i < MAX_REMEMBERED_CAMERAS + 5; i++) prefs.rememberCamera('r', `k${i}`, `Camera ${i}`);
    const names = prefs.cameraNames('r');
    expect(names.size).toBe(MAX_REMEMBERED_CAMERAS);
    expect(names.has('k0')).toBe(false);
    expect(names.get(`k${MAX_REMEMBERED_CAMERAS + 4}`)).toBe(`Camera ${MAX_REMEMBERED_CAMERAS + 4}`);
  });

  it('storage that throws or holds garbage is an empty memory, never an error', () => {
    const broken = storedPreferences({
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    });
    expect(() => broken.rememberCamera('r', 'k', 'n')).not.toThrow();
    expect(broken.cameraNames('r').size).toBe(0);
    expect(broken.recentSpeed()).toBeNull();
    const garbage = storedPreferences(
      mapStorage(
        new Map([
          ['trailsense:cameras:r', '{"not":"pairs"}'],
          ['trailsense:upload-speed', '"fast"'],
        ]),
      ),
    );
    expect(garbage.cameraNames('r').size).toBe(0);
    expect(garbage.recentSpeed()).toBeNull();
    expect(storedPreferences(null).recentSpeed()).toBeNull();
  });
});

describe('thumbnailCache', () => {
  const blob = (n: number) => new Blob([String(n)]);

  it('makes a thumbnail once and keeps the latest ones', async () => {
    const made: Blob[] = [];
    const cache = thumbnailCache(async (file) => (made.push(file), `data:image/jpeg;base64,${made.length}`), 2);
    const [a, b, c] = [blob(1), blob(2), blob(3)];
    const live = new AbortController().signal;
    expect(cache.cached(a)).toBeUndefined();
    expect(await cache.load(a, live)).toBe('data:image/jpeg;base64,1');
    expect(await cache.load(a, live)).toBe('data:image/jpeg;base64,1');
    await cache.load(b, live);
    cache.cached(a); // a used again: b is now the oldest
    await cache.load(c, live);
    expect(cache.cached(b)).toBeUndefined();
    expect(cache.cached(a)).toBe('data:image/jpeg;base64,1');
    expect(made).toEqual([a, b, c]);
  });

  it('a row gone before its turn is not remembered as having no thumbnail; a failure is', async () => {
    const gone = new AbortController();
    gone.abort();
    const cache = thumbnailCache(async (_file, signal) => (signal.aborted ? null : 'data:x'));
    const a = blob(1);
    expect(await cache.load(a, gone.signal)).toBeNull();
    expect(cache.cached(a)).toBeUndefined();
    const failing = thumbnailCache(() => Promise.reject(new Error('decode failed')));
    expect(await failing.load(a, new AbortController().signal)).toBeNull();
    expect(failing.cached(a)).toBeNull();
  });
});

describe('selectionFacts', () => {
  const listed = (name: string, size: number, exif: ListedFile['exif']): ListedFile => ({
    id: name,
    key: `${name}.jpg`,
    name,
    path: '',
    size,
    lastModified: 0,
    file: new Blob([]),
    status: { kind: 'waiting' },
    exif,
  });
  const now = Date.UTC(2026, 10, 22, 12);

  it('counts, sizes, dates and cameras of the list; wrong clocks are named apart and stay out of the span', () => {
    const facts = selectionFacts(
      [
        listed('A.JPG', 3 * 1024 ** 3, { captureTime: '2026-10-03T05:00:00', make: 'Browning', model: 'BTC-8E' }),
        listed('B.JPG', 3.2 * 1024 ** 3, { captureTime: '2026-11-19T23:59:00', make: 'Browning', model: 'BTC-8E' }),
        listed('C.JPG', 1024, { captureTime: '2000-01-01T00:00:00', make: 'Stealth Cam', model: 'G42NG' }),
        listed('D.JPG', 1024, null),
      ],
      now,
      2 * 1024 * 1024,
    );
    expect(facts.summary).toBe('4 photos · 6.2 GB · Oct 3 – Nov 19 · 2 cameras · about 53 min at your recent speed');
    expect(facts.mixedCameras).toMatch(/^This selection holds photos from 2 cameras: Browning BTC-8E \(2 photos\), Stealth Cam G42NG \(1 photo\)\./);
  });

  it('reads each photo through the stages’ EXIF: a corrected clock joins the span', () => {
    const files = [
      listed('A.JPG', 1024, { captureTime: '2026-10-03T05:00:00', make: 'Browning' }),
      listed('C.JPG', 1024, { captureTime: '2000-01-01T00:00:00', make: 'Browning' }),
    ];
    expect(selectionFacts(files, now, null).summary).toBe('2 photos · 2 KB · Oct 3 · 1 camera');
    const corrected = selectionFacts(files, now, null, false, false, (f) =>
      f.name === 'C.JPG' ? { ...f.exif, captureTime: '2026-11-20T06:00:00', cameraCaptureTime: '2000-01-01T00:00:00' } : (f.exif ?? null),
    );
    expect(corrected.summary).toBe('2 photos · 2 KB · Oct 3 – Nov 20 · 1 camera');
  });

  it('says nothing of an empty list, and no estimate without a measured speed', () => {
    expect(selectionFacts([], now, 1000)).toEqual({ summary: null, mixedCameras: null, cameras: [], estimates: null });
    expect(selectionFacts([listed('A.JPG', 40 * 1024, null)], now, null).summary).toBe('1 photo · 40 KB');
  });
});

describe('uploadMetadata', () => {
  it('sends the seed’s ranchid and camera_name, and the EXIF fields present, all US-ASCII', () => {
    const base = { level: 'public' as const, ranchId: 'pine-hollow', cameraName: 'Réservoir' };
    expect(uploadMetadata(base)).toEqual({ ranchid: 'pine-hollow', camera_name: '=?UTF-8?B?UsOpc2Vydm9pcg==?=' });
    const full = uploadMetadata({
      ...base,
      photo: { captureTime: '2026-10-03T05:12:44', captureOffset: '-05:00', make: 'Browning', model: 'BTC-8E', serial: 'BR 77' },
    });
    expect(full).toMatchObject({ capture_time: '2026-10-03T05:12:44-05:00', camera_make: 'Browning', camera_model: 'BTC-8E', camera_serial: 'BR 77' });
    expect(uploadMetadata({ ...base, photo: { make: 'Ryobi 🦌' } }).camera_make).toMatch(/^[\x20-\x7e]+$/);
    expect(Object.keys(uploadMetadata({ ...base, photo: { model: 'X' } }))).toEqual(['ranchid', 'camera_name', 'camera_model']);
  });

  it('sends a corrected time with the camera’s own and the seconds between them, and a turn on an original only', () => {
    const base = { level: 'public' as const, ranchId: 'pine-hollow', cameraName: 'Creek' };
    // A camera that restarted at 2000-01-01, corrected to the day it was set out: 9,497 days later.
    const photo = { captureTime: '2026-01-01T06:00:00', captureOffset: '-05:00', cameraCaptureTime: '2000-01-01T06:00:00', turn: 90 as const };
    const original = uploadMetadata({ ...base, photo, form: 'original' });
    expect(original).toMatchObject({
      capture_time: '2026-01-01T06:00:00-05:00',
      camera_capture_time: '2000-01-01T06:00:00-05:00',
      capture_correction: '+820540800',
      photo_turn: '90',
    });
    // What the server reads back is a correction that adds up.
    expect(captureCorrectionOf(original)).toEqual({
      kind: 'corrected',
      captureTime: '2026-01-01T06:00:00-05:00',
      cameraCaptureTime: '2000-01-01T06:00:00-05:00',
      offsetSeconds: 820540800,
    });
    // An original of an uploader before forms, too; a copy never (the browser drew it upright).
    expect(uploadMetadata({ ...base, photo: { turn: 270 } })).toMatchObject({ photo_turn: '270' });
    const copy = uploadMetadata({ ...base, photo, form: 'copy' });
    expect(copy).not.toHaveProperty('photo_turn');
    expect(copy).toMatchObject({ capture_correction: '+820540800' });
    // A clock set back, without an offset.
    expect(uploadMetadata({ ...base, photo: { captureTime: '2026-03-01T09:00:00', cameraCaptureTime: '2026-03-01T10:00:00' } })).toMatchObject({
      capture_time: '2026-03-01T09:00:00',
      camera_capture_time: '2026-03-01T10:00:00',
      capture_correction: '-3600',
    });
  });

  it('sends no correction when nothing was corrected, and refuses to send one the server would refuse', () => {
    const base = { level: 'public' as const, ranchId: 'pine-hollow', cameraName: 'Creek' };
    const unchanged = uploadMetadata({ ...base, photo: { captureTime: '2026-01-01T06:00:00', cameraCaptureTime: '2026-01-01T06:00:00' } });
    expect(Object.keys(unchanged)).toEqual(['ranchid', 'camera_name', 'capture_time']);
    // No capture time to correct: the camera's alone says nothing of a correction.
    expect(Object.keys(uploadMetadata({ ...base, photo: { cameraCaptureTime: '2000-01-01T06:00:00' } }))).toEqual(['ranchid', 'camera_name']);
    expect(() => uploadMetadata({ ...base, photo: { captureTime: '2126-01-02T00:00:00', cameraCaptureTime: '2000-01-01T00:00:00' } })).toThrow(RangeError);
    expect(() => uploadMetadata({ ...base, photo: { captureTime: '2026-01-01T06:00:00', cameraCaptureTime: '2000:01:01 06:00:00' } })).toThrow(RangeError);
  });
});

describe('objectPath', () => {
  it('puts the ranch in the key, after the level (and the identity id of a private upload), as IAM requires', () => {
    expect(objectPath('public', 'cedar-creek', '3f2c.jpg', 'us-east-2:abc')).toBe('public/cedar-creek/3f2c.jpg');
    expect(objectPath('private', 'cedar-creek', '3f2c.jpg', 'us-east-2:abc')).toBe('private/us-east-2:abc/cedar-creek/3f2c.jpg');
  });

  it('refuses a private upload without an identity id, and a ranch id that cannot be one key segment', () => {
    expect(() => objectPath('private', 'cedar-creek', '3f2c.jpg', undefined)).toThrow('No identity id for a private upload');
    expect(() => objectPath('public', 'a/b', '3f2c.jpg', undefined)).toThrow('Not a ranch id usable in a key');
    expect(() => objectPath('public', '', '3f2c.jpg', undefined)).toThrow('Not a ranch id usable in a key');
  });
});

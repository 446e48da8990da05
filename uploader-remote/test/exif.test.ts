import { Blob as NodeBlob } from 'node:buffer';
import { webcrypto } from 'node:crypto';
import { FINGERPRINT_SAMPLE_BYTES } from '../src/features/upload/model/fingerprint';
import { captureDate, EXIF_TEXT_MAX, exifFromTags } from '../src/features/upload/model/photo-exif';
import { readExif, readThumbnail } from '../src/features/upload/services/files/exif';
import { probeFile } from '../src/features/upload/services/files/file-probe';
import { makeThumbnail, THUMBNAIL_WIDTH, type ThumbnailDecoder } from '../src/features/upload/services/files/thumbnail';
import { buildJpeg, fakeThumbnailJpeg, jpegWithExif } from '../../test-support/jpeg';

const subtle = webcrypto.subtle as unknown as SubtleCrypto;
const blobOf = (bytes: Uint8Array, type = ''): Blob => new NodeBlob([bytes], { type }) as unknown as Blob;
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

const BROWNING = { make: 'Browning', model: 'BTC-8E', dateTimeOriginal: '2024:10:03 05:12:44', offset: '-05:00', serial: 'BR1234567' };
const BROWNING_EXIF = { captureTime: '2024-10-03T05:12:44', captureOffset: '-05:00', make: 'Browning', model: 'BTC-8E', serial: 'BR1234567' };

/** A JPEG with an APP1 segment of these bytes after "Exif\0\0". */
function jpegWithApp1(tiff: number[]): Uint8Array {
  const length = 2 + 6 + tiff.length;
  return Uint8Array.from([0xff, 0xd8, 0xff, 0xe1, length >> 8, length & 0xff, 0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff, 0xff, 0xd9]);
}

describe('exifFromTags', () => {
  it('turns the EXIF date into an ISO-like local time and keeps the offset', () => {
    expect(exifFromTags({ DateTimeOriginal: '2024:10:03 05:12:44', OffsetTimeOriginal: '-05:00' })).toEqual({
      captureTime: '2024-10-03T05:12:44',
      captureOffset: '-05:00',
    });
    // Padding NULs, a "T" or dashes written by some cameras.
    expect(exifFromTags({ DateTimeOriginal: '2024-10-03T05:12:44\0' })?.captureTime).toBe('2024-10-03T05:12:44');
  });

  it.each([
    ['0000:00:00 00:00:00'],
    ['    :  :     :  :  '],
    ['2024:02:30 10:00:00'],
    ['2024:13:01 10:00:00'],
    ['2024:10:03 24:00:00'],
    ['yesterday'],
    [''],
    [20241003],
  ])('leaves out a date that names no real time: %p', (date) => {
    expect(exifFromTags({ DateTimeOriginal: date, OffsetTimeOriginal: '+01:00', Make: 'Bushnell' })).toEqual({ make: 'Bushnell' });
  });

  it('leaves out a malformed offset, and an offset without a time', () => {
    expect(exifFromTags({ DateTimeOriginal: '2024:10:03 05:12:44', OffsetTimeOriginal: '   :  ' })).toEqual({ captureTime: '2024-10-03T05:12:44' });
    expect(exifFromTags({ DateTimeOriginal: '2024:10:03 05:12:44', OffsetTimeOriginal: '+25:00' })).toEqual({ captureTime: '2024-10-03T05:12:44' });
    expect(exifFromTags({ OffsetTimeOriginal: '-05:00' })).toBeNull();
  });

  it('tidies text: trims, cuts at the first NUL, drops control characters, caps the length', () => {
    expect(exifFromTags({ Make: '  Spy\u0001point \0\0junk', Model: '\0LINK-MICRO\n', BodySerialNumber: 'x'.repeat(100) })).toEqual({
      make: 'Spypoint',
      model: 'LINK-MICRO',
      serial: 'x'.repeat(EXIF_TEXT_MAX),
    });
  });

  it('takes the serial from BodySerialNumber, else SerialNumber, else InternalSerialNumber, skipping empty ones', () => {
    expect(exifFromTags({ BodySerialNumber: 'B', SerialNumber: 'S', InternalSerialNumber: 'I' })?.serial).toBe('B');
    expect(exifFromTags({ BodySerialNumber: ' \0', SerialNumber: 'S', InternalSerialNumber: 'I' })?.serial).toBe('S');
    expect(exifFromTags({ SerialNumber: '', InternalSerialNumber: 'I' })?.serial).toBe('I');
    expect(exifFromTags({ SerialNumber: 1234567 })?.serial).toBe('1234567');
  });

  it('is null when nothing is usable', () => {
    expect(exifFromTags(null)).toBeNull();
    expect(exifFromTags(undefined)).toBeNull();
    expect(exifFromTags({})).toBeNull();
    expect(exifFromTags({ Make: '   ', Model: '\0\0\0', DateTimeOriginal: '0000:00:00 00:00:00', Other: 'x', BodySerialNumber: new Uint8Array(3) })).toBeNull();
  });
});

describe('captureDate', () => {
  it('carries the camera’s clock in the UTC fields, whatever the browser’s zone', () => {
    const date = captureDate({ captureTime: '2024-10-03T05:12:44', captureOffset: '-05:00' })!;
    // Neither assertion reads the local zone: they hold under any TZ.
    expect(date.toISOString()).toBe('2024-10-03T05:12:44.000Z');
    expect(new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'medium', hourCycle: 'h23' }).format(date)).toBe(
      'Oct 3, 2024, 05:12:44',
    );
  });

  it('is null without a valid capture time', () => {
    expect(captureDate(null)).toBeNull();
    expect(captureDate({ make: 'Browning' })).toBeNull();
    expect(captureDate({ captureTime: '2024-02-30T00:00:00' })).toBeNull();
    expect(captureDate({ captureTime: '2024:10:03 05:12:44' })).toBeNull();
    // Years before 100 stay themselves (Date.UTC would read 0099 as 1999).
    expect(captureDate({ captureTime: '0099-01-01T00:00:00' })?.getUTCFullYear()).toBe(99);
  });
});

describe('readExif', () => {
  it('reads the capture time, offset, make, model and serial of a JPEG, without shifting the time', async () => {
    const exif = await readExif(jpegWithExif(BROWNING));
    expect(exif).toEqual(BROWNING_EXIF);
    expect(captureDate(exif)!.toISOString()).toBe('2024-10-03T05:12:44.000Z');
  });

  it('reads what the uploader itself writes into a smaller copy, as it wrote it', async () => {
    expect(await readExif(buildJpeg({ jfif: true, exif: BROWNING_EXIF }))).toEqual(BROWNING_EXIF);
  });

  it('reads big-endian (Motorola) EXIF too', async () => {
    expect(await readExif(jpegWithExif({ ...BROWNING, bigEndian: true }))).toEqual(BROWNING_EXIF);
  });

  it('returns what there is when some tags are missing', async () => {
    expect(await readExif(jpegWithExif({ make: 'Moultrie', dateTimeOriginal: '0000:00:00 00:00:00' }))).toEqual({ make: 'Moultrie' });
    expect(await readExif(jpegWithExif({}))).toBeNull();
  });

  it('is null for a JPEG without APP1, and for bytes that are not a JPEG', async () => {
    expect(await readExif(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]))).toBeNull();
    expect(await readExif(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBeNull();
    expect(await readExif(new Uint8Array(0))).toBeNull();
  });

  it.each([
    ['random bytes', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
    ['a TIFF header only', [0x49, 0x49, 0x2a, 0x00]],
    ['IFD0 far outside the segment', [0x49, 0x49, 0x2a, 0x00, 0xff, 0xff, 0xff, 0x00]],
    ['an IFD with an entry count beyond the data', [0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 0xff, 0xff, 0x0f, 0x01, 2, 0, 200, 0, 0, 0, 0xf0, 0xff, 0, 0]],
    ['a value offset beyond the data', [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x0f, 0, 2, 0, 0, 0, 32, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]],
  ])('is null, without throwing, for a garbage APP1: %s', async (_, tiff) => {
    await expect(readExif(jpegWithApp1(tiff))).resolves.toBeNull();
    await expect(readThumbnail(jpegWithApp1(tiff))).resolves.toBeNull();
  });

  it('reads an APP1 longer than the sample (a big thumbnail past 64 KiB) from what the sample holds', async () => {
    const file = jpegWithExif({ ...BROWNING, jfif: true, thumbnail: fakeThumbnailJpeg(65_330) });
    expect(file.length).toBeGreaterThan(FINGERPRINT_SAMPLE_BYTES);
    const head = file.subarray(0, FINGERPRINT_SAMPLE_BYTES);
    expect(await readExif(head)).toEqual(BROWNING_EXIF);
    expect(await readThumbnail(head)).toBeNull();
    expect(await readThumbnail(file)).toEqual(fakeThumbnailJpeg(65_330));
  });
});

describe('readThumbnail', () => {
  it('returns a copy of the embedded thumbnail’s bytes', async () => {
    const thumbnail = fakeThumbnailJpeg(300);
    const head = jpegWithExif({ ...BROWNING, thumbnail });
    const bytes = await readThumbnail(head);
    expect(bytes).toEqual(thumbnail);
    expect(bytes!.buffer).not.toBe(head.buffer);
    expect(await readExif(head)).toEqual(BROWNING_EXIF);
  });

  it('is null without a thumbnail, or when the IFD1 points at something that is not a JPEG', async () => {
    expect(await readThumbnail(jpegWithExif(BROWNING))).toBeNull();
    expect(await readThumbnail(jpegWithExif({ ...BROWNING, thumbnail: Uint8Array.from([1, 2, 3, 4, 5, 6]) }))).toBeNull();
  });

  it('does not read past the sample into the rest of its buffer', async () => {
    const file = jpegWithExif({ ...BROWNING, thumbnail: fakeThumbnailJpeg(400) });
    // The sample ends inside the thumbnail, in a buffer that holds the whole file.
    expect(await readThumbnail(file.subarray(0, file.length - 100))).toBeNull();
  });
});

describe('probeFile with EXIF', () => {
  it('reads a large photo’s EXIF from the first sample, reading nothing but the sampled ranges', async () => {
    const size = 5 * 1024 * 1024;
    const file = blobOf(jpegWithExif({ ...BROWNING, padTo: size }));
    const slice = jest.spyOn(file, 'slice');
    const probe = await probeFile(file, subtle);
    expect(probe).toEqual({ kind: 'ok', fingerprint: expect.stringMatching(/^v1-5242880-/), isJpeg: true, exif: BROWNING_EXIF });
    expect(slice.mock.calls).toEqual([
      [0, FINGERPRINT_SAMPLE_BYTES],
      [size - FINGERPRINT_SAMPLE_BYTES, size],
    ]);
  });

  it('gives exif null for a JPEG without EXIF and for a file that is not a JPEG', async () => {
    expect(await probeFile(blobOf(Uint8Array.from([0xff, 0xd8, 0xff, 0xd9])), subtle)).toMatchObject({ kind: 'ok', isJpeg: true, exif: null });
    // EXIF bytes behind another signature are not read.
    const png = jpegWithExif(BROWNING);
    png.set([0x89, 0x50], 0);
    expect(await probeFile(blobOf(png), subtle)).toMatchObject({ kind: 'ok', isJpeg: false, exif: null });
  });
});

describe('makeThumbnail', () => {
  /** A decoder that records its use; `fail` makes decoding reject. */
  function fakeDecoder(decoded = { width: 96, height: 72 }, fail = false) {
    const calls: { bitmap?: [Blob, ImageBitmapOptions]; canvas?: [number, number]; drawn?: unknown[]; encode?: ImageEncodeOptions } = {};
    const bitmap = { ...decoded, close: jest.fn() };
    const decoder: ThumbnailDecoder = {
      createImageBitmap: async (image, options) => {
        calls.bitmap = [image, options];
        if (fail) throw new DOMException('The source image could not be decoded.', 'InvalidStateError');
        return bitmap;
      },
      OffscreenCanvas: class {
        constructor(width: number, height: number) {
          calls.canvas = [width, height];
        }
        getContext() {
          return { drawImage: (...args: unknown[]) => (calls.drawn = args) };
        }
        async convertToBlob(options: ImageEncodeOptions) {
          calls.encode = options;
          return new NodeBlob([Uint8Array.from([1, 2, 3])], { type: 'image/jpeg' });
        }
      } as unknown as ThumbnailDecoder['OffscreenCanvas'],
    };
    return { decoder, calls, bitmap };
  }

  it('makes a data: URL of the EXIF thumbnail from the first 64 KiB, without decoding the photo', async () => {
    const thumbnail = fakeThumbnailJpeg(500);
    const size = 3 * 1024 * 1024;
    const file = blobOf(jpegWithExif({ ...BROWNING, thumbnail, padTo: size }));
    const slice = jest.spyOn(file, 'slice');
    const { decoder, calls } = fakeDecoder();
    expect(await makeThumbnail(file, decoder)).toBe(`data:image/jpeg;base64,${base64(thumbnail)}`);
    expect(slice.mock.calls).toEqual([[0, FINGERPRINT_SAMPLE_BYTES]]);
    expect(calls.bitmap).toBeUndefined();
  });

  it('is null without an EXIF thumbnail where there is no decoder (the page’s thread)', async () => {
    expect(await makeThumbnail(blobOf(jpegWithExif(BROWNING)), null)).toBeNull();
  });

  it('otherwise decodes the photo downscaled to 96 px wide, keeping its aspect, and encodes a JPEG', async () => {
    const file = blobOf(jpegWithExif(BROWNING));
    // An engine that ignores resizeWidth hands back the full size: the canvas still is 96 wide.
    const { decoder, calls, bitmap } = fakeDecoder({ width: 4000, height: 3000 });
    expect(await makeThumbnail(file, decoder)).toBe('data:image/jpeg;base64,AQID');
    expect(calls.bitmap).toEqual([file, { resizeWidth: THUMBNAIL_WIDTH, resizeQuality: 'low' }]);
    expect(calls.canvas).toEqual([96, 72]);
    expect(calls.drawn).toEqual([bitmap, 0, 0, 96, 72]);
    expect(calls.encode).toEqual({ type: 'image/jpeg', quality: 0.7 });
    expect(bitmap.close).toHaveBeenCalled();
  });

  it('is null when decoding fails, when the file is not a JPEG (not decoded) or cannot be read', async () => {
    const broken = fakeDecoder(undefined, true);
    expect(await makeThumbnail(blobOf(jpegWithExif(BROWNING)), broken.decoder)).toBeNull();
    const { decoder, calls } = fakeDecoder();
    expect(await makeThumbnail(blobOf(Uint8Array.from([0x89, 0x50, 0x4e, 0x47])), decoder)).toBeNull();
    expect(calls.bitmap).toBeUndefined();
    const gone = { size: 10, slice: () => ({ arrayBuffer: () => Promise.reject(new DOMException('gone', 'NotFoundError')) }) } as unknown as Blob;
    expect(await makeThumbnail(gone, decoder)).toBeNull();
  });
});

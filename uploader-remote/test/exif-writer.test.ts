import { parse } from 'exifr/dist/mini.umd.js';
import { correctedTimeText, exifSegment, insertExif, NotAJpegError, withExif } from '../src/features/upload/model/exif-writer';
import { EXIF_TEXT_MAX, type PhotoExif } from '../src/features/upload/model/photo-exif';
import { readExif } from '../src/features/upload/services/files/exif';
import { jpegWithExif } from '../../test-support/jpeg';

/** A JPEG as a canvas encoder writes it: SOI, optionally JFIF APP0, DQT, SOS with some data, EOI. */
function canvasJpeg({ jfif = true, app1 }: { jfif?: boolean; app1?: Uint8Array } = {}): Uint8Array {
  const app0 = jfif ? [0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0] : [];
  const dqt = [0xff, 0xdb, 0, 6, 1, 2, 3, 4];
  const sos = [0xff, 0xda, 0, 4, 9, 9, 0x12, 0x34, 0xff, 0x00, 0x56, 0xff, 0xd9];
  return Uint8Array.from([0xff, 0xd8, ...app0, ...(app1 ?? []), ...dqt, ...sos]);
}

const EXIF: PhotoExif = { captureTime: '2024-10-03T05:12:44', captureOffset: '-05:00', make: 'Browning', model: 'BTC-8E', serial: 'SN12345' };

async function orientationOf(jpeg: Uint8Array): Promise<unknown> {
  const output = (await parse(jpeg, { ifd0: { pick: [0x0112] }, exif: false, translateKeys: false, translateValues: false, mergeOutput: false })) as
    { ifd0?: Record<string, unknown> } | undefined;
  return output?.ifd0?.[0x0112];
}

/** The segments before SOS, as [marker, start] pairs. */
function segments(jpeg: Uint8Array): [number, number][] {
  const found: [number, number][] = [];
  let at = 2;
  while (jpeg[at + 1] !== 0xda) {
    found.push([jpeg[at + 1]!, at]);
    at += 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!);
  }
  return found;
}

describe('withExif', () => {
  it('writes the capture time, offset, make, model and serial as the uploader reads them, and Orientation 1', async () => {
    const jpeg = withExif(canvasJpeg(), EXIF);
    expect(await readExif(jpeg)).toEqual(EXIF);
    expect(await orientationOf(jpeg)).toBe(1);
  });

  it('writes the capture time as EXIF spells it', async () => {
    const output = (await parse(withExif(canvasJpeg(), EXIF), { exif: { pick: [0x9003] }, reviveValues: false, translateKeys: false, mergeOutput: false })) as {
      exif: Record<string, unknown>;
    };
    expect(output.exif[0x9003]).toBe('2024:10:03 05:12:44');
  });

  it('puts the EXIF after a JFIF APP0 that opens the file, and keeps everything else as it was', () => {
    const input = canvasJpeg();
    const jpeg = withExif(input, EXIF);
    expect(segments(jpeg).map(([marker]) => marker)).toEqual([0xe0, 0xe1, 0xdb]);
    const segment = exifSegment(EXIF);
    expect(jpeg.length).toBe(input.length + segment.length);
    expect(jpeg.subarray(20, 20 + segment.length)).toEqual(segment);
    expect(jpeg.subarray(0, 20)).toEqual(input.subarray(0, 20));
    expect(jpeg.subarray(20 + segment.length)).toEqual(input.subarray(20));
  });

  it('puts the EXIF right after SOI without a JFIF APP0', async () => {
    const jpeg = withExif(canvasJpeg({ jfif: false }), EXIF);
    expect(segments(jpeg).map(([marker]) => marker)).toEqual([0xe1, 0xdb]);
    expect(segments(jpeg)[0]![1]).toBe(2);
    expect(await readExif(jpeg)).toEqual(EXIF);
  });

  it('replaces an APP1 the input had', async () => {
    const old = jpegWithExif({ make: 'Old', model: 'Camera', dateTimeOriginal: '2001:01:01 00:00:00' });
    // The old file's APP1 segment, from after SOI to its end.
    const oldApp1 = old.subarray(2, 4 + ((old[4]! << 8) | old[5]!));
    const input = canvasJpeg({ app1: oldApp1 });
    const jpeg = withExif(input, EXIF);
    expect(segments(jpeg).filter(([marker]) => marker === 0xe1)).toHaveLength(1);
    expect(await readExif(jpeg)).toEqual(EXIF);
    expect(jpeg.length).toBe(input.length - oldApp1.length + exifSegment(EXIF).length);
  });

  it('writes only what is known, and Orientation 1 even with nothing known', async () => {
    expect(await readExif(withExif(canvasJpeg(), { make: 'Bushnell' }))).toEqual({ make: 'Bushnell' });
    const bare = withExif(canvasJpeg(), null);
    expect(await readExif(bare)).toBeNull();
    expect(await orientationOf(bare)).toBe(1);
  });

  it('leaves out a malformed capture time, and an offset without a time', async () => {
    expect(await readExif(withExif(canvasJpeg(), { captureTime: '2024-10-03 05:12', captureOffset: '-05:00', make: 'Moultrie' }))).toEqual({
      make: 'Moultrie',
    });
    expect(await readExif(withExif(canvasJpeg(), { captureTime: '2024-10-03T05:12:44', captureOffset: 'EST' }))).toEqual({
      captureTime: '2024-10-03T05:12:44',
    });
  });

  it('bounds big values: texts are cut to EXIF_TEXT_MAX characters and control characters dropped', async () => {
    const long = 'M'.repeat(100_000);
    const jpeg = withExif(canvasJpeg(), { make: long, model: 'Trail\u0001Cam\u0000', serial: 'é'.repeat(500) });
    expect(jpeg.length).toBeLessThan(1000);
    expect(await readExif(jpeg)).toEqual({ make: 'M'.repeat(EXIF_TEXT_MAX), model: 'TrailCam', serial: 'é'.repeat(EXIF_TEXT_MAX) });
  });

  it('can say another orientation (for the test photos of e2e/support/photos.ts)', async () => {
    expect(await orientationOf(withExif(canvasJpeg(), EXIF, { orientation: 6 }))).toBe(6);
  });
});

/** The tags of the JPEG's IFD0 and Exif IFD as exifr reads them, raw (dates as EXIF spells them), keyed by number. */
async function rawTags(jpeg: Uint8Array): Promise<{ ifd0: Record<string, unknown>; exif: Record<string, unknown> }> {
  const output = (await parse(jpeg, { exif: true, reviveValues: false, translateKeys: false, translateValues: false, mergeOutput: false })) as {
    ifd0: Record<string, unknown>;
    exif: Record<string, unknown>;
  };
  return output;
}

/** The tag numbers of the IFD at `at` (an offset into the TIFF data), in the order written. */
function ifdTags(segment: Uint8Array, at: number): number[] {
  const view = new DataView(segment.buffer, segment.byteOffset + 10);
  return Array.from({ length: view.getUint16(at, true) }, (_, i) => view.getUint16(at + 2 + 12 * i, true));
}

describe('withExif for a corrected capture time', () => {
  const CORRECTED: PhotoExif = { ...EXIF, captureTime: '2024-10-03T05:12:44', cameraCaptureTime: '2000-01-01T00:03:12' };

  it('writes the corrected time as DateTimeOriginal and DateTimeDigitized, and names the camera’s in ImageDescription', async () => {
    const jpeg = withExif(canvasJpeg(), CORRECTED);
    const { ifd0, exif } = await rawTags(jpeg);
    expect(exif[0x9003]).toBe('2024:10:03 05:12:44');
    expect(exif[0x9004]).toBe('2024:10:03 05:12:44');
    expect(ifd0[0x010e]).toBe('Capture time corrected; camera said 2000:01:01 00:03:12');
    // The uploader reads the corrected time, and the rest as before.
    expect(await readExif(jpeg)).toEqual(EXIF);
    expect(await orientationOf(jpeg)).toBe(1);
  });

  it('fits the description in EXIF_TEXT_MAX, so text() does not cut it', () => {
    expect(correctedTimeText('2000:01:01 00:03:12').length).toBeLessThanOrEqual(EXIF_TEXT_MAX);
  });

  it('keeps each IFD’s tags in ascending order', () => {
    const segment = exifSegment(CORRECTED);
    const ifd0 = ifdTags(segment, 8);
    expect(ifd0).toEqual([0x010e, 0x010f, 0x0110, 0x0112, 0x8769]);
    const exifAt = new DataView(segment.buffer, segment.byteOffset + 10).getUint32(8 + 2 + 12 * 4 + 8, true);
    expect(ifdTags(segment, exifAt)).toEqual([0x9000, 0x9003, 0x9004, 0x9011, 0xa431]);
  });

  it('writes none of it when the time was not corrected, the camera’s time is the same, or either is malformed', async () => {
    for (const exif of [
      EXIF,
      { ...EXIF, cameraCaptureTime: EXIF.captureTime },
      { ...EXIF, cameraCaptureTime: '2000-01-01 00:03' },
      { ...EXIF, captureTime: undefined, cameraCaptureTime: '2000-01-01T00:03:12' },
    ]) {
      const { ifd0, exif: exifIfd } = await rawTags(withExif(canvasJpeg(), exif));
      expect(ifd0[0x010e]).toBeUndefined();
      expect(exifIfd[0x9004]).toBeUndefined();
      expect(exifIfd[0x9003]).toBe(exif.captureTime ? '2024:10:03 05:12:44' : undefined);
    }
  });
});

describe('insertExif', () => {
  it('refuses what is not a JPEG, or whose segments run past its end', () => {
    const segment = exifSegment(EXIF);
    expect(() => insertExif(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), segment)).toThrow(NotAJpegError);
    expect(() => insertExif(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x40, 0x00, 1, 2]), segment)).toThrow(NotAJpegError);
    expect(() => insertExif(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]), segment)).toThrow(NotAJpegError);
  });

  it('skips fill bytes before a marker', async () => {
    const input = Uint8Array.from([0xff, 0xd8, 0xff, 0xff, 0xdb, 0, 4, 1, 2, 0xff, 0xda, 0, 2, 0xff, 0xd9]);
    expect(await readExif(insertExif(input, exifSegment(EXIF)))).toEqual(EXIF);
  });
});

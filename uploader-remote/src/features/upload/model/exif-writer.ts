/**
 * Writes the EXIF of a smaller copy (smaller-copy.ts): the canvas that makes the copy writes a bare
 * JPEG, and the server reads the capture time and the camera from the upload's EXIF, so they are
 * written back. Pure (Uint8Array and DataView only): it runs in the copy worker.
 *
 * Hand-written rather than a library's: the few tags below need a TIFF header and two IFDs, and
 * the general EXIF writers are large or unmaintained. The tags are those services/files/exif.ts
 * reads (read back by exifr in uploader-remote/test/exif-writer.test.ts).
 */
import { EXIF_TEXT_MAX, type PhotoExif } from './photo-exif';

const ASCII = 2;
const SHORT = 3;
const LONG = 4;
const UNDEFINED = 7;

interface Entry {
  tag: number;
  type: typeof ASCII | typeof SHORT | typeof LONG | typeof UNDEFINED;
  /** The value's bytes, already in the TIFF's byte order (ASCII NUL-terminated). */
  bytes: Uint8Array;
  count: number;
}

/** Which way the stored pixels are turned (EXIF Orientation, 1–8); a copy's pixels are upright (1). */
export type ExifOrientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

export interface ExifSegmentOptions {
  /** Default 1: the copy's pixels are already upright (copy.worker.ts decodes with `imageOrientation: 'from-image'`). */
  orientation?: ExifOrientation;
}

/** "2024-10-03T05:12:44" (PhotoExif.captureTime). */
const CAPTURE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const OFFSET = /^[+-]\d{2}:\d{2}$/;

const encoder = new TextEncoder();

/** "2024-10-03T05:12:44" as EXIF spells a date and time, "2024:10:03 05:12:44"; undefined when not in that form. */
function exifDateTime(captureTime: string | undefined): string | undefined {
  const m = captureTime ? CAPTURE_TIME.exec(captureTime) : null;
  return m ? `${m[1]}:${m[2]}:${m[3]} ${m[4]}:${m[5]}:${m[6]}` : undefined;
}

/** The ImageDescription of a copy whose capture time was corrected: at most 55 characters, within EXIF_TEXT_MAX. */
export const correctedTimeText = (cameraTime: string) => `Capture time corrected; camera said ${cameraTime}`;

/** A text value: control characters dropped, at most EXIF_TEXT_MAX characters, UTF-8, NUL-terminated. Null when empty. */
function text(value: string | undefined): { bytes: Uint8Array; count: number } | null {
  if (value === undefined) return null;
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const clean = Array.from(value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ''))
    .slice(0, EXIF_TEXT_MAX)
    .join('')
    .trim();
  if (clean === '') return null;
  const utf8 = encoder.encode(clean);
  const bytes = new Uint8Array(utf8.length + 1);
  bytes.set(utf8);
  return { bytes, count: bytes.length };
}

function asciiEntry(tag: number, value: string | undefined): Entry | null {
  const t = text(value);
  return t ? { tag, type: ASCII, ...t } : null;
}

function numberEntry(tag: number, type: typeof SHORT | typeof LONG, value: number, le: boolean): Entry {
  const bytes = new Uint8Array(type === SHORT ? 2 : 4);
  const view = new DataView(bytes.buffer);
  if (type === SHORT) view.setUint16(0, value, le);
  else view.setUint32(0, value, le);
  return { tag, type, bytes, count: 1 };
}

/** Values of more than 4 bytes go after the IFD, word-aligned. */
const outside = (e: Entry) => (e.bytes.length > 4 ? (e.bytes.length + 1) & ~1 : 0);
const ifdSize = (entries: Entry[]) => 2 + 12 * entries.length + 4 + entries.reduce((sum, e) => sum + outside(e), 0);

function writeIfd(tiff: Uint8Array, at: number, entries: Entry[], le: boolean): void {
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  view.setUint16(at, entries.length, le);
  let data = at + 2 + 12 * entries.length + 4;
  entries.forEach((e, i) => {
    const p = at + 2 + 12 * i;
    view.setUint16(p, e.tag, le);
    view.setUint16(p + 2, e.type, le);
    view.setUint32(p + 4, e.count, le);
    if (e.bytes.length > 4) {
      view.setUint32(p + 8, data, le);
      tiff.set(e.bytes, data);
      data += outside(e);
    } else {
      tiff.set(e.bytes, p + 8);
    }
  });
  // No next IFD (no thumbnail: a copy needs none).
  view.setUint32(at + 2 + 12 * entries.length, 0, le);
}

/**
 * An APP1 "Exif" segment (marker and length included) with IFD0 (Make, Model, Orientation) and the
 * Exif IFD (ExifVersion 0232, DateTimeOriginal, OffsetTimeOriginal, BodySerialNumber), from what
 * is known of the photo; what is absent or malformed is left out (a captureTime not in the form
 * "2024-10-03T05:12:44", an offset not "-05:00"). Little-endian, as most cameras write it. Texts are
 * cut to EXIF_TEXT_MAX characters, so the segment stays well under its 64 KiB limit.
 *
 * When a stage corrected the capture time (`cameraCaptureTime` set and unlike `captureTime`),
 * DateTimeOriginal is the corrected time, DateTimeDigitized says the same (for readers that
 * prefer it), and IFD0's ImageDescription names the camera's own value (correctedTimeText).
 * Each IFD's entries are in ascending tag order, as TIFF requires.
 */
export function exifSegment(exif: PhotoExif | null, options: ExifSegmentOptions = {}): Uint8Array {
  const le = true;
  const time = exifDateTime(exif?.captureTime);
  const cameraTime = time ? exifDateTime(exif?.cameraCaptureTime) : undefined;
  const corrected = cameraTime !== undefined && cameraTime !== time;
  const ifd0 = [
    corrected ? asciiEntry(0x010e, correctedTimeText(cameraTime)) : null,
    asciiEntry(0x010f, exif?.make),
    asciiEntry(0x0110, exif?.model),
    numberEntry(0x0112, SHORT, options.orientation ?? 1, le),
    numberEntry(0x8769, LONG, 0, le), // the Exif IFD's offset, set below
  ].filter((e): e is Entry => e !== null);
  const exifIfd = [
    { tag: 0x9000, type: UNDEFINED, bytes: encoder.encode('0232'), count: 4 } satisfies Entry,
    asciiEntry(0x9003, time),
    corrected ? asciiEntry(0x9004, time) : null,
    time && exif?.captureOffset && OFFSET.test(exif.captureOffset) ? asciiEntry(0x9011, exif.captureOffset) : null,
    asciiEntry(0xa431, exif?.serial),
  ].filter((e): e is Entry => e !== null);

  const ifd0At = 8;
  const exifAt = ifd0At + ifdSize(ifd0);
  ifd0[ifd0.length - 1] = numberEntry(0x8769, LONG, exifAt, le);
  const tiff = new Uint8Array(exifAt + ifdSize(exifIfd));
  const view = new DataView(tiff.buffer);
  tiff.set([0x49, 0x49], 0); // "II": Intel byte order
  view.setUint16(2, 42, le);
  view.setUint32(4, ifd0At, le);
  writeIfd(tiff, ifd0At, ifd0, le);
  writeIfd(tiff, exifAt, exifIfd, le);

  // Marker, length (big-endian, counting itself, not the marker), "Exif\0\0", the TIFF data.
  const length = 2 + 6 + tiff.length;
  const segment = new Uint8Array(2 + length);
  segment.set([0xff, 0xe1, length >> 8, length & 0xff, 0x45, 0x78, 0x69, 0x66, 0, 0], 0);
  segment.set(tiff, 10);
  return segment;
}

/** Thrown for bytes that are not a JPEG whose header segments can be walked. */
export class NotAJpegError extends Error {
  constructor(why: string) {
    super(`Not a JPEG: ${why}`);
    this.name = 'NotAJpegError';
  }
}

/** True for a JFIF APP0 segment at `at` ("JFIF\0" after the length). */
function isJfif(jpeg: Uint8Array, at: number): boolean {
  return jpeg[at + 1] === 0xe0 && jpeg[at + 4] === 0x4a && jpeg[at + 5] === 0x46 && jpeg[at + 6] === 0x49 && jpeg[at + 7] === 0x46 && jpeg[at + 8] === 0;
}

/**
 * The JPEG with `segment` (exifSegment's) as its EXIF: right after SOI, or after a JFIF APP0 that
 * opens the file (as canvas encoders write it), and every APP1 of the input left out (an APP1 is
 * EXIF or XMP of the original; the copy's is the new one). The segments before the image data are
 * walked up to SOS; from there the bytes are copied as they are. Throws NotAJpegError when the
 * input does not start with SOI or a segment's length runs past the end.
 */
export function insertExif(jpeg: Uint8Array, segment: Uint8Array): Uint8Array {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new NotAJpegError('no SOI');
  const kept: [number, number][] = [];
  let head = 2;
  let at = 2;
  for (;;) {
    if (at + 4 > jpeg.length) throw new NotAJpegError('it ends among its header segments');
    if (jpeg[at] !== 0xff) throw new NotAJpegError(`no marker at byte ${at}`);
    const marker = jpeg[at + 1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Start of scan (the image data), or a marker without a length: copied from here on as is.
    if (marker === 0xda || marker === 0xd9 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) break;
    const end = at + 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!);
    if (end > jpeg.length || end < at + 4) throw new NotAJpegError(`the segment at byte ${at} runs past the end`);
    if (at === 2 && isJfif(jpeg, at)) head = end;
    else if (marker !== 0xe1) kept.push([at, end]);
    at = end;
  }
  const keptLength = kept.reduce((sum, [start, end]) => sum + end - start, 0);
  const out = new Uint8Array(head + segment.length + keptLength + (jpeg.length - at));
  out.set(jpeg.subarray(0, head), 0);
  let to = head;
  out.set(segment, to);
  to += segment.length;
  for (const [start, end] of kept) {
    out.set(jpeg.subarray(start, end), to);
    to += end - start;
  }
  out.set(jpeg.subarray(at), to);
  return out;
}

/** The JPEG with the photo's EXIF (exifSegment) in place of any it had: insertExif(jpeg, exifSegment(exif, options)). */
export function withExif(jpeg: Uint8Array, exif: PhotoExif | null, options: ExifSegmentOptions = {}): Uint8Array {
  return insertExif(jpeg, exifSegment(exif, options));
}

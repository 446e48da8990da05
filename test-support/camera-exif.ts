/**
 * The EXIF a trail camera writes, as test-support/jpeg.ts puts it in a test's JPEG: an APP1
 * "Exif\0\0" segment holding a TIFF header, IFD0 (Make, Model, the Exif IFD pointer), the Exif IFD
 * (DateTimeOriginal, OffsetTimeOriginal, BodySerialNumber, as given: a camera's odd values too)
 * and, with `thumbnail`, IFD1 pointing at the embedded thumbnail (JPEGInterchangeFormat/Length),
 * in either byte order. These are what the uploader's EXIF reader meets on members' cards and its
 * own writer (uploader-remote/src/features/upload/model/exif-writer.ts) never writes: Motorola
 * order, thumbnails, malformed dates. Dependency-free (Uint8Array and DataView only), so it also
 * runs in a browser.
 */

export interface CameraExif {
  make?: string;
  model?: string;
  /** As EXIF writes it: "2024:10:03 05:12:44". */
  dateTimeOriginal?: string;
  /** OffsetTimeOriginal, e.g. "-05:00". */
  offset?: string;
  /** BodySerialNumber. */
  serial?: string;
  /** The embedded thumbnail's bytes (a JPEG of its own). */
  thumbnail?: Uint8Array;
  /** Motorola byte order ("MM"); Intel ("II", little-endian) by default. */
  bigEndian?: boolean;
}

const ASCII = 2;
const SHORT = 3;
const LONG = 4;

interface Entry {
  tag: number;
  type: typeof ASCII | typeof SHORT | typeof LONG;
  /** A string (ASCII, NUL added) or numbers. */
  value: string | number[];
}

const byteSize = (e: Entry) => (typeof e.value === 'string' ? e.value.length + 1 : e.value.length * (e.type === SHORT ? 2 : 4));
/** Values of more than 4 bytes go after the IFD, word-aligned. */
const dataSize = (entries: Entry[]) => entries.reduce((sum, e) => sum + (byteSize(e) > 4 ? (byteSize(e) + 1) & ~1 : 0), 0);
const ifdSize = (entries: Entry[]) => 2 + 12 * entries.length + 4 + dataSize(entries);

/** The APP1 segment (marker and length included) a camera writes with `options`. */
export function cameraExifSegment(options: CameraExif): Uint8Array {
  const le = !options.bigEndian;
  const ifd0: Entry[] = [];
  if (options.make !== undefined) ifd0.push({ tag: 0x010f, type: ASCII, value: options.make });
  if (options.model !== undefined) ifd0.push({ tag: 0x0110, type: ASCII, value: options.model });
  ifd0.push({ tag: 0x8769, type: LONG, value: [0] }); // ExifIFD pointer, set below
  const exif: Entry[] = [];
  if (options.dateTimeOriginal !== undefined) exif.push({ tag: 0x9003, type: ASCII, value: options.dateTimeOriginal });
  if (options.offset !== undefined) exif.push({ tag: 0x9011, type: ASCII, value: options.offset });
  if (options.serial !== undefined) exif.push({ tag: 0xa431, type: ASCII, value: options.serial });
  const ifd1: Entry[] = options.thumbnail
    ? [
        { tag: 0x0103, type: SHORT, value: [6] }, // Compression: JPEG
        { tag: 0x0201, type: LONG, value: [0] }, // JPEGInterchangeFormat, set below
        { tag: 0x0202, type: LONG, value: [options.thumbnail.length] },
      ]
    : [];

  // Offsets within the TIFF data (from its header), as the IFDs and pointers count them.
  const ifd0At = 8;
  const exifAt = ifd0At + ifdSize(ifd0);
  const ifd1At = exifAt + ifdSize(exif);
  const thumbnailAt = ifd1At + (ifd1.length > 0 ? ifdSize(ifd1) : 0);
  ifd0[ifd0.length - 1]!.value = [exifAt];
  if (ifd1.length > 0) ifd1[1]!.value = [thumbnailAt];
  const tiffLength = thumbnailAt + (options.thumbnail?.length ?? 0);

  const tiff = new Uint8Array(tiffLength);
  const view = new DataView(tiff.buffer);
  tiff.set(le ? [0x49, 0x49] : [0x4d, 0x4d], 0);
  view.setUint16(2, 42, le);
  view.setUint32(4, ifd0At, le);
  const writeIfd = (at: number, entries: Entry[], next: number) => {
    view.setUint16(at, entries.length, le);
    let data = at + 2 + 12 * entries.length + 4;
    entries.forEach((e, i) => {
      const p = at + 2 + 12 * i;
      view.setUint16(p, e.tag, le);
      view.setUint16(p + 2, e.type, le);
      view.setUint32(p + 4, typeof e.value === 'string' ? e.value.length + 1 : e.value.length, le);
      const size = byteSize(e);
      let where = p + 8;
      if (size > 4) {
        view.setUint32(p + 8, data, le);
        where = data;
        data += (size + 1) & ~1;
      }
      if (typeof e.value === 'string') for (let c = 0; c < e.value.length; c++) tiff[where + c] = e.value.charCodeAt(c) & 0xff;
      else if (e.type === SHORT) e.value.forEach((v, k) => view.setUint16(where + 2 * k, v, le));
      else e.value.forEach((v, k) => view.setUint32(where + 4 * k, v, le));
    });
    view.setUint32(at + 2 + 12 * entries.length, next, le);
  };
  writeIfd(ifd0At, ifd0, ifd1.length > 0 ? ifd1At : 0);
  writeIfd(exifAt, exif, 0);
  if (ifd1.length > 0) writeIfd(ifd1At, ifd1, 0);
  if (options.thumbnail) tiff.set(options.thumbnail, thumbnailAt);

  // APP1: marker, length (big-endian, counting itself), "Exif\0\0", the TIFF data.
  const app1Length = 2 + 6 + tiff.length;
  if (app1Length > 0xffff) throw new RangeError(`EXIF of ${tiff.length} bytes does not fit one APP1 segment`);
  const segment = new Uint8Array(2 + app1Length);
  segment.set([0xff, 0xe1, app1Length >> 8, app1Length & 0xff, 0x45, 0x78, 0x69, 0x66, 0, 0], 0);
  segment.set(tiff, 10);
  return segment;
}

/** A stand-in for an embedded thumbnail: a JPEG's start and end around some recognisable bytes. */
export function fakeThumbnailJpeg(length = 64): Uint8Array {
  const bytes = new Uint8Array(Math.max(length, 6));
  bytes.set([0xff, 0xd8, 0xff, 0xdb], 0);
  for (let i = 4; i < bytes.length - 2; i++) bytes[i] = i & 0xff;
  bytes.set([0xff, 0xd9], bytes.length - 2);
  return bytes;
}

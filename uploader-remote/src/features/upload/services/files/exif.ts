// exifr's "mini" build: the JPEG and TIFF/EXIF parsers and thumbnail(), without tag dictionaries
// (~9 KB gzipped; "lite" is ~15, "full" ~26), so tags are asked for and read back by number.
// Its UMD file, not the ESM one: jest runs node_modules as CommonJS untransformed, and webpack
// takes UMD as it takes any CommonJS module. Typed in exifr-mini.d.ts.
import { parse, thumbnail } from 'exifr/dist/mini.umd.js';
import { exifFromTags, type PhotoExif } from '../../model/photo-exif';

/** The tags read, by number (the mini build has no names), and the names exifFromTags takes them by. */
const IFD0_TAGS: Record<number, string> = { 0x010f: 'Make', 0x0110: 'Model' };
const EXIF_TAGS: Record<number, string> = {
  0x9003: 'DateTimeOriginal',
  0x9011: 'OffsetTimeOriginal',
  0xa431: 'BodySerialNumber',
  // Written by some tools in place of BodySerialNumber.
  0xfde9: 'SerialNumber',
};

/**
 * Only IFD0 and the EXIF IFD, only the tags above (exifr stops reading a block once it has them),
 * raw values: dates stay the camera's strings (reviveValues would turn them into Dates in the
 * browser's zone). Blocks are kept apart (mergeOutput: false) because their numeric keys are not
 * translated.
 */
const EXIF_OPTIONS = {
  ifd0: { pick: Object.keys(IFD0_TAGS).map(Number) },
  exif: { pick: Object.keys(EXIF_TAGS).map(Number) },
  ifd1: false,
  gps: false,
  interop: false,
  makerNote: false,
  userComment: false,
  xmp: false,
  icc: false,
  iptc: false,
  jfif: false,
  ihdr: false,
  translateKeys: false,
  translateValues: false,
  reviveValues: false,
  mergeOutput: false,
};

/**
 * The capture time and camera of a JPEG from its first bytes, the 64 KiB sample the probe has
 * already read: EXIF sits in the APP1 segment at the start of the file, so no other read is made.
 * Null when there is no EXIF, nothing useful in it, or it cannot be parsed: never throws, because
 * a photo with broken EXIF is still uploaded.
 */
export async function readExif(head: Uint8Array): Promise<PhotoExif | null> {
  try {
    const output = (await parse(ownBuffer(withinSample(head)), EXIF_OPTIONS)) as { ifd0?: Record<string, unknown>; exif?: Record<string, unknown> } | undefined;
    if (!output) return null;
    const tags: Record<string, unknown> = {};
    for (const [block, names] of [
      [output.ifd0, IFD0_TAGS],
      [output.exif, EXIF_TAGS],
    ] as const) {
      for (const [tag, name] of Object.entries(names)) if (block?.[tag] !== undefined) tags[name] = block[tag];
    }
    return exifFromTags(tags);
  } catch {
    return null;
  }
}

/**
 * The JPEG thumbnail embedded in the EXIF (IFD1) of a JPEG's first bytes, when it lies wholly
 * within them; null otherwise (none, an uncompressed one, cut off by the end of the sample, broken
 * EXIF). Never throws.
 */
export async function readThumbnail(head: Uint8Array): Promise<Uint8Array | null> {
  try {
    const bytes = await thumbnail(ownBuffer(head));
    // A JPEG's start, or not a thumbnail: exifr returns whatever its offsets point at.
    if (!bytes || bytes.byteLength < 4 || bytes.byteLength >= head.byteLength || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return null;
    // A copy: a view would keep the whole sample alive with the thumbnail.
    return new Uint8Array(bytes);
  } catch {
    return null;
  }
}

/**
 * The sample in an ArrayBuffer of its own. exifr reads a segment through the underlying buffer,
 * so a view into a larger one (the probe's sample of a small file) would let a broken offset
 * read past the sample instead of failing.
 */
function ownBuffer(head: Uint8Array): Uint8Array {
  return head.byteOffset === 0 && head.byteLength === head.buffer.byteLength ? head : head.slice();
}

/**
 * The sample with an APP1 segment that runs past its end shortened to what was read. An APP1 may
 * be up to 64 KiB, after an APP0, so a camera with a large EXIF (a big thumbnail at its end) has
 * one longer than the sample, which exifr refuses whole; IFD0 and the EXIF IFD sit at its start and
 * are read from what is there. exifr also wants a byte after the segment, hence the `- 1`.
 */
function withinSample(head: Uint8Array): Uint8Array {
  let at = 2;
  while (at + 4 <= head.length && head[at] === 0xff) {
    const marker = head[at + 1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Start of scan or end of image: no more metadata segments.
    if (marker === 0xda || marker === 0xd9) break;
    const end = at + 2 + ((head[at + 2]! << 8) | head[at + 3]!);
    if (end >= head.length) {
      if (marker !== 0xe1) break;
      const shortened = head.slice();
      const length = head.length - at - 3;
      shortened[at + 2] = length >> 8;
      shortened[at + 3] = length & 0xff;
      return shortened;
    }
    at = end;
  }
  return head;
}

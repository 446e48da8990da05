/**
 * The one JPEG builder of the tests, browser tests and benches: a real, small JPEG file put
 * together segment by segment — SOI; a JFIF APP0; an APP1 EXIF segment, either the uploader's
 * own (its writer, uploader-remote/src/features/upload/model/exif-writer.ts, as a smaller copy
 * carries it) or a camera's (./camera-exif.ts: what the reader meets on cards); a comment; random
 * filler; a frame header (SOF0) with its size; a scan's start; zeros up to a size; EOI. No image
 * data: what reads these files (the object-created function's first-bytes check, the uploader's
 * EXIF reader and frame-size probe) never decodes pixels. Painted photos for what must look real
 * are e2e/support/photos.ts's. Dependency-free but for the writer, so it also runs in a browser.
 */
import { exifSegment, type ExifOrientation } from '../uploader-remote/src/features/upload/model/exif-writer';
import type { PhotoExif } from '../uploader-remote/src/features/upload/model/photo-exif';
import { cameraExifSegment, type CameraExif } from './camera-exif';

export { fakeThumbnailJpeg, type CameraExif } from './camera-exif';

export interface JpegParts {
  /** A JFIF APP0 segment (18 bytes) first, as canvases and many cameras write. */
  jfif?: boolean;
  /** EXIF as the uploader's writer writes it (a copy's), with its Orientation. */
  exif?: PhotoExif & { orientation?: ExifOrientation };
  /** EXIF as a camera writes it (camera-exif.ts). */
  cameraExif?: CameraExif;
  /** A comment segment (COM) holding this text: files that must differ. */
  comment?: string;
  /** Bytes of random filler, in comment segments: a file of that size that does not compress. */
  noise?: number;
  /** A baseline frame header (SOF0) saying the image's size, as a camera writes it. */
  frame?: { width: number; height: number };
  /** A scan's start (SOS), as an encoder writes before its data. */
  scan?: boolean;
  /** The file's size: zeros are added before EOI up to it (none when the file is larger already). */
  padTo?: number;
}

const SOI = [0xff, 0xd8];
const EOI = [0xff, 0xd9];
const APP0 = [0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
const SOS = [0xff, 0xda, 0, 2];
const MAX_SEGMENT_PAYLOAD = 65_000;

/** A segment with `marker` and its length (big-endian, counting itself), holding `payload`. */
function segment(marker: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  out.set([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  out.set(payload, 4);
  return out;
}

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  // getRandomValues fills at most 65,536 bytes at a time.
  for (let at = 0; at < n; at += 65_536) globalThis.crypto.getRandomValues(bytes.subarray(at, Math.min(n, at + 65_536)));
  return bytes;
}

/** The JPEG made of `parts`, in the order a file holds them. */
export function buildJpeg(parts: JpegParts = {}): Uint8Array {
  const pieces: Uint8Array[] = [Uint8Array.from(SOI)];
  if (parts.jfif) pieces.push(Uint8Array.from(APP0));
  if (parts.exif) pieces.push(exifSegment(parts.exif, { orientation: parts.exif.orientation ?? 1 }));
  if (parts.cameraExif) pieces.push(cameraExifSegment(parts.cameraExif));
  if (parts.comment !== undefined) pieces.push(segment(0xfe, new TextEncoder().encode(parts.comment)));
  for (let left = parts.noise ?? 0; left > 0; left -= MAX_SEGMENT_PAYLOAD) {
    pieces.push(segment(0xfe, randomBytes(Math.min(left, MAX_SEGMENT_PAYLOAD))));
  }
  if (parts.frame) {
    const { width, height } = parts.frame;
    // 8-bit precision, the size, three components (Y 2×2, Cb and Cr 1×1).
    pieces.push(segment(0xc0, Uint8Array.from([8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])));
  }
  if (parts.scan) pieces.push(Uint8Array.from(SOS));
  const head = pieces.reduce((sum, p) => sum + p.length, 0);
  const file = new Uint8Array(Math.max(head + EOI.length, parts.padTo ?? 0));
  let at = 0;
  for (const piece of pieces) {
    file.set(piece, at);
    at += piece.length;
  }
  file.set(EOI, file.length - EOI.length);
  return file;
}

/** A JPEG with a camera's EXIF (camera-exif.ts), optionally after a JFIF APP0 and padded to `padTo` bytes. */
export function jpegWithExif(options: CameraExif & { jfif?: boolean; padTo?: number }): Uint8Array {
  const { jfif, padTo, ...cameraExif } = options;
  return buildJpeg({ jfif, cameraExif, padTo });
}

/**
 * A small valid JPEG for tests that store photos: the object-created function refuses an object
 * that does not start as a JPEG does (infra/src/object-created/handler.ts), so a test's photo must
 * be one. `seed` makes every file distinct; `padding` bytes of random filler give it a size.
 */
export function jpegBytes(seed: string, padding = 0): Buffer {
  return Buffer.from(buildJpeg({ jfif: true, comment: `trailsense-e2e ${seed}`, noise: padding }));
}

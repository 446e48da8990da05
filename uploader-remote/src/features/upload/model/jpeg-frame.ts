/**
 * A JPEG's stored size from its frame header (SOF), read before decoding: the copy worker chooses
 * the scale it decodes a photo at from it (smaller-copy.ts's copyPlan). Pure (Uint8Array only).
 */

/** A JPEG's stored size, before its EXIF orientation is applied (a sideways photo is stored landscape). */
export interface JpegFrame {
  width: number;
  height: number;
}

/**
 * The frames JPEG's DCT scaling is made for: baseline (SOF0), extended (SOF1) and progressive
 * (SOF2), Huffman-coded, which is what cameras and editors write. Lossless, hierarchical and
 * arithmetic-coded frames are left to the whole decode.
 */
const SCALABLE_FRAMES = new Set([0xc0, 0xc1, 0xc2]);

/**
 * The size in the frame header of `bytes` (a JPEG's start or the whole file), walking its segments
 * from SOI; null when it is not a JPEG, its frame is not one of SCALABLE_FRAMES, its size is not a
 * real one (a height of 0 is defined later, by a DNL segment), or the header is not within `bytes`
 * (cut off, or a segment's length runs past the end). Never throws.
 */
export function jpegFrame(bytes: Uint8Array): JpegFrame | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    // The image data, or the end, before any frame header.
    if (marker === 0xda || marker === 0xd9) return null;
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (length < 2) return null;
    // SOFn but DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (!SCALABLE_FRAMES.has(marker) || length < 11 || at + 9 > bytes.length) return null;
      const height = (bytes[at + 5]! << 8) | bytes[at + 6]!;
      const width = (bytes[at + 7]! << 8) | bytes[at + 8]!;
      return width > 0 && height > 0 ? { width, height } : null;
    }
    at += 2 + length;
  }
  return null;
}

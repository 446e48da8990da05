/**
 * "Send smaller copies" (docs/uploader.md#smaller-copies): what a copy is and when one is worth
 * sending. Pure, so the rules are testable without a browser; the worker that makes copies
 * (services/files/copy.worker.ts, pooled by services/files/copy-maker.ts) applies them.
 */
import type { QuarterTurn } from './photo-exif';

/**
 * The copy's longest edge, in pixels: the product's target size, and where the measurement puts it
 * (bench/copy-quality.ts, docs/performance.md#smaller-copies): for the same bytes, a 2048 px copy
 * keeps more of the photo than a 1600 px one at a higher quality, and a 2560 px one costs half as
 * many bytes again for little more.
 */
export const COPY_LONG_EDGE = 2048;

/**
 * The copy's JPEG quality (0–1, as `OffscreenCanvas.convertToBlob` takes it): the knee of SSIM
 * against bytes at 2048 px (docs/performance.md#smaller-copies). Up to 0.75 each step buys much
 * similarity for few bytes; past it each step costs 20–35 % more bytes for a third of the gain.
 * A copy is then ~225 KB, 6 % of a 4 MB original: 0.6 s at 3 Mbit/s instead of 11 s.
 */
export const COPY_QUALITY = 0.75;

/**
 * A copy is sent only when it is smaller than this share of the original. A copy loses pixels and
 * every EXIF tag but the few copied (exif-writer.ts); a copy at 80 % or more of the original saves
 * at most a fifth of the upload's time, which is not worth that. Copies of 12–20 MP photos are
 * about 6 % of the original (docs/performance.md#smaller-copies), so a copy this large means the
 * original was already small or heavily compressed.
 */
export const WORTH_SENDING_RATIO = 0.8;

/** What became of one photo asked for a copy. */
export type CopyResult =
  /** A smaller JPEG of the photo, oriented upright, with the original's capture time, make and model in its EXIF. */
  | { kind: 'copy'; blob: Blob; width: number; height: number }
  /**
   * The original is sent instead: it is no larger than a copy would be (`small`), the copy came
   * out no smaller (`not-smaller`), the browser could not decode it (`undecodable`), or no copy
   * can be made here (`unavailable`: no worker could be started, the browser has no
   * OffscreenCanvas or JPEG encoder, or the worker making this copy crashed).
   */
  | { kind: 'original'; reason: 'small' | 'not-smaller' | 'undecodable' | 'unavailable' };

export interface CopySize {
  width: number;
  height: number;
}

/**
 * The copy's size for an (upright) original of `width` × `height`: the longer edge becomes
 * `longEdge`, the other keeps the aspect, rounded, at least 1 px. Null when the original's longer
 * edge is already no more than `longEdge` (a copy is never upscaled: the original is sent), or the
 * size is not a real one (zero, negative, not finite).
 */
export function copyDimensions(width: number, height: number, longEdge: number = COPY_LONG_EDGE): CopySize | null {
  if (!(Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0)) return null;
  const long = Math.max(width, height);
  if (long <= longEdge) return null;
  const short = Math.max(1, Math.round((Math.min(width, height) * longEdge) / long));
  return width >= height ? { width: longEdge, height: short } : { width: short, height: longEdge };
}

/** How a copy is drawn on its canvas: the canvas's size, and the image's turn on it. */
export interface CopyDrawing {
  /** The canvas's size: the copy's (copyDimensions of the turned photo). */
  width: number;
  height: number;
  /**
   * The canvas transform, applied in this order: `translate(x, y)`, then `rotate(radians)`
   * (clockwise, as the canvas's y axis points down). Null without a turn: drawn as decoded.
   */
  transform: { x: number; y: number; radians: number } | null;
  /** The size the image is drawn at, `drawImage(image, 0, 0, width, height)` in the turned space: the canvas's, its sides swapped for a quarter turn. */
  draw: CopySize;
}

/**
 * How to draw the copy of an upright photo of `width` × `height` (as decoded, its EXIF orientation
 * applied) turned `turn` degrees clockwise (PhotoExif.turn, the member's choice): the copy's size is
 * copyDimensions of the turned size (the sides swap for 90 and 270), and the transform brings the
 * turned image onto the canvas: 90 from its top-right corner, 180 from its bottom-right, 270 from
 * its bottom-left. Anything but 90, 180 or 270 is no turn. Null when no copy is made (copyDimensions).
 */
export function copyDrawing(width: number, height: number, turn: QuarterTurn | undefined, longEdge: number = COPY_LONG_EDGE): CopyDrawing | null {
  // Checked, not trusted: the value crossed a postMessage.
  const turned = turn === 90 || turn === 180 || turn === 270 ? turn : null;
  const quarter = turned === 90 || turned === 270;
  const size = quarter ? copyDimensions(height, width, longEdge) : copyDimensions(width, height, longEdge);
  if (!size) return null;
  const draw = quarter ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  if (turned === null) return { ...size, transform: null, draw };
  const [x, y] = turned === 90 ? [size.width, 0] : turned === 180 ? [size.width, size.height] : [0, size.height];
  return { ...size, transform: { x, y, radians: (turned * Math.PI) / 180 }, draw };
}

/**
 * Whether a copy of `copyBytes` is worth sending instead of an original of `originalBytes`: it must
 * be smaller than WORTH_SENDING_RATIO of it. False for sizes that are not real (≤ 0, not finite).
 */
export function worthSending(originalBytes: number, copyBytes: number): boolean {
  if (!(Number.isFinite(originalBytes) && Number.isFinite(copyBytes) && originalBytes > 0 && copyBytes > 0)) return false;
  return copyBytes < originalBytes * WORTH_SENDING_RATIO;
}

/**
 * JPEG's DCT scaling decodes at M/8 of the stored size, M from 1 to 8 (libjpeg-turbo; the output
 * rounded up): the inverse DCT keeps only the lower frequencies, so a photo decoded at 4/8 costs a
 * fraction of a whole decode and is already low-passed for the resize that follows. Only the
 * entropy decoding still reads every coefficient.
 */
export const DCT_SCALE_DENOMINATOR = 8;

/** A decode at a reduced size: `numerator`/8 of the stored size, `width` × `height` as the decoder writes it. */
export interface ScaledDecode {
  numerator: number;
  width: number;
  height: number;
}

/**
 * The smallest DCT scale at which a JPEG stored `width` × `height` decodes with its long edge
 * still at least `longEdge`, so the copy is only ever scaled down from it (then drawn at the copy's
 * exact size with the canvas's smoothing); null when no copy is made (copyDimensions: the photo is
 * no larger than the copy, or its size is not a real one). Turning does not change it: the long
 * edge is the long edge either way.
 */
export function scaledDecode(width: number, height: number, longEdge: number = COPY_LONG_EDGE): ScaledDecode | null {
  if (!copyDimensions(width, height, longEdge)) return null;
  const long = Math.max(width, height);
  const numerator = Math.min(DCT_SCALE_DENOMINATOR, Math.max(1, Math.ceil((longEdge * DCT_SCALE_DENOMINATOR) / long)));
  const scaled = (edge: number) => Math.ceil((edge * numerator) / DCT_SCALE_DENOMINATOR);
  return { numerator, width: scaled(width), height: scaled(height) };
}

/**
 * How one photo's copy is made, decided before anything is decoded:
 * - `scaled`: decoded at a DCT scale (scaledDecode) by WebCodecs' ImageDecoder, whose frame says
 *   how the EXIF orientation turns it (`stored`: the size in its header, before turning);
 * - `whole`: decoded whole by createImageBitmap and scaled on the canvas, as where the engine has
 *   no scaled JPEG decoder, or the file's frame header cannot be read (not a JPEG whatever its
 *   name, a lossless or arithmetic-coded one);
 * - `small`: no copy, the original goes: its header says it is no larger than the copy.
 */
export type CopyPlan = { kind: 'scaled'; stored: CopySize; decode: ScaledDecode } | { kind: 'whole' } | { kind: 'small' };

/**
 * The plan for a photo whose frame header gave `frame` (null: none read or none readable), where
 * a scaled decoder exists or not. The stored size decides alone: a copy's long edge does not
 * depend on which way the photo is turned.
 */
export function copyPlan(frame: CopySize | null, longEdge: number, scaledDecoder: boolean): CopyPlan {
  if (!scaledDecoder || !frame) return { kind: 'whole' };
  const decode = scaledDecode(frame.width, frame.height, longEdge);
  return decode ? { kind: 'scaled', stored: { width: frame.width, height: frame.height }, decode } : { kind: 'small' };
}

// The copy worker's entry: webpack compiles it as its own self-contained chunk (see
// start-copy-worker.ts and webpack/index.js). It must not import federation-shared modules (react,
// @trailsense/shared, aws-amplify): the worker has no federation share scope to take them from.
// It imports only the uploader's pure model.
import { withExif } from '../../model/exif-writer';
import type { PhotoExif } from '../../model/photo-exif';
import { jpegFrame } from '../../model/jpeg-frame';
import { copyDrawing, copyPlan, worthSending, type CopyDrawing, type CopyPlan, type CopyResult } from '../../model/smaller-copy';
import type { CopyRequest, CopyResponse } from './copy-protocol';

/** The part of a WebCodecs frame (a VideoFrame) the copy reads: how the photo's EXIF orientation turned it. */
export interface DecodedFrame {
  /** Clockwise degrees, 0, 90, 180 or 270 (Chromium fills it, and `flip`, from the EXIF orientation). */
  readonly rotation: number;
  close(): void;
}

/** The part of WebCodecs' ImageDecoder the scaled decode uses. */
export interface ImageDecoderLike {
  decode(): Promise<{ image: DecodedFrame }>;
  close(): void;
}
export type ImageDecoderConstructor = new (init: ImageDecoderInit) => ImageDecoderLike;

/**
 * A JPEG decoded at a reduced size (CopyPlan `scaled`): upright, and whether upright is a quarter
 * turn from how it is stored (EXIF orientations 5–8). Rejects for a JPEG it cannot decode.
 */
export type ScaledJpegDecoder = (bytes: ArrayBuffer, size: { width: number; height: number }) => Promise<{ bitmap: ImageBitmap; turned: boolean }>;

/** What making a copy needs from its thread: workers of current browsers have the first two. */
export interface CopyDecoder {
  createImageBitmap(image: ImageBitmapSource, options?: ImageBitmapOptions): Promise<ImageBitmap>;
  OffscreenCanvas: new (width: number, height: number) => OffscreenCanvas;
  /** Null where the engine has no ImageDecoder whose frames carry their orientation: every copy is then decoded whole. */
  decodeScaledJpeg: ScaledJpegDecoder | null;
}

/**
 * WebCodecs' ImageDecoder asked for `size` (desiredWidth/Height). Chromium turns the desired size
 * into a budget of decoded bytes and its JPEG decoder then picks the largest M/8 within it, so a
 * size of exactly M/8 of the stored one (scaledDecode's) decodes at M/8: measured in Chromium 156
 * for every M, odd sizes included. The bytes are transferred, not copied.
 *
 * The frame is made an ImageBitmap (upright: rotation and flip applied) before it is drawn:
 * Chromium draws a VideoFrame with its own filtering whatever the canvas's imageSmoothingQuality
 * (measured: 'high' and 'low' give the same pixels), and an ImageBitmap with the quality asked for
 * (docs/performance.md#smaller-copies).
 */
export function imageDecoderScaled(ImageDecoder: ImageDecoderConstructor, createImageBitmap: CopyDecoder['createImageBitmap']): ScaledJpegDecoder {
  return async (bytes, size) => {
    const decoder = new ImageDecoder({ data: bytes, type: 'image/jpeg', desiredWidth: size.width, desiredHeight: size.height, transfer: [bytes] });
    try {
      const { image } = await decoder.decode();
      try {
        return { bitmap: await createImageBitmap(image as unknown as ImageBitmapSource), turned: Math.abs(image.rotation) % 180 === 90 };
      } finally {
        image.close();
      }
    } finally {
      decoder.close();
    }
  };
}

/**
 * This thread's decoder, or null where there is none (jsdom, older engines). The scaled decode
 * needs an ImageDecoder (a secure context: https, or localhost) and frames that say how they are
 * turned (`VideoFrame.rotation` and `flip`): without them a sideways photo's copy would come out
 * sideways, so such an engine decodes whole.
 */
export function copyDecoder(scope: object = globalThis): CopyDecoder | null {
  const s = scope as {
    createImageBitmap?: CopyDecoder['createImageBitmap'];
    OffscreenCanvas?: CopyDecoder['OffscreenCanvas'];
    ImageDecoder?: ImageDecoderConstructor;
    VideoFrame?: abstract new (...args: never[]) => object;
  };
  if (typeof s.createImageBitmap !== 'function' || typeof s.OffscreenCanvas !== 'function') return null;
  const create = s.createImageBitmap.bind(scope);
  const createImageBitmap: CopyDecoder['createImageBitmap'] = (image, options) => create(image, options);
  const turns = typeof s.VideoFrame === 'function' && 'rotation' in s.VideoFrame.prototype && 'flip' in s.VideoFrame.prototype;
  return {
    createImageBitmap,
    OffscreenCanvas: s.OffscreenCanvas,
    decodeScaledJpeg: typeof s.ImageDecoder === 'function' && turns ? imageDecoderScaled(s.ImageDecoder, createImageBitmap) : null,
  };
}

export interface CopySettings {
  longEdge: number;
  quality: number;
}

/** Thrown inside makeCopy when the job was cancelled between two of its steps. */
class Cancelled extends Error {}

const UNAVAILABLE: CopyResult = { kind: 'original', reason: 'unavailable' };
const UNDECODABLE: CopyResult = { kind: 'original', reason: 'undecodable' };

/** A photo decoded upright, to be drawn at the copy's size; `close` frees its pixels. */
interface Decoded {
  image: CanvasImageSource;
  /** The photo's whole upright size: the copy's size follows from it. */
  width: number;
  height: number;
  close(): void;
}

/** CopyPlan `scaled`: the bytes read for the header decoded at its DCT scale; the whole photo's upright size from its stored one. */
async function decodeScaled(bytes: ArrayBuffer, plan: Extract<CopyPlan, { kind: 'scaled' }>, decode: ScaledJpegDecoder): Promise<Decoded | null> {
  let scaled: { bitmap: ImageBitmap; turned: boolean };
  try {
    scaled = await decode(bytes, plan.decode);
  } catch {
    // The same decoder as createImageBitmap's underneath (Blink's JPEG decoder): what one cannot decode, neither can the other.
    return null;
  }
  const { bitmap, turned } = scaled;
  const { width, height } = plan.stored;
  return { image: bitmap, width: turned ? height : width, height: turned ? width : height, close: () => bitmap.close() };
}

/** CopyPlan `whole`: the file decoded whole, upright, by createImageBitmap; null when it cannot be. */
async function decodeWhole(file: Blob, decoder: CopyDecoder): Promise<Decoded | null> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await decoder.createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return null;
  }
  return { image: bitmap, width: bitmap.width, height: bitmap.height, close: () => bitmap.close() };
}

/**
 * A smaller copy of one photo (smaller-copy.ts), or why the original is sent instead; null when
 * `cancelled()` said so between two steps (the work done so far is dropped). Never rejects.
 *
 * Each photo takes one path, decided before decoding (copyPlan): where the engine has a scaled
 * JPEG decoder, the file is read, its frame header gives its size, and it is decoded at the
 * smallest DCT scale that still covers the copy (a 12–20 MP photo at 4/8 or 5/8: 4–5 MP decoded
 * instead of 12–20, docs/performance.md#smaller-copies); a photo no larger than the copy is sent
 * as it is without being decoded. Otherwise (no such decoder, or no readable JPEG header: not a
 * JPEG whatever its name) it is decoded whole, as before. Either way it comes out upright (its EXIF
 * orientation applied; the copy's EXIF says Orientation 1), is turned by the member's `exif.turn`
 * if any (copyDrawing: the copy's sides swap for a quarter turn), is drawn at the copy's size with the
 * canvas's high-quality smoothing, encoded as JPEG at `quality`, and the EXIF written back
 * (exif-writer.ts). The decoded photo (up to 80 MB whole; about 20 MB at a DCT scale, twice that
 * for a moment while its frame becomes a bitmap) is freed as soon as it is drawn, and the canvas
 * emptied as soon as it is encoded, rather than whenever the collector runs.
 */
export async function makeCopy(
  file: Blob,
  exif: PhotoExif | null,
  settings: CopySettings,
  decoder: CopyDecoder | null,
  cancelled: () => boolean = () => false,
): Promise<CopyResult | null> {
  if (!decoder) return UNAVAILABLE;
  const check = () => {
    if (cancelled()) throw new Cancelled();
  };
  try {
    // Read only where it can be decoded scaled: the whole decode takes the file as it is.
    let bytes: ArrayBuffer | null = null;
    try {
      if (decoder.decodeScaledJpeg) bytes = await file.arrayBuffer();
    } catch {
      // Gone or unreadable: as createImageBitmap answers for such a file.
      return UNDECODABLE;
    }
    const plan = copyPlan(bytes && jpegFrame(new Uint8Array(bytes)), settings.longEdge, bytes !== null);
    if (plan.kind === 'small') return { kind: 'original', reason: 'small' };
    check();
    const decoded = plan.kind === 'scaled' ? await decodeScaled(bytes!, plan, decoder.decodeScaledJpeg!) : await decodeWhole(file, decoder);
    if (!decoded) return UNDECODABLE;
    let canvas: OffscreenCanvas;
    let drawing: CopyDrawing | null;
    try {
      check();
      drawing = copyDrawing(decoded.width, decoded.height, exif?.turn, settings.longEdge);
      if (!drawing) return { kind: 'original', reason: decoded.width > 0 && decoded.height > 0 ? 'small' : 'undecodable' };
      canvas = new decoder.OffscreenCanvas(drawing.width, drawing.height);
      const context = canvas.getContext('2d');
      if (!context) return UNAVAILABLE;
      context.imageSmoothingEnabled = true;
      context.imageSmoothingQuality = 'high';
      if (drawing.transform) {
        context.translate(drawing.transform.x, drawing.transform.y);
        context.rotate(drawing.transform.radians);
      }
      context.drawImage(decoded.image, 0, 0, drawing.draw.width, drawing.draw.height);
    } finally {
      decoded.close();
    }
    check();
    const encoded = await canvas.convertToBlob({ type: 'image/jpeg', quality: settings.quality });
    canvas.width = canvas.height = 0;
    // An engine that cannot encode JPEG gives PNG: no copy worth sending.
    if (encoded.type !== 'image/jpeg') return UNAVAILABLE;
    check();
    const out = withExif(new Uint8Array(await encoded.arrayBuffer()), exif);
    if (!worthSending(file.size, out.length)) return { kind: 'original', reason: 'not-smaller' };
    return { kind: 'copy', blob: new Blob([out as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), width: drawing.width, height: drawing.height };
  } catch (error) {
    if (error instanceof Cancelled) return null;
    // Not the photo's fault (the encoder failed, or wrote what insertExif cannot walk).
    return UNAVAILABLE;
  }
}

/** The little of DedicatedWorkerGlobalScope this entry uses (see probe.worker.ts for why it is typed here). */
interface CopyWorkerScope {
  onmessage: ((event: MessageEvent<CopyRequest>) => void) | null;
  postMessage(message: CopyResponse): void;
}

/**
 * Answers the page's requests on `scope`. Each copy starts at once: the page posts one at a time
 * per worker (copy-maker.ts), so a worker holds one decoded photo at most. A cancel marks the job,
 * which stops at its next step and is answered `cancelled`.
 */
export function serveCopies(scope: CopyWorkerScope, decoder: CopyDecoder | null): void {
  /** Running jobs by id: true once cancelled. */
  const running = new Map<number, boolean>();
  scope.onmessage = (event) => {
    const request = event.data;
    if (request.kind === 'cancel') {
      // A cancel that crossed the job's answer finds nothing to cancel.
      if (running.has(request.id)) running.set(request.id, true);
      return;
    }
    const { id, file, exif, longEdge, quality } = request;
    running.set(id, false);
    void makeCopy(file, exif, { longEdge, quality }, decoder, () => running.get(id) === true).then((result) => {
      const cancelled = running.get(id) === true;
      running.delete(id);
      scope.postMessage(result && !cancelled ? { id, result } : { id, cancelled: true });
    });
  };
}

// In a worker only (no `document`): importing this module elsewhere (jest) does not serve.
if (typeof document === 'undefined' && typeof self !== 'undefined') serveCopies(self, copyDecoder(self));

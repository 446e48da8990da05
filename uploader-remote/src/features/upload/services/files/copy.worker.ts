// The copy worker's entry: webpack compiles it as its own self-contained chunk (see
// start-copy-worker.ts and webpack/index.js). It must not import federation-shared modules (react,
// @trailsense/shared, aws-amplify): the worker has no federation share scope to take them from.
// It imports only the uploader's pure model.
import { withExif } from '../../model/exif-writer';
import type { PhotoExif } from '../../model/photo-exif';
import { copyDimensions, worthSending, type CopyResult } from '../../model/smaller-copy';
import type { CopyRequest, CopyResponse } from './copy-protocol';

/** What making a copy needs from its thread: workers of current browsers have both. */
export interface CopyDecoder {
  createImageBitmap(image: Blob, options: ImageBitmapOptions): Promise<ImageBitmap>;
  OffscreenCanvas: new (width: number, height: number) => OffscreenCanvas;
}

/** This thread's decoder, or null where there is none (jsdom, older engines). */
export function copyDecoder(scope: object = globalThis): CopyDecoder | null {
  const s = scope as { createImageBitmap?: CopyDecoder['createImageBitmap']; OffscreenCanvas?: CopyDecoder['OffscreenCanvas'] };
  if (typeof s.createImageBitmap !== 'function' || typeof s.OffscreenCanvas !== 'function') return null;
  const create = s.createImageBitmap.bind(scope);
  return { createImageBitmap: (image, options) => create(image, options), OffscreenCanvas: s.OffscreenCanvas };
}

export interface CopySettings {
  longEdge: number;
  quality: number;
}

/** Thrown inside makeCopy when the job was cancelled between two of its steps. */
class Cancelled extends Error {}

/**
 * A smaller copy of one photo (smaller-copy.ts), or why the original is sent instead; null when
 * `cancelled()` said so between two steps (the work done so far is dropped). Never rejects.
 *
 * Decoded with `imageOrientation: 'from-image'`, so a photo whose EXIF says it is turned comes out
 * upright (and the copy's EXIF says Orientation 1); drawn at the copy's size with the canvas's
 * high-quality smoothing; encoded as JPEG at `quality`; the EXIF written back (exif-writer.ts).
 * The decoded photo (a 20 MP bitmap is 80 MB) is closed as soon as it is drawn, and the canvas
 * emptied as soon as it is encoded, rather than whenever the collector runs.
 */
export async function makeCopy(
  file: Blob,
  exif: PhotoExif | null,
  settings: CopySettings,
  decoder: CopyDecoder | null,
  cancelled: () => boolean = () => false,
): Promise<CopyResult | null> {
  if (!decoder) return { kind: 'original', reason: 'unavailable' };
  const check = () => {
    if (cancelled()) throw new Cancelled();
  };
  try {
    let bitmap: ImageBitmap;
    try {
      bitmap = await decoder.createImageBitmap(file, { imageOrientation: 'from-image' });
    } catch {
      return { kind: 'original', reason: 'undecodable' };
    }
    let canvas: OffscreenCanvas;
    let size: { width: number; height: number } | null;
    try {
      check();
      size = copyDimensions(bitmap.width, bitmap.height, settings.longEdge);
      if (!size) return { kind: 'original', reason: bitmap.width > 0 && bitmap.height > 0 ? 'small' : 'undecodable' };
      canvas = new decoder.OffscreenCanvas(size.width, size.height);
      const context = canvas.getContext('2d');
      if (!context) return { kind: 'original', reason: 'unavailable' };
      context.imageSmoothingEnabled = true;
      context.imageSmoothingQuality = 'high';
      context.drawImage(bitmap, 0, 0, size.width, size.height);
    } finally {
      bitmap.close();
    }
    check();
    const encoded = await canvas.convertToBlob({ type: 'image/jpeg', quality: settings.quality });
    canvas.width = canvas.height = 0;
    // An engine that cannot encode JPEG gives PNG: no copy worth sending.
    if (encoded.type !== 'image/jpeg') return { kind: 'original', reason: 'unavailable' };
    check();
    const bytes = withExif(new Uint8Array(await encoded.arrayBuffer()), exif);
    if (!worthSending(file.size, bytes.length)) return { kind: 'original', reason: 'not-smaller' };
    return { kind: 'copy', blob: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), width: size.width, height: size.height };
  } catch (error) {
    if (error instanceof Cancelled) return null;
    // Not the photo's fault (the encoder failed, or wrote what insertExif cannot walk).
    return { kind: 'original', reason: 'unavailable' };
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

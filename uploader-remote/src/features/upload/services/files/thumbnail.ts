import { hasJpegSignature } from '../../model/file-filter';
import { FINGERPRINT_SAMPLE_BYTES } from '../../model/fingerprint';
import { readThumbnail } from './exif';

/**
 * Width of a made thumbnail, in pixels: the list shows ~48×36 px in 56 px rows, twice that for
 * hi-dpi screens. The height follows the photo's aspect.
 */
export const THUMBNAIL_WIDTH = 96;

/** JPEG quality of a made thumbnail: a 96 px image at 0.7 is 2–4 KB, and looks the same at 48 px. */
export const THUMBNAIL_QUALITY = 0.7;

/** What downscaling a whole photo needs from its thread: workers and current browsers have both. */
export interface ThumbnailDecoder {
  createImageBitmap(image: Blob, options: ImageBitmapOptions): Promise<ImageBitmap>;
  OffscreenCanvas: new (width: number, height: number) => OffscreenCanvas;
}

/** This thread's decoder, or null where there is none (jsdom, older engines). */
export function threadDecoder(): ThumbnailDecoder | null {
  const scope = globalThis as { createImageBitmap?: ThumbnailDecoder['createImageBitmap']; OffscreenCanvas?: ThumbnailDecoder['OffscreenCanvas'] };
  if (typeof scope.createImageBitmap !== 'function' || typeof scope.OffscreenCanvas !== 'function') return null;
  const create = scope.createImageBitmap.bind(globalThis);
  return { createImageBitmap: (image, options) => create(image, options), OffscreenCanvas: scope.OffscreenCanvas };
}

/**
 * A small image of a JPEG for its row, as a `data:` URL (the page's CSP allows `img-src data:`,
 * and a data: URL needs no revoking when the row goes away). Null when none can be made: not a
 * JPEG, unreadable, or no thumbnail and no `decoder`; never throws.
 *
 * First the thumbnail the camera embedded in the EXIF, from the first 64 KiB only: nearly every
 * camera writes one, and reading it costs one small read. Only without it is the whole photo read
 * and decoded, downscaled while decoding (`resizeWidth`), which is why `decoder` is passed only
 * off the main thread (the probe worker): a few MB decoded per row would take the page's frames.
 */
export async function makeThumbnail(file: Blob, decoder: ThumbnailDecoder | null): Promise<string | null> {
  try {
    const head = new Uint8Array(await file.slice(0, FINGERPRINT_SAMPLE_BYTES).arrayBuffer());
    if (!hasJpegSignature(head)) return null;
    const embedded = await readThumbnail(head);
    if (embedded) return dataUrl('image/jpeg', embedded);
    return decoder ? await downscale(file, decoder) : null;
  } catch {
    return null;
  }
}

async function downscale(file: Blob, decoder: ThumbnailDecoder): Promise<string | null> {
  const bitmap = await decoder.createImageBitmap(file, { resizeWidth: THUMBNAIL_WIDTH, resizeQuality: 'low' });
  let canvas: OffscreenCanvas;
  try {
    if (!(bitmap.width > 0 && bitmap.height > 0)) return null;
    // Sized from the decoded bitmap, so an engine that ignores resizeWidth still gets the aspect right.
    const height = Math.max(1, Math.round((bitmap.height * THUMBNAIL_WIDTH) / bitmap.width));
    canvas = new decoder.OffscreenCanvas(THUMBNAIL_WIDTH, height);
    const context = canvas.getContext('2d');
    if (!context) return null;
    context.drawImage(bitmap, 0, 0, THUMBNAIL_WIDTH, height);
  } finally {
    // The decoded pixels are freed now, not whenever the collector runs.
    bitmap.close();
  }
  const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: THUMBNAIL_QUALITY });
  // An engine that cannot encode JPEG gives PNG: still an image the row can show.
  return dataUrl(blob.type.startsWith('image/') ? blob.type : 'image/jpeg', new Uint8Array(await blob.arrayBuffer()));
}

/** Bytes as a base64 data: URL; in slices, because spreading 100 KB into one call overflows the stack. */
export function dataUrl(type: string, bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${type};base64,${btoa(binary)}`;
}

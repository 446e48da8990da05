import type { FileProbe } from './file-probe';

/**
 * What the page posts to the probe worker: one file to probe (fingerprint, JPEG signature, EXIF)
 * or to make a thumbnail of (thumbnail.ts), with an id to match the answer to.
 */
export interface ProbeRequest {
  id: number;
  kind: 'probe' | 'thumbnail';
  file: Blob;
}

/**
 * The worker's answer to one request: the probe, or the message of an error that is not about the
 * file (e.g. no SubtleCrypto), which the page rejects that probe with; or the thumbnail, a
 * `data:` URL, null when none could be made (a thumbnail request never fails).
 */
export type ProbeResponse = { id: number; result: FileProbe } | { id: number; error: string } | { id: number; thumbnail: string | null };

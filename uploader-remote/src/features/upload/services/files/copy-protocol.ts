import type { PhotoExif } from '../../model/photo-exif';
import type { CopyResult } from '../../model/smaller-copy';

/**
 * What the page posts to the copy worker (copy.worker.ts): a photo to make a smaller copy of, with
 * the EXIF to write into it (the probe has already read it) and the copy's size and quality; or
 * the cancelling of one asked for before (its signal aborted), matched by id.
 */
export type CopyRequest = { kind: 'copy'; id: number; file: Blob; exif: PhotoExif | null; longEdge: number; quality: number } | { kind: 'cancel'; id: number };

/**
 * The worker's answer to one copy request: what became of the photo (a copy never fails: a photo
 * that cannot be decoded is answered `undecodable`), or, once cancelled, that it was dropped.
 * Exactly one answer per copy request, cancelled or not: the page frees the worker on it.
 */
export type CopyResponse = { id: number; result: CopyResult } | { id: number; cancelled: true };

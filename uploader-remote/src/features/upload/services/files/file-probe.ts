import { hasJpegSignature } from '../../model/file-filter';
import { FINGERPRINT_SAMPLE_BYTES, fingerprintFromDigest, sampleRanges, sizePrefix } from '../../model/fingerprint';
import type { PhotoExif } from '../../model/photo-exif';
import { readExif } from './exif';

/**
 * What reading a chosen file tells: its content fingerprint (model/fingerprint.ts), whether its
 * first bytes are a JPEG's and, for a JPEG, what its EXIF says (null: none, or nothing usable), or
 * why it could not be read.
 */
export type FileProbe = { kind: 'ok'; fingerprint: string; isJpeg: boolean; exif: PhotoExif | null } | { kind: 'unreadable'; reason: string };

/**
 * Probes one file: reads only its sampled ranges (never the whole photo), checks the JPEG
 * signature on the first bytes, reads a JPEG's EXIF from its first 64 KiB (the first sample: no
 * extra read) and hashes the size prefix and the samples with SHA-256.
 *
 * Runs on any thread: it needs only `Blob` and `SubtleCrypto` (the worker passes its own
 * `crypto.subtle`, tests pass Node's). A read error — the file was moved or deleted since it was
 * picked, or permission was withdrawn — resolves to `unreadable` with a readable reason: one bad
 * file among thousands must not reject a whole batch. A digest failure is not about the file (no
 * SubtleCrypto outside a secure context) and is thrown.
 */
export async function probeFile(file: Blob, subtle: SubtleCrypto): Promise<FileProbe> {
  const size = file.size;
  const ranges = sampleRanges(size);
  const samples: Uint8Array[] = [];
  try {
    for (const range of ranges) samples.push(new Uint8Array(await file.slice(range.start, range.end).arrayBuffer()));
  } catch (error) {
    return { kind: 'unreadable', reason: readErrorReason(error) };
  }
  // A file that shrank after it was picked returns fewer bytes than its recorded size: hashing
  // them would give a fingerprint that is not the file's, so it is as unreadable as a moved one.
  const expected = ranges.reduce((sum, r) => sum + (r.end - r.start), 0);
  const read = samples.reduce((sum, s) => sum + s.byteLength, 0);
  if (read !== expected) return { kind: 'unreadable', reason: `The file changed while it was read (${read} of ${expected} bytes).` };

  const data = new Uint8Array(8 + read);
  data.set(sizePrefix(size), 0);
  let offset = 8;
  for (const sample of samples) {
    data.set(sample, offset);
    offset += sample.byteLength;
  }
  const digest = await subtle.digest('SHA-256', data);
  // The first 64 KiB even when the first sample is the whole (small) file: the same bytes as
  // thumbnail.ts reads, so a photo's EXIF does not depend on its size.
  const head = (samples[0] ?? new Uint8Array(0)).subarray(0, FINGERPRINT_SAMPLE_BYTES);
  const isJpeg = hasJpegSignature(head);
  return { kind: 'ok', fingerprint: fingerprintFromDigest(size, digest), isJpeg, exif: isJpeg ? await readExif(head) : null };
}

/** A sentence for a failed read: browsers reject with DOMExceptions (NotFoundError, NotReadableError). */
function readErrorReason(error: unknown): string {
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)) {
    const { name, message } = error as { name?: unknown; message?: unknown };
    const text = typeof message === 'string' && message ? message : 'no details';
    return typeof name === 'string' && name && name !== 'Error' ? `The file could not be read (${name}: ${text})` : `The file could not be read (${text})`;
  }
  return `The file could not be read (${String(error)})`;
}

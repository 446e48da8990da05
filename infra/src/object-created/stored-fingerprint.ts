/**
 * The fingerprint of a stored object, computed on the server as the uploader computes a file's
 * (uploader-remote/src/features/upload/model/fingerprint.ts; the layout is the wire's,
 * shared/src/uploads/wire.ts): SHA-256 over the size as 8 bytes little-endian, then the sampled
 * ranges in order (`sampleRanges`: the first and last 64 KiB, or the whole object up to 128 KiB),
 * `v1-<size>-<32 hex>`. The object-created function reads the ranges with ranged GETs, so an
 * original that claims to be a photo the ranch has only as a copy is believed only when its own
 * bytes say so (handler.ts).
 */
import { createHash } from 'node:crypto';
import { formatFingerprint, sampleRanges, sizePrefix, type ByteRange } from '@trailsense/shared/uploads-wire';

/** Reads the half-open range [start, end) of the object: null once the object is gone. */
export type RangeReader = (range: ByteRange) => Promise<Uint8Array | null>;

/**
 * The fingerprint of the `size`-byte object `read` reads (its size by its head), or null when it
 * is gone meanwhile. A read answering other than the range's length throws: a failure to retry,
 * never a fingerprint of bytes that are not the object's.
 */
export async function storedFingerprint(size: number, read: RangeReader): Promise<string | null> {
  const ranges = sampleRanges(size);
  const samples = await Promise.all(ranges.map((range) => (range.end > range.start ? read(range) : Promise.resolve(new Uint8Array()))));
  const hash = createHash('sha256').update(sizePrefix(size));
  for (const [i, range] of ranges.entries()) {
    const bytes = samples[i];
    if (bytes === null || bytes === undefined) return null;
    if (bytes.length !== range.end - range.start) {
      throw new Error(`object-created: read ${bytes.length} bytes of the range ${range.start}-${range.end} of a ${size}-byte object`);
    }
    hash.update(bytes);
  }
  return formatFingerprint(size, hash.digest('hex'));
}

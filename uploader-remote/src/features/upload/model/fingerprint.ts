import { FINGERPRINT_HEX_CHARS, formatFingerprint } from '@trailsense/shared/uploads-wire';

/**
 * A photo's content fingerprint: which chosen files are the same photo, whatever they are called
 * and whenever they were copied.
 *
 * Why not the name or the modified time (a name + size + mtime identity was used before):
 * - names are not identities: trail cameras restart their counter (IMG_0001.JPG) on every card
 *   format, so two different photos share a name, and a hunter may rename files;
 * - the modified time is not the photo's: copying a card to a laptop, or a sync tool, rewrites it,
 *   so the same photo picked from the card and from the laptop would look different.
 *
 * Why only samples, not the whole file: 2,000–10,000 JPEGs of 1–5 MB are up to ~50 GB of reads
 * from an SD card; hashing 128 KiB of each is a few hundred MB at most. A JPEG's first 64 KiB hold
 * its headers, EXIF (capture time, camera serial) and the start of the scan; its last 64 KiB the
 * end of the scan. Two different photos almost never agree on both and on the exact size.
 * The accepted trade-off: a file changed only in its middle (beyond both samples) with its size
 * unchanged keeps its fingerprint. Camera files are not edited in place, so that is not a real
 * case for this product; anything that re-encodes a photo changes its size and its samples.
 *
 * The digest is SHA-256 over the size (8 bytes, little-endian) followed by the sampled bytes in
 * order; the size is also spelled out in the fingerprint, so files of different sizes can never
 * collide. The `v1` prefix lets a later scheme coexist with stored v1 fingerprints.
 */

// The sampled ranges and the size prefix are the wire's: the server hashes a stored original the same way.
export { FINGERPRINT_SAMPLE_BYTES, sampleRanges, sizePrefix, type ByteRange } from '@trailsense/shared/uploads-wire';

/** The fingerprint for a file's size and the SHA-256 digest of its size prefix and samples. */
export function fingerprintFromDigest(size: number, digest: ArrayBuffer): string {
  // 128 bits of the digest: collisions are not a concern. The format is the wire's (shared/src/uploads/wire.ts).
  const hex = Array.from(new Uint8Array(digest, 0, Math.min(digest.byteLength, FINGERPRINT_HEX_CHARS / 2)), (b) => b.toString(16).padStart(2, '0')).join('');
  return formatFingerprint(size, hex);
}

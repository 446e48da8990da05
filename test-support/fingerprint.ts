/**
 * A photo's fingerprint computed in Node, as the uploader computes it in the browser
 * (uploader-remote/src/features/upload/model/fingerprint.ts: SHA-256 over the size, 8 bytes
 * little-endian, then the first and last 64 KiB or the whole file; `v1-<size>-<32 hex>`), for
 * tests and benchmarks that put photos the server must recognise.
 */
import { createHash } from 'node:crypto';

export function fingerprintOf(bytes: Buffer): string {
  const sample = 64 * 1024;
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(bytes.length));
  const hash = createHash('sha256').update(size);
  if (bytes.length <= 2 * sample) hash.update(bytes);
  else hash.update(bytes.subarray(0, sample)).update(bytes.subarray(bytes.length - sample));
  return `v1-${bytes.length}-${hash.digest('hex').slice(0, 32)}`;
}

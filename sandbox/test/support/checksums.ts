/**
 * Checksums for tests, computed bit by bit from the algorithms' definitions (reflected CRCs with
 * their published polynomials; MD5 and SHAs from node:crypto): independent of the sandbox's own
 * implementations (src/s3-checksum-hash.ts), so a test of the sandbox's answer can fail.
 */
import { createHash } from 'node:crypto';
import type { RawAnswer } from './raw-http';

/** A reflected CRC of `width` bits (init all ones, final XOR all ones), big-endian bytes. */
function reflectedCrc(bytes: Uint8Array, width: 32 | 64, poly: bigint): Buffer {
  const mask = (1n << BigInt(width)) - 1n;
  let crc = mask;
  for (const byte of bytes) {
    crc ^= BigInt(byte);
    for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
  }
  crc ^= mask;
  const out = Buffer.alloc(width / 8);
  for (let i = width / 8 - 1; i >= 0; i--) {
    out[i] = Number(crc & 0xffn);
    crc >>= 8n;
  }
  return out;
}

export type Algorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256' | 'MD5' | 'SHA512';

/** The base64 checksum S3 expects in `x-amz-checksum-<algorithm>` for `bytes`. */
export function checksumOf(algorithm: Algorithm, bytes: Uint8Array): string {
  switch (algorithm) {
    case 'CRC32':
      return reflectedCrc(bytes, 32, 0xedb88320n).toString('base64');
    case 'CRC32C':
      return reflectedCrc(bytes, 32, 0x82f63b78n).toString('base64');
    case 'CRC64NVME':
      return reflectedCrc(bytes, 64, 0x9a6c9329ac4bc9b5n).toString('base64');
    default:
      return createHash(algorithm.toLowerCase()).update(bytes).digest('base64');
  }
}

/** A well-formed checksum of `algorithm` that is not the one of `bytes` (the same length). */
export function wrongChecksumOf(algorithm: Algorithm, bytes: Uint8Array): string {
  return checksumOf(algorithm, Buffer.concat([Buffer.from(bytes), Buffer.from('!')]));
}

/** A raw request's answer, which the test expects there to be. */
export function answered(answer: RawAnswer | 'no answer'): RawAnswer {
  if (answer === 'no answer') throw new Error('no answer');
  return answer;
}

/** An S3 error answer's status, code and message. */
export const errorOf = (answer: RawAnswer) => ({
  status: answer.status,
  code: /<Code>([^<]*)<\/Code>/.exec(answer.body)?.[1],
  message: /<Message>([^<]*)<\/Message>/.exec(answer.body)?.[1],
});

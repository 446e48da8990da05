/**
 * The digests S3's checksums are made of, computed as bytes stream by (s3-checksum-store.ts).
 * CRC32 is node:zlib's (`zlib.crc32`, native, Node 22.2+), MD5 and the SHAs node:crypto's; Node
 * has neither CRC32C nor CRC64/NVME, so those are AWS's own JavaScript implementations, the ones
 * the AWS SDK uses (@aws-crypto/crc32c, @aws-sdk/crc64-nvme): the same bytes S3 computes, with no
 * native build. They run in the sandbox only, never on a page.
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { Crc32c } from '@aws-crypto/crc32c';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import type { ChecksumAlgorithm } from './s3-checksum-rules';

/** A running digest: bytes in, the digest out once. */
export interface Hasher {
  update(chunk: Uint8Array): void;
  digest(): Promise<Buffer>;
}

const be32 = (n: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n >>> 0);
  return out;
};

/** A running digest of `algorithm`, as S3 computes it (CRCs big-endian, as their base64 in headers). */
export function createHasher(algorithm: ChecksumAlgorithm): Hasher {
  switch (algorithm) {
    case 'CRC32': {
      let crc = 0;
      return { update: (chunk) => void (crc = zlib.crc32(chunk, crc)), digest: () => Promise.resolve(be32(crc)) };
    }
    case 'CRC32C': {
      const crc = new Crc32c();
      return { update: (chunk) => void crc.update(chunk), digest: () => Promise.resolve(be32(crc.digest())) };
    }
    case 'CRC64NVME': {
      const crc = new Crc64Nvme();
      return { update: (chunk) => crc.update(chunk), digest: async () => Buffer.from(await crc.digest()) };
    }
    default: {
      const hash = createHash(algorithm.toLowerCase());
      return { update: (chunk) => void hash.update(chunk), digest: () => Promise.resolve(hash.digest()) };
    }
  }
}

/** The base64 digest of `bytes` (a test's expected checksum; a composite checksum's digest of its parts' digests). */
export async function digestOf(algorithm: ChecksumAlgorithm, bytes: Uint8Array): Promise<string> {
  const hasher = createHasher(algorithm);
  hasher.update(bytes);
  return (await hasher.digest()).toString('base64');
}

import { Blob as NodeBlob, File as NodeFile } from 'node:buffer';
import { createHash, webcrypto } from 'node:crypto';
import { FINGERPRINT_PATTERN } from '@trailsense/shared/uploads-wire';
import { FINGERPRINT_SAMPLE_BYTES, fingerprintFromDigest, sampleRanges, sizePrefix } from '../src/features/upload/model/fingerprint';
import { probeFile, type FileProbe } from '../src/features/upload/services/files/file-probe';

/** Node's WebCrypto: jsdom has no SubtleCrypto; probeFile takes it injected anyway. */
const subtle = webcrypto.subtle as unknown as SubtleCrypto;
const KiB = 1024;
const S = FINGERPRINT_SAMPLE_BYTES;

/** Deterministic bytes that differ at every offset, starting like a JPEG (or not). */
function photoBytes(size: number, seed = 1, jpeg = true): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  if (jpeg && size >= 3) bytes.set([0xff, 0xd8, 0xff], 0);
  return bytes;
}

/** Node's Blob (jsdom's cannot be read back), typed as the DOM's for probeFile. */
const blobOf = (bytes: Uint8Array): Blob => new NodeBlob([bytes]) as unknown as Blob;
const fileOf = (bytes: Uint8Array, name: string, lastModified: number): Blob => new NodeFile([bytes], name, { lastModified }) as unknown as Blob;

/** The fingerprint computed independently, with Node's hash over the documented layout. */
function expectedFingerprint(bytes: Uint8Array): string {
  const size = bytes.length;
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(size));
  const hash = createHash('sha256').update(prefix);
  if (size <= 2 * S) hash.update(bytes);
  else hash.update(bytes.subarray(0, S)).update(bytes.subarray(size - S));
  return `v1-${size}-${hash.digest('hex').slice(0, 32)}`;
}

const fingerprintOf = async (blob: Blob): Promise<string> => {
  const probe = await probeFile(blob, subtle);
  if (probe.kind !== 'ok') throw new Error(`unreadable: ${probe.reason}`);
  return probe.fingerprint;
};

describe('sampleRanges', () => {
  it('hashes a file of up to 128 KiB whole, in one range', () => {
    expect(sampleRanges(0)).toEqual([{ start: 0, end: 0 }]);
    expect(sampleRanges(1)).toEqual([{ start: 0, end: 1 }]);
    expect(sampleRanges(100 * KiB)).toEqual([{ start: 0, end: 100 * KiB }]);
    // Exactly two samples' worth: the samples would touch, so one range, nothing hashed twice.
    expect(sampleRanges(2 * S)).toEqual([{ start: 0, end: 2 * S }]);
  });

  it('hashes the first and last 64 KiB of a larger file, never overlapping', () => {
    expect(sampleRanges(2 * S + 1)).toEqual([
      { start: 0, end: S },
      { start: S + 1, end: 2 * S + 1 },
    ]);
    const size = 5 * 1024 * KiB;
    expect(sampleRanges(size)).toEqual([
      { start: 0, end: S },
      { start: size - S, end: size },
    ]);
  });

  it('rejects sizes no file has', () => {
    expect(() => sampleRanges(-1)).toThrow(RangeError);
    expect(() => sampleRanges(1.5)).toThrow(RangeError);
  });
});

describe('fingerprintFromDigest', () => {
  it('is v1-<size>-<the first 32 hex characters of the digest>', () => {
    const digest = Uint8Array.from({ length: 32 }, (_, i) => i * 7).buffer;
    expect(fingerprintFromDigest(1234, digest)).toBe('v1-1234-00070e151c232a31383f464d545b6269');
    expect(fingerprintFromDigest(0, new Uint8Array(32).fill(0xab).buffer)).toBe(`v1-0-${'ab'.repeat(16)}`);
  });

  it('is what the server accepts: the wire pattern (shared/src/uploads/wire.ts)', () => {
    const digest = Uint8Array.from({ length: 32 }, (_, i) => 255 - i).buffer;
    for (const size of [0, 1, 5_242_880, 999_999_999_999_999]) expect(fingerprintFromDigest(size, digest)).toMatch(FINGERPRINT_PATTERN);
  });

  it('starts the hashed bytes with the size as 8 bytes little-endian', () => {
    expect(Array.from(sizePrefix(0x0102030405))).toEqual([5, 4, 3, 2, 1, 0, 0, 0]);
  });
});

describe('probeFile', () => {
  it('matches the documented layout: SHA-256 over the size prefix and the samples', async () => {
    for (const size of [0, 3, 1000, 2 * S, 2 * S + 1, 3 * 1024 * KiB]) {
      const bytes = photoBytes(size, size + 1);
      expect(await fingerprintOf(blobOf(bytes))).toBe(expectedFingerprint(bytes));
    }
  });

  it('gives the same photo under another name and modified time the same fingerprint', async () => {
    // A camera counter restarts (IMG_0001 again) and copying a card changes the modified time:
    // neither may change a photo's identity.
    const bytes = photoBytes(2 * 1024 * KiB, 7);
    const onCard = await fingerprintOf(fileOf(bytes, 'IMG_0001.JPG', Date.UTC(2025, 9, 1)));
    const onLaptop = await fingerprintOf(fileOf(bytes.slice(), 'copy of IMG_0001.jpg', Date.UTC(2025, 10, 20)));
    expect(onLaptop).toBe(onCard);
    // And another photo under the same name is another photo.
    expect(await fingerprintOf(fileOf(photoBytes(2 * 1024 * KiB, 8), 'IMG_0001.JPG', Date.UTC(2025, 9, 1)))).not.toBe(onCard);
  });

  it('keeps the fingerprint for a change in the middle, beyond both samples (the accepted trade-off)', async () => {
    // Only 128 KiB of a 1–5 MB photo are read, to keep 10,000 files quick. A same-size change that
    // touches neither end is not seen; camera files are not edited in place, and a re-encode
    // changes the size and both ends.
    const bytes = photoBytes(1024 * KiB, 3);
    const changed = bytes.slice();
    changed[512 * KiB] = changed[512 * KiB]! ^ 0xff;
    changed[S] = changed[S]! ^ 0xff; // the first byte after the first sample
    changed[bytes.length - S - 1] = changed[bytes.length - S - 1]! ^ 0xff; // the last before the last sample
    expect(await fingerprintOf(blobOf(changed))).toBe(await fingerprintOf(blobOf(bytes)));
  });

  it('changes the fingerprint for a change in the first or last 64 KiB, or in the size', async () => {
    const bytes = photoBytes(1024 * KiB, 4);
    const original = await fingerprintOf(blobOf(bytes));
    for (const offset of [0, 100, S - 1, bytes.length - S, bytes.length - 1]) {
      const changed = bytes.slice();
      changed[offset] = changed[offset]! ^ 0x01;
      expect(await fingerprintOf(blobOf(changed))).not.toBe(original);
    }
    // One byte more at the end, and one byte less: the size differs.
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(await fingerprintOf(blobOf(longer))).not.toBe(original);
    expect(await fingerprintOf(blobOf(bytes.subarray(0, bytes.length - 1)))).not.toBe(original);
  });

  it('hashes a small file whole: any change is seen', async () => {
    const bytes = photoBytes(100 * KiB, 5);
    const changed = bytes.slice();
    changed[50 * KiB] = changed[50 * KiB]! ^ 0x01;
    expect(await fingerprintOf(blobOf(changed))).not.toBe(await fingerprintOf(blobOf(bytes)));
  });

  it('reads only the sampled ranges', async () => {
    const size = 4 * 1024 * KiB;
    const bytes = photoBytes(size, 6);
    const reads: [number, number][] = [];
    const blob = {
      size,
      slice: (start: number, end: number) => {
        reads.push([start, end]);
        return { arrayBuffer: async () => bytes.slice(start, end).buffer };
      },
    } as unknown as Blob;
    expect(await fingerprintOf(blob)).toBe(expectedFingerprint(bytes));
    expect(reads).toEqual([
      [0, S],
      [size - S, size],
    ]);
  });

  it('tells whether the first bytes are a JPEG’s', async () => {
    const jpeg = await probeFile(blobOf(photoBytes(200 * KiB, 9, true)), subtle);
    const png = await probeFile(blobOf(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])), subtle);
    const short = await probeFile(blobOf(Uint8Array.from([0xff, 0xd8])), subtle);
    expect(jpeg).toMatchObject({ kind: 'ok', isJpeg: true });
    expect(png).toMatchObject({ kind: 'ok', isJpeg: false });
    expect(short).toMatchObject({ kind: 'ok', isJpeg: false });
  });

  it('resolves a file that cannot be read to unreadable, with the reason, never a throw', async () => {
    const gone = {
      size: 3 * 1024 * KiB,
      slice: () => ({
        arrayBuffer: () =>
          Promise.reject(new DOMException('A requested file or directory could not be found at the time an operation was processed.', 'NotFoundError')),
      }),
    } as unknown as Blob;
    const probe: FileProbe = await probeFile(gone, subtle);
    expect(probe).toEqual({
      kind: 'unreadable',
      reason: 'The file could not be read (NotFoundError: A requested file or directory could not be found at the time an operation was processed.)',
    });

    // A platform may reject with a bare string: the message must still read well.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- that non-Error rejection is the case under test
    const denied = { size: 10, slice: () => ({ arrayBuffer: () => Promise.reject('permission denied') }) } as unknown as Blob;
    expect(await probeFile(denied, subtle)).toEqual({ kind: 'unreadable', reason: 'The file could not be read (permission denied)' });
  });

  it('treats a file that returns fewer bytes than its size (it shrank since picked) as unreadable', async () => {
    const shrunk = { size: 1000, slice: () => ({ arrayBuffer: async () => new ArrayBuffer(400) }) } as unknown as Blob;
    expect(await probeFile(shrunk, subtle)).toEqual({ kind: 'unreadable', reason: 'The file changed while it was read (400 of 1000 bytes).' });
  });
});

/**
 * The object-created function's side of smaller copies (src/object-created/handler.ts) on the
 * production ledger over the fake DynamoDB engine (support/ledger-records.ts reads its items):
 * what `photo_form` may say, the fingerprint of a stored object
 * (src/object-created/stored-fingerprint.ts) against the uploader's layout computed independently
 * (test-support/fingerprint.ts), and the production adapter's ranged read (src/object-created/aws.ts).
 * The ledgers' side, on every ledger, is ledger-copies.test.ts.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { FINGERPRINT_SAMPLE_BYTES } from '@trailsense/shared/uploads-wire';
import { s3Objects } from '../src/object-created/aws';
import { encodeEventKey, handleObjectCreated, photoFormOf } from '../src/object-created/handler';
import { decisionLogLine } from '../src/object-created/metrics';
import { storedFingerprint } from '../src/object-created/stored-fingerprint';
import { fingerprintOf } from '../../test-support/fingerprint';
import { onTheFake } from './support/ledger-records';
import { RANCH, UploadWorld } from './support/upload-world';

const NOW = Date.parse('2026-11-10T12:00:00Z');
const S = FINGERPRINT_SAMPLE_BYTES;

/** Deterministic bytes that start as a JPEG does, distinct per seed. */
function photoBytes(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  if (size >= 3) bytes.set([0xff, 0xd8, 0xff], 0);
  return bytes;
}

/** A reader of `bytes`' ranges that records what it was asked. */
function reader(bytes: Uint8Array) {
  const asked: [number, number][] = [];
  return { asked, read: async ({ start, end }: { start: number; end: number }) => (asked.push([start, end]), bytes.slice(start, end)) };
}

describe('storedFingerprint', () => {
  it.each([0, 3, 1000, 2 * S, 2 * S + 1, 3 * 1024 * 1024])(
    'is the uploader’s fingerprint of a %i-byte object, read in its sampled ranges only',
    async (size) => {
      const bytes = photoBytes(size, size + 1);
      const { asked, read } = reader(bytes);
      await expect(storedFingerprint(size, read)).resolves.toBe(fingerprintOf(Buffer.from(bytes)));
      expect(asked).toEqual(
        size === 0
          ? []
          : size <= 2 * S
            ? [[0, size]]
            : [
                [0, S],
                [size - S, size],
              ],
      );
    },
  );

  it('is null once the object is gone, and throws on a read shorter than its range (a failure to retry, never a wrong fingerprint)', async () => {
    await expect(storedFingerprint(3 * S, async () => null)).resolves.toBeNull();
    await expect(storedFingerprint(3 * S, async ({ start, end }) => new Uint8Array(end - start - 1))).rejects.toThrow(/read 65535 bytes of the range/);
  });
});

describe('photo_form', () => {
  it('is an original when absent; copy or original as sent (RFC 2047 words decoded); anything else is no form', () => {
    expect(photoFormOf(undefined)).toBe('original');
    expect(photoFormOf('copy')).toBe('copy');
    expect(photoFormOf('original')).toBe('original');
    expect(photoFormOf('=?UTF-8?B?Y29weQ==?=')).toBe('copy');
    for (const value of ['', 'COPY', 'thumbnail', 'copy ', '=?UTF-8?B?!!!?=']) expect([value, photoFormOf(value)]).toEqual([value, null]);
  });

  it('refuses and removes an object whose photo_form is neither, as malformed metadata, leaving its slot held', async () => {
    const { ledger, records } = onTheFake();
    const world = new UploadWorld(ledger, 10, NOW);
    const fingerprint = fingerprintOf(Buffer.from(photoBytes(1000, 1)));
    const { reservation } = await world.reserve('alice', [fingerprint]);
    world.store('public/cedar-creek/a.jpg', reservation!, fingerprint);
    world.objects.get('public/cedar-creek/a.jpg')!.metadata['photo_form'] = 'thumbnail';
    await world.deliver('public/cedar-creek/a.jpg');
    expect(world.decisions).toEqual([
      { decision: 'refused', bucket: 'uploads', key: 'public/cedar-creek/a.jpg', ranchId: RANCH, yearmo: '2026_11', reason: 'malformed-metadata' },
    ]);
    expect(world.removed).toEqual(['public/cedar-creek/a.jpg']);
    expect((await records.refusals()).map((r) => r.reason)).toEqual(['malformed-metadata']);
    expect((await records.month(RANCH, '2026_11')).holds[reservation!]?.slots).toBe(1);
  });
});

describe('what may be stored as a copy', () => {
  it('is smaller than 80 % of the original its fingerprint names and at most 4 MB: else removed as too-large, its slot left held; without a fingerprint, malformed', async () => {
    const { ledger, records } = onTheFake();
    const world = new UploadWorld(ledger, 10, NOW);
    const small = fingerprintOf(Buffer.from(photoBytes(300_000, 4)));
    const huge = fingerprintOf(Buffer.from(photoBytes(6_000_000, 5)));
    const { reservation } = await world.reserve('alice', [small, huge]);
    // 80 % of its 300,000-byte original, and 4 MB + 1 of a 6 MB one: both refused.
    world.store('public/cedar-creek/big-copy.jpg', reservation!, small, { form: 'copy', bytes: photoBytes(240_000, 6) });
    world.store('public/cedar-creek/huge-copy.jpg', reservation!, huge, { form: 'copy', bytes: photoBytes(4 * 1024 * 1024 + 1, 7) });
    world.store('public/cedar-creek/nameless-copy.jpg', reservation!, undefined, { form: 'copy', bytes: photoBytes(50_000, 8) });
    for (const name of ['big-copy', 'huge-copy', 'nameless-copy']) await world.deliver(`public/cedar-creek/${name}.jpg`);
    expect((await records.refusals()).map((r) => [r.key, r.reason])).toEqual([
      ['public/cedar-creek/big-copy.jpg', 'too-large'],
      ['public/cedar-creek/huge-copy.jpg', 'too-large'],
      ['public/cedar-creek/nameless-copy.jpg', 'malformed-metadata'],
    ]);
    expect(world.removed).toHaveLength(3);
    expect(await records.month(RANCH, '2026_11')).toMatchObject({ total: 0 });
    expect((await records.month(RANCH, '2026_11')).holds[reservation!]?.slots).toBe(2);
    // Just under both bounds: a copy, counted.
    world.store('public/cedar-creek/copy.jpg', reservation!, small, { form: 'copy', bytes: photoBytes(239_999, 9) });
    await world.deliver('public/cedar-creek/copy.jpg');
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'counted', key: 'public/cedar-creek/copy.jpg' });
  });
});

describe('an original naming a photo the ranch has only as a copy', () => {
  it('is not read when its size is not the one the fingerprint names: 50 such objects, no ranged read of the sampled ranges', async () => {
    const { ledger, records } = onTheFake();
    const world = new UploadWorld(ledger, 10, NOW);
    const original = photoBytes(300_000, 10);
    const fingerprint = fingerprintOf(Buffer.from(original));
    const { reservation } = await world.reserve('alice', [fingerprint]);
    world.store('public/cedar-creek/copy.jpg', reservation!, fingerprint, { form: 'copy', bytes: photoBytes(50_000, 11) });
    await world.deliver('public/cedar-creek/copy.jpg');
    const deps = world.objectDeps();
    let ranged = 0;
    const { objects } = deps;
    deps.objects = { ...objects, range: (...args) => (ranged++, objects.range(...args)) };
    for (let i = 0; i < 50; i++) {
      const key = `public/cedar-creek/junk-${i}.jpg`;
      world.storeUnreserved(key, fingerprint, { form: 'original', bytes: photoBytes(300_001 + i, 100 + i) });
      await handleObjectCreated(
        { Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'uploads' }, object: { key: encodeEventKey(key) } } }] },
        deps,
      );
    }
    expect(ranged).toBe(0);
    expect((await records.refusals()).map((r) => r.reason)).toEqual(Array(50).fill('no-reservation'));
    expect((await records.photo(RANCH, fingerprint))?.form).toBe('copy');
  });

  it('is skipped when it is gone before its bytes are read', async () => {
    const { ledger, records } = onTheFake();
    const world = new UploadWorld(ledger, 10, NOW);
    const original = photoBytes(300_000, 2);
    const fingerprint = fingerprintOf(Buffer.from(original));
    const { reservation } = await world.reserve('alice', [fingerprint]);
    world.store('public/cedar-creek/copy.jpg', reservation!, fingerprint, { form: 'copy', bytes: photoBytes(50_000, 3) });
    await world.deliver('public/cedar-creek/copy.jpg');
    world.storeUnreserved('public/cedar-creek/original.jpg', fingerprint, { form: 'original', bytes: original });
    const deps = world.objectDeps();
    const { objects } = deps;
    deps.objects = { ...objects, range: async (bucket, key, start, end) => (world.objects.delete(key), objects.range(bucket, key, start, end)) };
    await handleObjectCreated(
      {
        Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'uploads' }, object: { key: encodeEventKey('public/cedar-creek/original.jpg') } } }],
      },
      deps,
    );
    expect(world.decisions.at(-1)).toEqual({ decision: 'gone', bucket: 'uploads', key: 'public/cedar-creek/original.jpg' });
    expect((await records.photo(RANCH, fingerprint))?.form).toBe('copy');
    expect(await records.refusals()).toEqual([]);
  });

  it('is logged as `upgraded`, a line that carries no upload metric (nothing was counted)', () => {
    const line = decisionLogLine(
      { decision: 'upgraded', bucket: 'uploads', key: 'public/cedar-creek/a.jpg', ranchId: RANCH, yearmo: '2026_11', fingerprint: 'v1-3-x' },
      'production',
      new Date(NOW),
    );
    expect(line).toEqual({
      source: 'object-created',
      decision: 'upgraded',
      bucket: 'uploads',
      key: 'public/cedar-creek/a.jpg',
      ranchId: RANCH,
      yearmo: '2026_11',
      fingerprint: 'v1-3-x',
    });
  });
});

describe('the production adapter’s ranged read', () => {
  it('asks S3 for bytes=start-(end-1): null once the object is gone; a server that ignores the range has it cut from the whole object', async () => {
    const whole = photoBytes(1000, 4);
    const ranges: (string | undefined)[] = [];
    const objects = s3Objects({
      send: async (command) => {
        if (!(command instanceof GetObjectCommand)) throw new Error('unexpected command');
        ranges.push(command.input.Range);
        if (command.input.Key === 'gone.jpg') throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
        if (command.input.Key === 'denied.jpg') throw Object.assign(new Error('Forbidden'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
        if (command.input.Key === 'ignores-range.jpg') return { Body: { transformToByteArray: async () => whole } };
        return { ContentRange: 'bytes 100-199/1000', Body: { transformToByteArray: async () => whole.slice(100, 200) } };
      },
    });
    await expect(objects.range('uploads', 'a.jpg', 100, 200)).resolves.toEqual(whole.slice(100, 200));
    await expect(objects.range('uploads', 'ignores-range.jpg', 100, 200)).resolves.toEqual(whole.slice(100, 200));
    await expect(objects.range('uploads', 'gone.jpg', 100, 200)).resolves.toBeNull();
    await expect(objects.range('uploads', 'denied.jpg', 100, 200)).rejects.toThrow('Forbidden');
    expect(ranges).toEqual(Array(4).fill('bytes=100-199'));
  });
});

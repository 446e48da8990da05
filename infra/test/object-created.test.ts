/**
 * The object-created function's decisions (src/object-created/handler.ts) on the production
 * ledger (src/ledger/dynamo.ts) over the fake DynamoDB engine (support/ledger-engines.ts), what it
 * recorded read from the engine's items (support/ledger-records.ts); a fake bucket, a fake ranch
 * table and a fake clock; and the production adapters of src/object-created/aws.ts and
 * src/ledger/ranches.ts on fake SDK clients.
 */
import { GetObjectCommand, HeadObjectCommand, PutObjectTaggingCommand } from '@aws-sdk/client-s3';
import { grant, RESERVATION_LIFETIME_MS, reservationId, countingMonth } from '../src/ledger/rules';
import { dynamoRanches } from '../src/ledger/ranches';
import { s3Objects } from '../src/object-created/aws';
import { decodeEventKey, encodeEventKey, handleObjectCreated, MAX_OBJECT_BYTES, ObjectCreatedFailure } from '../src/object-created/handler';
import type { Decision, ObjectCreatedDeps, ObjectCreatedRecord } from '../src/object-created/handler';
import { onTheFake, setTotal } from './support/ledger-records';

const BUCKET = 'uploads';
const MINUTE = 60_000;
const FINGERPRINT_1 = 'v1-204800-0123456789abcdef0123456789abcdef';
/** How a JPEG (JFIF) starts: SOI, then the APP0 marker. */
const JPEG_START = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);

/** A stored object's content as HeadObject and a ranged GetObject tell it (default: a 200 KB JPEG). */
interface Content {
  size?: number;
  contentType?: string;
  body?: Uint8Array;
}

class FakeWorld {
  objects = new Map<string, { metadata: Record<string, string>; tags: Record<string, string>; content: Required<Content> }>();
  /** Every ranged read of an object's first bytes, by key. */
  ranged: string[] = [];
  /** Every tagging call, in order. */
  tagged: string[] = [];
  /** The DynamoDB adapter on a fresh table of the fake engine, and what its items say. */
  private readonly table = onTheFake();
  ledger = this.table.ledger;
  records = this.table.records;
  ranches = new Map<string, number>([
    ['cedar-creek', 10000],
    ['mesquite-flats', 0],
    ['tiny', 2],
  ]);
  now = new Date('2026-03-15T12:00:00Z');
  log: Decision[] = [];
  failHead = new Set<string>();
  /** Keys S3 will not read (an SSE-C object: HeadObject answers 400). */
  unreadable = new Set<string>();
  private ids = 0;

  put(key: string, metadata: Record<string, string>, content: Content = {}) {
    this.objects.set(key, { metadata, tags: {}, content: { size: 204_800, contentType: 'image/jpg', body: JPEG_START, ...content } });
  }

  advance(ms: number) {
    this.now = new Date(this.now.getTime() + ms);
  }

  /** Grants slots as the uploads API does (src/uploads-api/handler.ts): a reservation of the clock's month. */
  async reserve(ranchId: string, asked: number): Promise<string> {
    const id = reservationId(countingMonth(this.now), `reservation${String(++this.ids).padStart(8, '0')}`);
    const ceiling = this.ranches.get(ranchId)! || 1000;
    const granted = await this.ledger.updateMonth(ranchId, countingMonth(this.now), (state) => {
      const { next, granted: n } = grant(state, { id, asked, ceiling, now: this.now.getTime() });
      return { next, result: n };
    });
    if (granted === 0) throw new Error('the test expected slots');
    return id;
  }

  /** An object as the uploader writes it: its ranch and reservation in its metadata. */
  upload(key: string, ranchId: string, reservation: string, extra: Record<string, string> = {}, content: Content = {}) {
    this.put(key, { ranchid: ranchId, reservation, camera_name: 'North Feeder', ...extra }, content);
  }

  async total(ranchId: string, yearmo: string): Promise<number> {
    return (await this.records.month(ranchId, yearmo)).total;
  }

  /** The object as counted in its month (undefined: not counted). */
  counted(key: string) {
    return this.records.counted(BUCKET, key);
  }

  deps(): ObjectCreatedDeps {
    return {
      objects: {
        head: async (bucket, key) => {
          if (this.failHead.has(key)) throw new Error(`head failed for ${key}`);
          if (this.unreadable.has(key)) return 'unreadable';
          const object = bucket === BUCKET ? this.objects.get(key) : undefined;
          return object ? { metadata: object.metadata, size: object.content.size, contentType: object.content.contentType } : null;
        },
        firstBytes: async (bucket, key, count) => {
          this.ranged.push(key);
          const object = bucket === BUCKET ? this.objects.get(key) : undefined;
          return object ? object.content.body.subarray(0, count) : null;
        },
        range: async (bucket, key, start, end) => {
          const object = bucket === BUCKET ? this.objects.get(key) : undefined;
          if (!object) return null;
          // The stored bytes: the body, then zeros up to the size.
          const bytes = new Uint8Array(object.content.size);
          bytes.set(object.content.body.subarray(0, object.content.size));
          return bytes.slice(start, end);
        },
        putRanchTag: async (_bucket, key, ranchId) => {
          this.tagged.push(key);
          const object = this.objects.get(key);
          if (object) object.tags['ranchid'] = ranchId;
        },
        remove: async (_bucket, key) => {
          this.objects.delete(key);
        },
      },
      ledger: this.ledger,
      ranches: { maxMonthlyUploads: async (id) => this.ranches.get(id) ?? null },
      clock: { now: () => this.now },
      log: (line) => this.log.push(line),
    };
  }
}

const created = (key: string, eventName = 'ObjectCreated:Put'): ObjectCreatedRecord => ({
  eventName,
  s3: { bucket: { name: BUCKET }, object: { key: encodeEventKey(key) } },
});

let world: FakeWorld;
beforeEach(() => {
  world = new FakeWorld();
});
const run = (...records: ObjectCreatedRecord[]) => handleObjectCreated({ Records: records }, world.deps());

describe('handleObjectCreated', () => {
  it('counts an upload to its own ranch under its reservation and tags it', async () => {
    const reservation = await world.reserve('cedar-creek', 2);
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', reservation);
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: 'cedar-creek' });
    expect(await world.counted('public/cedar-creek/a.jpg')).toEqual({
      bucket: BUCKET,
      key: 'public/cedar-creek/a.jpg',
      ranchId: 'cedar-creek',
      yearmo: '2026_03',
      // No photo names it (it carried no fingerprint); the slot it took from its reservation is the month's (below).
      fingerprint: null,
      // The fake bucket keeps no checksum (an object stored before S3 kept one): counted all the same.
      checksum: null,
      at: '2026-03-15T12:00:00.000Z',
    });
    expect(await world.records.month('cedar-creek', '2026_03')).toMatchObject({ total: 1, holds: { [reservation]: { slots: 1 } } });
    expect(world.log).toEqual([
      { decision: 'counted', bucket: BUCKET, key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03', slot: 'reserved' },
    ]);
    expect(await world.records.refusals()).toEqual([]);
  });

  it('counts a private upload by the ranch in its key', async () => {
    const key = 'private/us-east-2:0f0e/cedar-creek/b.jpg';
    world.upload(key, 'cedar-creek', await world.reserve('cedar-creek', 1));
    await run(created(key, 'ObjectCreated:CompleteMultipartUpload'));
    expect((await world.counted(key))?.ranchId).toBe('cedar-creek');
    expect(world.objects.get(key)?.tags).toEqual({ ranchid: 'cedar-creek' });
  });

  it('counts an object once when S3 delivers its event twice, and tags it again', async () => {
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', await world.reserve('cedar-creek', 5));
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/a.jpg'));
    expect(await world.total('cedar-creek', '2026_03')).toBe(1);
    expect(world.log.map((l) => l.decision)).toEqual(['counted', 'duplicate']);
    expect(world.log[1]).toEqual({ decision: 'duplicate', bucket: BUCKET, key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03' });
    expect(world.tagged).toEqual(['public/cedar-creek/a.jpg', 'public/cedar-creek/a.jpg']);
    expect(world.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: 'cedar-creek' });
  });

  it('removes and records an upload past the ranch ceiling, without tagging it', async () => {
    // A crafted client sends a third object under a reservation of the two slots granted.
    const reservation = await world.reserve('tiny', 3);
    for (const n of [1, 2, 3]) world.upload(`public/tiny/${n}.jpg`, 'tiny', reservation);
    await run(created('public/tiny/1.jpg'), created('public/tiny/2.jpg'), created('public/tiny/3.jpg'));
    expect(await world.total('tiny', '2026_03')).toBe(2);
    expect(world.objects.has('public/tiny/3.jpg')).toBe(false);
    expect(world.tagged).toEqual(['public/tiny/1.jpg', 'public/tiny/2.jpg']);
    expect(await world.records.refusals()).toEqual([
      { bucket: BUCKET, key: 'public/tiny/3.jpg', ranchId: 'tiny', yearmo: '2026_03', reason: 'monthly-limit', at: '2026-03-15T12:00:00.000Z' },
    ]);
    expect(world.log.at(-1)).toEqual({
      decision: 'refused',
      bucket: BUCKET,
      key: 'public/tiny/3.jpg',
      ranchId: 'tiny',
      yearmo: '2026_03',
      reason: 'monthly-limit',
    });
  });

  it('holds a ranch with max 0 to the default 1,000, counting what is already counted', async () => {
    await setTotal(world.ledger, 'mesquite-flats', '2026_03', 999);
    const reservation = await world.reserve('mesquite-flats', 2);
    world.upload('public/mesquite-flats/1.jpg', 'mesquite-flats', reservation);
    world.upload('public/mesquite-flats/2.jpg', 'mesquite-flats', reservation);
    await run(created('public/mesquite-flats/1.jpg'), created('public/mesquite-flats/2.jpg'));
    expect(await world.total('mesquite-flats', '2026_03')).toBe(1000);
    expect(world.objects.has('public/mesquite-flats/1.jpg')).toBe(true);
    expect(world.objects.has('public/mesquite-flats/2.jpg')).toBe(false);
    expect((await world.records.refusals()).map((r) => r.reason)).toEqual(['monthly-limit']);
  });

  it('removes and records an object whose metadata names another ranch than its key', async () => {
    world.upload('public/cedar-creek/a.jpg', 'mesquite-flats', await world.reserve('cedar-creek', 1));
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.has('public/cedar-creek/a.jpg')).toBe(false);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(await world.records.refusals()).toEqual([
      expect.objectContaining({ key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', reason: 'ranch-mismatch', claimedRanchId: 'mesquite-flats' }),
    ]);
    expect(world.log).toEqual([expect.objectContaining({ decision: 'refused', reason: 'ranch-mismatch', claimedRanchId: 'mesquite-flats' })]);
  });

  it('takes an RFC 2047-encoded ranchid for what it says, and a missing one as a mismatch', async () => {
    const reservation = await world.reserve('cedar-creek', 2);
    world.put('public/cedar-creek/a.jpg', { ranchid: '=?UTF-8?B?Y2VkYXItY3JlZWs=?=', reservation });
    world.put('public/cedar-creek/b.jpg', { reservation });
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/b.jpg'));
    expect(await world.counted('public/cedar-creek/a.jpg')).toBeDefined();
    expect(await world.records.refusals()).toEqual([
      expect.objectContaining({ key: 'public/cedar-creek/b.jpg', reason: 'ranch-mismatch', claimedRanchId: '' }),
    ]);
  });

  it('removes and records an object whose ranchid cannot be decoded, without failing', async () => {
    world.put('public/cedar-creek/a.jpg', { ranchid: '=?UTF-8?B?!!!?=', reservation: await world.reserve('cedar-creek', 1) });
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.has('public/cedar-creek/a.jpg')).toBe(false);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(await world.records.refusals()).toEqual([
      {
        bucket: BUCKET,
        key: 'public/cedar-creek/a.jpg',
        ranchId: 'cedar-creek',
        yearmo: '2026_03',
        reason: 'malformed-metadata',
        at: '2026-03-15T12:00:00.000Z',
      },
    ]);
  });

  it('removes and records an object S3 will not read (SSE-C), without failing', async () => {
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', await world.reserve('cedar-creek', 1));
    world.unreadable.add('public/cedar-creek/a.jpg');
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.has('public/cedar-creek/a.jpg')).toBe(false);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(await world.records.refusals()).toEqual([
      expect.objectContaining({ key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', reason: 'unreadable' }),
    ]);
    expect(world.log.map((l) => l.decision)).toEqual(['refused']);
  });

  it('records an event key that is not a valid URL encoding as a refusal, without failing', async () => {
    expect(decodeEventKey('public/cedar-creek/%E0%A4%A.jpg')).toBeNull();
    const record: ObjectCreatedRecord = {
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: BUCKET }, object: { key: 'public/cedar-creek/%E0%A4%A.jpg' } },
    };
    await run(record);
    expect(await world.records.refusals()).toEqual([
      expect.objectContaining({ key: 'public/cedar-creek/%E0%A4%A.jpg', ranchId: null, reason: 'malformed-key' }),
    ]);
    expect(world.log.map((l) => l.decision)).toEqual(['refused']);
  });

  it('removes and records an object outside the key layout, without reading it', async () => {
    world.put('public/a.jpg', { ranchid: 'cedar-creek' });
    world.put('uploads/cedar-creek/a.jpg', { ranchid: 'cedar-creek' });
    world.failHead.add('public/a.jpg');
    await run(created('public/a.jpg'), created('uploads/cedar-creek/a.jpg'));
    expect(world.objects.size).toBe(0);
    expect((await world.records.refusals()).map((r) => [r.key, r.ranchId, r.reason, r.yearmo])).toEqual([
      ['public/a.jpg', null, 'outside-layout', '2026_03'],
      ['uploads/cedar-creek/a.jpg', null, 'outside-layout', '2026_03'],
    ]);
  });

  it('removes and records an upload for a ranch that does not exist', async () => {
    world.upload('public/no-such-ranch/a.jpg', 'no-such-ranch', reservationId('2026_03', 'made-up-reservation'));
    await run(created('public/no-such-ranch/a.jpg'));
    expect(world.objects.has('public/no-such-ranch/a.jpg')).toBe(false);
    expect(await world.records.refusals()).toEqual([expect.objectContaining({ ranchId: 'no-such-ranch', reason: 'unknown-ranch' })]);
  });

  it('decodes URL-encoded event keys (+ for a space)', async () => {
    const key = 'public/cedar-creek/North Feeder +1 100%.jpg';
    expect(encodeEventKey(key)).toBe('public/cedar-creek/North+Feeder+%2B1+100%25.jpg');
    expect(decodeEventKey('public/cedar-creek/North+Feeder+%2B1+100%25.jpg')).toBe(key);
    world.upload(key, 'cedar-creek', await world.reserve('cedar-creek', 1));
    await run(created(key));
    expect(await world.counted(key)).toBeDefined();
    expect(world.objects.get(key)?.tags).toEqual({ ranchid: 'cedar-creek' });
  });

  it('ignores events other than ObjectCreated:*', async () => {
    world.put('public/other/a.jpg', {});
    await run(created('public/other/a.jpg', 'ObjectRemoved:Delete'), created('public/other/a.jpg', 'ObjectTagging:Put'));
    expect(world.objects.has('public/other/a.jpg')).toBe(true);
    expect(await world.records.refusals()).toEqual([]);
    expect(world.log.map((l) => l.decision)).toEqual(['ignored', 'ignored']);
  });

  it('skips an object that is gone by the time its event is handled', async () => {
    await run(created('public/cedar-creek/gone.jpg'));
    expect(await world.records.refusals()).toEqual([]);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(world.log).toEqual([{ decision: 'gone', bucket: BUCKET, key: 'public/cedar-creek/gone.jpg' }]);
  });

  it('handles every record when one fails, then throws so the event is retried', async () => {
    const reservation = await world.reserve('cedar-creek', 2);
    world.upload('public/cedar-creek/bad.jpg', 'cedar-creek', reservation);
    world.upload('public/cedar-creek/good.jpg', 'cedar-creek', reservation);
    world.failHead.add('public/cedar-creek/bad.jpg');
    const failure = await run(created('public/cedar-creek/bad.jpg'), created('public/cedar-creek/good.jpg')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ObjectCreatedFailure);
    expect((failure as ObjectCreatedFailure).failures).toEqual([expect.objectContaining({ key: 'public/cedar-creek/bad.jpg' })]);
    expect(await world.counted('public/cedar-creek/good.jpg')).toBeDefined();
    expect(world.log.map((l) => l.decision)).toEqual(['failed', 'counted']);

    // The retry finds what is missing: the bad one counted, the good one a duplicate.
    world.failHead.clear();
    await run(created('public/cedar-creek/bad.jpg'), created('public/cedar-creek/good.jpg'));
    expect(await world.total('cedar-creek', '2026_03')).toBe(2);
    expect(world.log.slice(2).map((l) => l.decision)).toEqual(['counted', 'duplicate']);
  });
});

describe('what the function counts: a JPEG of at most 50 MB', () => {
  it('refuses an object over 50 MB by its head, without reading it, and counts one of exactly 50 MB', async () => {
    const reservation = await world.reserve('cedar-creek', 2);
    world.upload('public/cedar-creek/huge.jpg', 'cedar-creek', reservation, {}, { size: MAX_OBJECT_BYTES + 1 });
    world.upload('public/cedar-creek/limit.jpg', 'cedar-creek', reservation, {}, { size: MAX_OBJECT_BYTES });
    await run(created('public/cedar-creek/huge.jpg'), created('public/cedar-creek/limit.jpg'));
    expect(MAX_OBJECT_BYTES).toBe(52_428_800);
    expect(world.objects.has('public/cedar-creek/huge.jpg')).toBe(false);
    expect(await world.counted('public/cedar-creek/huge.jpg')).toBeUndefined();
    expect(await world.records.refusals()).toEqual([
      { bucket: BUCKET, key: 'public/cedar-creek/huge.jpg', ranchId: 'cedar-creek', yearmo: '2026_03', reason: 'too-large', at: '2026-03-15T12:00:00.000Z' },
    ]);
    expect(world.ranged).toEqual(['public/cedar-creek/limit.jpg']);
    expect(await world.counted('public/cedar-creek/limit.jpg')).toBeDefined();
    // Its slot was not taken: the reservation still holds one.
    expect((await world.records.month('cedar-creek', '2026_03')).holds[reservation]?.slots).toBe(1);
  });

  it('refuses an object stored with any content type but image/jpeg or image/jpg, without reading it', async () => {
    const reservation = await world.reserve('cedar-creek', 7);
    const types = { 'png.jpg': 'image/png', 'octet.jpg': 'application/octet-stream', 'none.jpg': '', 'html.jpg': 'text/html' };
    for (const [name, contentType] of Object.entries(types)) world.upload(`public/cedar-creek/${name}`, 'cedar-creek', reservation, {}, { contentType });
    const accepted = { 'jpeg.jpg': 'image/jpeg', 'upper.jpg': 'IMAGE/JPG', 'param.jpg': 'image/jpeg; qs=1' };
    for (const [name, contentType] of Object.entries(accepted)) world.upload(`public/cedar-creek/${name}`, 'cedar-creek', reservation, {}, { contentType });
    await run(...[...Object.keys(types), ...Object.keys(accepted)].map((name) => created(`public/cedar-creek/${name}`)));
    expect((await world.records.refusals()).map((r) => [r.key, r.reason])).toEqual(
      Object.keys(types).map((name) => [`public/cedar-creek/${name}`, 'not-jpeg']),
    );
    expect([...world.objects.keys()]).toEqual(Object.keys(accepted).map((name) => `public/cedar-creek/${name}`));
    expect(world.ranged).toEqual(Object.keys(accepted).map((name) => `public/cedar-creek/${name}`));
    expect(await world.total('cedar-creek', '2026_03')).toBe(3);
  });

  it('refuses an object whose first bytes are not FF D8 FF, whatever its content type says', async () => {
    const reservation = await world.reserve('cedar-creek', 5);
    const bodies = {
      'text.jpg': new TextEncoder().encode('sdk jpeg'),
      'png.jpg': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]),
      'half.jpg': new Uint8Array([0xff, 0xd8, 0x00, 0xe0]),
    };
    for (const [name, body] of Object.entries(bodies)) world.upload(`public/cedar-creek/${name}`, 'cedar-creek', reservation, {}, { body, size: body.length });
    // Too short to be a JPEG at all: refused by its size, not read.
    world.upload('public/cedar-creek/short.jpg', 'cedar-creek', reservation, {}, { body: new Uint8Array([0xff, 0xd8]), size: 2 });
    world.upload('public/cedar-creek/empty.jpg', 'cedar-creek', reservation, {}, { body: new Uint8Array(), size: 0 });
    await run(...[...Object.keys(bodies), 'short.jpg', 'empty.jpg'].map((name) => created(`public/cedar-creek/${name}`)));
    expect(world.objects.size).toBe(0);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(world.tagged).toEqual([]);
    expect((await world.records.refusals()).map((r) => [r.key.slice('public/cedar-creek/'.length), r.reason])).toEqual([
      ['text.jpg', 'not-jpeg'],
      ['png.jpg', 'not-jpeg'],
      ['half.jpg', 'not-jpeg'],
      ['short.jpg', 'not-jpeg'],
      ['empty.jpg', 'not-jpeg'],
    ]);
    expect(world.ranged).toEqual(['public/cedar-creek/text.jpg', 'public/cedar-creek/png.jpg', 'public/cedar-creek/half.jpg']);
    expect(world.log.map((l) => l.decision)).toEqual(['refused', 'refused', 'refused', 'refused', 'refused']);
  });

  it('skips an object removed between its head and the read of its first bytes', async () => {
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', await world.reserve('cedar-creek', 1));
    const deps = world.deps();
    const { objects } = deps;
    deps.objects = {
      ...objects,
      firstBytes: async (bucket, key, count) => {
        world.objects.delete(key);
        return objects.firstBytes(bucket, key, count);
      },
    };
    await handleObjectCreated({ Records: [created('public/cedar-creek/a.jpg')] }, deps);
    expect(world.log).toEqual([{ decision: 'gone', bucket: BUCKET, key: 'public/cedar-creek/a.jpg' }]);
    expect(await world.records.refusals()).toEqual([]);
  });
});

describe('reservations', () => {
  it('removes and records an object that names no reservation, or a malformed one', async () => {
    world.put('public/cedar-creek/a.jpg', { ranchid: 'cedar-creek' });
    world.put('public/cedar-creek/b.jpg', { ranchid: 'cedar-creek', reservation: 'let-me-in' });
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/b.jpg'));
    expect(world.objects.size).toBe(0);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(world.tagged).toEqual([]);
    expect(await world.records.refusals()).toEqual([
      { bucket: BUCKET, key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03', reason: 'no-reservation', at: '2026-03-15T12:00:00.000Z' },
      { bucket: BUCKET, key: 'public/cedar-creek/b.jpg', ranchId: 'cedar-creek', yearmo: '2026_03', reason: 'no-reservation', at: '2026-03-15T12:00:00.000Z' },
    ]);
  });

  it("removes an object under a made-up reservation, or another ranch's", async () => {
    const theirs = await world.reserve('mesquite-flats', 5);
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', reservationId('2026_03', 'made-up-by-a-client'));
    world.upload('public/cedar-creek/b.jpg', 'cedar-creek', theirs);
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/b.jpg'));
    expect(world.objects.size).toBe(0);
    expect((await world.records.refusals()).map((r) => [r.key, r.reason, r.yearmo])).toEqual([
      ['public/cedar-creek/a.jpg', 'no-reservation', '2026_03'],
      ['public/cedar-creek/b.jpg', 'no-reservation', '2026_03'],
    ]);
    expect((await world.records.month('mesquite-flats', '2026_03')).holds[theirs]?.slots).toBe(5);
    expect(await world.total('cedar-creek', '2026_03')).toBe(0);
  });

  it("counts in the reservation's month, even when the clock has moved to the next one", async () => {
    world.now = new Date('2026-03-31T23:55:00Z');
    const march = await world.reserve('tiny', 2);
    world.upload('public/tiny/march.jpg', 'tiny', march);
    world.advance(10 * MINUTE);
    await run(created('public/tiny/march.jpg'));
    expect((await world.counted('public/tiny/march.jpg'))?.yearmo).toBe('2026_03');
    expect(await world.total('tiny', '2026_03')).toBe(1);
    expect((await world.records.month('tiny', '2026_04')).version).toBe(0);
    expect(world.log).toEqual([expect.objectContaining({ decision: 'counted', yearmo: '2026_03', slot: 'reserved' })]);

    // A reservation made in April counts in April.
    const april = await world.reserve('tiny', 2);
    world.upload('public/tiny/april.jpg', 'tiny', april);
    await run(created('public/tiny/april.jpg'));
    expect((await world.counted('public/tiny/april.jpg'))?.yearmo).toBe('2026_04');
    expect(await world.records.refusals()).toEqual([]);
  });

  it('counts an object under an expired reservation while there is room, and refuses it when there is none', async () => {
    world.ranches.set('cedar-creek', 3);
    const slow = await world.reserve('cedar-creek', 2);
    world.upload('public/cedar-creek/1.jpg', 'cedar-creek', slow);
    await run(created('public/cedar-creek/1.jpg'));
    world.advance(RESERVATION_LIFETIME_MS + 5 * MINUTE);

    // Its slot went back, but the ceiling has room: a slow honest upload stays.
    world.upload('public/cedar-creek/2.jpg', 'cedar-creek', slow);
    await run(created('public/cedar-creek/2.jpg'));
    expect(world.log.at(-1)).toEqual(expect.objectContaining({ decision: 'counted', key: 'public/cedar-creek/2.jpg', slot: 'unreserved' }));

    // Another uploader holds the last slot: no room for a third late object.
    await world.reserve('cedar-creek', 5);
    world.upload('public/cedar-creek/3.jpg', 'cedar-creek', slow);
    await run(created('public/cedar-creek/3.jpg'));
    expect(world.objects.has('public/cedar-creek/3.jpg')).toBe(false);
    expect(await world.records.refusals()).toEqual([expect.objectContaining({ key: 'public/cedar-creek/3.jpg', reason: 'monthly-limit', yearmo: '2026_03' })]);
    expect(await world.total('cedar-creek', '2026_03')).toBe(2);
  });

  it("records a well-formed fingerprint among the ranch's photos, and nothing else", async () => {
    const reservation = await world.reserve('tiny', 3);
    world.upload('public/tiny/1.jpg', 'tiny', reservation, { fingerprint: FINGERPRINT_1 });
    world.upload('public/tiny/2.jpg', 'tiny', reservation, { fingerprint: 'v1-204800-0123456789ABCDEF0123456789ABCDEF' });
    world.upload('public/tiny/3.jpg', 'tiny', reservation, { fingerprint: 'v1-2048-00000000000000000000000000000003' });
    await run(created('public/tiny/1.jpg'), created('public/tiny/2.jpg'), created('public/tiny/3.jpg'));
    expect((await world.counted('public/tiny/1.jpg'))?.fingerprint).toBe(FINGERPRINT_1);
    // Malformed: counted, without a fingerprint.
    expect((await world.counted('public/tiny/2.jpg'))?.fingerprint).toBeNull();
    // Refused (over the ceiling): not the ranch's photo.
    expect(world.objects.has('public/tiny/3.jpg')).toBe(false);
    expect([...(await world.records.photos('tiny')).keys()]).toEqual([FINGERPRINT_1]);
    await expect(
      world.ledger.photoForms('tiny', [FINGERPRINT_1, 'v1-204800-0123456789ABCDEF0123456789ABCDEF', 'v1-2048-00000000000000000000000000000003']),
    ).resolves.toEqual(new Map([[FINGERPRINT_1, 'original']]));
    await expect(world.ledger.photoForms('cedar-creek', [FINGERPRINT_1])).resolves.toEqual(new Map());
  });
});

describe('capture corrections and turns (shared/src/uploads/wire.ts captureCorrectionOf, photoTurnOf)', () => {
  /** A camera that restarted at 2000-01-01, corrected to when it was set out (the same offset on both). */
  const CORRECTION = { capture_time: '2026-01-01T00:00:00-05:00', camera_capture_time: '2000-01-01T00:00:00-05:00', capture_correction: '+820540800' };
  /** A copy's fingerprint: its original is 1 MB, so a 200 KB copy fits (`copyFits`). */
  const ORIGINAL_OF_COPY = 'v1-1000000-0123456789abcdef0123456789abcdef';

  it('counts and tags an original with a correction that adds up and a turn, its values RFC 2047-encoded or not', async () => {
    const reservation = await world.reserve('cedar-creek', 2);
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', reservation, {
      ...CORRECTION,
      photo_turn: '90',
      fingerprint: FINGERPRINT_1,
      photo_form: 'original',
    });
    // "-3600" and "270" as RFC 2047 words: decoded before they are read.
    world.upload('public/cedar-creek/b.jpg', 'cedar-creek', reservation, {
      capture_time: '2026-03-01T09:00:00',
      camera_capture_time: '2026-03-01T10:00:00',
      capture_correction: '=?UTF-8?B?LTM2MDA=?=',
      photo_turn: '=?UTF-8?B?Mjcw?=',
    });
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/b.jpg'));
    expect(world.log.map((l) => l.decision)).toEqual(['counted', 'counted']);
    expect(world.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: 'cedar-creek' });
    expect((await world.counted('public/cedar-creek/a.jpg'))?.fingerprint).toBe(FINGERPRINT_1);
    expect(await world.records.refusals()).toEqual([]);
  });

  it.each<[string, Record<string, string>]>([
    ['camera_capture_time without capture_correction', { capture_time: CORRECTION.capture_time, camera_capture_time: CORRECTION.camera_capture_time }],
    ['capture_correction without camera_capture_time', { capture_time: CORRECTION.capture_time, capture_correction: CORRECTION.capture_correction }],
    ['a correction without capture_time', { camera_capture_time: CORRECTION.camera_capture_time, capture_correction: CORRECTION.capture_correction }],
    ['a correction that does not add up', { ...CORRECTION, capture_correction: '+820540801' }],
    ['a correction without its sign', { ...CORRECTION, capture_correction: '820540800' }],
    ['a zero correction', { ...CORRECTION, capture_time: CORRECTION.camera_capture_time, capture_correction: '+0' }],
    ['a correction beyond 100 years', { capture_time: '2126-01-02T00:00:00', camera_capture_time: '2000-01-01T00:00:00', capture_correction: '+3976300800' }],
    ['a camera time out of the form', { ...CORRECTION, camera_capture_time: '2000:01:01 00:00:00' }],
    ['times whose offsets differ', { ...CORRECTION, camera_capture_time: '2000-01-01T00:00:00-06:00' }],
    ['a correction that cannot be decoded', { ...CORRECTION, capture_correction: '=?UTF-8?B?!!!?=' }],
    ['a turn that is not a quarter turn', { photo_turn: '45' }],
    ['a turn of 0 spelled out', { photo_turn: '0' }],
    ['a turn that cannot be decoded', { photo_turn: '=?UTF-8?B?!!!?=' }],
  ])('removes and records an original with %s as malformed-metadata, leaving its slot held', async (_, extra) => {
    const reservation = await world.reserve('cedar-creek', 1);
    world.upload('public/cedar-creek/a.jpg', 'cedar-creek', reservation, extra);
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.has('public/cedar-creek/a.jpg')).toBe(false);
    expect(world.tagged).toEqual([]);
    expect(await world.records.countedObjects()).toEqual([]);
    expect(await world.records.refusals()).toEqual([
      {
        bucket: BUCKET,
        key: 'public/cedar-creek/a.jpg',
        ranchId: 'cedar-creek',
        yearmo: '2026_03',
        reason: 'malformed-metadata',
        at: '2026-03-15T12:00:00.000Z',
      },
    ]);
    expect((await world.records.month('cedar-creek', '2026_03')).holds[reservation]?.slots).toBe(1);
  });

  it('removes a copy that carries a turn (the browser made it upright), and counts the same copy without one', async () => {
    const reservation = await world.reserve('cedar-creek', 2);
    const copy = { fingerprint: ORIGINAL_OF_COPY, photo_form: 'copy', ...CORRECTION };
    world.upload('public/cedar-creek/turned-copy.jpg', 'cedar-creek', reservation, { ...copy, photo_turn: '180' });
    world.upload('public/cedar-creek/copy.jpg', 'cedar-creek', reservation, copy);
    await run(created('public/cedar-creek/turned-copy.jpg'), created('public/cedar-creek/copy.jpg'));
    expect(world.objects.has('public/cedar-creek/turned-copy.jpg')).toBe(false);
    expect((await world.records.refusals()).map((r) => [r.key, r.reason])).toEqual([['public/cedar-creek/turned-copy.jpg', 'malformed-metadata']]);
    expect(world.log.at(-1)).toMatchObject({ decision: 'counted', key: 'public/cedar-creek/copy.jpg' });
  });
});

describe('the production adapters', () => {
  it('reads a ranch ceiling by its ranchid: absent ranch null, absent max 0', async () => {
    const items: Record<string, unknown> = { 'cedar-creek': { Item: { max_monthly_uploads: { N: '10000' } } }, bare: { Item: {} }, nowhere: {} };
    const sent: { input: { Key: { ranchid: { S: string } }; TableName: string } }[] = [];
    const ranches = dynamoRanches(
      {
        send: async (command) => {
          const c = command as (typeof sent)[number];
          sent.push(c);
          return items[c.input.Key.ranchid.S];
        },
      },
      'ranch-table',
    );
    await expect(ranches.maxMonthlyUploads('cedar-creek')).resolves.toBe(10000);
    await expect(ranches.maxMonthlyUploads('bare')).resolves.toBe(0);
    await expect(ranches.maxMonthlyUploads('nowhere')).resolves.toBeNull();
    expect(sent[0]?.input.TableName).toBe('ranch-table');
  });

  it("reads an object's metadata (null once it is gone) and tags it with its ranch", async () => {
    const sent: object[] = [];
    const objects = s3Objects({
      send: async (command) => {
        sent.push(command);
        if (command instanceof HeadObjectCommand) {
          if (command.input.Key === 'public/cedar-creek/gone.jpg')
            throw Object.assign(new Error('Not Found'), { name: 'NotFound', $metadata: { httpStatusCode: 404 } });
          if (command.input.Key === 'public/cedar-creek/denied.jpg')
            throw Object.assign(new Error('Forbidden'), { name: 'Forbidden', $metadata: { httpStatusCode: 403 } });
          // What the SDK throws for HeadObject of an SSE-C object without its key.
          if (command.input.Key === 'public/cedar-creek/sse-c.jpg')
            throw Object.assign(new Error('Bad Request'), { name: 'BadRequest', $metadata: { httpStatusCode: 400 } });
          return { Metadata: { ranchid: 'cedar-creek' }, ContentLength: 204_800, ContentType: 'image/jpg' };
        }
        return {};
      },
    });
    await expect(objects.head(BUCKET, 'public/cedar-creek/a.jpg')).resolves.toEqual({
      metadata: { ranchid: 'cedar-creek' },
      size: 204_800,
      contentType: 'image/jpg',
      checksum: null,
    });
    await expect(objects.head(BUCKET, 'public/cedar-creek/gone.jpg')).resolves.toBeNull();
    await expect(objects.head(BUCKET, 'public/cedar-creek/sse-c.jpg')).resolves.toBe('unreadable');
    await expect(objects.head(BUCKET, 'public/cedar-creek/denied.jpg')).rejects.toThrow('Forbidden');
    await objects.putRanchTag(BUCKET, 'public/cedar-creek/a.jpg', 'cedar-creek');
    const tagging = sent.at(-1) as PutObjectTaggingCommand;
    expect(tagging).toBeInstanceOf(PutObjectTaggingCommand);
    expect(tagging.input).toEqual({ Bucket: BUCKET, Key: 'public/cedar-creek/a.jpg', Tagging: { TagSet: [{ Key: 'ranchid', Value: 'cedar-creek' }] } });
  });

  it("reads an object's first bytes with a ranged GetObject: null once it is gone, none for an empty one", async () => {
    const ranges: (string | undefined)[] = [];
    const objects = s3Objects({
      send: async (command) => {
        if (!(command instanceof GetObjectCommand)) throw new Error('unexpected command');
        ranges.push(command.input.Range);
        if (command.input.Key === 'public/cedar-creek/gone.jpg')
          throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
        if (command.input.Key === 'public/cedar-creek/empty.jpg')
          throw Object.assign(new Error('The requested range is not satisfiable'), { name: 'InvalidRange', $metadata: { httpStatusCode: 416 } });
        if (command.input.Key === 'public/cedar-creek/denied.jpg')
          throw Object.assign(new Error('Forbidden'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
        // A server that ignored the range: the whole body.
        return { Body: { transformToByteArray: async () => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00]) } };
      },
    });
    await expect(objects.firstBytes(BUCKET, 'public/cedar-creek/a.jpg', 3)).resolves.toEqual(new Uint8Array([0xff, 0xd8, 0xff]));
    await expect(objects.firstBytes(BUCKET, 'public/cedar-creek/gone.jpg', 3)).resolves.toBeNull();
    await expect(objects.firstBytes(BUCKET, 'public/cedar-creek/empty.jpg', 3)).resolves.toEqual(new Uint8Array());
    await expect(objects.firstBytes(BUCKET, 'public/cedar-creek/denied.jpg', 3)).rejects.toThrow('Forbidden');
    expect(ranges).toEqual(['bytes=0-2', 'bytes=0-2', 'bytes=0-2', 'bytes=0-2']);
  });
});

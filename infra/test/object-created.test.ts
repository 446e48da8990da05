/**
 * The object-created function's decisions (src/object-created/handler.ts) on in-memory ports, and
 * the DynamoDB adapter's mapping of a cancelled count transaction (src/object-created/aws.ts).
 */
import { TransactionCanceledException, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { countResultOfCancellation, dynamoLedger, dynamoRanches } from '../src/object-created/aws';
import { decodeEventKey, encodeEventKey, handleObjectCreated, ObjectCreatedFailure, utcYearMonth } from '../src/object-created/handler';
import type { CountResult, Decision, LedgerEntry, ObjectCreatedDeps, ObjectCreatedRecord, Refusal } from '../src/object-created/handler';

const BUCKET = 'uploads';

class FakeWorld {
  objects = new Map<string, { metadata: Record<string, string>; tags: Record<string, string> }>();
  counted = new Map<string, LedgerEntry>();
  baselines = new Map<string, number>();
  refusals: Refusal[] = [];
  ranches = new Map<string, number>([
    ['cedar-creek', 10000],
    ['mesquite-flats', 0],
    ['tiny', 2],
  ]);
  now = new Date('2026-03-15T12:00:00Z');
  log: Decision[] = [];
  failHead = new Set<string>();

  put(key: string, metadata: Record<string, string>) {
    this.objects.set(key, { metadata, tags: {} });
  }

  monthCount(ranchId: string, yearmo: string): number {
    const stored = [...this.counted.values()].filter((e) => e.ranchId === ranchId && e.yearmo === yearmo).length;
    return (this.baselines.get(`${ranchId}|${yearmo}`) ?? 0) + stored;
  }

  deps(): ObjectCreatedDeps {
    return {
      objects: {
        headMetadata: async (bucket, key) => {
          if (this.failHead.has(key)) throw new Error(`head failed for ${key}`);
          return bucket === BUCKET ? (this.objects.get(key)?.metadata ?? null) : null;
        },
        putRanchTag: async (_bucket, key, ranchId) => {
          const object = this.objects.get(key);
          if (object) object.tags['ranchid'] = ranchId;
        },
        remove: async (_bucket, key) => {
          this.objects.delete(key);
        },
      },
      ledger: {
        count: async (entry, ceiling): Promise<CountResult> => {
          if (this.counted.has(entry.key)) return 'duplicate';
          if (this.monthCount(entry.ranchId, entry.yearmo) >= ceiling) return 'over-limit';
          this.counted.set(entry.key, entry);
          return 'counted';
        },
        recordRefusal: async (refusal) => {
          this.refusals.push(refusal);
        },
      },
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
  it('counts an upload to its own ranch and tags it', async () => {
    world.put('public/cedar-creek/a.jpg', { ranchid: 'cedar-creek', camera_name: 'North Feeder' });
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: 'cedar-creek' });
    expect(world.counted.get('public/cedar-creek/a.jpg')).toEqual({
      bucket: BUCKET,
      key: 'public/cedar-creek/a.jpg',
      ranchId: 'cedar-creek',
      yearmo: '2026_03',
      at: '2026-03-15T12:00:00.000Z',
    });
    expect(world.log).toEqual([{ decision: 'counted', bucket: BUCKET, key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03' }]);
  });

  it('counts a private upload by the ranch in its key', async () => {
    const key = 'private/us-east-2:0f0e/cedar-creek/b.jpg';
    world.put(key, { ranchid: 'cedar-creek' });
    await run(created(key, 'ObjectCreated:CompleteMultipartUpload'));
    expect(world.counted.get(key)?.ranchId).toBe('cedar-creek');
    expect(world.objects.get(key)?.tags).toEqual({ ranchid: 'cedar-creek' });
  });

  it('counts an object once when S3 delivers its event twice, and tags it again', async () => {
    world.put('public/cedar-creek/a.jpg', { ranchid: 'cedar-creek' });
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/a.jpg'));
    expect(world.monthCount('cedar-creek', '2026_03')).toBe(1);
    expect(world.log.map((l) => l.decision)).toEqual(['counted', 'duplicate']);
    expect(world.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: 'cedar-creek' });
  });

  it('removes and records an upload past the ranch ceiling, without tagging it', async () => {
    world.put('public/tiny/1.jpg', { ranchid: 'tiny' });
    world.put('public/tiny/2.jpg', { ranchid: 'tiny' });
    world.put('public/tiny/3.jpg', { ranchid: 'tiny' });
    await run(created('public/tiny/1.jpg'), created('public/tiny/2.jpg'), created('public/tiny/3.jpg'));
    expect(world.monthCount('tiny', '2026_03')).toBe(2);
    expect(world.objects.has('public/tiny/3.jpg')).toBe(false);
    expect(world.refusals).toEqual([
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
    world.baselines.set('mesquite-flats|2026_03', 999);
    world.put('public/mesquite-flats/1.jpg', { ranchid: 'mesquite-flats' });
    world.put('public/mesquite-flats/2.jpg', { ranchid: 'mesquite-flats' });
    await run(created('public/mesquite-flats/1.jpg'), created('public/mesquite-flats/2.jpg'));
    expect(world.monthCount('mesquite-flats', '2026_03')).toBe(1000);
    expect(world.objects.has('public/mesquite-flats/1.jpg')).toBe(true);
    expect(world.objects.has('public/mesquite-flats/2.jpg')).toBe(false);
    expect(world.refusals.map((r) => r.reason)).toEqual(['monthly-limit']);
  });

  it('removes and records an object whose metadata names another ranch than its key', async () => {
    world.put('public/cedar-creek/a.jpg', { ranchid: 'mesquite-flats' });
    await run(created('public/cedar-creek/a.jpg'));
    expect(world.objects.has('public/cedar-creek/a.jpg')).toBe(false);
    expect(world.counted.size).toBe(0);
    expect(world.refusals).toEqual([
      expect.objectContaining({ key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', reason: 'ranch-mismatch', claimedRanchId: 'mesquite-flats' }),
    ]);
  });

  it('takes an RFC 2047-encoded ranchid for what it says, and a missing one as a mismatch', async () => {
    world.put('public/cedar-creek/a.jpg', { ranchid: '=?UTF-8?B?Y2VkYXItY3JlZWs=?=' });
    world.put('public/cedar-creek/b.jpg', {});
    await run(created('public/cedar-creek/a.jpg'), created('public/cedar-creek/b.jpg'));
    expect(world.counted.has('public/cedar-creek/a.jpg')).toBe(true);
    expect(world.refusals).toEqual([expect.objectContaining({ key: 'public/cedar-creek/b.jpg', reason: 'ranch-mismatch', claimedRanchId: '' })]);
  });

  it('removes and records an object outside the key layout, without reading it', async () => {
    world.put('public/a.jpg', { ranchid: 'cedar-creek' });
    world.put('uploads/cedar-creek/a.jpg', { ranchid: 'cedar-creek' });
    world.failHead.add('public/a.jpg');
    await run(created('public/a.jpg'), created('uploads/cedar-creek/a.jpg'));
    expect(world.objects.size).toBe(0);
    expect(world.refusals.map((r) => [r.key, r.ranchId, r.reason])).toEqual([
      ['public/a.jpg', null, 'outside-layout'],
      ['uploads/cedar-creek/a.jpg', null, 'outside-layout'],
    ]);
  });

  it('removes and records an upload for a ranch that does not exist', async () => {
    world.put('public/no-such-ranch/a.jpg', { ranchid: 'no-such-ranch' });
    await run(created('public/no-such-ranch/a.jpg'));
    expect(world.objects.has('public/no-such-ranch/a.jpg')).toBe(false);
    expect(world.refusals).toEqual([expect.objectContaining({ ranchId: 'no-such-ranch', reason: 'unknown-ranch' })]);
  });

  it('decodes URL-encoded event keys (+ for a space)', async () => {
    const key = 'public/cedar-creek/North Feeder +1 100%.jpg';
    expect(encodeEventKey(key)).toBe('public/cedar-creek/North+Feeder+%2B1+100%25.jpg');
    expect(decodeEventKey('public/cedar-creek/North+Feeder+%2B1+100%25.jpg')).toBe(key);
    world.put(key, { ranchid: 'cedar-creek' });
    await run(created(key));
    expect(world.counted.has(key)).toBe(true);
    expect(world.objects.get(key)?.tags).toEqual({ ranchid: 'cedar-creek' });
  });

  it('ignores events other than ObjectCreated:*', async () => {
    world.put('public/other/a.jpg', {});
    await run(created('public/other/a.jpg', 'ObjectRemoved:Delete'), created('public/other/a.jpg', 'ObjectTagging:Put'));
    expect(world.objects.has('public/other/a.jpg')).toBe(true);
    expect(world.refusals).toEqual([]);
    expect(world.log.map((l) => l.decision)).toEqual(['ignored', 'ignored']);
  });

  it('skips an object that is gone by the time its event is handled', async () => {
    await run(created('public/cedar-creek/gone.jpg'));
    expect(world.refusals).toEqual([]);
    expect(world.counted.size).toBe(0);
    expect(world.log).toEqual([{ decision: 'gone', bucket: BUCKET, key: 'public/cedar-creek/gone.jpg' }]);
  });

  it('counts in the UTC month of the injected clock, across a month boundary', async () => {
    world.ranches.set('tiny', 1);
    world.now = new Date('2026-03-31T23:59:59.999Z');
    world.put('public/tiny/march.jpg', { ranchid: 'tiny' });
    await run(created('public/tiny/march.jpg'));
    world.now = new Date('2026-04-01T00:00:00.000Z');
    world.put('public/tiny/april.jpg', { ranchid: 'tiny' });
    await run(created('public/tiny/april.jpg'));
    expect(world.counted.get('public/tiny/march.jpg')?.yearmo).toBe('2026_03');
    expect(world.counted.get('public/tiny/april.jpg')?.yearmo).toBe('2026_04');
    expect(world.refusals).toEqual([]);
    expect(utcYearMonth(new Date('2026-12-31T23:30:00-05:00'))).toBe('2027_01');
  });

  it('handles every record when one fails, then throws so the event is retried', async () => {
    world.put('public/cedar-creek/bad.jpg', { ranchid: 'cedar-creek' });
    world.put('public/cedar-creek/good.jpg', { ranchid: 'cedar-creek' });
    world.failHead.add('public/cedar-creek/bad.jpg');
    const failure = await run(created('public/cedar-creek/bad.jpg'), created('public/cedar-creek/good.jpg')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ObjectCreatedFailure);
    expect((failure as ObjectCreatedFailure).failures).toEqual([expect.objectContaining({ key: 'public/cedar-creek/bad.jpg' })]);
    expect(world.counted.has('public/cedar-creek/good.jpg')).toBe(true);
    expect(world.log.map((l) => l.decision)).toEqual(['failed', 'counted']);

    // The retry finds what is missing: the bad one counted, the good one a duplicate.
    world.failHead.clear();
    await run(created('public/cedar-creek/bad.jpg'), created('public/cedar-creek/good.jpg'));
    expect(world.monthCount('cedar-creek', '2026_03')).toBe(2);
  });
});

describe('the DynamoDB ledger adapter', () => {
  const entry: LedgerEntry = { bucket: BUCKET, key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03', at: '2026-03-15T12:00:00.000Z' };
  const cancelled = (codes: string[]) =>
    new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

  function ledgerAnswering(answer: () => Promise<unknown>) {
    const sent: object[] = [];
    const ledger = dynamoLedger({ send: (command) => (sent.push(command), answer()) }, 'ledger-table');
    return { ledger, sent };
  }

  it('counts with one transaction: the object item if new, the month counter below the ceiling', async () => {
    const { ledger, sent } = ledgerAnswering(async () => ({}));
    await expect(ledger.count(entry, 1000)).resolves.toBe('counted');
    expect(sent).toHaveLength(1);
    const command = sent[0] as TransactWriteItemsCommand;
    expect(command).toBeInstanceOf(TransactWriteItemsCommand);
    const [put, update] = command.input.TransactItems ?? [];
    expect(put?.Put).toMatchObject({
      TableName: 'ledger-table',
      Item: { pk: { S: `OBJECT#${BUCKET}/public/cedar-creek/a.jpg` }, sk: { S: 'OBJECT' }, ranchid: { S: 'cedar-creek' }, yearmo: { S: '2026_03' } },
      ConditionExpression: 'attribute_not_exists(#pk)',
    });
    expect(update?.Update).toMatchObject({
      TableName: 'ledger-table',
      Key: { pk: { S: 'RANCH#cedar-creek' }, sk: { S: 'UPLOADS#2026_03' } },
      UpdateExpression: 'ADD #total :one',
      ConditionExpression: 'attribute_not_exists(#total) OR #total < :ceiling',
      ExpressionAttributeValues: { ':one': { N: '1' }, ':ceiling': { N: '1000' } },
    });
  });

  it('maps the cancellation reasons: the object item exists → duplicate, the counter at the ceiling → over-limit', async () => {
    await expect(ledgerAnswering(async () => Promise.reject(cancelled(['ConditionalCheckFailed', 'None']))).ledger.count(entry, 5)).resolves.toBe('duplicate');
    await expect(ledgerAnswering(async () => Promise.reject(cancelled(['None', 'ConditionalCheckFailed']))).ledger.count(entry, 5)).resolves.toBe('over-limit');
    // Counted before, in a month since filled: still the same object, counted once.
    await expect(
      ledgerAnswering(async () => Promise.reject(cancelled(['ConditionalCheckFailed', 'ConditionalCheckFailed']))).ledger.count(entry, 5),
    ).resolves.toBe('duplicate');
  });

  it('throws a cancellation for any other reason, and any other error, for the event to be retried', async () => {
    const conflict = cancelled(['None', 'TransactionConflict']);
    await expect(ledgerAnswering(async () => Promise.reject(conflict)).ledger.count(entry, 5)).rejects.toBe(conflict);
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    await expect(ledgerAnswering(async () => Promise.reject(throttled)).ledger.count(entry, 5)).rejects.toBe(throttled);
    expect(countResultOfCancellation(undefined)).toBeUndefined();
    // A cancellation that arrives as a plain object with the exception's name (another SDK copy) maps too.
    const plain = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    });
    await expect(ledgerAnswering(async () => Promise.reject(plain)).ledger.count(entry, 5)).resolves.toBe('over-limit');
  });

  it('records a refusal as an item of its month', async () => {
    const { ledger, sent } = ledgerAnswering(async () => ({}));
    await ledger.recordRefusal({ ...entry, reason: 'ranch-mismatch', claimedRanchId: 'mesquite-flats' });
    expect((sent[0] as { input: unknown }).input).toEqual({
      TableName: 'ledger-table',
      Item: {
        pk: { S: 'REFUSAL#2026_03' },
        sk: { S: `${BUCKET}/public/cedar-creek/a.jpg` },
        bucket: { S: BUCKET },
        key: { S: 'public/cedar-creek/a.jpg' },
        reason: { S: 'ranch-mismatch' },
        at: { S: '2026-03-15T12:00:00.000Z' },
        ranchid: { S: 'cedar-creek' },
        claimed_ranchid: { S: 'mesquite-flats' },
      },
    });
  });

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
});

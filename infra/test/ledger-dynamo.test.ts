/**
 * The upload ledger on DynamoDB (src/ledger/dynamo.ts). Its suite runs on two engines
 * (support/ledger-engines.ts): DynamoDB Local, Amazon's own implementation, and our in-memory fake
 * (support/fake-dynamo.ts); a place where the fake reads a command differently shows up as a test
 * failing on one of them. What only the fake can do — lose races, cancel transactions and leave
 * keys unprocessed on demand — is tested on the fake alone. Waiting is never real: the adapter's
 * `sleep` is instant or runs on a simulated clock.
 */
import { BatchGetItemCommand, GetItemCommand, PutItemCommand, TransactionCanceledException, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { cancellationOutcome, dynamoLedger, ledgerKeys, MAX_ATTEMPTS, monthFromItem, objectFate, storedMonth } from '../src/ledger/dynamo';
import type { CommandSender } from '../src/ledger/dynamo';
import type { CountedObject, LedgerPort, MonthChange } from '../src/ledger/port';
import { countUnder, EMPTY_MONTH, grant, MAX_LIVE_HOLDS_PER_MEMBER, monthClose, monthEnd, reservationId } from '../src/ledger/rules';
import { handleUploadsApi } from '../src/uploads-api/handler';
import type { CountOutcome, MonthState } from '../src/ledger/rules';
import { prng } from '../../test-support/prng';
import { encodeEventKey, handleObjectCreated } from '../src/object-created/handler';
import type { Decision, ObjectCreatedDeps } from '../src/object-created/handler';
import { cancelled, conditionFailed, FakeDynamo, itemBytes, keyOf, transactionConflict } from './support/fake-dynamo';
import type { Item } from './support/fake-dynamo';
import { ENGINES, gated } from './support/ledger-engines';
import type { LedgerEngine } from './support/ledger-engines';
import { fingerprint, RANCH, UploadWorld } from './support/upload-world';

// DynamoDB Local answers in milliseconds, but a busy 2-core machine may take seconds for a test of
// hundreds of requests; jest's default of 5 s (projects cannot set testTimeout) is too tight.
jest.setTimeout(120_000);

const TABLE = 'ledger-table';

/** upload-metrics of the world's month, as `member` sees it. */
async function handleMetrics(world: UploadWorld, member: string) {
  const res = await handleUploadsApi(
    { method: 'GET', path: `/ranches/${RANCH}/upload-metrics`, query: { yearmo: '2026_11' }, body: null, caller: { ranchId: RANCH, sub: member } },
    { ledger: world.ledger, ranches: { maxMonthlyUploads: async () => world.ceiling }, clock: { now: () => new Date(world.now) }, newId: () => 'x'.repeat(16) },
  );
  return res.body;
}
const NOW = Date.parse('2026-11-10T12:00:00Z');
const RESERVATION = reservationId('2026_11', 'aaaaaaaaaaaaaaaa');

/** A conflict with another transaction on the month item (the object and photo items unaffected). */
const conflict = () => cancelled(['None', 'TransactionConflict', 'None']);

/** A simulated clock: `sleep` waits on it; `run` advances it from timer to timer until the work settles. */
class VirtualTime {
  now = 0;
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;

  readonly sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      this.timers.push({ at: this.now + Math.max(0, ms), seq: this.seq++, resolve });
    });

  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      // Every promise chain runs until it waits on a timer (setImmediate comes after all microtasks).
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return work;
      if (this.timers.length === 0) throw new Error('VirtualTime: nothing to wait for, but the work has not settled');
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      this.now = this.timers[0]!.at;
      while (this.timers.length > 0 && this.timers[0]!.at === this.now) this.timers.shift()!.resolve();
    }
  }
}

/** A ledger on the fake whose waits are recorded and instant. */
function ledgerOn(fake: FakeDynamo, seed = 1) {
  const sleeps: number[] = [];
  const ledger = dynamoLedger(fake, fake.table, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: prng(seed),
  });
  return { ledger, sleeps };
}

/**
 * A ledger on `client` that retries at once (no real waiting on a real engine either), bounded by
 * MAX_ATTEMPTS alone: a busy machine's slowness is no reason to give up. A call loses a race only
 * to another write of its month, so a test with fewer than MAX_ATTEMPTS writes per month never
 * exhausts it.
 */
const instantLedger = (client: CommandSender, table: string, seed = 1): LedgerPort =>
  dynamoLedger(client, table, { sleep: async () => {}, random: prng(seed), budgetMs: Number.POSITIVE_INFINITY });

const grantChange =
  (id: string, asked: number, ceiling = 1000, now = NOW, owner?: string) =>
  (state: MonthState): MonthChange<number> => {
    const { next, granted } = grant(state, { id, asked, ceiling, now, ...(owner === undefined ? {} : { owner }) });
    return { next, result: granted };
  };

const countChange =
  (id: string, ceiling = 1000, now = NOW) =>
  (state: MonthState): MonthChange<CountOutcome> => {
    const { next, outcome } = countUnder(state, { id, ceiling, now });
    return { next, result: outcome };
  };

const object = (key: string, fp: string | null = null, reservation = RESERVATION): CountedObject => ({
  bucket: 'uploads',
  key,
  ranchId: 'cedar-creek',
  yearmo: '2026_11',
  reservation,
  fingerprint: fp,
  form: 'original',
  checksum: null,
  at: '2026-11-10T12:00:00.000Z',
});

describe('monthFromItem and storedMonth', () => {
  it('reads a missing item as the empty month', () => {
    expect(monthFromItem(undefined)).toBe(EMPTY_MONTH);
    expect(storedMonth(undefined)).toBe('none');
  });

  it('reads a stored month', () => {
    const holds = { [RESERVATION]: { slots: 3, expiresAt: NOW } };
    const item = { total: { N: '7' }, holds: { S: JSON.stringify(holds) }, version: { N: '4' } };
    expect(monthFromItem(item)).toEqual({ total: 7, holds, version: 4 });
    expect(storedMonth(item)).toBe('versioned');
  });

  it('reads a month of the shape before `version` as version 0, to be written under the absence of one', () => {
    const item = { pk: { S: 'RANCH#cedar-creek' }, sk: { S: 'UPLOADS#2026_11' }, total: { N: '7' }, holds: { S: '{}' } };
    expect(monthFromItem(item)).toEqual({ total: 7, holds: {}, version: 0 });
    expect(storedMonth(item)).toBe('unversioned');
  });

  it('takes unreadable holds as none, keeping the count and the version', () => {
    expect(monthFromItem({ total: { N: '7' }, holds: { S: '{"r-2026_11-' }, version: { N: '4' } })).toEqual({ total: 7, holds: {}, version: 4 });
    expect(monthFromItem({ total: { N: '7' }, holds: { S: 'null' }, version: { N: '4' } })).toEqual({ total: 7, holds: {}, version: 4 });
    expect(monthFromItem({ total: { N: '7' }, version: { N: '4' } })).toEqual({ total: 7, holds: {}, version: 4 });
    expect(monthFromItem({ total: { S: '7' }, holds: { S: '{}' }, version: { N: 'x' } })).toEqual({ total: 0, holds: {}, version: 0 });
  });
});

describe('cancellationOutcome and objectFate', () => {
  it.each([
    [['ConditionalCheckFailed', 'None', 'None'], 'decided'],
    [['ConditionalCheckFailed', 'ConditionalCheckFailed'], 'decided'],
    [['None', 'ConditionalCheckFailed', 'None'], 'retry'],
    [['None', 'TransactionConflict'], 'retry'],
    // A copy's count found its photo an original's: written again without the form.
    [['None', 'None', 'ConditionalCheckFailed', 'None'], 'retry'],
    [['TransactionConflict', 'None', 'None'], 'retry'],
    [['None', 'None', 'ValidationError'], undefined],
    [['None', 'None', 'ProvisionedThroughputExceeded'], undefined],
    [[], undefined],
  ])('%j → %s', (codes, outcome) => {
    expect(cancellationOutcome(codes.map((Code) => ({ Code })))).toBe(outcome);
  });

  it('is undefined without reasons', () => {
    expect(cancellationOutcome(undefined)).toBeUndefined();
  });

  it("reads an object item's fate: counted, or the refusal recorded", () => {
    expect(objectFate(undefined)).toBeNull();
    expect(objectFate({ pk: { S: 'OBJECT#uploads/a.jpg' } })).toBe('counted');
    expect(objectFate({ pk: { S: 'OBJECT#uploads/a.jpg' }, refused: { S: 'month-closed' } })).toBe('month-closed');
    // Whatever else was written there stays a refusal.
    expect(objectFate({ pk: { S: 'OBJECT#uploads/a.jpg' }, refused: { S: 'garbage' } })).toBe('over-limit');
  });
});

describe.each(ENGINES)('the ledger on %s', (_name, makeEngine) => {
  let engine: LedgerEngine;
  let ledger: LedgerPort;
  beforeEach(async () => {
    engine = await makeEngine();
    ledger = instantLedger(engine.client, engine.table);
  });

  it('creates the month item, then changes it under the version it read', async () => {
    await expect(ledger.readMonth('cedar-creek', '2026_11')).resolves.toEqual(EMPTY_MONTH);
    await expect(ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 3))).resolves.toBe(3);
    expect(await engine.get(ledgerKeys.month('cedar-creek', '2026_11'))).toEqual({
      pk: { S: 'RANCH#cedar-creek' },
      sk: { S: 'UPLOADS#2026_11' },
      ranchid: { S: 'cedar-creek' },
      yearmo: { S: '2026_11' },
      total: { N: '0' },
      holds: { S: JSON.stringify({ [RESERVATION]: { slots: 3, expiresAt: NOW + 15 * 60_000, grantedAt: NOW } }) },
      version: { N: '1' },
    });
    await ledger.updateMonth('cedar-creek', '2026_11', countChange(RESERVATION));
    await expect(ledger.readMonth('cedar-creek', '2026_11')).resolves.toEqual({
      total: 1,
      holds: { [RESERVATION]: { slots: 2, expiresAt: NOW + 15 * 60_000, grantedAt: NOW } },
      version: 2,
    });
  });

  it('writes nothing when the change writes nothing', async () => {
    await expect(ledger.updateMonth('cedar-creek', '2026_11', countChange(RESERVATION))).resolves.toBe('no-reservation');
    expect(await engine.all()).toEqual([]);
  });

  it('reads and upgrades a month item written before `version` existed', async () => {
    // As an adapter of before wrote it: no version, and holds of every kind, retired ones included.
    const old = reservationId('2026_11', 'old-released-hold');
    await engine.put({
      pk: { S: 'RANCH#cedar-creek' },
      sk: { S: 'UPLOADS#2026_11' },
      ranchid: { S: 'cedar-creek' },
      yearmo: { S: '2026_11' },
      total: { N: '7' },
      holds: { S: JSON.stringify({ [old]: { slots: 0, expiresAt: NOW } }) },
    });
    await expect(ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 3, 20))).resolves.toBe(3);
    expect(await engine.month('cedar-creek', '2026_11')).toEqual({ total: 7, holds: { [RESERVATION]: expect.objectContaining({ slots: 3 }) }, version: 1 });
    // The old retired hold was recorded on the way: an object still on its way under it is known.
    expect(await engine.get(ledgerKeys.reservation('cedar-creek', old))).toMatchObject({ hold: { S: JSON.stringify({ slots: 0, expiresAt: NOW }) } });
    await expect(ledger.countObject(object('public/cedar-creek/late.jpg', null, old), countChange(old, 1000, NOW + 60_000))).resolves.toBe('unreserved');
    // That count wrote the month under its version, as any other.
    expect(await engine.month('cedar-creek', '2026_11')).toMatchObject({ total: 8, version: 2 });
  });

  it('counts an object: the object, the month, the photo and its size in one transaction, known from then on', async () => {
    await ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 2));
    const fp = 'v1-204800-0123456789abcdef0123456789abcdef';
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg', fp), countChange(RESERVATION))).resolves.toBe('reserved');
    expect(await engine.get(ledgerKeys.object('uploads', 'public/cedar-creek/a.jpg'))).toEqual({
      pk: { S: 'OBJECT#uploads/public/cedar-creek/a.jpg' },
      sk: { S: 'OBJECT' },
      ranchid: { S: 'cedar-creek' },
      yearmo: { S: '2026_11' },
      at: { S: '2026-11-10T12:00:00.000Z' },
    });
    expect(await engine.get(ledgerKeys.photo('cedar-creek', fp))).toEqual({
      pk: { S: 'RANCH#cedar-creek' },
      sk: { S: `PHOTO#${fp}` },
      form: { S: 'original' },
      key: { S: 'uploads/public/cedar-creek/a.jpg' },
      at: { S: '2026-11-10T12:00:00.000Z' },
      original_key: { S: 'uploads/public/cedar-creek/a.jpg' },
    });
    expect(await engine.month('cedar-creek', '2026_11')).toMatchObject({ total: 1, version: 2 });
    await expect(ledger.photoForms('cedar-creek', [fp])).resolves.toEqual(new Map([[fp, 'original']]));
    await expect(ledger.knownSizes('cedar-creek', [204800, 204801])).resolves.toEqual(new Set([204800]));
    await expect(ledger.photoForms('mesquite-flats', [fp])).resolves.toEqual(new Map());
  });

  it('decides an object once: a counted one is a duplicate after, a refused one stays refused even once there is room', async () => {
    await ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 1, 1));
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION, 1))).resolves.toBe('reserved');
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION, 1))).resolves.toBe('duplicate');
    await expect(ledger.countObject(object('public/cedar-creek/b.jpg'), countChange(RESERVATION, 1))).resolves.toBe('over-limit');
    expect(objectFate(await engine.get(ledgerKeys.object('uploads', 'public/cedar-creek/b.jpg')))).toBe('over-limit');
    // The ceiling is raised: b's fate was decided (and its object removed); a redelivery does not count it.
    await expect(ledger.countObject(object('public/cedar-creek/b.jpg'), countChange(RESERVATION, 5))).resolves.toBe('over-limit');
    await expect(ledger.countObject(object('public/cedar-creek/c.jpg'), countChange('r-2026_11-made-up-reservation', 5))).resolves.toBe('no-reservation');
    expect(await engine.month('cedar-creek', '2026_11')).toMatchObject({ total: 1 });
  });

  it.each([
    ['before the second reads the month', (c: object) => c instanceof GetItemCommand && (c.input.Key?.['sk']?.S ?? '').startsWith('UPLOADS#')],
    ['between its read and its write', (c: object) => c instanceof TransactWriteItemsCommand],
  ])('two deliveries of the object that takes the last slot, the first counting %s: one counts it, neither refuses it', async (_when, hold) => {
    const world = new UploadWorld(ledger, 1, NOW);
    const { reservation } = await world.reserve('alice', [fingerprint(1)]);
    world.store('public/cedar-creek/a.jpg', reservation!, fingerprint(1));
    const gate = gated(engine.client, hold);
    const second = new UploadWorld(instantLedger(gate.client, engine.table, 2), 1, NOW);
    Object.assign(second, { objects: world.objects });
    const late = second.deliver('public/cedar-creek/a.jpg', NOW + 1000);
    await gate.heldCount(1);
    await world.deliver('public/cedar-creek/a.jpg');
    gate.release();
    await late;
    expect([...world.decisions, ...second.decisions].map((d) => d.decision).sort()).toEqual(['counted', 'duplicate']);
    expect(world.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: RANCH });
    expect(world.removed).toEqual([]);
  });

  it('records a retired reservation before its month forgets it, and counts a late object under it while there is room', async () => {
    const world = new UploadWorld(ledger, 3, NOW);
    const first = await world.reserve('alice', [fingerprint(1), fingerprint(2)]);
    expect(await world.api('DELETE', `/reservations/${first.reservation}`, 'alice')).toEqual({
      status: 200,
      body: { reservation: first.reservation, released: 2 },
    });
    expect((await engine.month(RANCH, '2026_11')).holds).toEqual({});
    expect(await engine.get(ledgerKeys.reservation(RANCH, first.reservation!))).toMatchObject({ hold: expect.any(Object), ttl: expect.any(Object) });
    // A photo that was on its way when the batch ended arrives: counted, the ceiling has room.
    world.store('public/cedar-creek/late.jpg', first.reservation!, fingerprint(1));
    await world.deliver('public/cedar-creek/late.jpg', NOW + 60_000);
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'counted', slot: 'unreserved' });
    // Renewing or releasing it again: expired, nothing left.
    expect((await world.api('POST', `/reservations/${first.reservation}/renew`, 'alice')).status).toBe(410);
    expect(await world.api('DELETE', `/reservations/${first.reservation}`, 'alice')).toEqual({
      status: 200,
      body: { reservation: first.reservation, released: 0 },
    });
  });

  it("keeps one month's item small whatever a member does: reservations made and released in a loop, a month of the older shape near 400 KB", async () => {
    // An item as the adapter of before left it after ~3,200 reserve+release pairs (every hold kept
    // for a day), a few KB short of DynamoDB's 400 KB: the next 60 pairs would have passed it.
    const holds: Record<string, { slots: number; expiresAt: number; owner: string }> = {};
    const seeded: Item = {
      pk: { S: 'RANCH#cedar-creek' },
      sk: { S: 'UPLOADS#2026_11' },
      ranchid: { S: 'cedar-creek' },
      yearmo: { S: '2026_11' },
      total: { N: '0' },
      holds: { S: '{}' },
      version: { N: '6000' },
    };
    for (let i = 0; itemBytes(seeded) < 396 * 1024; i++) {
      holds[reservationId('2026_11', `loop${String(i).padStart(18, '0')}`)] = {
        slots: 0,
        expiresAt: NOW - 60_000,
        owner: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
      };
      if (i % 100 === 0) seeded['holds'] = { S: JSON.stringify(holds) };
    }
    seeded['holds'] = { S: JSON.stringify(holds) };
    await engine.put(seeded);
    const before = Object.keys(holds).length;
    const world = new UploadWorld(ledger, 1000, NOW);
    for (let i = 0; i < 60; i++) {
      const { reservation } = await world.reserve('looping-member', [fingerprint(i)], NOW + i * 1000);
      const released = await world.api('DELETE', `/reservations/${reservation}`, 'looping-member', undefined, NOW + i * 1000);
      expect(released.status).toBe(200);
    }
    // The first write recorded the 3,000 retired holds and dropped them; the loop leaves nothing behind.
    expect(await engine.monthBytes(RANCH, '2026_11')).toBeLessThan(300);
    const records = (await engine.all()).filter((item) => item['sk']?.S?.startsWith('HOLD#'));
    expect(records).toHaveLength(before + 60);
    // Whoever asks next gets slots.
    expect((await world.reserve('another-member', [fingerprint(999)], NOW + 61_000)).granted).toHaveLength(1);
  });

  it(`refuses a member's ${MAX_LIVE_HOLDS_PER_MEMBER + 1}st open reservation with a 429 in words, not a 500`, async () => {
    const world = new UploadWorld(ledger, 1000, NOW);
    for (let i = 0; i < MAX_LIVE_HOLDS_PER_MEMBER; i++) await world.reserve('greedy', [fingerprint(i)]);
    const refused = await world.api('POST', '/reservations', 'greedy', { fingerprints: [fingerprint(100)] });
    expect(refused.status).toBe(429);
    expect((refused.body as { message: string }).message).toMatch(/20 upload reservations open/);
    expect((await world.reserve('patient', [fingerprint(101)])).granted).toHaveLength(1);
  });

  it('looks up 250 fingerprints in chunks of 100', async () => {
    const fp = (i: number) => `v1-${1000 + i}-${i.toString(16).padStart(32, '0')}`;
    for (let i = 0; i < 250; i++) {
      if (i % 3 === 0) await engine.put({ pk: { S: 'RANCH#cedar-creek' }, sk: { S: `PHOTO#${fp(i)}` } });
      await engine.put({ pk: { S: 'RANCH#mesquite-flats' }, sk: { S: `PHOTO#${fp(i)}` } });
    }
    const asked = Array.from({ length: 250 }, (_, i) => fp(i));
    // Photo items of before forms (no `form`): originals.
    const expected = new Map(asked.filter((_, i) => i % 3 === 0).map((f) => [f, 'original']));
    await expect(ledger.photoForms('cedar-creek', [...asked, fp(0), fp(3)])).resolves.toEqual(expected);
    await expect(ledger.photoForms('cedar-creek', [])).resolves.toEqual(new Map());
  });

  it('records a refusal as an item of its month', async () => {
    await ledger.recordRefusal({
      bucket: 'uploads',
      key: 'public/cedar-creek/a.jpg',
      ranchId: 'cedar-creek',
      yearmo: '2026_11',
      reason: 'ranch-mismatch',
      at: '2026-11-10T12:00:00.000Z',
      claimedRanchId: 'mesquite-flats',
    });
    await ledger.recordRefusal({
      bucket: 'uploads',
      key: 'elsewhere/a.jpg',
      ranchId: null,
      yearmo: '2026_11',
      reason: 'outside-layout',
      at: '2026-11-10T12:00:01.000Z',
    });
    expect(await engine.get(ledgerKeys.refusal('uploads', 'public/cedar-creek/a.jpg', '2026_11'))).toEqual({
      pk: { S: 'REFUSAL#2026_11' },
      sk: { S: 'uploads/public/cedar-creek/a.jpg' },
      bucket: { S: 'uploads' },
      key: { S: 'public/cedar-creek/a.jpg' },
      reason: { S: 'ranch-mismatch' },
      at: { S: '2026-11-10T12:00:00.000Z' },
      ranchid: { S: 'cedar-creek' },
      claimed_ranchid: { S: 'mesquite-flats' },
    });
    expect(await engine.get(ledgerKeys.refusal('uploads', 'elsewhere/a.jpg', '2026_11'))).toEqual({
      pk: { S: 'REFUSAL#2026_11' },
      sk: { S: 'uploads/elsewhere/a.jpg' },
      bucket: { S: 'uploads' },
      key: { S: 'elsewhere/a.jpg' },
      reason: { S: 'outside-layout' },
      at: { S: '2026-11-10T12:00:01.000Z' },
    });
  });

  describe('through the uploads API and the object-created function', () => {
    const END = monthEnd('2026_11');

    it('reserves, knows photos from any member, shows what others hold, renews, releases and counts', async () => {
      const world = new UploadWorld(ledger, 10, NOW);
      const alice = await world.reserve('alice', [fingerprint(1), fingerprint(2), fingerprint(3)]);
      expect(alice).toMatchObject({ granted: [fingerprint(1), fingerprint(2), fingerprint(3)], known: [], yearmo: '2026_11' });
      world.store('public/cedar-creek/1.jpg', alice.reservation!, fingerprint(1));
      await world.deliver('public/cedar-creek/1.jpg');
      expect(await world.api('POST', '/photo-lookups', 'bob', { fingerprints: [fingerprint(1), fingerprint(2)], sizes: [200_001, 999] })).toEqual({
        status: 200,
        body: { known: [fingerprint(1)], copies: [], knownSizes: [200_001] },
      });
      const bob = await world.reserve('bob', [fingerprint(1), fingerprint(4)]);
      expect(bob).toMatchObject({ known: [fingerprint(1)], granted: [fingerprint(4)] });
      expect((await world.api('GET', '/upload-metrics', 'bob', undefined)).status).toBe(400);
      const metrics = await handleMetrics(world, 'bob');
      expect(metrics).toEqual({ total: '1', yearmo: '2026_11', month: '2026_11', reserved: 2, ceiling: 10 });
      const renewed = await world.api('POST', `/reservations/${alice.reservation}/renew`, 'alice', undefined, NOW + 10 * 60_000);
      expect(renewed).toEqual({ status: 200, body: { reservation: alice.reservation, expiresAt: new Date(NOW + 25 * 60_000).toISOString() } });
      expect(await world.api('DELETE', `/reservations/${alice.reservation}`, 'alice')).toEqual({
        status: 200,
        body: { reservation: alice.reservation, released: 2 },
      });
      expect(await handleMetrics(world, 'bob')).toMatchObject({ total: '1', reserved: 0 });
    });

    it("refuses another member's renewal or release (403), and ends a reservation 2 hours after it was made (410, its slots back)", async () => {
      const world = new UploadWorld(ledger, 6, NOW);
      const { reservation } = await world.reserve('alice', [fingerprint(1), fingerprint(2), fingerprint(3)]);
      for (const [method, path] of [
        ['POST', `/reservations/${reservation}/renew`],
        ['DELETE', `/reservations/${reservation}`],
      ] as const) {
        expect(await world.api(method, path, 'bob')).toEqual({
          status: 403,
          body: { message: "That reservation is another member's: only the member who made it may renew or release it" },
        });
      }
      let at = NOW;
      for (; at + 15 * 60_000 <= NOW + 2 * 3600_000; at += 10 * 60_000) {
        expect((await world.api('POST', `/reservations/${reservation}/renew`, 'alice', undefined, at)).status).toBe(200);
      }
      const ended = await world.api('POST', `/reservations/${reservation}/renew`, 'alice', undefined, at);
      expect(ended.status).toBe(410);
      expect((ended.body as { message: string }).message).toMatch(/reached its limit \(2 hours after it was made/);
      // Its 3 slots went back at once: bob and carol get their halves of all 6.
      for (const [member, first] of [
        ['bob', 10],
        ['carol', 20],
      ] as const) {
        expect(
          (
            await world.reserve(
              member,
              [1, 2, 3, 4].map((i) => fingerprint(first + i)),
              at,
            )
          ).granted,
        ).toHaveLength(3);
      }
    });

    it("holds one member to half the month's ceiling in live slots, saying so (shareLimited), so another member can still reserve", async () => {
      const world = new UploadWorld(ledger, 10, NOW);
      const greedy = await world.api('POST', '/reservations', 'greedy', { fingerprints: Array.from({ length: 10 }, (_, i) => fingerprint(i)) });
      expect(greedy.body).toMatchObject({ shareLimited: true, granted: Array.from({ length: 5 }, (_, i) => fingerprint(i)) });
      const more = await world.api('POST', '/reservations', 'greedy', { fingerprints: [fingerprint(20)] });
      expect(more.body).toMatchObject({ reservation: null, granted: [], shareLimited: true });
      const alice = await world.api('POST', '/reservations', 'alice', { fingerprints: Array.from({ length: 6 }, (_, i) => fingerprint(30 + i)) });
      expect((alice.body as { granted: string[] }).granted).toHaveLength(5);
      // The room, not her share, stopped alice's sixth: no shareLimited.
      expect(alice.body).not.toHaveProperty('shareLimited');
    });

    it("never spends a month's allowance later: a renewal past its end is refused, and objects arriving after it closed are removed, uncounted", async () => {
      const world = new UploadWorld(ledger, 200, END - 30 * 60_000);
      const fps = Array.from({ length: 100 }, (_, i) => fingerprint(i));
      const november = await world.reserve('alice', fps);
      expect(november.granted).toHaveLength(100);
      fps.forEach((fp, i) => world.store(`public/cedar-creek/${i}.jpg`, november.reservation!, fp));
      for (let i = 0; i < 50; i++) await world.deliver(`public/cedar-creek/${i}.jpg`, END - 20 * 60_000);
      // Ten minutes into December the November hold cannot be kept any longer.
      expect((await world.api('POST', `/reservations/${november.reservation}/renew`, 'alice', undefined, END + 10 * 60_000)).status).toBe(410);
      // Four months later, the other 50 arrive under the November reservation: refused, not counted.
      for (let i = 50; i < 100; i++) await world.deliver(`public/cedar-creek/${i}.jpg`, END + 120 * 86_400_000);
      expect(world.decisions.filter((d) => d.decision === 'refused').map((d) => (d as { reason: string }).reason)).toEqual(Array(50).fill('month-closed'));
      expect(await engine.month(RANCH, '2026_11')).toMatchObject({ total: 50 });
      expect(world.removed).toHaveLength(50);
      // December has its own 100.
      expect(
        (
          await world.reserve(
            'alice',
            fps.map((_, i) => fingerprint(1000 + i)),
            END + 61 * 60_000,
          )
        ).granted,
      ).toHaveLength(100);
    });

    it("judges the month's close by when S3 stored the object: one stored at 23:51 on the last day and handled at 01:00 (Lambda's retries) is counted in it, one stored after the close is not", async () => {
      const world = new UploadWorld(ledger, 100, END - 10 * 60_000);
      const { reservation } = await world.reserve('alice', [fingerprint(1), fingerprint(2), fingerprint(3), fingerprint(4)]);
      ['late', 'after', 'ahead', 'replayed'].forEach((name, i) => world.store(`public/cedar-creek/${name}.jpg`, reservation!, fingerprint(i + 1)));
      const close = monthClose('2026_11');
      // Stored before midnight; the function's first attempts failed and a retry ran at 01:00, the close.
      await world.deliver('public/cedar-creek/late.jpg', close, END - 9 * 60_000);
      // Stored after the close: refused however it is delivered.
      await world.deliver('public/cedar-creek/after.jpg', close + 60_000, close + 1000);
      // A time no genuine delivery carries is not believed: after the handling (a clock ahead), or older than Lambda keeps an event.
      await world.deliver('public/cedar-creek/ahead.jpg', close, close + 3_600_000);
      await world.deliver('public/cedar-creek/replayed.jpg', END + 7 * 3_600_000, END - 9 * 60_000);
      const decided = Object.fromEntries(world.decisions.map((d) => [d.key.replace(/^.*\//, ''), d.decision === 'refused' ? d.reason : d.decision]));
      expect(decided).toEqual({ 'late.jpg': 'counted', 'after.jpg': 'month-closed', 'ahead.jpg': 'month-closed', 'replayed.jpg': 'month-closed' });
      expect(await engine.month(RANCH, '2026_11')).toMatchObject({ total: 1 });
      expect(world.removed.sort()).toEqual(['public/cedar-creek/after.jpg', 'public/cedar-creek/ahead.jpg', 'public/cedar-creek/replayed.jpg']);
    });
  });

  it('decides 50 objects delivered twice each, all at once, exactly: no counted object removed, none counted twice, never over the ceiling', async () => {
    const world = new UploadWorld(ledger, 30, NOW);
    const keys: string[] = [];
    for (const member of ['alice', 'bob']) {
      const fps = Array.from({ length: 25 }, (_, i) => fingerprint(keys.length + i));
      const { reservation, granted } = await world.reserve(member, fps);
      // Each member's half of the ceiling (src/ledger/rules.ts memberShare).
      expect(granted.length).toBe(15);
      fps.forEach((fp, i) => {
        const key = `public/cedar-creek/${member}-${i}.jpg`;
        world.store(key, reservation!, fp);
        keys.push(key);
      });
    }
    const others = new UploadWorld(instantLedger(engine.client, engine.table, 7), 30, NOW);
    Object.assign(others, { objects: world.objects, removed: world.removed });
    await Promise.all(keys.flatMap((key, i) => [world.deliver(key, NOW + i), others.deliver(key, NOW + 60_000 - i)]));
    const items = await engine.all();
    const counted = items
      .filter((item) => item['sk']?.S === 'OBJECT' && objectFate(item) === 'counted')
      .map((item) => item['pk']!.S!.slice('OBJECT#uploads/'.length));
    expect(counted).toHaveLength(30);
    expect((await engine.month(RANCH, '2026_11')).total).toBe(30);
    for (const key of counted) expect(world.objects.has(key)).toBe(true);
    expect(world.removed.sort()).toEqual(keys.filter((k) => !counted.includes(k)).sort());
  });
});

describe('the ledger on the fake, with races lost, conflicts and unprocessed keys injected', () => {
  /** A ledger on the fake with a reservation of `slots` under `ceiling`. */
  async function reserved(slots: number, ceiling = 1000, seed = 1) {
    const fake = new FakeDynamo(TABLE);
    const { ledger, sleeps } = ledgerOn(fake, seed);
    await ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, slots, ceiling));
    fake.sent.length = 0;
    return { fake, ledger, sleeps };
  }

  it('reads again and applies the change again after losing a race, and ends correct', async () => {
    const fake = new FakeDynamo(TABLE);
    const { ledger } = ledgerOn(fake);
    const other = ledgerOn(fake, 2).ledger;
    const B = reservationId('2026_11', 'bbbbbbbbbbbbbbbb');
    let raced = false;
    fake.before = async (command) => {
      if (command instanceof PutItemCommand && !raced) {
        raced = true;
        // Another writer grants 600 of the 1,000 between this writer's read and its write.
        await other.updateMonth('cedar-creek', '2026_11', grantChange(B, 600));
      }
    };
    const seen: MonthState[] = [];
    const granted = await ledger.updateMonth('cedar-creek', '2026_11', (state) => {
      seen.push(state);
      return grantChange(RESERVATION, 500)(state);
    });
    expect(seen.map((s) => s.version)).toEqual([0, 1]);
    expect(granted).toBe(400);
    const month = fake.month('cedar-creek', '2026_11');
    expect(month.version).toBe(2);
    expect(month.holds[B]?.slots).toBe(600);
    expect(month.holds[RESERVATION]?.slots).toBe(400);
  });

  it('tries a month write again when it meets an ongoing transaction (TransactionConflictException), as after a lost race', async () => {
    // DynamoDB rejects a PutItem of an item that an ongoing transaction includes — the month, while
    // an object is counted in it (the developer guide's "Transaction conflict handling").
    const fake = new FakeDynamo(TABLE);
    const { ledger, sleeps } = ledgerOn(fake);
    let conflicts = 2;
    fake.before = (command) => {
      if (command instanceof PutItemCommand && conflicts-- > 0) throw transactionConflict();
    };
    await expect(ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 3))).resolves.toBe(3);
    expect(fake.count(PutItemCommand)).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(fake.month('cedar-creek', '2026_11').holds[RESERVATION]?.slots).toBe(3);
  });

  it('gives up after MAX_ATTEMPTS lost races with the last error, and throws other errors at once', async () => {
    const fake = new FakeDynamo(TABLE);
    const { ledger, sleeps } = ledgerOn(fake);
    const lost: unknown[] = [];
    fake.before = (command) => {
      if (command instanceof PutItemCommand) {
        const error = conditionFailed();
        lost.push(error);
        throw error;
      }
    };
    const error = await ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 1)).catch((e: unknown) => e);
    expect(error).toBe(lost.at(-1));
    expect(fake.count(PutItemCommand)).toBe(MAX_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_ATTEMPTS - 1);
    // Full jitter under a growing cap.
    sleeps.forEach((ms, attempt) => expect(ms).toBeLessThan(Math.min(1000, 10 * 2 ** attempt)));

    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const fake2 = new FakeDynamo(TABLE);
    const second = ledgerOn(fake2);
    fake2.before = (command) => {
      if (command instanceof PutItemCommand) throw throttled;
    };
    await expect(second.ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 1))).rejects.toBe(throttled);
    expect(second.sleeps).toEqual([]);
  });

  it('tries again after a transaction conflict or a month changed meanwhile', async () => {
    const { fake, ledger, sleeps } = await reserved(5);
    const other = ledgerOn(fake, 2).ledger;
    let racing = false;
    const injected = [
      async () => {
        throw conflict();
      },
      async () => {
        // Another object is counted between this one's read and its transaction.
        racing = true;
        await other.countObject(object('public/cedar-creek/other.jpg'), countChange(RESERVATION));
        racing = false;
      },
      async () => {
        throw transactionConflict();
      },
    ];
    fake.before = async (command) => {
      if (command instanceof TransactWriteItemsCommand && !racing) await injected.shift()?.();
    };
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION))).resolves.toBe('reserved');
    expect(sleeps).toHaveLength(3);
    expect(fake.month('cedar-creek', '2026_11')).toMatchObject({ total: 2, holds: { [RESERVATION]: { slots: 3 } } });
    expect(fake.objectItems()).toHaveLength(2);
  });

  it('gives up after MAX_ATTEMPTS conflicts with the last error, and throws other cancellations at once', async () => {
    const { fake, ledger, sleeps } = await reserved(5);
    const thrown: unknown[] = [];
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand) {
        const error = conflict();
        thrown.push(error);
        throw error;
      }
    };
    const error = await ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION)).catch((e: unknown) => e);
    expect(error).toBe(thrown.at(-1));
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(fake.count(TransactWriteItemsCommand)).toBe(MAX_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_ATTEMPTS - 1);
    expect(fake.objectItems()).toHaveLength(0);

    const other = cancelled(['None', 'None', 'ValidationError']);
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand) throw other;
    };
    sleeps.length = 0;
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg', 'v1-1-00000000000000000000000000000001'), countChange(RESERVATION))).rejects.toBe(other);
    expect(sleeps).toEqual([]);
  });

  it('maps a cancellation from another copy of the SDK by its name', async () => {
    const { fake, ledger } = await reserved(5);
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand) {
        // Another delivery decided the object first (counted it).
        fake.items.set('OBJECT#uploads/public/cedar-creek/a.jpg|OBJECT', { pk: { S: 'OBJECT#uploads/public/cedar-creek/a.jpg' }, sk: { S: 'OBJECT' } });
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
        });
      }
    };
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION))).resolves.toBe('duplicate');
  });

  it.each([
    [1000, 200],
    [150, 150],
  ])('counts 200 object-created events at once for one ranch exactly (ceiling %i → %i), with 30%% of transactions in conflict', async (ceiling, expected) => {
    const time = new VirtualTime();
    const random = prng(ceiling);
    const fake = new FakeDynamo(TABLE);
    // 1–20 ms a request, and a conflict in 30% of the transactions.
    fake.latency = () => time.sleep(1 + Math.floor(random() * 20));
    // The retries' time budget runs on the same simulated clock: 20 s, as the object-created function is given.
    const ledger = dynamoLedger(fake, TABLE, { sleep: time.sleep, random: prng(ceiling + 1), now: () => time.now, budgetMs: 20_000 });
    // Four uploaders reserved 50 slots each, as far as the ceiling allows.
    const reservations = [1, 2, 3, 4].map((n) => reservationId('2026_11', `uploader-${n}-0000000000`));
    for (const id of reservations) await time.run(ledger.updateMonth('cedar-creek', '2026_11', grantChange(id, 50, ceiling)));
    expect(fake.month('cedar-creek', '2026_11').total + Object.values(fake.month('cedar-creek', '2026_11').holds).reduce((n, h) => n + h.slots, 0)).toBe(
      Math.min(200, ceiling),
    );
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand && random() < 0.3) throw conflict();
    };

    const keys = Array.from({ length: 200 }, (_, i) => `public/cedar-creek/${String(i).padStart(3, '0')}.jpg`);
    // Each object's event through the object-created function itself (src/object-created/handler.ts), at once.
    const decisions = new Map<string, Decision>();
    const deps: ObjectCreatedDeps = {
      objects: {
        head: async (_bucket, key) => ({
          metadata: { ranchid: 'cedar-creek', reservation: reservations[keys.indexOf(key) % 4]! },
          size: 204_800,
          contentType: 'image/jpg',
        }),
        firstBytes: async () => new Uint8Array([0xff, 0xd8, 0xff]),
        range: async () => null,
        putRanchTag: async () => {},
        remove: async () => {},
      },
      ledger,
      ranches: { maxMonthlyUploads: async () => ceiling },
      clock: { now: () => new Date(NOW + 60_000) },
      log: (line) => decisions.set(line.key, line),
    };
    const calls = keys.map((key) =>
      handleObjectCreated({ Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'uploads' }, object: { key: encodeEventKey(key) } } }] }, deps),
    );
    const results = await time.run(Promise.allSettled(calls));

    const outcomes = keys.map((key) => {
      const d = decisions.get(key);
      return d?.decision === 'counted' ? d.slot : d?.decision === 'refused' ? d.reason : 'threw';
    });
    const isCounted = (o: string | undefined) => o === 'reserved' || o === 'unreserved';
    // Atomic whatever happened: the month's total is the objects recorded, each once, and only those counted.
    const recorded = fake
      .objectItems()
      .filter((item) => objectFate(item) === 'counted')
      .map((item) => item['pk']?.S);
    expect(new Set(recorded).size).toBe(recorded.length);
    expect(recorded.sort()).toEqual(keys.filter((_, i) => isCounted(outcomes[i])).map((k) => `OBJECT#uploads/${k}`));
    expect(fake.month('cedar-creek', '2026_11').total).toBe(recorded.length);
    // No call gave up: every object counted, up to the ceiling.
    const transactions = (key: string) =>
      fake.sent.filter((c) => c instanceof TransactWriteItemsCommand && c.input.TransactItems?.[0]?.Put?.Item?.['pk']?.S === `OBJECT#uploads/${key}`).length;
    const gaveUp = results.flatMap((r, i) => (r.status === 'rejected' ? [`${keys[i]} after ${transactions(keys[i]!)} transactions: ${String(r.reason)}`] : []));
    expect(gaveUp).toEqual([]);
    expect(outcomes.filter(isCounted)).toHaveLength(expected);
    expect(fake.month('cedar-creek', '2026_11').total).toBe(expected);
    // The races happened.
    expect(fake.count(TransactWriteItemsCommand)).toBeGreaterThan(expected * 1.3);
  });

  const fp = (i: number) => `v1-${1000 + i}-${i.toString(16).padStart(32, '0')}`;

  it('looks 250 fingerprints up in chunks of 100, and asks again for unprocessed keys', async () => {
    const fake = new FakeDynamo(TABLE);
    const { ledger, sleeps } = ledgerOn(fake);
    // The ranch has every third photo; another ranch has them all.
    for (let i = 0; i < 250; i++) {
      if (i % 3 === 0) fake.items.set(`RANCH#cedar-creek|PHOTO#${fp(i)}`, { pk: { S: 'RANCH#cedar-creek' }, sk: { S: `PHOTO#${fp(i)}` } });
      fake.items.set(`RANCH#mesquite-flats|PHOTO#${fp(i)}`, { pk: { S: 'RANCH#mesquite-flats' }, sk: { S: `PHOTO#${fp(i)}` } });
    }
    // The first answer of each chunk leaves its last 10 keys unprocessed.
    const seen = new Set<string>();
    fake.unprocessed = (keys) => {
      const first = keys.filter((k) => !seen.has(keyOf(k)));
      keys.forEach((k) => seen.add(keyOf(k)));
      return first.length === keys.length ? keys.slice(-10) : [];
    };
    const asked = Array.from({ length: 250 }, (_, i) => fp(i));
    const known = await ledger.photoForms('cedar-creek', [...asked, fp(0), fp(3)]);
    expect([...known.keys()].sort()).toEqual(asked.filter((_, i) => i % 3 === 0).sort());
    const batches = fake.sent.filter((c): c is BatchGetItemCommand => c instanceof BatchGetItemCommand);
    expect(batches.map((b) => b.input.RequestItems?.[TABLE]?.Keys?.length)).toEqual([100, 100, 50, 10, 10, 10]);
    // As stored now: the object-created function decides by the forms.
    expect(batches.every((b) => b.input.RequestItems?.[TABLE]?.ConsistentRead === true)).toBe(true);
    expect(sleeps).toHaveLength(3);
  });

  it('asks nothing for no fingerprints', async () => {
    const fake = new FakeDynamo(TABLE);
    await expect(ledgerOn(fake).ledger.photoForms('cedar-creek', [])).resolves.toEqual(new Map());
    expect(fake.sent).toEqual([]);
  });

  it('gives up when keys stay unprocessed', async () => {
    const fake = new FakeDynamo(TABLE);
    const { ledger, sleeps } = ledgerOn(fake);
    fake.unprocessed = (keys) => keys.slice(0, 1);
    await expect(ledger.photoForms('cedar-creek', [fp(1), fp(2)])).rejects.toThrow(/1 photo lookups stayed unprocessed/);
    expect(fake.count(BatchGetItemCommand)).toBe(MAX_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_ATTEMPTS - 1);
  });
});

/**
 * Smaller copies and their originals ("Send smaller copies"), through the real uploads API and
 * object-created handlers (src/uploads-api/handler.ts, src/object-created/handler.ts) on the
 * ledgers of support/ledgers.ts: the sandbox's SQLite ledger (sandbox/src/ledger.ts) and the
 * DynamoDB adapter (src/ledger/dynamo.ts) on both engines (support/ledger-engines.ts: our fake and
 * DynamoDB Local). A photo counts once, as a copy, an original, or a copy first and its original
 * later; an original is an upgrade only when its stored bytes are the photo it names; an upgrade is
 * recorded once, whatever runs at once. Waiting is never real: the adapter retries at once.
 */
import { ledgerKeys } from '../src/ledger/dynamo';
import type { CommandSender } from '../src/ledger/dynamo';
import type { PhotoRecord } from '../src/ledger/port';
import type { ReservationResponse } from '@trailsense/shared/uploads-wire';
import { ENGINES, gated } from './support/ledger-engines';
import type { LedgerEngine } from './support/ledger-engines';
import { instantLedger as instant } from './support/ledger-records';
import { LEDGERS, type LedgerSetup } from './support/ledgers';
import { photo, RANCH, UploadWorld } from './support/upload-world';
import { TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';

// DynamoDB Local on a busy 2-core machine (see ledger-dynamo.test.ts).
jest.setTimeout(120_000);

const NOW = Date.parse('2026-11-10T12:00:00Z');

/** The photo's record as the ledger keeps it, whichever ledger (read from its tables or items). */
const recordOf = (setup: LedgerSetup, fingerprint: string): Promise<PhotoRecord | undefined> => setup.records.photo(RANCH, fingerprint);

/** A photo counted before forms were kept: its key and time, no form. */
const seedOldPhoto = (setup: LedgerSetup, fingerprint: string): Promise<void> =>
  setup.records.seedPhotoOfBefore(RANCH, fingerprint, 'uploads/public/cedar-creek/old.jpg', '2026-10-01T00:00:00.000Z');

describe.each(LEDGERS)('copies and originals on %s', (_name, setUp) => {
  let setup: LedgerSetup;
  let world: UploadWorld;
  beforeEach(async () => {
    setup = await setUp();
    world = new UploadWorld(setup.ledger, 10, NOW);
  });
  afterEach(() => setup.close());

  const reserve = async (fingerprints: string[], member = 'alice') => (await world.reserve(member, fingerprints)) as unknown as ReservationResponse;
  const total = async () => (await setup.ledger.readMonth(RANCH, '2026_11')).total;
  const forms = async (fingerprint: string) => (await setup.ledger.photoForms(RANCH, [fingerprint])).get(fingerprint);
  const lastDecision = () => world.decisions.at(-1);
  /** A copy of `p` sent and counted under a reservation of its own. */
  async function sendCopy(p: ReturnType<typeof photo>, key = 'public/cedar-creek/copy.jpg') {
    const { reservation } = await reserve([p.fingerprint]);
    world.store(key, reservation!, p.fingerprint, { form: 'copy', bytes: p.copy });
    await world.deliver(key);
    return key;
  }

  it('counts a copy once, as an original would be: the ranch has the photo as a copy, and grants it no slot again', async () => {
    const p = photo(1);
    const key = await sendCopy(p);
    expect(lastDecision()).toMatchObject({ decision: 'counted', key, slot: 'reserved' });
    expect(world.objects.get(key)?.tags).toEqual({ ranchid: RANCH });
    expect(await total()).toBe(1);
    expect(await forms(p.fingerprint)).toBe('copy');
    expect(await recordOf(setup, p.fingerprint)).toEqual({ form: 'copy', key: `uploads/${key}`, at: new Date(NOW).toISOString(), copyKey: `uploads/${key}` });
    const again = await reserve([p.fingerprint]);
    expect(again).toMatchObject({ reservation: null, known: [p.fingerprint], copies: [p.fingerprint], granted: [] });
    expect((await world.api('POST', '/photo-lookups', 'bob', { fingerprints: [p.fingerprint] })).body).toEqual({
      known: [p.fingerprint],
      copies: [p.fingerprint],
      knownSizes: [],
    });
  });

  it('upgrades the copy with its verified original, sent without a reservation: counted in no month, tagged, both objects kept; a second delivery is a duplicate', async () => {
    const p = photo(2);
    const copyKey = await sendCopy(p);
    world.storeUnreserved('public/cedar-creek/original.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    await world.deliver('public/cedar-creek/original.jpg', NOW + 60_000);
    expect(lastDecision()).toEqual({
      decision: 'upgraded',
      bucket: 'uploads',
      key: 'public/cedar-creek/original.jpg',
      ranchId: RANCH,
      yearmo: '2026_11',
      fingerprint: p.fingerprint,
    });
    expect(await total()).toBe(1);
    expect(world.objects.get('public/cedar-creek/original.jpg')?.tags).toEqual({ ranchid: RANCH });
    expect(world.objects.has(copyKey)).toBe(true);
    expect(world.removed).toEqual([]);
    expect(await forms(p.fingerprint)).toBe('original');
    expect(await recordOf(setup, p.fingerprint)).toEqual({
      form: 'original',
      key: `uploads/${copyKey}`,
      at: new Date(NOW).toISOString(),
      copyKey: `uploads/${copyKey}`,
      originalKey: 'uploads/public/cedar-creek/original.jpg',
      upgradedAt: new Date(NOW + 60_000).toISOString(),
    });
    await expect(setup.ledger.objectDecision('uploads', 'public/cedar-creek/original.jpg')).resolves.toBe('upgraded');
    await expect(setup.ledger.objectDecision('uploads', copyKey)).resolves.toBe('counted');
    expect((await reserve([p.fingerprint])).copies).toEqual([]);

    await world.deliver('public/cedar-creek/original.jpg', NOW + 120_000);
    expect(lastDecision()).toMatchObject({ decision: 'duplicate', key: 'public/cedar-creek/original.jpg' });
    expect(world.objects.has('public/cedar-creek/original.jpg')).toBe(true);
    expect(await total()).toBe(1);
  });

  it('upgrades with an original of an older uploader (no photo_form: an original) and with one carrying a reservation, whose slot stays unused', async () => {
    const a = photo(3);
    const b = photo(4, 100_000);
    await sendCopy(a, 'public/cedar-creek/a-copy.jpg');
    await sendCopy(b, 'public/cedar-creek/b-copy.jpg');
    world.storeUnreserved('public/cedar-creek/a.jpg', a.fingerprint, { bytes: a.original });
    await world.deliver('public/cedar-creek/a.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'upgraded', key: 'public/cedar-creek/a.jpg' });
    const { reservation } = await reserve([photo(99).fingerprint]);
    world.store('public/cedar-creek/b.jpg', reservation!, b.fingerprint, { form: 'original', bytes: b.original });
    await world.deliver('public/cedar-creek/b.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'upgraded', key: 'public/cedar-creek/b.jpg' });
    expect(await total()).toBe(2);
    expect((await setup.ledger.readMonth(RANCH, '2026_11')).holds[reservation!]?.slots).toBe(1);
  });

  it('takes an original whose bytes are not the photo it names for a new photo: refused without a reservation, counted under its own fingerprint with one', async () => {
    const p = photo(5);
    await sendCopy(p);
    const other = photo(6);
    world.storeUnreserved('public/cedar-creek/crafted.jpg', p.fingerprint, { form: 'original', bytes: other.original });
    await world.deliver('public/cedar-creek/crafted.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'refused', key: 'public/cedar-creek/crafted.jpg', reason: 'no-reservation' });
    expect(world.removed).toEqual(['public/cedar-creek/crafted.jpg']);
    expect(await forms(p.fingerprint)).toBe('copy');

    const { reservation } = await reserve([photo(98).fingerprint]);
    world.store('public/cedar-creek/other.jpg', reservation!, p.fingerprint, { form: 'original', bytes: other.original });
    await world.deliver('public/cedar-creek/other.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'counted', key: 'public/cedar-creek/other.jpg', slot: 'reserved' });
    expect(await total()).toBe(2);
    // Recorded as the photo its bytes are, an original; the copy's photo is still only a copy.
    expect(await forms(other.fingerprint)).toBe('original');
    expect(await forms(p.fingerprint)).toBe('copy');
    expect(await recordOf(setup, other.fingerprint)).toMatchObject({ form: 'original', originalKey: 'uploads/public/cedar-creek/other.jpg' });
  });

  it('refuses a second original of an upgraded photo sent without a reservation, and counts one sent with a reservation, as before copies', async () => {
    const p = photo(7);
    await sendCopy(p);
    world.storeUnreserved('public/cedar-creek/first.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    await world.deliver('public/cedar-creek/first.jpg');
    world.storeUnreserved('public/cedar-creek/second.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    await world.deliver('public/cedar-creek/second.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'refused', key: 'public/cedar-creek/second.jpg', reason: 'no-reservation' });
    expect(world.removed).toEqual(['public/cedar-creek/second.jpg']);
    const { reservation } = await reserve([photo(97).fingerprint]);
    world.store('public/cedar-creek/third.jpg', reservation!, p.fingerprint, { form: 'original', bytes: p.original });
    await world.deliver('public/cedar-creek/third.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'counted', key: 'public/cedar-creek/third.jpg' });
    expect(await total()).toBe(2);
  });

  it('keeps a photo an original: a copy counted after it (with a reservation) does not make it a copy again', async () => {
    const p = photo(8, 90_000);
    const { reservation } = await reserve([p.fingerprint]);
    world.store('public/cedar-creek/original.jpg', reservation!, p.fingerprint, { form: 'original', bytes: p.original });
    await world.deliver('public/cedar-creek/original.jpg');
    const second = await reserve([photo(96).fingerprint]);
    world.store('public/cedar-creek/copy.jpg', second.reservation!, p.fingerprint, { form: 'copy', bytes: p.copy });
    await world.deliver('public/cedar-creek/copy.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'counted', key: 'public/cedar-creek/copy.jpg' });
    expect(await forms(p.fingerprint)).toBe('original');
    expect(await recordOf(setup, p.fingerprint)).toMatchObject({
      form: 'original',
      key: 'uploads/public/cedar-creek/copy.jpg',
      originalKey: 'uploads/public/cedar-creek/original.jpg',
      copyKey: 'uploads/public/cedar-creek/copy.jpg',
    });
  });

  it('reads a photo of before forms as an original: its originals are not upgrades, and a copy of it leaves it one', async () => {
    const p = photo(9);
    await seedOldPhoto(setup, p.fingerprint);
    expect(await forms(p.fingerprint)).toBe('original');
    world.storeUnreserved('public/cedar-creek/original.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    await world.deliver('public/cedar-creek/original.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'refused', reason: 'no-reservation' });
    const { reservation } = await reserve([photo(95).fingerprint]);
    world.store('public/cedar-creek/copy.jpg', reservation!, p.fingerprint, { form: 'copy', bytes: p.copy });
    await world.deliver('public/cedar-creek/copy.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'counted', key: 'public/cedar-creek/copy.jpg' });
    expect(await forms(p.fingerprint)).toBe('original');
    expect((await recordOf(setup, p.fingerprint))?.copyKey).toBe('uploads/public/cedar-creek/copy.jpg');
  });

  it('refuses a copy sent without a reservation, as any object sent without asking', async () => {
    const p = photo(10);
    world.storeUnreserved('public/cedar-creek/copy.jpg', p.fingerprint, { form: 'copy', bytes: p.copy });
    await world.deliver('public/cedar-creek/copy.jpg');
    expect(lastDecision()).toMatchObject({ decision: 'refused', reason: 'no-reservation' });
    expect(await forms(p.fingerprint)).toBeUndefined();
  });

  it.each([
    ['two deliveries of one original', false],
    ['two originals of one copy', true],
  ])('upgrades once when %s run at once: the other is a duplicate, or refused as a second original', async (_case, twoObjects) => {
    const p = photo(11);
    await sendCopy(p);
    world.storeUnreserved('public/cedar-creek/a.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    if (twoObjects) world.storeUnreserved('public/cedar-creek/b.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    const second = new UploadWorld(setup.other(), 10, NOW);
    Object.assign(second, { objects: world.objects, removed: world.removed });
    await Promise.all([world.deliver('public/cedar-creek/a.jpg'), second.deliver(twoObjects ? 'public/cedar-creek/b.jpg' : 'public/cedar-creek/a.jpg')]);
    const decisions = [...world.decisions.slice(1), ...second.decisions].map((d) => d.decision).sort();
    expect(decisions).toEqual(twoObjects ? ['refused', 'upgraded'] : ['duplicate', 'upgraded']);
    expect(await total()).toBe(1);
    const upgraded = [...world.decisions, ...second.decisions].find((d) => d.decision === 'upgraded')!;
    expect(world.objects.has(upgraded.key)).toBe(true);
    expect(world.removed).toEqual(twoObjects ? [upgraded.key === 'public/cedar-creek/a.jpg' ? 'public/cedar-creek/b.jpg' : 'public/cedar-creek/a.jpg'] : []);
    expect(await recordOf(setup, p.fingerprint)).toMatchObject({ form: 'original', originalKey: `uploads/${upgraded.key}` });
  });
});

describe.each(ENGINES)('races an upgrade loses on %s, one request held between the other’s', (_name, makeEngine) => {
  let engine: LedgerEngine;
  let world: UploadWorld;
  beforeEach(async () => {
    engine = await makeEngine();
    world = new UploadWorld(instant(engine.client, engine.table), 10, NOW);
  });

  /** The transactions `late`'s delivery sent, in all. */
  let transactions = 0;

  /** Delivers `late` with its first transaction (an upgrade's, or a count's) held until `first` was delivered whole. */
  async function heldBehind(late: string, first: string) {
    const gate = gated(engine.client, (c) => c instanceof TransactWriteItemsCommand);
    transactions = 0;
    const counting: CommandSender = {
      send: (command) => {
        if (command instanceof TransactWriteItemsCommand) transactions++;
        return gate.client.send(command);
      },
    };
    const second = new UploadWorld(instant(counting, engine.table, 2), 10, NOW);
    Object.assign(second, { objects: world.objects, removed: world.removed });
    const pending = second.deliver(late);
    await gate.heldCount(1);
    await world.deliver(first);
    gate.release();
    await pending;
    return second.decisions;
  }

  it('a redelivery whose upgrade meets the first one’s: a duplicate, never a removal', async () => {
    const p = photo(12);
    const { reservation } = await world.reserve('alice', [p.fingerprint]);
    world.store('public/cedar-creek/copy.jpg', reservation!, p.fingerprint, { form: 'copy', bytes: p.copy });
    await world.deliver('public/cedar-creek/copy.jpg');
    world.storeUnreserved('public/cedar-creek/a.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    const late = await heldBehind('public/cedar-creek/a.jpg', 'public/cedar-creek/a.jpg');
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'upgraded' });
    expect(late).toEqual([expect.objectContaining({ decision: 'duplicate', key: 'public/cedar-creek/a.jpg' })]);
    expect(transactions).toBe(1);
    expect(world.removed).toEqual([]);
  });

  it.each([
    ['refused without a reservation', false],
    ['counted under its reservation', true],
  ])('another original whose upgrade meets the first one’s (not-a-copy): %s', async (_case, withReservation) => {
    const p = photo(withReservation ? 15 : 13);
    const { reservation } = await world.reserve('alice', [p.fingerprint, photo(94).fingerprint]);
    world.store('public/cedar-creek/copy.jpg', reservation!, p.fingerprint, { form: 'copy', bytes: p.copy });
    await world.deliver('public/cedar-creek/copy.jpg');
    world.storeUnreserved('public/cedar-creek/a.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    if (withReservation) world.store('public/cedar-creek/b.jpg', reservation!, p.fingerprint, { form: 'original', bytes: p.original });
    else world.storeUnreserved('public/cedar-creek/b.jpg', p.fingerprint, { form: 'original', bytes: p.original });
    const late = await heldBehind('public/cedar-creek/b.jpg', 'public/cedar-creek/a.jpg');
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'upgraded', key: 'public/cedar-creek/a.jpg' });
    expect(late).toEqual([
      withReservation
        ? expect.objectContaining({ decision: 'counted', key: 'public/cedar-creek/b.jpg' })
        : expect.objectContaining({ decision: 'refused', key: 'public/cedar-creek/b.jpg', reason: 'no-reservation' }),
    ]);
    expect((await world.ledger.readMonth(RANCH, '2026_11')).total).toBe(withReservation ? 2 : 1);
    expect(world.removed).toEqual(withReservation ? [] : ['public/cedar-creek/b.jpg']);
    // Its upgrade was tried, and cancelled; then, with a reservation, its count.
    expect(transactions).toBe(withReservation ? 2 : 1);
  });

  it('a copy counted while its photo became an original: written again, its form left an original', async () => {
    const p = photo(14, 100_000);
    const { reservation } = await world.reserve('alice', [p.fingerprint, photo(93).fingerprint]);
    world.store('public/cedar-creek/copy.jpg', reservation!, p.fingerprint, { form: 'copy', bytes: p.copy });
    world.store('public/cedar-creek/original.jpg', reservation!, p.fingerprint, { form: 'original', bytes: p.original });
    // The copy's count reads the month, then the original is counted before its transaction.
    await heldBehind('public/cedar-creek/copy.jpg', 'public/cedar-creek/original.jpg');
    const item = await engine.get(ledgerKeys.photo(RANCH, p.fingerprint));
    expect(item?.['form']?.S).toBe('original');
    expect(item?.['copy_key']?.S).toBe('uploads/public/cedar-creek/copy.jpg');
    // Its first transaction was cancelled (the month moved, the photo turned an original's).
    expect(transactions).toBeGreaterThanOrEqual(2);
    expect((await world.ledger.readMonth(RANCH, '2026_11')).total).toBe(2);
  });
});

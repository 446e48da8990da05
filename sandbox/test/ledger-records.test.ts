/**
 * The sandbox's SQLite ledger (src/ledger.ts) keeps the port's records as production does
 * (infra/src/ledger/port.ts): a month row keeps only its live reservations, a retired one is
 * recorded before its month drops it (rows written before that rule included), and an object's
 * fate is decided once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countUnder, grant, reservationId } from '@trailsense/infra/ledger';
import type { CountedObject, LedgerPort } from '@trailsense/infra/ledger';
import { openDb } from '../src/db';
import { sqliteLedger } from '../src/ledger';

const NOW = Date.parse('2026-11-10T12:00:00Z');
const RANCH = 'cedar-creek';
const OLD = reservationId('2026_11', 'released-before-0000');
const LIVE = reservationId('2026_11', 'still-live-00000000');

let dir: string;
let db: ReturnType<typeof openDb>;
let ledger: LedgerPort;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-ledger-'));
  db = openDb(path.join(dir, 'sandbox.db'));
  ledger = sqliteLedger(db);
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const object = (key: string, reservation: string): CountedObject => ({
  bucket: 'uploads',
  key,
  ranchId: RANCH,
  yearmo: '2026_11',
  reservation,
  fingerprint: null,
  form: 'original',
  checksum: null,
  at: new Date(NOW).toISOString(),
});

const count = (key: string, reservation: string, ceiling = 10) =>
  ledger.countObject(object(key, reservation), (state) => {
    const { next, outcome } = countUnder(state, { id: reservation, ceiling, now: NOW + 60_000 });
    return { next, result: outcome };
  });

it('upgrades a month row of before: its retired holds are recorded by the first write, which keeps only live ones', async () => {
  // As the ledger of before left it: a released hold kept in the row for a day, beside a live one.
  db.writeMonth(RANCH, '2026_11', {
    total: 3,
    holds: { [OLD]: { slots: 0, expiresAt: NOW - 60_000 }, [LIVE]: { slots: 2, expiresAt: NOW + 10 * 60_000 } },
    version: 7,
  });
  const granted = await ledger.updateMonth(RANCH, '2026_11', (state) => {
    const { next, granted: n } = grant(state, { id: reservationId('2026_11', 'new-one-00000000000'), asked: 1, ceiling: 10, now: NOW });
    return { next, result: n };
  });
  expect(granted).toBe(1);
  expect(Object.keys(db.month(RANCH, '2026_11').holds).sort()).toEqual([LIVE, reservationId('2026_11', 'new-one-00000000000')].sort());
  expect(db.reservation(RANCH, OLD)).toEqual({ slots: 0, expiresAt: NOW - 60_000 });
  // A photo still on its way under the released reservation is known, and counted while there is room.
  await expect(count('public/cedar-creek/late.jpg', OLD)).resolves.toBe('unreserved');
});

it('decides an object once: a refused one stays refused when room opens, a counted one is a duplicate', async () => {
  db.writeMonth(RANCH, '2026_11', { total: 1, holds: { [LIVE]: { slots: 1, expiresAt: NOW + 10 * 60_000 } }, version: 1 });
  await expect(count('public/cedar-creek/a.jpg', LIVE, 2)).resolves.toBe('reserved');
  await expect(count('public/cedar-creek/b.jpg', LIVE, 2)).resolves.toBe('over-limit');
  await expect(count('public/cedar-creek/b.jpg', LIVE, 100)).resolves.toBe('over-limit');
  await expect(count('public/cedar-creek/a.jpg', LIVE, 100)).resolves.toBe('duplicate');
  expect(db.month(RANCH, '2026_11').total).toBe(2);
});

describe('photos and their forms (smaller copies)', () => {
  const FP = 'v1-300000-0123456789abcdef0123456789abcdef';
  const photoOf = (key: string, reservation: string, form: 'copy' | 'original'): CountedObject => ({ ...object(key, reservation), fingerprint: FP, form });
  const countPhoto = (key: string, form: 'copy' | 'original') =>
    ledger.countObject(photoOf(key, LIVE, form), (state) => {
      const { next, outcome } = countUnder(state, { id: LIVE, ceiling: 10, now: NOW + 60_000 });
      return { next, result: outcome };
    });
  const upgrade = (key: string) =>
    ledger.upgradePhoto({
      bucket: 'uploads',
      key,
      ranchId: RANCH,
      fingerprint: FP,
      yearmo: '2026_11',
      checksum: null,
      at: new Date(NOW + 120_000).toISOString(),
    });
  const record = () =>
    db.raw.prepare('SELECT form, key, copy_key, original_key, upgraded_at FROM photo_records WHERE ranch_id = ? AND fingerprint = ?').get(RANCH, FP);

  beforeEach(() => db.writeMonth(RANCH, '2026_11', { total: 0, holds: { [LIVE]: { slots: 5, expiresAt: NOW + 10 * 60_000 } }, version: 1 }));

  it('keeps a copy as a copy until its original upgrades it, once; the upgrade counts nothing and is a decision of its object', async () => {
    await expect(countPhoto('public/cedar-creek/copy.jpg', 'copy')).resolves.toBe('reserved');
    await expect(ledger.photoForms(RANCH, [FP, 'v1-1-00000000000000000000000000000000'])).resolves.toEqual(new Map([[FP, 'copy']]));
    await expect(upgrade('public/cedar-creek/original.jpg')).resolves.toBe('upgraded');
    await expect(upgrade('public/cedar-creek/original.jpg')).resolves.toBe('duplicate');
    await expect(upgrade('public/cedar-creek/another.jpg')).resolves.toBe('not-a-copy');
    await expect(upgrade('public/cedar-creek/copy.jpg')).resolves.toBe('duplicate');
    expect(record()).toEqual({
      form: 'original',
      key: 'uploads/public/cedar-creek/copy.jpg',
      copy_key: 'uploads/public/cedar-creek/copy.jpg',
      original_key: 'uploads/public/cedar-creek/original.jpg',
      upgraded_at: new Date(NOW + 120_000).toISOString(),
    });
    await expect(ledger.objectDecision('uploads', 'public/cedar-creek/original.jpg')).resolves.toBe('upgraded');
    await expect(ledger.objectDecision('uploads', 'public/cedar-creek/copy.jpg')).resolves.toBe('counted');
    await expect(ledger.objectDecision('uploads', 'public/cedar-creek/another.jpg')).resolves.toBeNull();
    // A redelivery of the upgraded original that reaches the count (it named a reservation) is a duplicate.
    await expect(countPhoto('public/cedar-creek/original.jpg', 'original')).resolves.toBe('duplicate');
    expect(db.month(RANCH, '2026_11').total).toBe(1);
  });

  it('never makes an original a copy again, and reads a photo counted before forms were kept as an original', async () => {
    // As the ledger of before left it: a photos row, no record.
    db.insertPhoto(RANCH, FP, 300_000, 'uploads/public/cedar-creek/old.jpg', '2026-10-01T00:00:00.000Z');
    await expect(ledger.photoForms(RANCH, [FP])).resolves.toEqual(new Map([[FP, 'original']]));
    await expect(upgrade('public/cedar-creek/original.jpg')).resolves.toBe('not-a-copy');
    await expect(countPhoto('public/cedar-creek/copy.jpg', 'copy')).resolves.toBe('reserved');
    expect(record()).toEqual({
      form: 'original',
      key: 'uploads/public/cedar-creek/copy.jpg',
      copy_key: 'uploads/public/cedar-creek/copy.jpg',
      original_key: null,
      upgraded_at: null,
    });
    await expect(ledger.photoForms(RANCH, [FP])).resolves.toEqual(new Map([[FP, 'original']]));
  });

  it('keeps the records when the database is opened again, and opening a ledger twice is harmless', async () => {
    await countPhoto('public/cedar-creek/copy.jpg', 'copy');
    sqliteLedger(db);
    db.close();
    db = openDb(path.join(dir, 'sandbox.db'));
    ledger = sqliteLedger(db);
    await expect(ledger.photoForms(RANCH, [FP])).resolves.toEqual(new Map([[FP, 'copy']]));
    await expect(upgrade('public/cedar-creek/original.jpg')).resolves.toBe('upgraded');
  });
});

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

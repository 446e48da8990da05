/**
 * The sandbox's SQLite ledger (src/ledger.ts) keeps each object's checksum as production's does
 * (infra/src/ledger/port.ts `ObjectChecksum`): with the counted object, the photo's record (the
 * object it was last counted under) and an upgrade; null for an object S3 kept none for. A
 * database of before is migrated (src/db.ts), its rows kept, their checksum null.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countUnder, reservationId } from '@trailsense/infra/ledger';
import type { CountedObject, LedgerPort, ObjectChecksum } from '@trailsense/infra/ledger';
import { openDb } from '../src/db';
import { sqliteLedger } from '../src/ledger';

const NOW = Date.parse('2026-11-10T12:00:00Z');
const RANCH = 'cedar-creek';
const LIVE = reservationId('2026_11', 'still-live-00000000');
const FP = 'v1-300000-0123456789abcdef0123456789abcdef';
const CRC32: ObjectChecksum = { algorithm: 'CRC32', type: 'FULL_OBJECT', value: 'DLOxmA==' };

let dir: string;
let file: string;
let db: ReturnType<typeof openDb>;
let ledger: LedgerPort;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-ledger-'));
  file = path.join(dir, 'sandbox.db');
  db = openDb(file);
  ledger = sqliteLedger(db);
  db.writeMonth(RANCH, '2026_11', { total: 0, holds: { [LIVE]: { slots: 5, expiresAt: NOW + 10 * 60_000 } }, version: 1 });
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const object = (key: string, checksum: ObjectChecksum | null, form: 'copy' | 'original' = 'original'): CountedObject => ({
  bucket: 'uploads',
  key,
  ranchId: RANCH,
  yearmo: '2026_11',
  reservation: LIVE,
  fingerprint: FP,
  form,
  checksum,
  at: new Date(NOW).toISOString(),
});

const count = (o: CountedObject) =>
  ledger.countObject(o, (state) => {
    const { next, outcome } = countUnder(state, { id: LIVE, ceiling: 10, now: NOW + 60_000 });
    return { next, result: outcome };
  });

const photoChecksum = () =>
  db.raw.prepare<[string, string], { checksum: string | null }>('SELECT checksum FROM photo_records WHERE ranch_id = ? AND fingerprint = ?').get(RANCH, FP)
    ?.checksum;

it('keeps the checksum with the counted object and the photo’s record', async () => {
  await expect(count(object('public/cedar-creek/a.jpg', CRC32))).resolves.toBe('reserved');
  expect(db.uploadChecksum('uploads', 'public/cedar-creek/a.jpg')).toBe('CRC32:FULL_OBJECT:DLOxmA==');
  expect(photoChecksum()).toBe('CRC32:FULL_OBJECT:DLOxmA==');
});

it('counts an object without one, its checksum null; the photo’s record follows the object counted last', async () => {
  await count(object('public/cedar-creek/a.jpg', CRC32));
  await expect(count(object('public/cedar-creek/b.jpg', null))).resolves.toBe('reserved');
  expect(db.uploadChecksum('uploads', 'public/cedar-creek/b.jpg')).toBeNull();
  expect(photoChecksum()).toBeNull();
  expect(db.month(RANCH, '2026_11').total).toBe(2);
});

it('keeps an upgrading original’s checksum with its decision', async () => {
  await count(object('public/cedar-creek/copy.jpg', CRC32, 'copy'));
  const upgrade = {
    bucket: 'uploads',
    key: 'public/cedar-creek/original.jpg',
    ranchId: RANCH,
    fingerprint: FP,
    yearmo: '2026_11',
    checksum: CRC32,
    at: new Date(NOW).toISOString(),
  };
  await expect(ledger.upgradePhoto(upgrade)).resolves.toBe('upgraded');
  const row = db.raw
    .prepare<[string], { checksum: string | null }>('SELECT checksum FROM upgraded_objects WHERE key = ?')
    .get('public/cedar-creek/original.jpg');
  expect(row?.checksum).toBe('CRC32:FULL_OBJECT:DLOxmA==');
});

it('migrates a database of before: its counted objects kept, their checksum null', () => {
  db.insertUpload({
    bucket: 'uploads',
    key: 'public/cedar-creek/old.jpg',
    ranchId: RANCH,
    yearmo: '2026_11',
    createdAt: new Date(NOW).toISOString(),
    checksum: null,
  });
  // As it was one version earlier: no checksum columns.
  db.raw.exec(`ALTER TABLE uploads DROP COLUMN checksum; ALTER TABLE upgraded_objects DROP COLUMN checksum; ALTER TABLE photo_records DROP COLUMN checksum;`);
  const version = db.raw.prepare<[], { user_version: number }>('PRAGMA user_version').get()!.user_version;
  db.raw.exec(`PRAGMA user_version = ${version - 1}`);
  db.close();
  db = openDb(file);
  ledger = sqliteLedger(db);
  expect(db.hasUpload('uploads', 'public/cedar-creek/old.jpg')).toBe(true);
  expect(db.uploadChecksum('uploads', 'public/cedar-creek/old.jpg')).toBeNull();
});

/**
 * The transactions the sandbox's ledger relies on (src/db.ts, openSqlite over node:sqlite): all
 * of a transaction or none of it, and a transaction inside another is part of the outer one; and
 * the migration to the upload ledger's months, which carries the counts so far over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, openSqlite } from '../src/db';

let dir: string;
let db: ReturnType<typeof openSqlite>;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-db-'));
  db = openSqlite(path.join(dir, 'test.db'));
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const keys = () =>
  db
    .prepare<[], { k: string }>('SELECT k FROM t ORDER BY k')
    .all()
    .map((row) => row.k);
const insert = (k: string) => db.prepare<[string]>('INSERT INTO t (k) VALUES (?)').run(k);

it('keeps every write of a transaction that returns, and returns its value', () => {
  const both = db.transaction((a: string, b: string) => {
    insert(a);
    insert(b);
    return 'done';
  });
  expect(both('a', 'b')).toBe('done');
  expect(keys()).toEqual(['a', 'b']);
});

it('keeps none of the writes of a transaction that throws, passes the error on, and leaves the database usable', () => {
  const failing = db.transaction(() => {
    insert('a');
    insert('a'); // the primary key refuses it
  });
  expect(() => failing()).toThrow(/UNIQUE/);
  expect(keys()).toEqual([]);
  db.transaction(() => insert('b'))();
  expect(keys()).toEqual(['b']);
});

it('runs a transaction inside another as part of it: the outer one failing undoes the inner one’s writes', () => {
  const inner = db.transaction(() => insert('inner'));
  const outer = db.transaction(() => {
    inner();
    throw new Error('outer fails');
  });
  expect(() => outer()).toThrow('outer fails');
  expect(keys()).toEqual([]);
});

it('carries the counts so far into the ledger’s months when it migrates a database of before (baselines plus stored uploads)', () => {
  const file = path.join(dir, 'sandbox.db');
  // A database of schema version 4: the months and photos tables are not there yet.
  const old = openDb(file);
  old.raw.exec(`DROP TABLE months; DROP TABLE photos; DROP TABLE reservations; DROP TABLE refused_objects; PRAGMA user_version = 4;`);
  old.raw.exec(`INSERT INTO ranches (id, name, max_monthly_uploads) VALUES ('mesquite-flats', 'M', 0), ('cedar-creek', 'C', 10000);`);
  old.raw.exec(`INSERT INTO upload_baselines (ranch_id, yearmo, count) VALUES ('mesquite-flats', '2026_11', 985), ('mesquite-flats', '2026_10', 12);`);
  const upload = old.raw.prepare<[string, string, string]>(
    `INSERT INTO uploads (bucket, key, ranch_id, yearmo, created_at) VALUES ('b', ?, ?, ?, '2026-11-02T00:00:00Z')`,
  );
  upload.run('public/mesquite-flats/1.jpg', 'mesquite-flats', '2026_11');
  upload.run('public/mesquite-flats/2.jpg', 'mesquite-flats', '2026_11');
  for (const n of [1, 2, 3]) upload.run(`public/cedar-creek/${n}.jpg`, 'cedar-creek', '2026_10');
  old.close();

  const migrated = openDb(file);
  try {
    expect(migrated.month('mesquite-flats', '2026_11')).toEqual({ total: 987, holds: {}, version: 1 });
    expect(migrated.month('mesquite-flats', '2026_10')).toEqual({ total: 12, holds: {}, version: 1 });
    expect(migrated.month('cedar-creek', '2026_10')).toEqual({ total: 3, holds: {}, version: 1 });
    expect(migrated.month('cedar-creek', '2026_11')).toEqual({ total: 0, holds: {}, version: 0 });
    // The uploads stay the counted objects (a redelivered event is a duplicate), and no photo is known yet.
    expect(migrated.hasUpload('b', 'public/cedar-creek/1.jpg')).toBe(true);
    expect(migrated.hasPhoto('cedar-creek', `v1-1-${'0'.repeat(32)}`)).toBe(false);
  } finally {
    migrated.close();
  }
});

it('keeps the upload events when it migrates to events without a ranch, and stores the monitoring events whole', () => {
  const file = path.join(dir, 'sandbox.db');
  // A database of schema version 5: events.ranchid is NOT NULL and there is no data column.
  const old = openDb(file);
  old.raw.exec(`DROP TABLE events; DROP TABLE reservations; DROP TABLE refused_objects;
    CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, ranchid TEXT NOT NULL, key TEXT, upload_count INTEGER, failure_count INTEGER, received_at TEXT NOT NULL);
    INSERT INTO events (name, ranchid, key, upload_count, failure_count, received_at) VALUES ('imageUpload', 'cedar-creek', 'public/cedar-creek/a.jpg', 1, NULL, '2026-11-26T00:00:00Z');
    PRAGMA user_version = 5;`);
  old.close();

  const migrated = openDb(file);
  try {
    const vital = { name: 'webVital', metric: 'LCP', value: 1200, rating: 'good', route: '/', navigationType: 'navigate' } as const;
    migrated.addEvent(vital, '2026-11-26T00:00:01Z');
    expect(migrated.events()).toEqual([
      { id: 1, receivedAt: '2026-11-26T00:00:00Z', name: 'imageUpload', ranchid: 'cedar-creek', key: 'public/cedar-creek/a.jpg', uploadCount: 1 },
      { id: 2, receivedAt: '2026-11-26T00:00:01Z', ...vital },
    ]);
    expect(migrated.events('cedar-creek')).toHaveLength(1);
  } finally {
    migrated.close();
  }
});

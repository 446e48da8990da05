/**
 * The transactions the sandbox's ledger relies on (src/db.ts, openSqlite over node:sqlite): all
 * of a transaction or none of it, and a transaction inside another is part of the outer one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlite } from '../src/db';

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

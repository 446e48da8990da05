/**
 * The sandbox's SQLite ledger (sandbox/src/ledger.ts) on a fresh database, and its records read
 * from its tables (sandbox/src/db.ts's migrations make them) as the port names them
 * (infra/src/ledger/port.ts): for the port's suites, which run on it as on the production DynamoDB
 * adapter (infra/test/support/ledgers.ts). It lives among the repository's shared test tools, not
 * in infra/test: no file of infra may import the sandbox (eslint.config.mjs), and only tests need it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checksumFromText, sizeOfFingerprint, type LedgerPort, type ObjectChecksum, type PhotoRecord } from '../infra/src/ledger/port';
import { openDb, type SandboxDb } from '../sandbox/src/db';
import { sqliteLedger, type PhotoRow } from '../sandbox/src/ledger';

/** The records of the sandbox's ledger on `db`, from its tables, as the port names them. */
export function sqliteRecords(db: SandboxDb) {
  const record = db.raw.prepare<[string, string], PhotoRow>(
    'SELECT form, key, at, checksum, copy_key, original_key, upgraded_at FROM photo_records WHERE ranch_id = ? AND fingerprint = ?',
  );
  const counted = db.raw.prepare<[string, string], { key: string; at: string }>('SELECT key, at FROM photos WHERE ranch_id = ? AND fingerprint = ?');
  const upgrade = db.raw.prepare<[string, string], { checksum: string | null }>('SELECT checksum FROM upgraded_objects WHERE bucket = ? AND key = ?');
  const seed = db.raw.prepare('INSERT INTO photos (ranch_id, fingerprint, size, key, at) VALUES (?, ?, ?, ?, ?)');
  return {
    /** The photo's record; one without a record (counted before forms were kept) is an original's. */
    photo(ranchId: string, fingerprint: string): Promise<PhotoRecord | undefined> {
      const row = record.get(ranchId, fingerprint);
      if (!row) {
        // A photo without a record, counted before forms were kept: an original's.
        const before = counted.get(ranchId, fingerprint);
        return Promise.resolve(before && { form: 'original', key: before.key, at: before.at });
      }
      const checksum = checksumFromText(row.checksum);
      const photo: PhotoRecord = {
        form: row.form === 'copy' ? 'copy' : 'original',
        key: row.key,
        at: row.at,
        ...(checksum ? { checksum } : {}),
        ...(row.copy_key === null ? {} : { copyKey: row.copy_key }),
        ...(row.original_key === null ? {} : { originalKey: row.original_key }),
        ...(row.upgraded_at === null ? {} : { upgradedAt: row.upgraded_at }),
      };
      return Promise.resolve(photo);
    },
    /** The checksum kept with the object's decision: its count's (`uploads`) or its upgrade's; null for none. */
    objectChecksum(bucket: string, key: string): Promise<ObjectChecksum | null> {
      const text = db.uploadChecksum(bucket, key) ?? upgrade.get(bucket, key)?.checksum;
      return Promise.resolve(checksumFromText(text));
    },
    /** A photo as the ledger of before forms counted it: a `photos` row without a record. */
    seedPhotoOfBefore(ranchId: string, fingerprint: string, key: string, at: string): Promise<void> {
      seed.run(ranchId, fingerprint, sizeOfFingerprint(fingerprint), key, at);
      return Promise.resolve();
    },
  };
}

/**
 * The sandbox's ledger on a fresh database in a folder of its own (as sandbox/test/ledger-records.test.ts
 * opens one), its records, another adapter on the same database, and `close` to remove both.
 */
export function sqliteLedgerInTempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-ledger-'));
  const db = openDb(path.join(dir, 'sandbox.db'));
  return {
    ledger: sqliteLedger(db),
    records: sqliteRecords(db),
    other: (): LedgerPort => sqliteLedger(db),
    close: () => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

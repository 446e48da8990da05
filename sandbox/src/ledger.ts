/**
 * The upload ledger on the sandbox's SQLite (infra/src/ledger/port.ts; production's is
 * infra/src/ledger/dynamo.ts, the only other adapter: the port's suites run on both,
 * infra/test/support/ledgers.ts). The rules are infra/src/ledger/rules.ts's, applied inside one
 * SQLite transaction, which is this adapter's atomicity: node:sqlite answers synchronously, so a
 * change never interleaves with another. It keeps the port's records: a month row keeps its live
 * reservations, a retired one is recorded in `reservations`, each object's fate once (counted in
 * `uploads`, refused in `refused_objects`, an upgrade of a copy in `upgraded_objects`), and each
 * photo in `photos` (that the ranch has it, and its size) with its record in `photo_records`
 * (its form and keys, infra/src/ledger/port.ts `PhotoRecord`; a photo without one, counted before
 * forms were kept, is an original). Each counted object, upgrade and photo record keeps the
 * object's checksum as S3 keeps it (`checksum`, port.ts `checksumText`; null when it had none).
 */
import {
  checksumFromText,
  checksumText,
  countedPhoto,
  retiredBy,
  sizeOfFingerprint,
  storedRefusal,
  upgradedPhoto,
  withReservation,
} from '@trailsense/infra/ledger';
import type {
  CountedObject,
  CountOutcome,
  LedgerPort,
  MonthChange,
  MonthState,
  ObjectDecision,
  PhotoForm,
  PhotoRecord,
  PhotoUpgrade,
  RanchPort,
  UpgradeOutcome,
} from '@trailsense/infra/ledger';
import type { SandboxDb } from './db';

/** A row of `photo_records` (src/db.ts). */
export interface PhotoRow {
  form: string;
  key: string;
  at: string;
  checksum: string | null;
  copy_key: string | null;
  original_key: string | null;
  upgraded_at: string | null;
}

/** The photo records and upgrades of `db` (its migrations make their tables: src/db.ts). */
function photoQueries(db: SandboxDb) {
  const stmt = {
    record: db.raw.prepare<[string, string], PhotoRow>(
      'SELECT form, key, at, checksum, copy_key, original_key, upgraded_at FROM photo_records WHERE ranch_id = ? AND fingerprint = ?',
    ),
    writeRecord: db.raw.prepare(
      `INSERT INTO photo_records (ranch_id, fingerprint, form, key, at, checksum, copy_key, original_key, upgraded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (ranch_id, fingerprint) DO UPDATE SET form = excluded.form, key = excluded.key, at = excluded.at, checksum = excluded.checksum,
       copy_key = excluded.copy_key, original_key = excluded.original_key, upgraded_at = excluded.upgraded_at`,
    ),
    counted: db.raw.prepare<[string, string], { key: string; at: string }>('SELECT key, at FROM photos WHERE ranch_id = ? AND fingerprint = ?'),
    upgraded: db.raw.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM upgraded_objects WHERE bucket = ? AND key = ?'),
    recordUpgrade: db.raw.prepare('INSERT INTO upgraded_objects (bucket, key, ranch_id, fingerprint, yearmo, at, checksum) VALUES (?, ?, ?, ?, ?, ?, ?)'),
  };
  return {
    /** A photo's record; one the ranch has without a record (counted before forms were kept) is an original's. */
    photo(ranchId: string, fingerprint: string): PhotoRecord | undefined {
      const row = stmt.record.get(ranchId, fingerprint);
      if (!row) {
        const counted = stmt.counted.get(ranchId, fingerprint);
        return counted && { form: 'original', key: counted.key, at: counted.at };
      }
      return {
        form: row.form === 'copy' ? 'copy' : 'original',
        key: row.key,
        at: row.at,
        ...(checksumFromText(row.checksum) ? { checksum: checksumFromText(row.checksum)! } : {}),
        ...(row.copy_key === null ? {} : { copyKey: row.copy_key }),
        ...(row.original_key === null ? {} : { originalKey: row.original_key }),
        ...(row.upgraded_at === null ? {} : { upgradedAt: row.upgraded_at }),
      };
    },
    writePhoto(ranchId: string, fingerprint: string, r: PhotoRecord): void {
      stmt.writeRecord.run(
        ranchId,
        fingerprint,
        r.form,
        r.key,
        r.at,
        r.checksum ? checksumText(r.checksum) : null,
        r.copyKey ?? null,
        r.originalKey ?? null,
        r.upgradedAt ?? null,
      );
    },
    isUpgrade: (bucket: string, key: string) => stmt.upgraded.get(bucket, key) !== undefined,
    recordUpgrade: (u: PhotoUpgrade) =>
      void stmt.recordUpgrade.run(u.bucket, u.key, u.ranchId, u.fingerprint, u.yearmo, u.at, u.checksum ? checksumText(u.checksum) : null),
  };
}

export function sqliteLedger(db: SandboxDb): LedgerPort {
  const photos = photoQueries(db);
  /** The month as stored, and as a change about `reservation` sees it. */
  const view = (ranchId: string, yearmo: string, reservation: string | undefined) => {
    const stored = db.month(ranchId, yearmo);
    const record = reservation === undefined || stored.holds[reservation] ? null : db.reservation(ranchId, reservation);
    return { stored, view: withReservation(stored, reservation, record) };
  };
  const write = (ranchId: string, yearmo: string, stored: MonthState, next: MonthState) => {
    for (const [id, hold] of retiredBy(stored, next)) db.recordReservation(ranchId, id, hold);
    db.writeMonth(ranchId, yearmo, next);
  };
  const decision = (bucket: string, key: string): ObjectDecision | null => {
    if (db.hasUpload(bucket, key)) return 'counted';
    if (photos.isUpgrade(bucket, key)) return 'upgraded';
    return db.refusedObject(bucket, key) === null ? null : 'refused';
  };
  return {
    readMonth: (ranchId, yearmo) => Promise.resolve(db.month(ranchId, yearmo)),
    updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>, reservation?: string): Promise<T> {
      const update = db.raw.transaction((): T => {
        const month = view(ranchId, yearmo, reservation);
        const { next, result } = change(month.view);
        if (next) write(ranchId, yearmo, month.stored, next);
        return result;
      });
      return Promise.resolve(update());
    },
    countObject(object: CountedObject, change: (state: MonthState) => MonthChange<CountOutcome>): Promise<CountOutcome | 'duplicate'> {
      const count = db.raw.transaction((): CountOutcome | 'duplicate' => {
        if (db.hasUpload(object.bucket, object.key) || photos.isUpgrade(object.bucket, object.key)) return 'duplicate';
        const refused = db.refusedObject(object.bucket, object.key);
        if (refused !== null) return storedRefusal(refused);
        const month = view(object.ranchId, object.yearmo, object.reservation);
        const { next, result } = change(month.view);
        if (!next) {
          db.recordRefusedObject(object.bucket, object.key, result);
          return result;
        }
        write(object.ranchId, object.yearmo, month.stored, next);
        const checksum = object.checksum ? checksumText(object.checksum) : null;
        db.insertUpload({ bucket: object.bucket, key: object.key, ranchId: object.ranchId, yearmo: object.yearmo, createdAt: object.at, checksum });
        const { fingerprint } = object;
        if (fingerprint) {
          const before = photos.photo(object.ranchId, fingerprint);
          db.insertPhoto(object.ranchId, fingerprint, sizeOfFingerprint(fingerprint), `${object.bucket}/${object.key}`, object.at);
          photos.writePhoto(object.ranchId, fingerprint, countedPhoto(before, object));
        }
        return result;
      });
      return Promise.resolve(count());
    },
    photoForms(ranchId, fingerprints) {
      const forms = new Map<string, PhotoForm>();
      for (const fingerprint of fingerprints) {
        const record = photos.photo(ranchId, fingerprint);
        if (record) forms.set(fingerprint, record.form);
      }
      return Promise.resolve(forms);
    },
    upgradePhoto(upgrade: PhotoUpgrade): Promise<UpgradeOutcome> {
      const run = db.raw.transaction((): UpgradeOutcome => {
        const decided = decision(upgrade.bucket, upgrade.key);
        if (decided === 'counted' || decided === 'upgraded') return 'duplicate';
        const before = photos.photo(upgrade.ranchId, upgrade.fingerprint);
        if (decided === 'refused' || before?.form !== 'copy') return 'not-a-copy';
        photos.writePhoto(upgrade.ranchId, upgrade.fingerprint, upgradedPhoto(before, upgrade));
        photos.recordUpgrade(upgrade);
        return 'upgraded';
      });
      return Promise.resolve(run());
    },
    objectDecision: (bucket, key) => Promise.resolve(decision(bucket, key)),
    knownSizes: (ranchId, sizes) => Promise.resolve(new Set(sizes.filter((size) => db.hasPhotoSize(ranchId, size)))),
    recordRefusal: (refusal) => Promise.resolve(db.recordRefusal(refusal)),
  };
}

/** The ranch records of the sandbox's product data. */
export function sqliteRanches(db: SandboxDb): RanchPort {
  return { maxMonthlyUploads: (ranchId) => Promise.resolve(db.ranch(ranchId)?.maxMonthlyUploads ?? null) };
}

/**
 * The upload ledger on the sandbox's SQLite (infra/src/ledger/port.ts; production's is
 * infra/src/ledger/dynamo.ts). The rules are infra/src/ledger/rules.ts's, applied inside one
 * SQLite transaction, which is this adapter's atomicity: node:sqlite answers synchronously, so a
 * change never interleaves with another.
 */
import { sizeOfFingerprint } from '@trailsense/infra/ledger';
import type { CountedObject, LedgerPort, MonthChange, MonthState, RanchPort } from '@trailsense/infra/ledger';
import type { SandboxDb } from './db';

export function sqliteLedger(db: SandboxDb): LedgerPort {
  return {
    readMonth: (ranchId, yearmo) => Promise.resolve(db.month(ranchId, yearmo)),
    updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>): Promise<T> {
      const update = db.raw.transaction((): T => {
        const { next, result } = change(db.month(ranchId, yearmo));
        if (next) db.writeMonth(ranchId, yearmo, next);
        return result;
      });
      return Promise.resolve(update());
    },
    countObject<T>(object: CountedObject, change: (state: MonthState) => MonthChange<T>): Promise<T | 'duplicate'> {
      const count = db.raw.transaction((): T | 'duplicate' => {
        if (db.hasUpload(object.bucket, object.key)) return 'duplicate';
        const { next, result } = change(db.month(object.ranchId, object.yearmo));
        if (next) {
          db.writeMonth(object.ranchId, object.yearmo, next);
          db.insertUpload({ bucket: object.bucket, key: object.key, ranchId: object.ranchId, yearmo: object.yearmo, createdAt: object.at });
          if (object.fingerprint)
            db.insertPhoto(object.ranchId, object.fingerprint, sizeOfFingerprint(object.fingerprint), `${object.bucket}/${object.key}`, object.at);
        }
        return result;
      });
      return Promise.resolve(count());
    },
    knownPhotos: (ranchId, fingerprints) => Promise.resolve(new Set(fingerprints.filter((f) => db.hasPhoto(ranchId, f)))),
    knownSizes: (ranchId, sizes) => Promise.resolve(new Set(sizes.filter((size) => db.hasPhotoSize(ranchId, size)))),
    recordRefusal: (refusal) => Promise.resolve(db.recordRefusal(refusal)),
  };
}

/** The ranch records of the sandbox's product data. */
export function sqliteRanches(db: SandboxDb): RanchPort {
  return { maxMonthlyUploads: (ranchId) => Promise.resolve(db.ranch(ranchId)?.maxMonthlyUploads ?? null) };
}

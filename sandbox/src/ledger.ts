/**
 * The upload ledger on the sandbox's SQLite (infra/src/ledger/port.ts; production's is
 * infra/src/ledger/dynamo.ts). The rules are infra/src/ledger/rules.ts's, applied inside one
 * SQLite transaction, which is this adapter's atomicity: node:sqlite answers synchronously, so a
 * change never interleaves with another. It keeps the port's records: a month row keeps its live
 * reservations, a retired one is recorded in `reservations`, and each object's fate once.
 */
import { retiredBy, sizeOfFingerprint, storedRefusal, withReservation } from '@trailsense/infra/ledger';
import type { CountedObject, CountOutcome, LedgerPort, MonthChange, MonthState, RanchPort } from '@trailsense/infra/ledger';
import type { SandboxDb } from './db';

export function sqliteLedger(db: SandboxDb): LedgerPort {
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
        if (db.hasUpload(object.bucket, object.key)) return 'duplicate';
        const refused = db.refusedObject(object.bucket, object.key);
        if (refused !== null) return storedRefusal(refused);
        const month = view(object.ranchId, object.yearmo, object.reservation);
        const { next, result } = change(month.view);
        if (!next) {
          db.recordRefusedObject(object.bucket, object.key, result);
          return result;
        }
        write(object.ranchId, object.yearmo, month.stored, next);
        db.insertUpload({ bucket: object.bucket, key: object.key, ranchId: object.ranchId, yearmo: object.yearmo, createdAt: object.at });
        if (object.fingerprint)
          db.insertPhoto(object.ranchId, object.fingerprint, sizeOfFingerprint(object.fingerprint), `${object.bucket}/${object.key}`, object.at);
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

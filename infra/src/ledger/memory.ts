/**
 * The ledger in memory (src/ledger/port.ts): for unit tests and benchmarks. Every change runs to
 * its end before the next starts (JavaScript's single thread), which is the atomicity the real
 * adapters get from DynamoDB's conditional writes and SQLite's transactions. It keeps the same
 * records as they do: the month's live holds, a record of each retired reservation, each
 * object's fate (counted, an upgrade of a copy, or refused), and each photo's record.
 */
import {
  countedPhoto,
  retiredBy,
  sizeOfFingerprint,
  upgradedPhoto,
  withReservation,
  type CountedObject,
  type LedgerPort,
  type MonthChange,
  type ObjectDecision,
  type PhotoForm,
  type PhotoRecord,
  type PhotoUpgrade,
  type Refusal,
  type UpgradeOutcome,
} from './port';
import { EMPTY_MONTH, type CountOutcome, type Hold, type MonthState } from './rules';

export class MemoryLedger implements LedgerPort {
  readonly months = new Map<string, MonthState>();
  readonly objects = new Map<string, CountedObject>();
  /** Objects refused by the ledger, with the outcome, by `bucket/key`. */
  readonly refusedObjects = new Map<string, CountOutcome>();
  /** Retired reservations by `ranch|id`. */
  readonly reservations = new Map<string, Hold>();
  /** Objects that upgraded a copy, by `bucket/key`. */
  readonly upgrades = new Map<string, PhotoUpgrade>();
  /** The ranch's photos by fingerprint, by ranch; a record without a form (one of before forms) is an original. */
  readonly photos = new Map<string, Map<string, PhotoRecord | Omit<PhotoRecord, 'form'>>>();
  readonly sizes = new Map<string, Set<number>>();
  readonly refusals: Refusal[] = [];

  private static monthKey = (ranchId: string, yearmo: string) => `${ranchId}|${yearmo}`;

  month(ranchId: string, yearmo: string): MonthState {
    return this.months.get(MemoryLedger.monthKey(ranchId, yearmo)) ?? EMPTY_MONTH;
  }

  /** Sets a month's count (a test's starting point: "985 counted"). */
  setTotal(ranchId: string, yearmo: string, total: number): void {
    const state = this.month(ranchId, yearmo);
    this.months.set(MemoryLedger.monthKey(ranchId, yearmo), { ...state, total, version: state.version + 1 });
  }

  readMonth(ranchId: string, yearmo: string): Promise<MonthState> {
    return Promise.resolve(this.month(ranchId, yearmo));
  }

  /** The month with `reservation` as recorded when it no longer keeps it. */
  private view(ranchId: string, yearmo: string, reservation: string | undefined): { stored: MonthState; view: MonthState } {
    const stored = this.month(ranchId, yearmo);
    const record = reservation === undefined ? null : (this.reservations.get(`${ranchId}|${reservation}`) ?? null);
    return { stored, view: withReservation(stored, reservation, record) };
  }

  private write(ranchId: string, yearmo: string, stored: MonthState, next: MonthState): void {
    for (const [id, hold] of retiredBy(stored, next)) this.reservations.set(`${ranchId}|${id}`, hold);
    this.months.set(MemoryLedger.monthKey(ranchId, yearmo), next);
  }

  updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>, reservation?: string): Promise<T> {
    const { stored, view } = this.view(ranchId, yearmo, reservation);
    const { next, result } = change(view);
    if (next) this.write(ranchId, yearmo, stored, next);
    return Promise.resolve(result);
  }

  countObject(object: CountedObject, change: (state: MonthState) => MonthChange<CountOutcome>): Promise<CountOutcome | 'duplicate'> {
    const objectKey = `${object.bucket}/${object.key}`;
    if (this.objects.has(objectKey) || this.upgrades.has(objectKey)) return Promise.resolve('duplicate');
    const refused = this.refusedObjects.get(objectKey);
    if (refused !== undefined) return Promise.resolve(refused);
    const { stored, view } = this.view(object.ranchId, object.yearmo, object.reservation);
    const { next, result } = change(view);
    if (!next) {
      this.refusedObjects.set(objectKey, result);
      return Promise.resolve(result);
    }
    this.write(object.ranchId, object.yearmo, stored, next);
    this.objects.set(objectKey, object);
    if (object.fingerprint) {
      const sizes = this.sizes.get(object.ranchId) ?? new Set<number>();
      sizes.add(sizeOfFingerprint(object.fingerprint));
      this.sizes.set(object.ranchId, sizes);
      const known = this.photos.get(object.ranchId) ?? new Map<string, PhotoRecord>();
      known.set(object.fingerprint, countedPhoto(this.photo(object.ranchId, object.fingerprint), object));
      this.photos.set(object.ranchId, known);
    }
    return Promise.resolve(result);
  }

  /** A photo's record as every ledger reads it: one without a form is an original. */
  photo(ranchId: string, fingerprint: string): PhotoRecord | undefined {
    const record = this.photos.get(ranchId)?.get(fingerprint);
    return record && { form: 'original', ...record };
  }

  photoForms(ranchId: string, fingerprints: readonly string[]): Promise<Map<string, PhotoForm>> {
    const forms = new Map<string, PhotoForm>();
    for (const fingerprint of fingerprints) {
      const record = this.photo(ranchId, fingerprint);
      if (record) forms.set(fingerprint, record.form);
    }
    return Promise.resolve(forms);
  }

  upgradePhoto(upgrade: PhotoUpgrade): Promise<UpgradeOutcome> {
    const decided = this.decision(upgrade.bucket, upgrade.key);
    if (decided === 'counted' || decided === 'upgraded') return Promise.resolve('duplicate');
    const before = this.photo(upgrade.ranchId, upgrade.fingerprint);
    if (decided === 'refused' || before?.form !== 'copy') return Promise.resolve('not-a-copy');
    this.photos.get(upgrade.ranchId)?.set(upgrade.fingerprint, upgradedPhoto(before, upgrade));
    this.upgrades.set(`${upgrade.bucket}/${upgrade.key}`, upgrade);
    return Promise.resolve('upgraded');
  }

  private decision(bucket: string, key: string): ObjectDecision | null {
    const objectKey = `${bucket}/${key}`;
    if (this.objects.has(objectKey)) return 'counted';
    if (this.upgrades.has(objectKey)) return 'upgraded';
    return this.refusedObjects.has(objectKey) ? 'refused' : null;
  }

  objectDecision(bucket: string, key: string): Promise<ObjectDecision | null> {
    return Promise.resolve(this.decision(bucket, key));
  }

  knownSizes(ranchId: string, sizes: readonly number[]): Promise<Set<number>> {
    const known = this.sizes.get(ranchId);
    return Promise.resolve(new Set(sizes.filter((s) => known?.has(s))));
  }

  recordRefusal(refusal: Refusal): Promise<void> {
    this.refusals.push(refusal);
    return Promise.resolve();
  }
}

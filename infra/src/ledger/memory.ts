/**
 * The ledger in memory (src/ledger/port.ts): for unit tests and benchmarks. Every change runs to
 * its end before the next starts (JavaScript's single thread), which is the atomicity the real
 * adapters get from DynamoDB's conditional writes and SQLite's transactions.
 */
import { sizeOfFingerprint, type CountedObject, type LedgerPort, type MonthChange, type Refusal } from './port';
import { EMPTY_MONTH, type MonthState } from './rules';

export class MemoryLedger implements LedgerPort {
  readonly months = new Map<string, MonthState>();
  readonly objects = new Map<string, CountedObject>();
  readonly photos = new Map<string, Set<string>>();
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

  updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>): Promise<T> {
    const { next, result } = change(this.month(ranchId, yearmo));
    if (next) this.months.set(MemoryLedger.monthKey(ranchId, yearmo), next);
    return Promise.resolve(result);
  }

  countObject<T>(object: CountedObject, change: (state: MonthState) => MonthChange<T>): Promise<T | 'duplicate'> {
    const objectKey = `${object.bucket}/${object.key}`;
    if (this.objects.has(objectKey)) return Promise.resolve('duplicate');
    const { next, result } = change(this.month(object.ranchId, object.yearmo));
    if (next) {
      this.months.set(MemoryLedger.monthKey(object.ranchId, object.yearmo), next);
      this.objects.set(objectKey, object);
      if (object.fingerprint) {
        const sizes = this.sizes.get(object.ranchId) ?? new Set<number>();
        sizes.add(sizeOfFingerprint(object.fingerprint));
        this.sizes.set(object.ranchId, sizes);
        const known = this.photos.get(object.ranchId) ?? new Set<string>();
        known.add(object.fingerprint);
        this.photos.set(object.ranchId, known);
      }
    }
    return Promise.resolve(result);
  }

  knownPhotos(ranchId: string, fingerprints: readonly string[]): Promise<Set<string>> {
    const known = this.photos.get(ranchId);
    return Promise.resolve(new Set(fingerprints.filter((f) => known?.has(f))));
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

/**
 * The upload ledger's clock: the real time, unless a test sets it (the `ledger-clock` control,
 * analytics.ts), from which it goes on ticking. Only the ledger reads it (the month photos count
 * in, reservation lifetimes): tokens and signatures keep the real time.
 *
 * One clock per ranch beside the process-wide one (ranch-scope.ts): every ledger operation is
 * about one ranch (the uploads API's path, the object's key, the ranch-usage control), so a
 * ranch's clock moves that ranch's months and reservations only.
 */
import { ranchScoped } from './ranch-scope';

export interface LedgerClock {
  /** Milliseconds since the epoch, by the ledger of `ranch` (undefined: the process-wide clock). */
  now: (ranch?: string) => number;
  /** How far that ledger's time is from the real time (0: not set). */
  offsetMs: (ranch?: string) => number;
  /** Sets the ranch's (or the process-wide) ledger time to an ISO 8601 time, or "" for the real time; an error message when malformed. */
  set: (spec: string, ranch?: string) => string | undefined;
}

/** A whole ISO 8601 time with its zone, on a real day (Date.parse would roll 02-30 over to March): its milliseconds, or why not. */
export function parseLedgerTime(spec: string): number | string {
  const at = Date.parse(spec);
  const day = spec.slice(0, 10);
  const realDay = !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(spec) || !realDay || Number.isNaN(at)) {
    return `bad ledger clock "${spec}": expected an ISO 8601 time with its zone (2026-11-01T04:30:00Z), or nothing for the real time`;
  }
  return at;
}

export function createLedgerClock(): LedgerClock {
  const clocks = ranchScoped(() => ({ offsetMs: 0 }));
  return {
    now: (ranch) => Date.now() + clocks.for(ranch).offsetMs,
    offsetMs: (ranch) => clocks.for(ranch).offsetMs,
    set: (spec, ranch) => {
      const at = spec === '' ? Date.now() : parseLedgerTime(spec);
      if (typeof at === 'string') return at;
      clocks.own(ranch).offsetMs = spec === '' ? 0 : at - Date.now();
      return undefined;
    },
  };
}

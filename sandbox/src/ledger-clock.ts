/**
 * The upload ledger's clock: the real time, unless a test sets it (the `ledger-clock` control,
 * analytics.ts), from which it goes on ticking. Only the ledger reads it (the month photos count
 * in, reservation lifetimes): tokens and signatures keep the real time.
 */
export interface LedgerClock {
  /** Milliseconds since the epoch, by the ledger. */
  now: () => number;
  /** How far the ledger's time is from the real time (0: not set). */
  offsetMs: () => number;
  /** Sets the ledger's time to an ISO 8601 time, or "" for the real time; an error message when malformed. */
  set: (spec: string) => string | undefined;
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
  let offsetMs = 0;
  return {
    now: () => Date.now() + offsetMs,
    offsetMs: () => offsetMs,
    set: (spec) => {
      if (spec === '') {
        offsetMs = 0;
        return undefined;
      }
      const at = parseLedgerTime(spec);
      if (typeof at === 'string') return at;
      offsetMs = at - Date.now();
      return undefined;
    },
  };
}

/**
 * The upload ledger's pure rules (src/ledger/rules.ts): grants, renewals, releases and counts of a
 * ranch-month, and the invariant `total + live slots ≤ ceiling` under random interleavings. Time is
 * a number passed in: no clock, no waiting.
 */
import {
  countUnder,
  EMPTY_MONTH,
  grant,
  liveSlots,
  release,
  renew,
  RESERVATION_LIFETIME_MS,
  RESERVATION_RETENTION_MS,
  reservationId,
  reservationMonth,
  roomLeft,
  utcYearMonth,
} from '../src/ledger/rules';
import type { MonthState } from '../src/ledger/rules';
import { prng } from '../../test-support/prng';

const T0 = Date.parse('2026-11-10T12:00:00Z');
const MINUTE = 60_000;
const A = reservationId('2026_11', 'aaaaaaaaaaaaaaaa');
const B = reservationId('2026_11', 'bbbbbbbbbbbbbbbb');
const C = reservationId('2026_11', 'cccccccccccccccc');

/** Applies a change that must write, and returns what it wrote. */
function written(result: { next: MonthState | null }): MonthState {
  if (!result.next) throw new Error('expected a write');
  return result.next;
}

describe('grant', () => {
  it('grants every slot asked when there is room, for one lifetime', () => {
    const { next, granted } = grant(EMPTY_MONTH, { id: A, asked: 5, ceiling: 10, now: T0 });
    expect(granted).toBe(5);
    expect(next).toEqual({ total: 0, holds: { [A]: { slots: 5, expiresAt: T0 + RESERVATION_LIFETIME_MS } }, version: 1 });
    expect(liveSlots(next!, T0)).toBe(5);
    expect(roomLeft(next!, 10, T0)).toBe(5);
  });

  it('grants part of what is asked: only the room beside the count and the live holds', () => {
    let state: MonthState = { total: 6, holds: {}, version: 3 };
    state = written(grant(state, { id: A, asked: 2, ceiling: 10, now: T0 }));
    const { next, granted } = grant(state, { id: B, asked: 5, ceiling: 10, now: T0 + MINUTE });
    expect(granted).toBe(2);
    expect(next?.holds[B]).toEqual({ slots: 2, expiresAt: T0 + MINUTE + RESERVATION_LIFETIME_MS });
    expect(next?.holds[A]).toEqual(state.holds[A]);
    expect(next?.version).toBe(5);
    expect(next!.total + liveSlots(next!, T0 + MINUTE)).toBe(10);
  });

  it('writes nothing when nothing can be granted (full, or nothing asked)', () => {
    expect(grant({ total: 10, holds: {}, version: 7 }, { id: A, asked: 3, ceiling: 10, now: T0 })).toEqual({ next: null, granted: 0 });
    const held = written(grant({ total: 4, holds: {}, version: 1 }, { id: A, asked: 6, ceiling: 10, now: T0 }));
    expect(grant(held, { id: B, asked: 1, ceiling: 10, now: T0 + MINUTE })).toEqual({ next: null, granted: 0 });
    expect(grant(EMPTY_MONTH, { id: A, asked: 0, ceiling: 10, now: T0 })).toEqual({ next: null, granted: 0 });
    expect(grant(EMPTY_MONTH, { id: A, asked: -4, ceiling: 10, now: T0 })).toEqual({ next: null, granted: 0 });
    // A count above a lowered ceiling is no negative room.
    expect(grant({ total: 12, holds: {}, version: 2 }, { id: A, asked: 1, ceiling: 10, now: T0 })).toEqual({ next: null, granted: 0 });
  });

  it('grants whole slots only', () => {
    expect(grant(EMPTY_MONTH, { id: A, asked: 2.9, ceiling: 10, now: T0 }).granted).toBe(2);
  });

  it('gives the slots of an expired hold to the next grant', () => {
    const held = written(grant(EMPTY_MONTH, { id: A, asked: 10, ceiling: 10, now: T0 }));
    expect(grant(held, { id: B, asked: 1, ceiling: 10, now: T0 + RESERVATION_LIFETIME_MS - 1 }).granted).toBe(0);
    // Expiry is exclusive: at expiresAt the slots are no longer live.
    const { next, granted } = grant(held, { id: B, asked: 10, ceiling: 10, now: T0 + RESERVATION_LIFETIME_MS });
    expect(granted).toBe(10);
    // The expired hold is still remembered (retention), with its slots no longer live.
    expect(next?.holds[A]).toEqual(held.holds[A]);
    expect(liveSlots(next!, T0 + RESERVATION_LIFETIME_MS)).toBe(10);
  });

  it('drops holds expired longer ago than the retention, and keeps younger ones', () => {
    let state = written(grant(EMPTY_MONTH, { id: A, asked: 1, ceiling: 10, now: T0 }));
    state = written(grant(state, { id: B, asked: 1, ceiling: 10, now: T0 + 10 * MINUTE }));
    const expiryA = T0 + RESERVATION_LIFETIME_MS;
    // A expired RESERVATION_RETENTION_MS ago exactly: dropped; B expired 10 minutes later: kept.
    const { next } = grant(state, { id: C, asked: 1, ceiling: 10, now: expiryA + RESERVATION_RETENTION_MS });
    expect(Object.keys(next!.holds).sort()).toEqual([B, C].sort());
    const { next: earlier } = grant(state, { id: C, asked: 1, ceiling: 10, now: expiryA + RESERVATION_RETENTION_MS - 1 });
    expect(Object.keys(earlier!.holds).sort()).toEqual([A, B, C].sort());
  });
});

describe('renew', () => {
  const held = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: T0 }));

  it('extends a live reservation by a lifetime from now, keeping its slots', () => {
    const now = T0 + 14 * MINUTE;
    const r = renew(held, A, now);
    expect(r.result).toBe('renewed');
    expect(r.expiresAt).toBe(now + RESERVATION_LIFETIME_MS);
    expect(r.next?.holds[A]).toEqual({ slots: 3, expiresAt: now + RESERVATION_LIFETIME_MS });
    expect(r.next?.version).toBe(held.version + 1);
  });

  it('refuses an expired reservation: its slots went back', () => {
    expect(renew(held, A, T0 + RESERVATION_LIFETIME_MS)).toEqual({ next: null, result: 'expired' });
    expect(renew(held, A, T0 + 2 * RESERVATION_LIFETIME_MS)).toEqual({ next: null, result: 'expired' });
  });

  it('does not know a reservation the month never granted', () => {
    expect(renew(held, B, T0)).toEqual({ next: null, result: 'unknown' });
    expect(renew(EMPTY_MONTH, A, T0)).toEqual({ next: null, result: 'unknown' });
  });
});

describe('release', () => {
  it('gives the unused slots back at once and keeps the hold to recognise a late object', () => {
    const held = written(grant({ total: 5, holds: {}, version: 1 }, { id: A, asked: 5, ceiling: 10, now: T0 }));
    expect(roomLeft(held, 10, T0)).toBe(0);
    const r = release(held, A, T0);
    expect(r.released).toBe(5);
    expect(r.next?.holds[A]).toEqual({ slots: 0, expiresAt: held.holds[A]!.expiresAt });
    expect(roomLeft(r.next!, 10, T0)).toBe(5);
    // An object still on its way under the released reservation is recognised (not `no-reservation`).
    expect(countUnder(r.next!, { id: A, ceiling: 10, now: T0 + MINUTE }).outcome).toBe('unreserved');
  });

  it('releases nothing of an expired reservation: its slots went back when it expired', () => {
    const held = written(grant(EMPTY_MONTH, { id: A, asked: 5, ceiling: 10, now: T0 }));
    const r = release(held, A, T0 + RESERVATION_LIFETIME_MS);
    expect(r.released).toBe(0);
    expect(roomLeft(written(r), 10, T0 + RESERVATION_LIFETIME_MS)).toBe(10);
  });

  it('writes nothing for a released reservation or an unknown one', () => {
    const released = written(release(written(grant(EMPTY_MONTH, { id: A, asked: 2, ceiling: 10, now: T0 })), A, T0));
    expect(release(released, A, T0)).toEqual({ next: null, released: 0 });
    expect(release(released, B, T0)).toEqual({ next: null, released: 0 });
  });
});

describe('countUnder', () => {
  it('turns a reserved slot into the count and extends the reservation', () => {
    const held = written(grant({ total: 2, holds: {}, version: 4 }, { id: A, asked: 3, ceiling: 10, now: T0 }));
    const now = T0 + 14 * MINUTE;
    const { next, outcome } = countUnder(held, { id: A, ceiling: 10, now });
    expect(outcome).toBe('reserved');
    expect(next).toEqual({ total: 3, holds: { [A]: { slots: 2, expiresAt: now + RESERVATION_LIFETIME_MS } }, version: 6 });
    // Still live past its first expiry: the uploads are still arriving.
    expect(liveSlots(next!, T0 + RESERVATION_LIFETIME_MS + MINUTE)).toBe(2);
  });

  it('counts an object under an expired reservation while there is room, and refuses it when live holds fill the ceiling', () => {
    let state = written(grant(EMPTY_MONTH, { id: A, asked: 4, ceiling: 10, now: T0 }));
    const late = T0 + RESERVATION_LIFETIME_MS + MINUTE;
    const counted = countUnder(state, { id: A, ceiling: 10, now: late });
    expect(counted.outcome).toBe('unreserved');
    expect(counted.next).toEqual({ total: 1, holds: state.holds, version: state.version + 1 });

    state = written(grant(counted.next!, { id: B, asked: 100, ceiling: 10, now: late }));
    expect(state.holds[B]?.slots).toBe(9);
    expect(countUnder(state, { id: A, ceiling: 10, now: late + MINUTE })).toEqual({ next: null, outcome: 'over-limit' });
    // Once B's slots go back, there is room again.
    const afterB = late + RESERVATION_LIFETIME_MS;
    expect(countUnder(state, { id: A, ceiling: 10, now: afterB }).outcome).toBe('unreserved');
  });

  it('never lets a used-up reservation, reused by a crafted client, exceed the ceiling', () => {
    let state = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 5, now: T0 }));
    state = written(grant(state, { id: B, asked: 1, ceiling: 5, now: T0 }));
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { next, outcome } = countUnder(state, { id: A, ceiling: 5, now: T0 + i });
      outcomes.push(outcome);
      if (next) state = next;
    }
    // Three reserved slots, one unreserved (the room beside B's live slot), then nothing.
    expect(outcomes.slice(0, 5)).toEqual(['reserved', 'reserved', 'reserved', 'unreserved', 'over-limit']);
    expect(new Set(outcomes.slice(4))).toEqual(new Set(['over-limit']));
    expect(state.total).toBe(4);
    // B's slot is still B's.
    expect(countUnder(state, { id: B, ceiling: 5, now: T0 + 30 }).outcome).toBe('reserved');
  });

  it('refuses an object under a reservation the month does not have', () => {
    const held = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: T0 }));
    expect(countUnder(held, { id: B, ceiling: 10, now: T0 })).toEqual({ next: null, outcome: 'no-reservation' });
    expect(countUnder(EMPTY_MONTH, { id: A, ceiling: 10, now: T0 })).toEqual({ next: null, outcome: 'no-reservation' });
  });
});

describe('the invariant under random interleavings', () => {
  it('never lets total + live slots exceed the ceiling, nor count past it', () => {
    const RUNS = 3000;
    const STEPS = 40;
    let counted = 0;
    let refused = 0;
    for (let run = 0; run < RUNS; run++) {
      const random = prng(run + 1);
      const pick = (n: number) => Math.floor(random() * n);
      const ceiling = 1 + pick(25);
      const ids = Array.from({ length: 2 + pick(5) }, (_, i) => reservationId('2026_11', `run${run}-reservation${i}`.padEnd(16, 'x')));
      let state: MonthState = pick(4) === 0 ? { total: pick(ceiling + 1), holds: {}, version: 1 } : EMPTY_MONTH;
      let now = T0;
      let countedHere = state.total;
      const trace: string[] = [];
      // Plain checks (jest's expect is too slow for 120,000 steps); a failure shows its run's trace.
      const fail = (why: string) => {
        throw new Error(`run ${run} (ceiling ${ceiling}): ${why}:\n${trace.join('\n')}\n${JSON.stringify(state)}`);
      };
      for (let step = 0; step < STEPS; step++) {
        const id = ids[pick(ids.length)]!;
        const op = pick(10);
        let next: MonthState | null = null;
        if (op < 2) {
          const asked = 1 + pick(8);
          const r = grant(state, { id, asked, ceiling, now });
          if (r.granted > asked) fail(`granted ${r.granted} of ${asked}`);
          next = r.next;
          trace.push(`grant ${id} ${asked} → ${r.granted}`);
        } else if (op < 6) {
          const crafted = pick(20) === 0;
          const r = countUnder(state, { id: crafted ? reservationId('2026_11', 'crafted-by-hand-0') : id, ceiling, now });
          if (crafted && r.outcome !== 'no-reservation') fail(`a crafted id was ${r.outcome}`);
          if (r.outcome === 'reserved' || r.outcome === 'unreserved') {
            countedHere++;
            counted++;
            if (r.next?.total !== state.total + 1) fail('a count did not add one');
          } else {
            refused++;
            if (r.next !== null) fail(`${r.outcome} wrote a state`);
          }
          next = r.next;
          trace.push(`count ${id} → ${r.outcome}`);
        } else if (op < 7) {
          next = release(state, id, now).next;
          trace.push(`release ${id}`);
        } else if (op < 8) {
          next = renew(state, id, now).next;
          trace.push(`renew ${id}`);
        } else {
          // Mostly minutes; now and then past a lifetime or past the retention.
          const r = pick(20);
          now += r === 0 ? RESERVATION_RETENTION_MS + pick(MINUTE) : r < 4 ? RESERVATION_LIFETIME_MS : pick(5 * MINUTE);
          trace.push(`advance to ${now - T0}`);
        }
        if (next) {
          if (next.version !== state.version + 1) fail('a write did not bump the version');
          state = next;
        }
        const ok =
          state.total + liveSlots(state, now) <= ceiling &&
          state.total === countedHere &&
          Object.values(state.holds).every((h) => Number.isInteger(h.slots) && h.slots >= 0);
        if (!ok) fail('the invariant broke');
      }
    }
    // The runs exercised both outcomes.
    expect(counted).toBeGreaterThan(RUNS * 5);
    expect(refused).toBeGreaterThan(RUNS);
  });
});

describe('reservation ids', () => {
  it('names its month and parses back', () => {
    const id = reservationId('2026_11', 'AbC-_0123456789xyz');
    expect(id).toBe('r-2026_11-AbC-_0123456789xyz');
    expect(reservationMonth(id)).toBe('2026_11');
    expect(reservationMonth(`r-2026_01-${'a'.repeat(16)}`)).toBe('2026_01');
    expect(reservationMonth(`r-2026_12-${'Z'.repeat(64)}`)).toBe('2026_12');
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['no prefix', `2026_11-${'a'.repeat(16)}`],
    ['another prefix', `x-2026_11-${'a'.repeat(16)}`],
    ['month 13', `r-2026_13-${'a'.repeat(16)}`],
    ['month 00', `r-2026_00-${'a'.repeat(16)}`],
    ['a dash in the month', `r-2026-11-${'a'.repeat(16)}`],
    ['15 random characters', `r-2026_11-${'a'.repeat(15)}`],
    ['65 random characters', `r-2026_11-${'a'.repeat(65)}`],
    ['a dot', `r-2026_11-${'a'.repeat(15)}.`],
    ['a slash', `r-2026_11-${'a'.repeat(15)}/`],
    ['base64 padding', `r-2026_11-${'a'.repeat(15)}=`],
    ['a trailing newline', `r-2026_11-${'a'.repeat(16)}\n`],
    ['a space', ` r-2026_11-${'a'.repeat(16)}`],
  ])('refuses %s', (_, id) => {
    expect(reservationMonth(id)).toBeNull();
  });
});

describe('utcYearMonth', () => {
  it('is the month in UTC, whatever the local time', () => {
    // 23:30 on October 31 in America/Chicago (CDT, UTC-5) is already November in UTC.
    expect(utcYearMonth(new Date('2026-11-01T04:30:00Z'))).toBe('2026_11');
    expect(utcYearMonth(new Date('2026-10-31T23:30:00-05:00'))).toBe('2026_11');
    expect(utcYearMonth(new Date('2026-11-01T00:30:00Z'))).toBe('2026_11');
    expect(utcYearMonth(new Date('2026-10-31T23:59:59Z'))).toBe('2026_10');
    expect(utcYearMonth(new Date('2026-12-31T23:30:00-05:00'))).toBe('2027_01');
    expect(utcYearMonth(new Date('2026-01-01T00:00:00Z'))).toBe('2026_01');
  });
});

/**
 * The upload ledger's pure rules (src/ledger/rules.ts): grants, renewals, releases and counts of a
 * ranch-month, and the invariant `total + live slots ≤ ceiling` under random interleavings. Time is
 * a number passed in: no clock, no waiting.
 */
import {
  countUnder,
  EMPTY_MONTH,
  grant,
  holdLimit,
  liveSlots,
  MAX_LIVE_HOLDS_PER_MEMBER,
  MAX_LIVE_HOLDS_PER_MONTH,
  memberShare,
  monthClose,
  monthEnd,
  release,
  renew,
  RESERVATION_LIFETIME_MS,
  RESERVATION_MAX_AGE_MS,
  reservationId,
  reservationMonth,
  roomLeft,
  countingMonth,
} from '../src/ledger/rules';
import type { Hold, MonthState } from '../src/ledger/rules';
import { retiredBy, withReservation } from '../src/ledger/port';
import { prng } from '../../test-support/prng';

const T0 = Date.parse('2026-11-10T12:00:00Z');
const MINUTE = 60_000;
const A = reservationId('2026_11', 'aaaaaaaaaaaaaaaa');
const B = reservationId('2026_11', 'bbbbbbbbbbbbbbbb');
const C = reservationId('2026_11', 'cccccccccccccccc');

/** A month and its adapter's records of retired holds, as src/ledger/port.ts keeps them. */
class Kept {
  records = new Map<string, Hold>();
  constructor(public state: MonthState) {}
  /** The state a change about `id` sees. */
  see(id: string): MonthState {
    return withReservation(this.state, id, this.records.get(id) ?? null);
  }
  apply(next: MonthState | null): void {
    if (!next) return;
    for (const [id, hold] of retiredBy(this.state, next)) this.records.set(id, hold);
    this.state = next;
  }
}

/** Applies a change that must write, and returns what it wrote. */
function written(result: { next: MonthState | null }): MonthState {
  if (!result.next) throw new Error('expected a write');
  return result.next;
}

describe('grant', () => {
  it('grants every slot asked when there is room, for one lifetime', () => {
    const { next, granted } = grant(EMPTY_MONTH, { id: A, asked: 5, ceiling: 10, now: T0 });
    expect(granted).toBe(5);
    expect(next).toEqual({ total: 0, holds: { [A]: { slots: 5, expiresAt: T0 + RESERVATION_LIFETIME_MS, grantedAt: T0 } }, version: 1 });
    expect(liveSlots(next!, T0)).toBe(5);
    expect(roomLeft(next!, 10, T0)).toBe(5);
  });

  it('grants part of what is asked: only the room beside the count and the live holds', () => {
    let state: MonthState = { total: 6, holds: {}, version: 3 };
    state = written(grant(state, { id: A, asked: 2, ceiling: 10, now: T0 }));
    const { next, granted } = grant(state, { id: B, asked: 5, ceiling: 10, now: T0 + MINUTE });
    expect(granted).toBe(2);
    expect(next?.holds[B]).toEqual({ slots: 2, expiresAt: T0 + MINUTE + RESERVATION_LIFETIME_MS, grantedAt: T0 + MINUTE });
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
    // The expired hold is retired: the month keeps only live holds (its adapter records A).
    expect(Object.keys(next!.holds)).toEqual([B]);
    expect(retiredBy(held, next!)).toEqual([[A, { ...held.holds[A], slots: 0 }]]);
    expect(liveSlots(next!, T0 + RESERVATION_LIFETIME_MS)).toBe(10);
  });

  it('keeps only live holds in what every change writes, so a month holds no more than its live reservations', () => {
    let state = written(grant(EMPTY_MONTH, { id: A, asked: 1, ceiling: 10, now: T0 }));
    state = written(grant(state, { id: B, asked: 1, ceiling: 10, now: T0 + 10 * MINUTE }));
    // At A's expiry, a grant keeps B (live) and the new C.
    const { next } = grant(state, { id: C, asked: 1, ceiling: 10, now: T0 + RESERVATION_LIFETIME_MS });
    expect(Object.keys(next!.holds).sort()).toEqual([B, C].sort());
    const { next: earlier } = grant(state, { id: C, asked: 1, ceiling: 10, now: T0 + RESERVATION_LIFETIME_MS - 1 });
    expect(Object.keys(earlier!.holds).sort()).toEqual([A, B, C].sort());
  });

  it(`refuses a member's ${MAX_LIVE_HOLDS_PER_MEMBER + 1}st live reservation, and the ranch's ${MAX_LIVE_HOLDS_PER_MONTH + 1}st, with the reason`, () => {
    let state: MonthState = EMPTY_MONTH;
    const id = (i: number) => reservationId('2026_11', `member-hold-${String(i).padStart(6, '0')}`);
    for (let i = 0; i < MAX_LIVE_HOLDS_PER_MEMBER; i++) state = written(grant(state, { id: id(i), asked: 1, ceiling: 10_000, now: T0, owner: 'alice' }));
    expect(grant(state, { id: id(99), asked: 1, ceiling: 10_000, now: T0, owner: 'alice' })).toEqual({ next: null, granted: 0, refused: 'member-holds' });
    // Another member is not held up by Alice's.
    expect(grant(state, { id: id(99), asked: 1, ceiling: 10_000, now: T0, owner: 'bob' }).granted).toBe(1);
    // Once Alice's lapse, she may again.
    expect(grant(state, { id: id(99), asked: 1, ceiling: 10_000, now: T0 + RESERVATION_LIFETIME_MS, owner: 'alice' }).granted).toBe(1);

    let ranch: MonthState = EMPTY_MONTH;
    for (let i = 0; i < MAX_LIVE_HOLDS_PER_MONTH; i++) ranch = written(grant(ranch, { id: id(i), asked: 1, ceiling: 100_000, now: T0, owner: `member-${i}` }));
    expect(grant(ranch, { id: id(-1), asked: 1, ceiling: 100_000, now: T0, owner: 'new' })).toEqual({ next: null, granted: 0, refused: 'ranch-holds' });
    // The month's item stays far below DynamoDB's 400 KB at the cap, with long ids and owners.
    const widest: Record<string, Hold> = {};
    for (let i = 0; i < MAX_LIVE_HOLDS_PER_MONTH + 1; i++) {
      widest[reservationId('2026_11', 'x'.repeat(58) + String(i).padStart(6, '0'))] = {
        slots: 500,
        expiresAt: T0 + RESERVATION_LIFETIME_MS,
        grantedAt: T0,
        owner: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
      };
    }
    expect(JSON.stringify(widest).length).toBeLessThan(210 * 1024);
  });
});

describe("a member's share of the month", () => {
  it('grants one member at most half the ceiling in live slots, saying the share held the rest back; the other members keep the other half', () => {
    expect(memberShare(1000)).toBe(500);
    expect(memberShare(1)).toBe(1);
    // One member asking for the whole allowance gets half of it, in one grant or several.
    const first = grant(EMPTY_MONTH, { id: A, asked: 1000, ceiling: 1000, now: T0, owner: 'greedy' });
    expect(first).toMatchObject({ granted: 500, shareLimited: true });
    const again = grant(written(first), { id: B, asked: 500, ceiling: 1000, now: T0, owner: 'greedy' });
    expect(again).toEqual({ next: null, granted: 0, shareLimited: true });
    // Another member gets the other half (the room, not the share, stops her: no shareLimited).
    const other = grant(written(first), { id: C, asked: 600, ceiling: 1000, now: T0, owner: 'alice' });
    expect(other.granted).toBe(500);
    expect(other.shareLimited).toBeUndefined();
    // Slots counted are no longer held: the member may ask again as she sends.
    let state = written(first);
    for (let i = 0; i < 200; i++) state = countUnder(state, { id: A, ceiling: 1000, now: T0 + MINUTE }).next!;
    expect(grant(state, { id: B, asked: 500, ceiling: 1000, now: T0 + MINUTE, owner: 'greedy' })).toMatchObject({ granted: 200, shareLimited: true });
  });

  it("counting does not ask who sent the object: another member's object under a hold takes its slot, and the ceiling still holds", () => {
    // The object-created event does not say which member stored the object (infra/docs/server.md#reservations):
    // a member who learns another's reservation id spends that member's slot, never more than the ranch's ceiling.
    let state = written(grant(EMPTY_MONTH, { id: A, asked: 2, ceiling: 4, now: T0, owner: 'alice' }));
    state = written(grant(state, { id: B, asked: 2, ceiling: 4, now: T0, owner: 'bob' }));
    const outcomes = [];
    for (let i = 0; i < 2; i++) {
      const counted = countUnder(state, { id: A, ceiling: 4, now: T0 + MINUTE });
      outcomes.push(counted.outcome);
      if (counted.next) state = counted.next;
      expect(state.total + liveSlots(state, T0 + MINUTE)).toBeLessThanOrEqual(4);
    }
    // Alice's two slots are spent; Bob's are his still.
    expect(outcomes).toEqual(['reserved', 'reserved']);
    expect(state.total).toBe(2);
    expect(liveSlots(state, T0 + MINUTE)).toBe(2);
  });
});

describe('renew', () => {
  const held = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: T0 }));

  it('extends a live reservation by a lifetime from now, keeping its slots', () => {
    const now = T0 + 14 * MINUTE;
    const r = renew(held, A, now);
    expect(r.result).toBe('renewed');
    expect(r.expiresAt).toBe(now + RESERVATION_LIFETIME_MS);
    expect(r.next?.holds[A]).toEqual({ slots: 3, expiresAt: now + RESERVATION_LIFETIME_MS, grantedAt: T0 });
    expect(r.next?.version).toBe(held.version + 1);
  });

  it('ends a reservation that would outlive its limit: 2 hours after its grant, its unused slots go back', () => {
    let state = held;
    let now = T0;
    // Renewed every 10 minutes: fine until the next lifetime would pass the grant's 2 hours.
    for (; now + RESERVATION_LIFETIME_MS <= T0 + RESERVATION_MAX_AGE_MS; now += 10 * MINUTE) state = written(renew(state, A, now));
    const r = renew(state, A, now);
    expect(r.result).toBe('ended');
    expect(r.next?.holds[A]).toBeUndefined();
    expect(retiredBy(state, r.next!)).toEqual([[A, { ...state.holds[A], slots: 0 }]]);
    expect(roomLeft(r.next!, 10, now)).toBe(10);
    // Counting does not stretch it either.
    const counted = written(countUnder(state, { id: A, ceiling: 10, now: now - MINUTE }));
    expect(counted.holds[A]?.expiresAt).toBe(holdLimit(A, state.holds[A]!));
    expect(holdLimit(A, state.holds[A]!)).toBe(T0 + RESERVATION_MAX_AGE_MS);
  });

  it('caps a hold written before grant times were kept: the first renewal writes down the grant time it assumed', () => {
    const old: MonthState = { total: 0, holds: { [A]: { slots: 3, expiresAt: T0 + RESERVATION_LIFETIME_MS } }, version: 4 };
    let state = written(renew(old, A, T0 + 10 * MINUTE));
    expect(state.holds[A]?.grantedAt).toBe(T0);
    let now = T0 + 10 * MINUTE;
    for (; now + 10 * MINUTE + RESERVATION_LIFETIME_MS <= T0 + RESERVATION_MAX_AGE_MS;) state = written(renew(state, A, (now += 10 * MINUTE)));
    expect(renew(state, A, now + 10 * MINUTE).result).toBe('ended');
  });

  it("ends a reservation at its month's end plus a lifetime: a month's slots are not held into the next", () => {
    const late = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: monthEnd('2026_11') - 10 * MINUTE }));
    const renewed = renew(late, A, monthEnd('2026_11') - 2 * MINUTE);
    expect(renewed.result).toBe('renewed');
    expect(renew(written(renewed), A, monthEnd('2026_11') + MINUTE).result).toBe('ended');
    expect(holdLimit(A, late.holds[A]!)).toBe(monthEnd('2026_11') + RESERVATION_LIFETIME_MS);
  });

  it("refuses another member's reservation, and lets its owner (or anyone, for a hold from before owners)", () => {
    const owned = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: T0, owner: 'alice' }));
    expect(renew(owned, A, T0 + MINUTE, 'bob')).toEqual({ next: null, result: 'forbidden' });
    expect(renew(owned, A, T0 + MINUTE)).toEqual({ next: null, result: 'forbidden' });
    expect(renew(owned, A, T0 + MINUTE, 'alice').result).toBe('renewed');
    expect(renew(held, A, T0 + MINUTE, 'bob').result).toBe('renewed');
  });

  it('refuses an expired reservation: its slots went back', () => {
    expect(renew(held, A, T0 + RESERVATION_LIFETIME_MS)).toEqual({ next: null, result: 'expired' });
    expect(renew(held, A, T0 + 2 * RESERVATION_LIFETIME_MS)).toEqual({ next: null, result: 'expired' });
    // Retired (released, used up): as its adapter's record shows it.
    const retired = withReservation(EMPTY_MONTH, A, held.holds[A]!);
    expect(renew(retired, A, T0 + MINUTE)).toEqual({ next: null, result: 'expired' });
  });

  it('does not know a reservation the month never granted', () => {
    expect(renew(held, B, T0)).toEqual({ next: null, result: 'unknown' });
    expect(renew(EMPTY_MONTH, A, T0)).toEqual({ next: null, result: 'unknown' });
  });
});

describe('release', () => {
  it('gives the unused slots back at once and retires the hold, whose record recognises a late object', () => {
    const held = written(grant({ total: 5, holds: {}, version: 1 }, { id: A, asked: 5, ceiling: 10, now: T0 }));
    expect(roomLeft(held, 10, T0)).toBe(0);
    const r = release(held, A, T0);
    expect(r).toMatchObject({ result: 'released', released: 5 });
    expect(r.next?.holds[A]).toBeUndefined();
    const [[id, record]] = retiredBy(held, r.next!) as [[string, Hold]];
    expect([id, record]).toEqual([A, { ...held.holds[A], slots: 0 }]);
    expect(roomLeft(r.next!, 10, T0)).toBe(5);
    // An object still on its way under the released reservation is recognised (not `no-reservation`).
    expect(countUnder(withReservation(r.next!, A, record), { id: A, ceiling: 10, now: T0 + MINUTE }).outcome).toBe('unreserved');
    expect(countUnder(r.next!, { id: A, ceiling: 10, now: T0 + MINUTE }).outcome).toBe('no-reservation');
  });

  it("refuses another member's release", () => {
    const owned = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: T0, owner: 'alice' }));
    expect(release(owned, A, T0, 'bob')).toEqual({ next: null, result: 'forbidden', released: 0 });
    expect(release(owned, A, T0, 'alice')).toMatchObject({ result: 'released', released: 3 });
  });

  it('releases nothing of an expired reservation: its slots went back when it expired', () => {
    const held = written(grant(EMPTY_MONTH, { id: A, asked: 5, ceiling: 10, now: T0 }));
    const r = release(held, A, T0 + RESERVATION_LIFETIME_MS);
    expect(r).toEqual({ next: null, result: 'released', released: 0 });
    expect(roomLeft(held, 10, T0 + RESERVATION_LIFETIME_MS)).toBe(10);
  });

  it('writes nothing for a released reservation or an unknown one', () => {
    const granted = written(grant(EMPTY_MONTH, { id: A, asked: 2, ceiling: 10, now: T0 }));
    const released = written(release(granted, A, T0));
    const record = retiredBy(granted, released)[0]![1];
    expect(release(withReservation(released, A, record), A, T0)).toEqual({ next: null, result: 'released', released: 0 });
    expect(release(released, B, T0)).toEqual({ next: null, result: 'unknown', released: 0 });
  });
});

describe('countUnder', () => {
  it('turns a reserved slot into the count and extends the reservation', () => {
    const held = written(grant({ total: 2, holds: {}, version: 4 }, { id: A, asked: 3, ceiling: 10, now: T0 }));
    const now = T0 + 14 * MINUTE;
    const { next, outcome } = countUnder(held, { id: A, ceiling: 10, now });
    expect(outcome).toBe('reserved');
    expect(next).toEqual({ total: 3, holds: { [A]: { slots: 2, expiresAt: now + RESERVATION_LIFETIME_MS, grantedAt: T0 } }, version: 6 });
    // Still live past its first expiry: the uploads are still arriving.
    expect(liveSlots(next!, T0 + RESERVATION_LIFETIME_MS + MINUTE)).toBe(2);
  });

  it('counts an object under an expired reservation while there is room, and refuses it when live holds fill the ceiling', () => {
    const month = new Kept(written(grant(EMPTY_MONTH, { id: A, asked: 4, ceiling: 10, now: T0 })));
    const late = T0 + RESERVATION_LIFETIME_MS + MINUTE;
    const counted = countUnder(month.see(A), { id: A, ceiling: 10, now: late });
    expect(counted.outcome).toBe('unreserved');
    // Counted, and the expired hold retired on the way.
    expect(counted.next).toEqual({ total: 1, holds: {}, version: month.state.version + 1 });
    month.apply(counted.next);

    month.apply(grant(month.state, { id: B, asked: 100, ceiling: 10, now: late }).next);
    expect(month.state.holds[B]?.slots).toBe(9);
    expect(countUnder(month.see(A), { id: A, ceiling: 10, now: late + MINUTE })).toEqual({ next: null, outcome: 'over-limit' });
    // Once B's slots go back, there is room again.
    const afterB = late + RESERVATION_LIFETIME_MS;
    expect(countUnder(month.see(A), { id: A, ceiling: 10, now: afterB }).outcome).toBe('unreserved');
  });

  it('never lets a used-up reservation, reused by a crafted client, exceed the ceiling', () => {
    const month = new Kept(written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 5, now: T0 })));
    month.apply(grant(month.state, { id: B, asked: 1, ceiling: 5, now: T0 }).next);
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { next, outcome } = countUnder(month.see(A), { id: A, ceiling: 5, now: T0 + i });
      outcomes.push(outcome);
      month.apply(next);
    }
    // Three reserved slots, one unreserved (the room beside B's live slot), then nothing.
    expect(outcomes.slice(0, 5)).toEqual(['reserved', 'reserved', 'reserved', 'unreserved', 'over-limit']);
    expect(new Set(outcomes.slice(4))).toEqual(new Set(['over-limit']));
    expect(month.state.total).toBe(4);
    // B's slot is still B's.
    expect(countUnder(month.see(B), { id: B, ceiling: 5, now: T0 + 30 }).outcome).toBe('reserved');
  });

  it('refuses an object arriving after its month closed (an hour after its end), even with room or a live slot', () => {
    const lastMinute = monthEnd('2026_11') - MINUTE;
    const held = written(grant(EMPTY_MONTH, { id: A, asked: 3, ceiling: 10, now: lastMinute }));
    expect(countUnder(held, { id: A, ceiling: 10, now: monthEnd('2026_11') + 13 * MINUTE }).outcome).toBe('reserved');
    // Its slots lapsed at the end plus a lifetime at most; late objects count while the month is open.
    expect(countUnder(held, { id: A, ceiling: 10, now: monthClose('2026_11') - 1 }).outcome).toBe('unreserved');
    expect(countUnder(held, { id: A, ceiling: 10, now: monthClose('2026_11') })).toEqual({ next: null, outcome: 'month-closed' });
    expect(monthClose('2026_11')).toBe(Date.parse('2026-12-01T01:00:00Z'));
    expect(monthEnd('2026_12')).toBe(Date.parse('2027-01-01T00:00:00Z'));
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
      // What an adapter keeps of retired holds (src/ledger/port.ts).
      const records = new Map<string, Hold>();
      const seen = (id: string) => withReservation(state, id, records.get(id) ?? null);
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
          const counting = crafted ? reservationId('2026_11', 'crafted-by-hand-0') : id;
          const r = countUnder(seen(counting), { id: counting, ceiling, now });
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
          next = release(seen(id), id, now).next;
          trace.push(`release ${id}`);
        } else if (op < 8) {
          next = renew(seen(id), id, now).next;
          trace.push(`renew ${id}`);
        } else {
          // Mostly minutes; now and then past a lifetime or past a hold's longest life.
          const r = pick(20);
          now += r === 0 ? RESERVATION_MAX_AGE_MS + pick(MINUTE) : r < 4 ? RESERVATION_LIFETIME_MS : pick(5 * MINUTE);
          trace.push(`advance to ${now - T0}`);
        }
        if (next) {
          if (next.version !== state.version + 1) fail('a write did not bump the version');
          for (const [retired, hold] of retiredBy(state, next)) records.set(retired, hold);
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

describe('countingMonth', () => {
  it('is the month in UTC, whatever the local time', () => {
    // 23:30 on October 31 in America/Chicago (CDT, UTC-5) is already November in UTC.
    expect(countingMonth(new Date('2026-11-01T04:30:00Z'))).toBe('2026_11');
    expect(countingMonth(new Date('2026-10-31T23:30:00-05:00'))).toBe('2026_11');
    expect(countingMonth(new Date('2026-11-01T00:30:00Z'))).toBe('2026_11');
    expect(countingMonth(new Date('2026-10-31T23:59:59Z'))).toBe('2026_10');
    expect(countingMonth(new Date('2026-12-31T23:30:00-05:00'))).toBe('2027_01');
    expect(countingMonth(new Date('2026-01-01T00:00:00Z'))).toBe('2026_01');
  });
});

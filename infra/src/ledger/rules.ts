/**
 * The upload ledger's rules, pure (docs/architecture.md#trust-on-the-server): one ranch-month's
 * state — what the server counted and the slots it holds for uploads on their way — and every
 * change to it. The uploads API (src/uploads-api/handler.ts) grants, renews and releases slots;
 * the object-created function (src/object-created/handler.ts) counts objects against them. Both
 * apply these functions inside one atomic read-modify-write of the month (src/ledger/port.ts), so
 * the invariant holds whoever writes at once:
 *
 *     total + live slots ≤ ceiling        (never over the ranch's monthly ceiling)
 *
 * A reservation (a "hold") is a number of slots granted to one uploader for one month, for
 * RESERVATION_LIFETIME_MS from its last activity (a grant, a renewal, an object counted against
 * it). Slots not used by then return to the allowance. The hold itself is kept RESERVATION_RETENTION_MS
 * longer so that an object arriving after its reservation expired (a slow link, a tab that slept)
 * is still recognised as honest: it is counted while the ceiling allows. An object naming no
 * hold at all was sent without asking (a crafted client) and is refused.
 */
import { countingMonth } from '@trailsense/shared/quota';

/** How long granted slots stay held without activity: 15 minutes (docs/architecture.md#reservations). */
export const RESERVATION_LIFETIME_MS = 15 * 60_000;

/** How long an expired hold is remembered, so a late object under it is known to be honest. */
export const RESERVATION_RETENTION_MS = 24 * 3600_000;

/** The most fingerprints one reservation call may carry (413 beyond). */
export const MAX_FINGERPRINTS_PER_CALL = 500;

/** Slots held for one reservation. */
export interface Hold {
  /** Granted and not yet used. */
  slots: number;
  /** Milliseconds since the epoch; the slots are live until then. */
  expiresAt: number;
  /** Who asked (the token's `sub`): their own slots are not "held for someone else" in what they read. */
  owner?: string;
}

/** One ranch-month in the ledger. */
export interface MonthState {
  /** Objects counted this month (upload-metrics' `total`). */
  total: number;
  /** Reservations by id. */
  holds: Readonly<Record<string, Hold>>;
  /** Bumped by every write: the optimistic lock of the DynamoDB adapter. 0: the month has no item yet. */
  version: number;
}

export const EMPTY_MONTH: MonthState = { total: 0, holds: {}, version: 0 };

/** `YYYY_MM` of a time in UTC: the month a photo counts in (docs/architecture.md#one-month); the uploader's rule too. */
export const utcYearMonth: (date: Date) => string = countingMonth;

const RESERVATION_ID = /^r-(\d{4}_(?:0[1-9]|1[0-2]))-([A-Za-z0-9_-]{16,64})$/;

/** A reservation id names its month: `r-<YYYY_MM>-<random>`. */
export function reservationId(yearmo: string, random: string): string {
  return `r-${yearmo}-${random}`;
}

/** The month of a well-formed reservation id, or null (absent, malformed, crafted). */
export function reservationMonth(id: string | undefined): string | null {
  const m = id === undefined ? null : RESERVATION_ID.exec(id);
  return m ? (m[1] as string) : null;
}

/** Slots held and still live, except those of `exceptId`. */
export function liveSlots(state: MonthState, now: number, exceptId?: string): number {
  let n = 0;
  for (const [id, hold] of Object.entries(state.holds)) if (id !== exceptId && hold.expiresAt > now) n += hold.slots;
  return n;
}

/** Live slots held for others than `owner` (what that member cannot use). */
export function liveSlotsOfOthers(state: MonthState, now: number, owner: string | undefined): number {
  let n = 0;
  for (const hold of Object.values(state.holds)) if (hold.expiresAt > now && (owner === undefined || hold.owner !== owner)) n += hold.slots;
  return n;
}

/** What could still be granted or counted: the ceiling less what is counted and held. */
export function roomLeft(state: MonthState, ceiling: number, now: number, exceptId?: string): number {
  return Math.max(0, ceiling - state.total - liveSlots(state, now, exceptId));
}

/** Drops holds expired longer ago than the retention. */
export function pruned(state: MonthState, now: number): MonthState {
  const holds = Object.fromEntries(Object.entries(state.holds).filter(([, hold]) => hold.expiresAt + RESERVATION_RETENTION_MS > now));
  return Object.keys(holds).length === Object.keys(state.holds).length ? state : { ...state, holds };
}

const written = (state: MonthState, change: Partial<MonthState>): MonthState => ({ ...state, ...change, version: state.version + 1 });

/**
 * Grants up to `asked` slots under a new reservation `id`, as many as the room allows (maybe 0:
 * then nothing is written). Expired holds past retention are dropped on the way.
 */
export function grant(
  state: MonthState,
  r: { id: string; asked: number; ceiling: number; now: number; owner?: string },
): { next: MonthState | null; granted: number } {
  const granted = Math.max(0, Math.min(Math.floor(r.asked), roomLeft(state, r.ceiling, r.now)));
  if (granted === 0) return { next: null, granted };
  const base = pruned(state, r.now);
  const hold: Hold = { slots: granted, expiresAt: r.now + RESERVATION_LIFETIME_MS, ...(r.owner === undefined ? {} : { owner: r.owner }) };
  return { next: written(base, { holds: { ...base.holds, [r.id]: hold } }), granted };
}

/** Keeps a live reservation's slots for another lifetime; an expired one cannot be renewed (its slots went back). */
export function renew(state: MonthState, id: string, now: number): { next: MonthState | null; result: 'renewed' | 'expired' | 'unknown'; expiresAt?: number } {
  const hold = state.holds[id];
  if (!hold) return { next: null, result: 'unknown' };
  if (hold.expiresAt <= now) return { next: null, result: 'expired' };
  const expiresAt = now + RESERVATION_LIFETIME_MS;
  return { next: written(state, { holds: { ...state.holds, [id]: { ...hold, expiresAt } } }), result: 'renewed', expiresAt };
}

/**
 * Gives a reservation's unused slots back at once (the batch ended); the hold is kept to recognise
 * late objects. An expired reservation's slots went back when it expired: nothing is released.
 */
export function release(state: MonthState, id: string, now: number): { next: MonthState | null; released: number } {
  const hold = state.holds[id];
  if (!hold || hold.slots === 0) return { next: null, released: 0 };
  if (hold.expiresAt <= now) return { next: written(state, { holds: { ...state.holds, [id]: { ...hold, slots: 0 } } }), released: 0 };
  return { next: written(state, { holds: { ...state.holds, [id]: { ...hold, slots: 0 } } }), released: hold.slots };
}

/**
 * How an object stored under reservation `id` is counted:
 * - `reserved`: the reservation is live and has a slot: the slot becomes the count, and the
 *   reservation lives on for another lifetime (uploads are still arriving);
 * - `unreserved`: the reservation expired, or its slots are used up, and the ceiling still has
 *   room beside every live hold: counted (a slow honest upload is not removed while there is room);
 * - `over-limit`: no room: nothing changes, the object is refused;
 * - `no-reservation`: the month has no such reservation: the object was sent without asking.
 */
export type CountOutcome = 'reserved' | 'unreserved' | 'over-limit' | 'no-reservation';

export function countUnder(state: MonthState, r: { id: string; ceiling: number; now: number }): { next: MonthState | null; outcome: CountOutcome } {
  const hold = state.holds[r.id];
  if (!hold) return { next: null, outcome: 'no-reservation' };
  if (hold.expiresAt > r.now && hold.slots > 0) {
    const holds = { ...state.holds, [r.id]: { ...hold, slots: hold.slots - 1, expiresAt: r.now + RESERVATION_LIFETIME_MS } };
    return { next: written(state, { total: state.total + 1, holds }), outcome: 'reserved' };
  }
  if (roomLeft(state, r.ceiling, r.now, r.id) > 0) return { next: written(state, { total: state.total + 1 }), outcome: 'unreserved' };
  return { next: null, outcome: 'over-limit' };
}

/**
 * The upload ledger's rules, pure (infra/docs/server.md#the-ledger): one ranch-month's state — what
 * the server counted and the slots it holds for uploads on their way — and every change to it. The
 * uploads API (src/uploads-api/handler.ts) grants, renews and releases slots; the object-created
 * function (src/object-created/handler.ts) counts objects against them. Both apply these functions
 * inside one atomic read-modify-write of the month (src/ledger/port.ts), so the invariant holds
 * whoever writes at once:
 *
 *     total + live slots ≤ ceiling        (never over the ranch's monthly ceiling)
 *
 * A reservation (a "hold") is a number of slots granted to one member for one month. Its slots are
 * live for RESERVATION_LIFETIME_MS from its last activity (a grant, a renewal, an object counted
 * against it), but never past RESERVATION_MAX_AGE_MS after its grant nor past the end of its month
 * plus one lifetime; then they return to the allowance. A month keeps only its live holds (its
 * item stays small whatever members do); a hold that stops being live is *retired*: its adapter
 * keeps a record of it, so that an object arriving under it later (a slow link, a tab that slept)
 * is still known to be honest and is counted while the ceiling allows — until the month closes,
 * MONTH_GRACE_MS after its end. An object naming no hold at all was sent without asking (a crafted
 * client) and is refused; so is one arriving after its month closed.
 */
import { countingMonth } from '@trailsense/shared/uploads-wire';

/** How long granted slots stay held without activity: 15 minutes (infra/docs/server.md#reservations). */
export const RESERVATION_LIFETIME_MS = 15 * 60_000;

/** The longest a reservation's slots are held after its grant, however often it is renewed or used: 2 hours. */
export const RESERVATION_MAX_AGE_MS = 2 * 3600_000;

/** How long after its last day a month still counts objects stored under its reservations: 1 hour (the window rule). */
export const MONTH_GRACE_MS = 3600_000;

/** The most live reservations one member may hold in a month (429 beyond): an uploader holds one or two per tab. */
export const MAX_LIVE_HOLDS_PER_MEMBER = 20;

/**
 * The share of a month's ceiling one member's live slots may be (infra/docs/server.md#reservations):
 * half, so that however a member's client asks, the others can always reserve the other half of
 * what is left. An honest uploader holds about one slice (≤ 500 photos, ~10 minutes of sending)
 * unused at a time, within half of any ceiling of 1,000 or more; below, its grants are smaller and
 * it asks again as it sends (`shareLimited`).
 */
export const MEMBER_SHARE_OF_CEILING = 0.5;

/** The most live slots one member may hold in a month of `ceiling` (at least 1). */
export function memberShare(ceiling: number): number {
  return Math.max(1, Math.ceil(ceiling * MEMBER_SHARE_OF_CEILING));
}

/**
 * The most live reservations a ranch-month holds at once (429 beyond). Each is at most about 200
 * bytes of the month's item, so the item stays under 210 KB, about half of DynamoDB's 400 KB.
 */
export const MAX_LIVE_HOLDS_PER_MONTH = 1000;

/** The most fingerprints one reservation call may carry (413 beyond). */
export const MAX_FINGERPRINTS_PER_CALL = 500;

/** Slots held for one reservation. */
export interface Hold {
  /** Granted and not yet used. */
  slots: number;
  /** Milliseconds since the epoch; the slots are live until then. */
  expiresAt: number;
  /** Who asked (the token's `sub`): only they may renew or release it, and their own slots are not "held for someone else". */
  owner?: string;
  /** When it was granted (ms); absent in holds written before the age cap, which count from one lifetime before `expiresAt`. */
  grantedAt?: number;
}

/** One ranch-month in the ledger. */
export interface MonthState {
  /** Objects counted this month (upload-metrics' `total`). */
  total: number;
  /**
   * Reservations by id: the month's live ones, and — in what a change is given — the retired one
   * it is about, from its adapter's record (src/ledger/port.ts `withReservation`).
   */
  holds: Readonly<Record<string, Hold>>;
  /** Bumped by every write: the optimistic lock of the DynamoDB adapter. 0: the month has no item yet. */
  version: number;
}

export const EMPTY_MONTH: MonthState = { total: 0, holds: {}, version: 0 };

/** `YYYY_MM` of a time in UTC: the month a photo counts in (infra/docs/server.md#one-month); the wire's, the uploader's rule too. */
export { countingMonth };

const RESERVATION_ID = /^r-(\d{4}_(?:0[1-9]|1[0-2]))-([A-Za-z0-9_-]{16,64})$/;
const YEARMO = /^(\d{4})_(0[1-9]|1[0-2])$/;

/** A reservation id names its month: `r-<YYYY_MM>-<random>`. */
export function reservationId(yearmo: string, random: string): string {
  return `r-${yearmo}-${random}`;
}

/** The month of a well-formed reservation id, or null (absent, malformed, crafted). */
export function reservationMonth(id: string | undefined): string | null {
  const m = id === undefined ? null : RESERVATION_ID.exec(id);
  return m ? (m[1] as string) : null;
}

/** The first instant (ms) after month `yearmo` (`YYYY_MM`), in UTC. */
export function monthEnd(yearmo: string): number {
  const m = YEARMO.exec(yearmo);
  if (!m) throw new Error(`Malformed month ${JSON.stringify(yearmo)}: expected YYYY_MM`);
  return Date.UTC(Number(m[1]), Number(m[2]), 1);
}

/** When month `yearmo` stops counting objects: MONTH_GRACE_MS after its end. */
export function monthClose(yearmo: string): number {
  return monthEnd(yearmo) + MONTH_GRACE_MS;
}

/**
 * The latest a hold's slots may be held: RESERVATION_MAX_AGE_MS after its grant, and one lifetime
 * past its month's end, whichever comes first. No renewal and no count extends a hold beyond it.
 */
export function holdLimit(id: string, hold: Hold): number {
  const grantedAt = grantTime(hold);
  const month = reservationMonth(id);
  const byMonth = month === null ? Number.POSITIVE_INFINITY : monthEnd(month) + RESERVATION_LIFETIME_MS;
  return Math.min(grantedAt + RESERVATION_MAX_AGE_MS, byMonth);
}

/** When a hold was granted; for one written before grant times were kept, one lifetime before its expiry as first read. */
const grantTime = (hold: Hold): number => hold.grantedAt ?? hold.expiresAt - RESERVATION_LIFETIME_MS;

/** The hold with its grant time written down, so that a hold of before does not move its limit each time it is extended. */
const stamped = (hold: Hold): Hold => (hold.grantedAt === undefined ? { ...hold, grantedAt: grantTime(hold) } : hold);

/** Whether a hold still holds slots at `now`; one that does not is retired. */
export function isLive(hold: Hold, now: number): boolean {
  return hold.slots > 0 && hold.expiresAt > now;
}

/** Slots held and still live, except those of `exceptId`. */
export function liveSlots(state: MonthState, now: number, exceptId?: string): number {
  let n = 0;
  for (const [id, hold] of Object.entries(state.holds)) if (id !== exceptId && isLive(hold, now)) n += hold.slots;
  return n;
}

/** Live slots held for others than `owner` (what that member cannot use). */
export function liveSlotsOfOthers(state: MonthState, now: number, owner: string | undefined): number {
  let n = 0;
  for (const hold of Object.values(state.holds)) if (isLive(hold, now) && (owner === undefined || hold.owner !== owner)) n += hold.slots;
  return n;
}

/** What could still be granted or counted: the ceiling less what is counted and held. */
export function roomLeft(state: MonthState, ceiling: number, now: number, exceptId?: string): number {
  return Math.max(0, ceiling - state.total - liveSlots(state, now, exceptId));
}

/** The month as it is kept: its live holds only (retired ones live on in their adapter's records). */
export function pruned(state: MonthState, now: number): MonthState {
  const holds = Object.fromEntries(Object.entries(state.holds).filter(([, hold]) => isLive(hold, now)));
  return Object.keys(holds).length === Object.keys(state.holds).length ? state : { ...state, holds };
}

/** The next state to write: `change` applied, retired holds dropped, the version bumped. */
const written = (state: MonthState, change: Partial<MonthState>, now: number): MonthState => ({
  ...pruned({ ...state, ...change }, now),
  version: state.version + 1,
});

/** Why a grant was refused outright: the member, or the ranch, holds as many live reservations as allowed. */
export type GrantRefusal = 'member-holds' | 'ranch-holds';

/**
 * Grants up to `asked` slots under a new reservation `id`, as many as the room and the member's
 * share of the ceiling allow (maybe 0: then nothing is written; `shareLimited` when the share, not
 * the room, held some back: the member may ask again once its slots are used), unless the member
 * or the ranch already holds as many live reservations as allowed (`refused`).
 */
export function grant(
  state: MonthState,
  r: { id: string; asked: number; ceiling: number; now: number; owner?: string },
): { next: MonthState | null; granted: number; refused?: GrantRefusal; shareLimited?: true } {
  const live = Object.values(state.holds).filter((hold) => isLive(hold, r.now));
  if (live.length >= MAX_LIVE_HOLDS_PER_MONTH) return { next: null, granted: 0, refused: 'ranch-holds' };
  const own = r.owner === undefined ? [] : live.filter((hold) => hold.owner === r.owner);
  if (own.length >= MAX_LIVE_HOLDS_PER_MEMBER) return { next: null, granted: 0, refused: 'member-holds' };
  const byRoom = Math.max(0, Math.min(Math.floor(r.asked), roomLeft(state, r.ceiling, r.now)));
  // A hold with no owner (from before owners were kept) is no one's share.
  const byShare = r.owner === undefined ? byRoom : Math.max(0, memberShare(r.ceiling) - own.reduce((n, hold) => n + hold.slots, 0));
  const granted = Math.min(byRoom, byShare);
  const limited = granted < byRoom ? { shareLimited: true as const } : {};
  if (granted === 0) return { next: null, granted, ...limited };
  const hold: Hold = {
    slots: granted,
    expiresAt: r.now + RESERVATION_LIFETIME_MS,
    grantedAt: r.now,
    ...(r.owner === undefined ? {} : { owner: r.owner }),
  };
  return { next: written(state, { holds: { ...state.holds, [r.id]: hold } }, r.now), granted, ...limited };
}

/** Whether `caller` may change hold `hold`: its owner only (a hold with no owner, from before owners were kept: any member). */
export function mayChange(hold: Hold, caller: string | undefined): boolean {
  return hold.owner === undefined || hold.owner === caller;
}

/**
 * Keeps a live reservation's slots for another lifetime. Refused: another member's (`forbidden`),
 * one retired (`expired`: its slots went back), and one at its limit (`ended`: it would not get a
 * whole lifetime more — its unused slots go back at once, and the uploader asks again).
 */
export function renew(
  state: MonthState,
  id: string,
  now: number,
  caller?: string,
): { next: MonthState | null; result: 'renewed' | 'expired' | 'ended' | 'unknown' | 'forbidden'; expiresAt?: number } {
  const hold = state.holds[id];
  if (!hold) return { next: null, result: 'unknown' };
  if (!mayChange(hold, caller)) return { next: null, result: 'forbidden' };
  if (!isLive(hold, now)) return { next: null, result: 'expired' };
  const expiresAt = now + RESERVATION_LIFETIME_MS;
  if (expiresAt > holdLimit(id, hold)) return { next: written(state, { holds: { ...state.holds, [id]: { ...hold, slots: 0 } } }, now), result: 'ended' };
  return { next: written(state, { holds: { ...state.holds, [id]: { ...stamped(hold), expiresAt } } }, now), result: 'renewed', expiresAt };
}

/**
 * Gives a reservation's unused slots back at once (the batch ended); the reservation is retired,
 * and still recognises late objects. A retired one has nothing left to give back. Only its owner
 * may (`forbidden`).
 */
export function release(
  state: MonthState,
  id: string,
  now: number,
  caller?: string,
): { next: MonthState | null; result: 'released' | 'unknown' | 'forbidden'; released: number } {
  const hold = state.holds[id];
  if (!hold) return { next: null, result: 'unknown', released: 0 };
  if (!mayChange(hold, caller)) return { next: null, result: 'forbidden', released: 0 };
  if (!isLive(hold, now)) return { next: null, result: 'released', released: 0 };
  return { next: written(state, { holds: { ...state.holds, [id]: { ...hold, slots: 0 } } }, now), result: 'released', released: hold.slots };
}

/**
 * How an object stored under reservation `id` is counted:
 * - `reserved`: the reservation is live and has a slot: the slot becomes the count, and the
 *   reservation lives on for another lifetime, up to its limit (uploads are still arriving);
 * - `unreserved`: the reservation is retired (expired, released, used up), and the ceiling still
 *   has room beside every live hold: counted (a slow honest upload is not removed while there is room);
 * - `over-limit`: no room: nothing changes, the object is refused;
 * - `no-reservation`: the ranch has no such reservation: the object was sent without asking;
 * - `month-closed`: the reservation's month closed (MONTH_GRACE_MS after its end) before the
 *   object was stored (`storedAt`: S3's time for it, object-created/handler.ts `storedTime`; `now`
 *   when unknown): a month's allowance is not spent later. Whether a hold is live, and the room
 *   beside the live ones, are judged at `now`: a slot that lapsed while the event waited is not
 *   taken back from whoever has it since.
 */
export type CountOutcome = 'reserved' | 'unreserved' | 'over-limit' | 'no-reservation' | 'month-closed';

const COUNT_OUTCOMES: readonly string[] = ['reserved', 'unreserved', 'over-limit', 'no-reservation', 'month-closed'] satisfies CountOutcome[];

/** A refusal's outcome as an adapter stored it; anything else it may hold stays a refusal (`over-limit`). */
export function storedRefusal(value: string): CountOutcome {
  return COUNT_OUTCOMES.includes(value) ? (value as CountOutcome) : 'over-limit';
}

export function countUnder(
  state: MonthState,
  r: { id: string; ceiling: number; now: number; storedAt?: number },
): { next: MonthState | null; outcome: CountOutcome } {
  const month = reservationMonth(r.id);
  if (month === null) return { next: null, outcome: 'no-reservation' };
  // Closed by when S3 stored the object, not by when the function got to it (Lambda retries for hours).
  if ((r.storedAt ?? r.now) >= monthClose(month)) return { next: null, outcome: 'month-closed' };
  const hold = state.holds[r.id];
  if (!hold) return { next: null, outcome: 'no-reservation' };
  if (isLive(hold, r.now)) {
    const expiresAt = Math.min(r.now + RESERVATION_LIFETIME_MS, holdLimit(r.id, hold));
    const holds = { ...state.holds, [r.id]: { ...stamped(hold), slots: hold.slots - 1, expiresAt } };
    return { next: written(state, { total: state.total + 1, holds }, r.now), outcome: 'reserved' };
  }
  if (roomLeft(state, r.ceiling, r.now, r.id) > 0) return { next: written(state, { total: state.total + 1 }, r.now), outcome: 'unreserved' };
  return { next: null, outcome: 'over-limit' };
}

import { monthlyLimit } from '@trailsense/shared/quota';

// The limit rules are shared with the object-created function, which enforces the ranch's ceiling
// on the server (shared/src/domain/quota.ts); re-exported here for this remote's callers.
export { DEFAULT_MONTHLY_LIMIT, monthlyLimit } from '@trailsense/shared/quota';

/** An entitlement that has not expired yet (docs/uploader.md#upload-allowance, "active subscriber"). */
export interface ActiveSubscription {
  level: string;
  expiresDate: Date;
}

/**
 * The active subscription among the entitlements: one whose `expires_date` is in the future
 * (the latest-expiring if several are). Unparseable dates never count as active.
 */
export function activeSubscription(entitlements: Record<string, { expires_date: string }> | undefined, now: Date): ActiveSubscription | null {
  let best: ActiveSubscription | null = null;
  for (const [level, entitlement] of Object.entries(entitlements ?? {})) {
    const expiresDate = new Date(entitlement?.expires_date ?? '');
    if (Number.isNaN(expiresDate.getTime()) || expiresDate.getTime() <= now.getTime()) continue;
    if (!best || expiresDate > best.expiresDate) best = { level, expiresDate };
  }
  return best;
}

/**
 * This month's uploads from the metrics' `total`: "" (nothing counted yet, docs/product.md#product-api-responses) is 0; a
 * total that is not a whole number is `null`, unknown, never taken as 0.
 */
export function uploadedThisMonth(total: string | undefined): number | null {
  const text = (total ?? '').trim();
  if (text === '') return 0;
  return /^\d+$/.test(text) ? Number(text) : null;
}

/** Remaining uploads: the limit minus this month's total, never below 0. */
export function remainingUploads(limit: number, uploaded: number): number {
  return Math.max(0, limit - uploaded);
}

/**
 * The metrics month of a date: `YYYY_MM` in UTC, the month the server counts uploads in
 * (infra/docs/server.md#one-month); the server's answers name the month and win over this guess.
 */
export { countingMonth } from '@trailsense/shared/uploads-wire';

/**
 * What is known of the month's allowance. It fails closed: while the ranch's limit or the month's
 * usage cannot be fetched it is `unknown`, and nothing may be uploaded (a member with 15 left must
 * never be shown 1,000 and allowed to send them).
 */
export type Allowance =
  | { kind: 'loading' }
  | { kind: 'unknown'; reason: string }
  | {
      kind: 'known';
      limit: number;
      /** The month's total as the server counted it. */
      counted: number;
      /** When the usage request was sent (ms): uploads that succeeded after it may be missing from `counted`. */
      countedFrom: number;
      /** Successes since `countedFrom`, from this tab and the user's other tabs: subtracted at once. */
      since: number;
      /** Slots the server held for uploads in progress when it counted (another member's batch): not available. */
      held: number;
    };

/** The facts the allowance is made of, each fetched separately; `undefined` while a fetch runs. */
export interface AllowanceInputs {
  /** `max_monthly_uploads`, or an Error when the ranch could not be fetched. */
  ranchMax: number | Error | undefined;
  /** Whether an entitlement is active, or an Error when the subscription could not be fetched. */
  subscribed: boolean | Error | undefined;
  /** The metrics `total`, or an Error when it could not be fetched. */
  total: string | Error | undefined;
  /** When the metrics request was sent (ms since the epoch). */
  totalRequestedAt: number;
  /** The metrics' `reserved`: slots held by live reservations (0 when the server did not say). */
  reserved?: number;
  /** The metrics' `ceiling`: the most the server lets the ranch count this month (absent when it did not say). */
  ceiling?: number;
}

const reasonOf = (error: Error) => error.message || 'unknown error';

/**
 * The allowance from the three fetches and the successes recorded since (`successes`, times in ms).
 * The limit needs the subscription only when the ranch's max is 0 (docs/uploader.md#upload-allowance), so a failed
 * subscription fetch leaves a ranch with its own max known.
 */
export function allowanceFrom(inputs: AllowanceInputs, successes: readonly number[]): Allowance {
  const { ranchMax, subscribed, total } = inputs;
  if (ranchMax instanceof Error) return { kind: 'unknown', reason: reasonOf(ranchMax) };
  if (total instanceof Error) return { kind: 'unknown', reason: reasonOf(total) };
  if (ranchMax !== undefined && ranchMax === 0 && subscribed instanceof Error) return { kind: 'unknown', reason: reasonOf(subscribed) };
  if (ranchMax === undefined || total === undefined || (ranchMax === 0 && subscribed === undefined)) return { kind: 'loading' };
  const counted = uploadedThisMonth(total);
  if (counted === null) return { kind: 'unknown', reason: `the server reported an unreadable total "${total}"` };
  if (!Number.isFinite(ranchMax) || ranchMax < 0) return { kind: 'unknown', reason: 'the server reported an unreadable monthly limit' };
  // Never more than the server enforces: its ceiling wins over a limit computed from a ranch
  // record it may read differently (or fresher).
  const ceiling = Number.isInteger(inputs.ceiling) && (inputs.ceiling ?? -1) >= 0 ? (inputs.ceiling as number) : Number.POSITIVE_INFINITY;
  const limit = Math.min(monthlyLimit(ranchMax, subscribed === true), ceiling);
  const held = Number.isInteger(inputs.reserved) && (inputs.reserved ?? 0) > 0 ? (inputs.reserved as number) : 0;
  return { kind: 'known', limit, counted, countedFrom: inputs.totalRequestedAt, since: successesSince(successes, inputs.totalRequestedAt), held };
}

/**
 * How many of `successes` (times in ms) happened after `from`. One in the same millisecond as the
 * usage request was heard before it was sent, so the count it asks for includes it.
 */
export function successesSince(successes: readonly number[], from: number): number {
  let n = 0;
  for (const at of successes) if (at > from) n++;
  return n;
}

/** Records successes (at time `at`) in a known allowance: they count from now on, before any refetch. */
export function withSuccesses(allowance: Allowance, at: number, count = 1): Allowance {
  return allowance.kind === 'known' && at > allowance.countedFrom ? { ...allowance, since: allowance.since + count } : allowance;
}

/** This month's uploads as far as this browser knows: the server's count and the successes since. */
export function usedOf(allowance: Extract<Allowance, { kind: 'known' }>): number {
  return allowance.counted + allowance.since;
}

/** What may still be uploaded this month, or null while unknown (then nothing may be). */
export function remainingOf(allowance: Allowance): number | null {
  return allowance.kind === 'known' ? remainingUploads(allowance.limit, usedOf(allowance) + allowance.held) : null;
}

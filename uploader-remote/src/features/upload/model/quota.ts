/** SPEC.md §9: the monthly limit of a ranch without an active subscription and with max 0. */
export const DEFAULT_MONTHLY_LIMIT = 1000;

/** An entitlement that has not expired yet (SPEC.md §4 "active subscriber"). */
export interface ActiveSubscription {
  level: string;
  expiresDate: Date;
}

/**
 * The active subscription among the entitlements: one whose `expires_date` is in the future
 * (the latest-expiring if several are). Unparseable dates never count as active.
 */
export function activeSubscription(
  entitlements: Record<string, { expires_date: string }> | undefined,
  now: Date,
): ActiveSubscription | null {
  let best: ActiveSubscription | null = null;
  for (const [level, entitlement] of Object.entries(entitlements ?? {})) {
    const expiresDate = new Date(entitlement?.expires_date ?? '');
    if (Number.isNaN(expiresDate.getTime()) || expiresDate.getTime() <= now.getTime()) continue;
    if (!best || expiresDate > best.expiresDate) best = { level, expiresDate };
  }
  return best;
}

/** SPEC.md §9: 1,000 when the ranch's max is 0 and there is no active subscription, else the ranch's max. */
export function monthlyLimit(maxMonthlyUploads: number, subscribed: boolean): number {
  return maxMonthlyUploads === 0 && !subscribed ? DEFAULT_MONTHLY_LIMIT : maxMonthlyUploads;
}

/** This month's uploads from the metrics' `total`: an empty or unreadable total counts as 0. */
export function uploadedThisMonth(total: string | undefined): number {
  const n = Number.parseInt((total ?? '').trim(), 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** Remaining uploads: the limit minus this month's total, never below 0. */
export function remainingUploads(limit: number, uploaded: number): number {
  return Math.max(0, limit - uploaded);
}

/** The metrics month of a date: `YYYY_MM` in local time (SPEC.md §7). */
export function yearMonth(date: Date): string {
  return `${date.getFullYear()}_${String(date.getMonth() + 1).padStart(2, '0')}`;
}

/** What is known of the quota: loading, known, or unknown because a fetch failed (only logged). */
export type Quota =
  | { kind: 'loading' }
  | { kind: 'known'; uploaded: number; limit: number; remaining: number }
  | { kind: 'unknown' };

/** Combines the three fetches into the quota. */
export function quotaFrom(input: { maxMonthlyUploads: number; subscribed: boolean; total: string | undefined }): Quota {
  const limit = monthlyLimit(input.maxMonthlyUploads, input.subscribed);
  const uploaded = uploadedThisMonth(input.total);
  return { kind: 'known', uploaded, limit, remaining: remainingUploads(limit, uploaded) };
}

/**
 * The monthly upload limit (docs/uploader.md#upload-allowance), shared by the uploader, which shows
 * and applies the member's limit, and the object-created function, which enforces the ranch's
 * ceiling on the server (infra/src/object-created/handler.ts).
 */

/** The monthly limit of a ranch whose `max_monthly_uploads` is 0, for a member without an active subscription. */
export const DEFAULT_MONTHLY_LIMIT = 1000;

/** docs/uploader.md#upload-allowance: 1,000 when the ranch's max is 0 and there is no active subscription, else the ranch's max. */
export function monthlyLimit(maxMonthlyUploads: number, subscribed: boolean): number {
  return maxMonthlyUploads === 0 && !subscribed ? DEFAULT_MONTHLY_LIMIT : maxMonthlyUploads;
}

/**
 * The most a ranch may upload in a month whoever sends it: its `max_monthly_uploads` when above 0,
 * else the default 1,000. The server enforces this one (infra/docs/server.md#trust-on-the-server):
 * a subscription belongs to a member (an email) and an S3 event does not say whose upload it was,
 * so the server cannot apply `monthlyLimit`; the uploader applies it, which is never looser
 * (`monthlyLimit(max, s) <= ranchUploadCeiling(max)` for every max ≥ 0).
 */
export function ranchUploadCeiling(maxMonthlyUploads: number): number {
  return maxMonthlyUploads > 0 ? maxMonthlyUploads : DEFAULT_MONTHLY_LIMIT;
}

/**
 * The month an upload counts in, `YYYY_MM` in UTC: the server's rule (infra/src/ledger/rules.ts
 * `utcYearMonth`), which the uploader asks for so the screen and the server count the same month
 * (infra/docs/server.md#one-month). The server's answers say the month too, and win.
 */
export function countingMonth(date: Date): string {
  return `${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

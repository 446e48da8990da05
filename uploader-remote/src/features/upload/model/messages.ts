import type { ActiveSubscription } from './quota';
import type { SkipReason, SkippedFile } from './file-filter';

const numbers = new Intl.NumberFormat('en-US');
/** Numbers as people read them: 10,000 (SPEC.md writes "1,000"). */
export const formatCount = (n: number): string => numbers.format(n);

const dates = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
/** The expiry date as shown: "June 30, 2027" (UTC, the date the store wrote). */
export const formatDate = (date: Date): string => dates.format(date);

/** SPEC.md §9, without an active subscription. */
export const NO_SUBSCRIPTION_MESSAGE =
  'You do not have an active subscription. You are limited to 1,000 images per month. Please subscribe to allow for more uploads.';

/** SPEC.md §9's subscription message. */
export function subscriptionMessage(active: ActiveSubscription | null): string {
  return active
    ? `Your active subscription level is ${active.level} which expires on ${formatDate(active.expiresDate)}`
    : NO_SUBSCRIPTION_MESSAGE;
}

/** SPEC.md §9's quota message, numbers with thousands separators. */
export function quotaMessage(uploaded: number, limit: number, remaining: number): string {
  return `You have uploaded ${formatCount(uploaded)} images of your monthly limit of ${formatCount(limit)} images. You have ${formatCount(remaining)} remaining.`;
}

/** Progress as a whole percentage of the files chosen (0 when none are). */
export function progressPercent(uploaded: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((uploaded / total) * 100));
}

/** SPEC.md §9: "Overall Progress: X of Y = Z%". */
export function progressLabel(uploaded: number, total: number): string {
  return `Overall Progress: ${formatCount(uploaded)} of ${formatCount(total)} = ${progressPercent(uploaded, total)}%`;
}

/** SPEC.md §8. */
export const subscriptionErrorMessage = (error: string): string => `Problem with subscription retrieval: ${error}`;
/** SPEC.md §8 (no space after the colon in the SPEC's text; one before the message reads right). */
export const storageErrorMessage = (error: string): string => `Problem with Storage.put operation: ${error}`;

/** SPEC.md §5: the over-allowance question. */
export function overAllowanceQuestion(remaining: number, listed: number): string {
  return `You cannot upload more images than your remaining limit of ${formatCount(remaining)}. You have ${formatCount(listed)} images in the list. Do you want to upload only the remaining ${formatCount(remaining)} images?`;
}

/** SPEC.md §5: the advice after Cancel. */
export const OVER_ALLOWANCE_ADVICE =
  'Nothing was uploaded. Remove some files from the list or upgrade your subscription to upload more images.';

const reasonText: Record<SkipReason, string> = {
  empty: 'empty file',
  'not-jpeg': 'not a JPEG image',
  'too-large': 'larger than 50 MB',
  duplicate: 'already in the list',
};

/** How many skipped names the notice lists before "and N more". */
export const NOTICE_NAME_LIMIT = 10;

/** The one grouped notice for a selection's skipped files: "3 files skipped: a.mp4 (not a JPEG image), …". */
export function skippedNotice(skipped: readonly SkippedFile[]): string | null {
  if (skipped.length === 0) return null;
  const listed = skipped.slice(0, NOTICE_NAME_LIMIT).map((s) => `${s.name} (${reasonText[s.reason]})`);
  const more = skipped.length - listed.length;
  const noun = skipped.length === 1 ? 'file' : 'files';
  return `${formatCount(skipped.length)} ${noun} skipped: ${listed.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}.`;
}

/** Shown (politely) while listed files' first bytes are checked: "Checking 10,000 files…". */
export function checkingMessage(files: number): string {
  return `Checking ${formatCount(files)} ${files === 1 ? 'file' : 'files'}…`;
}

/** The polite screen-reader announcement of a batch: at its start, each quarter, and its end. */
export function progressAnnouncement(
  event: { kind: 'started'; files: number } | { kind: 'milestone'; uploaded: number; total: number } | { kind: 'ended'; uploaded: number; failed: number; stopped: boolean },
): string {
  switch (event.kind) {
    case 'started':
      return `Uploading ${formatCount(event.files)} ${event.files === 1 ? 'image' : 'images'}.`;
    case 'milestone':
      return `${progressPercent(event.uploaded, event.total)}% uploaded: ${formatCount(event.uploaded)} of ${formatCount(event.total)}.`;
    case 'ended': {
      const head = event.stopped ? 'Upload stopped.' : 'Upload finished.';
      const failed = event.failed > 0 ? ` ${formatCount(event.failed)} failed.` : '';
      return `${head} ${formatCount(event.uploaded)} uploaded.${failed}`;
    }
  }
}

/** The quarter (0–4) a progress falls in; an announcement is due when it changes. */
export function progressQuarter(uploaded: number, total: number): number {
  return Math.floor(progressPercent(uploaded, total) / 25);
}

import type { ActiveSubscription } from './quota';
import type { SkipReason, SkippedFile } from './file-filter';
import { formatInteger, formatLongDateUTC, formatMonthDayLocal } from './en-us-format';
import type { UploadCap } from './upload-cap';

/** Numbers as people read them: 10,000 (docs/uploader.md#uploader-messages writes "1,000"). */
export const formatCount = formatInteger;

/** The expiry date as shown: "June 30, 2027" (UTC, the date the store wrote). */
export const formatDate = formatLongDateUTC;

/** docs/uploader.md#uploader-messages, without an active subscription. */
export const NO_SUBSCRIPTION_MESSAGE =
  'You do not have an active subscription. You are limited to 1,000 images per month. Please subscribe to allow for more uploads.';

/** The subscription message (docs/uploader.md#uploader-messages). */
export function subscriptionMessage(active: ActiveSubscription | null): string {
  return active ? `Your active subscription level is ${active.level} which expires on ${formatDate(active.expiresDate)}` : NO_SUBSCRIPTION_MESSAGE;
}

/** The quota message (docs/uploader.md#uploader-messages), numbers with thousands separators. */
export function quotaMessage(uploaded: number, limit: number, remaining: number): string {
  return `You have uploaded ${formatCount(uploaded)} images of your monthly limit of ${formatCount(limit)} images. You have ${formatCount(remaining)} remaining.`;
}

/** Progress as a whole percentage of the files chosen (0 when none are). */
export function progressPercent(uploaded: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((uploaded / total) * 100));
}

/** docs/uploader.md#uploader-messages: "Overall Progress: X of Y = Z%". */
export function progressLabel(uploaded: number, total: number): string {
  return `Overall Progress: ${formatCount(uploaded)} of ${formatCount(total)} = ${progressPercent(uploaded, total)}%`;
}

/** docs/uploader.md#uploader-messages. */
export const subscriptionErrorMessage = (error: string): string => `Problem with subscription retrieval: ${error}`;
/**
 * Why a photo is sent again, or failed once every attempt arrived so: S3 found that the bytes it
 * received were not the ones the browser read from the file (its CRC32, `BadDigest`), and kept
 * nothing (docs/uploader.md#uploader-messages, infra/docs/server.md#checksums).
 */
export const ARRIVED_DAMAGED = 'The photo arrived damaged (its bytes changed on the way) and was not kept';

/** docs/uploader.md#uploader-messages (a space after the colon, before the error's message). */
export const storageErrorMessage = (error: string): string => `Problem with Storage.put operation: ${error}`;

/** docs/uploader.md#uploader-rules: the over-allowance question. */
export function overAllowanceQuestion(remaining: number, listed: number): string {
  return `You cannot upload more images than your remaining limit of ${formatCount(remaining)}. You have ${formatCount(listed)} images in the list. Do you want to upload only the remaining ${formatCount(remaining)} images?`;
}

/** docs/uploader.md#uploader-rules: the advice after Cancel. */
export const OVER_ALLOWANCE_ADVICE = 'Nothing was uploaded. Remove some files from the list or upgrade your subscription to upload more images.';

/**
 * Skips counted rather than named, in the notice's order: each can be thousands on one card
 * (photos already sent, a trail camera's clips, .DS_Store and `._*` beside every photo), and
 * naming them would hide the few files worth a look.
 */
const countedReasons = [
  { reason: 'already-uploaded', one: 'already uploaded', many: 'already uploaded' },
  { reason: 'video', one: 'video', many: 'videos' },
  { reason: 'hidden', one: 'hidden or system file', many: 'hidden or system files' },
] as const satisfies readonly { reason: SkipReason; one: string; many: string }[];

type CountedReason = (typeof countedReasons)[number]['reason'];
const isCounted = (reason: SkipReason): reason is CountedReason => countedReasons.some((c) => c.reason === reason);

const reasonText: Record<Exclude<SkipReason, CountedReason>, string> = {
  empty: 'empty file',
  'not-jpeg': 'not a JPEG image',
  'too-large': 'larger than 50 MB',
  duplicate: 'already in the list',
  unreadable: 'could not be read',
};

/** How many skipped names the notice lists before "and N more". */
export const NOTICE_NAME_LIMIT = 10;

/**
 * The one grouped notice for a selection's skipped files: "3 files skipped: a.txt (not a JPEG
 * image), …". Photos already uploaded, videos and hidden or system files are counted first
 * rather than named: "9,012 files skipped: 9,000 already uploaded, 3 videos, 8 hidden or system
 * files, notes.txt (not a JPEG image)."
 */
export function skippedNotice(skipped: readonly SkippedFile[]): string | null {
  if (skipped.length === 0) return null;
  const counts = new Map<CountedReason, number>();
  const listed: string[] = [];
  let more = 0;
  for (const s of skipped) {
    if (isCounted(s.reason)) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
    else if (listed.length < NOTICE_NAME_LIMIT) listed.push(`${s.name} (${reasonText[s.reason]})`);
    else more++;
  }
  const tallies = countedReasons.flatMap(({ reason, one, many }) => {
    const n = counts.get(reason) ?? 0;
    return n > 0 ? [`${formatCount(n)} ${n === 1 ? one : many}`] : [];
  });
  const parts = [...tallies, ...listed];
  const noun = skipped.length === 1 ? 'file' : 'files';
  return `${formatCount(skipped.length)} ${noun} skipped: ${parts.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}.`;
}

/** Shown (politely) while listed files' first bytes are checked: "Checking 10,000 files…". */
export function checkingMessage(files: number): string {
  return `Checking ${formatCount(files)} ${files === 1 ? 'file' : 'files'}…`;
}

/** The polite screen-reader announcement of a batch: at its start, each quarter, and its end. */
export function progressAnnouncement(
  event:
    | { kind: 'started'; files: number }
    | { kind: 'milestone'; uploaded: number; total: number }
    | { kind: 'ended'; uploaded: number; failed: number; stopped: boolean },
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

/** The resume offer of an unfinished batch: "412 of 2,000 uploaded on Nov 21 — pick the same card to finish." */
export function resumeOfferMessage(uploaded: number, total: number, lastActivity: Date, folder: string | null = null): string {
  const then = `${formatCount(uploaded)} of ${formatCount(total)} uploaded on ${formatMonthDayLocal(lastActivity)}`;
  // A kept folder is read again by Resume: nothing to pick.
  return folder === null ? `${then} — pick the same card to finish.` : `${then} — Resume reads the folder “${folder}” again to finish.`;
}

/** While this month's usage or the ranch's limit is unknown: Upload is off, and why. */
export function allowanceUnknownMessage(reason: string): string {
  return `Your monthly upload allowance could not be checked (${reason}), so uploading is off until it can be: nothing is sent that could go over your limit.`;
}

/** Retry or Upload pressed with nothing left this month. */
export const ALLOWANCE_USED_UP = 'Nothing can be uploaded: your monthly limit is used up. Upgrade your subscription to upload more images.';

/** The batch is paused because the browser is offline. */
export const OFFLINE_PAUSE = 'You are offline. Uploading is paused and continues by itself when the connection is back.';

/** The batch waits for another tab of the same user and ranch. */
export const OTHER_TAB_WAIT = 'Another tab is uploading for this ranch. This batch starts when that one ends, and skips what it sent.';

/** The session ended mid-batch: said on the uploader and on the sign-in page. */
export function sessionPauseMessage(uploaded: number, total: number): string {
  return `Your session ended, so uploading is paused: ${formatCount(uploaded)} of ${formatCount(total)} images went up and nothing is lost. Sign in again to continue.`;
}

/** After the same user signed in again. */
export const SESSION_RESUMED = 'Signed in again: uploading continues.';

/** While a dropped or picked folder is walked: "Reading the folder… 2,300 files found". */
export function readingMessage(found: number): string {
  return found === 0 ? 'Reading the folder…' : `Reading the folder… ${formatCount(found)} ${found === 1 ? 'file' : 'files'} found`;
}

/** Resume from a kept folder when the browser was not allowed to read it again. */
export const FOLDER_NOT_ALLOWED = 'The card’s folder could not be read again (permission was not given). Use Add Folder and pick it to finish this batch.';

const photos = (n: number) => `${formatCount(n)} ${n === 1 ? 'photo was' : 'photos were'}`;

/** Photos the server granted no slot because the ranch's monthly limit was reached (by this batch or another member's). */
export function notSentAtLimitNotice(count: number): string {
  return `Your ranch reached its monthly limit while this batch ran: ${photos(count)} not sent.`;
}

/** Photos not sent because no upload slot could be reserved (the uploads API did not answer). */
export function notSentUnavailableNotice(count: number): string {
  return `${photos(count)} not sent: the server could not be asked for upload slots. Press Upload to try them again.`;
}

/** A photo's status in the list when it got no upload slot, by why (model/upload-queue.ts NotSentReason). */
export const NOT_SENT_STATUS = {
  limit: 'Not sent: monthly limit reached',
  unavailable: 'Not sent: upload slots could not be reserved',
  refused: 'Not sent: refused by the upload service’s firewall',
} as const;

/** Photos the uploads API's firewall would not take from this network address (shared/src/uploads/wire.ts UPLOADS_EDGE_ANSWERS.refused). */
export function notSentRefusedNotice(count: number): string {
  return `${photos(count)} not sent: the upload service’s firewall refused requests from this network address. Try again later or from another connection.`;
}

/**
 * The upload service asked this browser to wait (a 429 with `Retry-After`): its firewall, for
 * this network address (`address`), or its throttle, for everyone (`busy`); `seconds`: how long
 * from when it said so.
 */
export function serverWaitMessage(seconds: number, why: 'address' | 'busy' = 'address'): string {
  const s = Math.max(1, Math.round(seconds));
  const wait = s < 90 ? `${formatCount(s)} ${s === 1 ? 'second' : 'seconds'}` : `${formatCount(Math.round(s / 60))} minutes`;
  const cause =
    why === 'address' ? 'The upload service asked to wait: too many requests came from this network address.' : 'The upload service is busy and asked to wait.';
  return `${cause} Uploading continues by itself in ${wait}.`;
}

/** Slots held for other members' uploads right now, when the allowance is shown. */
export function heldForOthersMessage(held: number): string {
  return `${formatCount(held)} of your ranch’s remaining ${held === 1 ? 'image is' : 'images are'} held for an upload in progress.`;
}

/** The choice beside Upload (docs/uploader.md#a-batch-left-running). */
export const KEEP_AWAKE_LABEL = 'Keep this computer awake while uploading';

/** The one line under it: what the computer will do while this batch sends. */
export function keepAwakeNote(status: 'unsupported' | 'off' | 'held' | 'waiting', wanted: boolean, sending: boolean): string {
  if (status === 'unsupported') return 'This browser cannot keep the computer awake: if it goes to sleep, uploading stops until it wakes.';
  if (!wanted) return 'The computer may go to sleep as it is set to: uploading stops while it sleeps.';
  if (sending && status === 'held') return 'The computer stays awake until this batch ends.';
  return 'While a batch sends, the computer stays awake.';
}

/** The overlay while files are dragged over the page. */
export const DROP_ANYWHERE = 'Drop photos or a folder to add them';

/** The "Send smaller copies" choice (docs/uploader.md#smaller-copies). */
export const SEND_COPIES_LABEL = 'Send smaller copies';

/** Its one line: what it does, from the measured sizes (model/photo-forms.ts COPY_SPEEDUP, model/smaller-copy.ts COPY_LONG_EDGE). */
export function sendCopiesNote(speedup: number, longEdge: number): string {
  return `About ${formatCount(speedup)}× faster. Photos are resized to ${formatCount(longEdge)} px; the originals stay on your card.`;
}

/** Photos the ranch has only as smaller copies, listed to send their originals: "3 photos the ranch has as smaller copies: sent as originals, already counted." */
export function upgradeNotice(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'photo' : 'photos'} the ranch has as smaller copies: sent as originals, already counted.`;
}

/** Both estimates, when the originals would take hours: "Originals: about 21 h · Smaller copies: about 3 h". */
export function estimatesLine(originals: string, copies: string): string {
  return `Originals: ${originals} · Smaller copies: ${copies}`;
}

/** The suggestion beside both estimates; the uploader never switches by itself. */
export const SUGGEST_COPIES = 'Sending the originals would take hours at your recent speed. Tick “Send smaller copies” to send this card sooner.';

/** "Upload speed" (docs/uploader.md#sending-over-a-rural-link): the choice under "Send smaller copies". */
export const UPLOAD_SPEED_LABEL = 'Upload speed';

/** Its choices, in order; a share is of the link's speed as measured on this browser. */
export const CAP_CHOICE_TEXT = {
  none: 'As fast as the connection allows',
  half: 'At most half of the connection',
  quarter: 'At most a quarter of the connection',
  mbit: 'At most a set speed',
} as const;

/** A speed as the cap says it: "1.5 Mbit/s" (one decimal under 10), "17 Mbit/s". */
export function mbitText(mbit: number): string {
  const rounded = mbit < 10 ? Math.round(mbit * 10) / 10 : Math.round(mbit);
  return `${rounded.toLocaleString('en-US', { maximumFractionDigits: 1 })} Mbit/s`;
}

/** A typed speed the cap cannot be. */
export const CAP_MBIT_INVALID = 'Type a speed from 0.1 to 1,000 Mbit/s.';

const ROOM = 'The rest stays free for everyone else on the connection.';

/**
 * The one line under the choice, from the cap and the link's measured speed (Mbit/s, null while
 * never measured): what the uploader will use.
 */
export function capNote(cap: UploadCap, linkMbit: number | null): string {
  const measured = linkMbit === null ? '' : ` of the ${mbitText(linkMbit)} measured here`;
  if (cap.kind === 'none') return 'Uploading uses all of the connection. Choose a limit to leave room for everyone else on it.';
  if (cap.kind === 'share') {
    const part = cap.share === 0.5 ? 'half' : cap.share === 0.25 ? 'a quarter' : `${Math.round(cap.share * 100)} %`;
    if (linkMbit === null) return `At most ${part} of what the connection gives, measured when sending starts. ${ROOM}`;
    return `At most about ${mbitText(cap.share * linkMbit)}: ${part}${measured}. ${ROOM}`;
  }
  if (linkMbit !== null && cap.mbit >= linkMbit)
    return `At most ${mbitText(cap.mbit)}: more than the ${mbitText(linkMbit)} measured here, so uploading may use all of it.`;
  return `At most ${mbitText(cap.mbit)}${measured}. ${ROOM}`;
}

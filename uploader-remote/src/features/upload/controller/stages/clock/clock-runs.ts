import { clockProblem, EARLIEST_CAMERA_YEAR, FUTURE_SLACK_MS, RESET_DAYS } from '../../../model/clock-check';
import { formatTimeUTC } from '../../../model/en-us-format';
import { formatCount, formatDate } from '../../../model/messages';
import { captureDate } from '../../../model/photo-exif';

/**
 * The photos of a card taken while a camera's clock was wrong, found as runs, and the member's
 * one-step correction of a run (or of a whole camera whose clock is merely off).
 *
 * model/clock-check.ts judges each photo alone: a reset day, the future, a year before 2010. But a
 * reset clock runs on from its reset day, so a camera reset to 1 January 2020 dates its next
 * photos 2 January, 3 January…, which look believable alone and are just as wrong. The run finder
 * follows the camera's clock instead, per camera (model/camera-match.ts `cameraKey`, or
 * BATCH_CAMERA for photos naming none: the camera chosen for the batch), in the camera's own
 * file order (`fileOrder`), the order it took them whatever its clock said:
 * - A run STARTS at a photo wrong on its own (clock-check.ts `clockProblem`); that problem is the
 *   run's cause.
 * - It CONTINUES over the next photos while the clock plainly ran on: each capture is not before
 *   the previous one (equal is a burst) and at most RUN_GAP_DAYS after it. The cause does not
 *   change: a future or before-2010 clock that runs on is still that clock.
 * - A photo on a reset day that the run did not just run into (its previous photo is neither on
 *   that day nor on the day before, 31 December) is a second reset: it starts a new run, so each
 *   reset is corrected by its own offset.
 * - It ENDS at a jump back in time or ahead beyond the gap (the clock was set, right or wrong),
 *   or at the camera's last photo. The photo after the jump is judged on its own again: a
 *   believable time is outside every run; a wrong one starts the next run.
 * Photos whose capture is not a valid date end a run and are in none (nothing to judge).
 *
 * Why RUN_GAP_DAYS is 120: a trail camera triggers most days and a card is read every few weeks to
 * a couple of months, so photos of one clock more than four months apart are rare even for a
 * camera idle through a winter; while setting a reset clock right jumps years ahead (the newest
 * reset day, 1 January 2020, is more than six years behind), far beyond the gap. A smaller gap
 * would split one wrong clock into runs needing separate corrections; a much larger one would
 * start to swallow a clock set right within a year of its reset day (old cards only).
 *
 * A correction moves photos by whole seconds. Capture times are camera wall clocks carried as
 * Dates whose UTC fields are the clock's fields (model/photo-exif.ts `captureDate`), so moving
 * them is plain arithmetic: no time zone, no daylight saving. `checkCorrection` refuses, in words
 * (CORRECTION_REFUSALS), a correction that would date a photo in the future (beyond clock-check's
 * slack), still before 2010, or out of the camera's order against its correct photos: the nearest
 * unmoved photos before and after each moved stretch in file order that are in no run (a photo
 * still in a run is wrong anyway, so it cannot be out of order with the truth). The checks run
 * in that order: a typing slip into the future is the likeliest mistake and the plainest to say.
 */

/** One photo as the run finder sees it. */
export interface ClockPhoto {
  /** The listed file's id. */
  id: string;
  /** File name, "IMG_0004.JPG". */
  name: string;
  /** Path in the chosen folder ("DCIM/100MEDIA/IMG_0004.JPG"), "" for files picked one by one. */
  path: string;
  /** The camera's clock (UTC fields), a valid Date. */
  capture: Date;
  /** `cameraKey` of its EXIF, or BATCH_CAMERA for photos naming no camera. */
  camera: string;
}

/** Photos without a camera identity: "the camera chosen" for the batch. */
export const BATCH_CAMERA = '';

export type RunCause = 'reset' | 'future' | 'before-2010';

export interface ClockRun {
  camera: string;
  cause: RunCause;
  /** The run's photos in the camera's file order. */
  ids: readonly string[];
  /** First in file order. */
  first: ClockPhoto;
  /** Last in file order. */
  last: ClockPhoto;
}

/** The longest step, in days, between two photos of one run (see the top comment for why). */
export const RUN_GAP_DAYS = 120;

const SECOND_MS = 1000;
const DAY_MS = 24 * 60 * 60 * SECOND_MS;
const RUN_GAP_MS = RUN_GAP_DAYS * DAY_MS;

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const SLASH = 47;
const isDigit = (code: number): boolean => code >= DIGIT_0 && code <= DIGIT_9;
/** A character as compared: ASCII letters case-folded, "/" before everything (a folder's files before a longer name). */
const foldCode = (code: number): number => (code === SLASH ? -1 : code >= 97 && code <= 122 ? code - 32 : code);

/** The end of the run of digits starting at `from`. */
function digitsEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isDigit(text.charCodeAt(end))) end++;
  return end;
}

/** Numbers compared as numbers (leading zeros aside), the rest case-insensitively; 0 when alike so. */
function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      const endA = digitsEnd(a, i);
      const endB = digitsEnd(b, j);
      while (i < endA - 1 && a.charCodeAt(i) === DIGIT_0) i++;
      while (j < endB - 1 && b.charCodeAt(j) === DIGIT_0) j++;
      if (endA - i !== endB - j) return endA - i - (endB - j);
      for (; i < endA; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return a.charCodeAt(i) - b.charCodeAt(j);
      continue;
    }
    if (foldCode(ca) !== foldCode(cb)) return foldCode(ca) - foldCode(cb);
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

/** Plain code-unit order, the tie-break of names alike but for case or leading zeros. */
const plainCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The camera's own file order: by path then name, numbers compared as numbers (IMG_0009 <
 * IMG_0010; 100MEDIA before 101MEDIA), letters case-insensitively. Written out rather than an
 * `Intl.Collator`: the same order in every browser, and no ICU start on the uploader's screens
 * (model/en-us-format.ts says why that matters).
 */
export function fileOrder(a: Pick<ClockPhoto, 'path' | 'name'>, b: Pick<ClockPhoto, 'path' | 'name'>): number {
  return naturalCompare(a.path, b.path) || naturalCompare(a.name, b.name) || plainCompare(a.path, b.path) || plainCompare(a.name, b.name);
}

/** Photos in file order, the id breaking ties (the same name twice) so the order is stable. */
const byFileOrder = (a: ClockPhoto, b: ClockPhoto): number => fileOrder(a, b) || plainCompare(a.id, b.id);

/** Each camera's photos in file order, cameras by key. */
function cameraSequences(photos: readonly ClockPhoto[]): [string, ClockPhoto[]][] {
  const cameras = new Map<string, ClockPhoto[]>();
  for (const photo of photos) {
    const list = cameras.get(photo.camera);
    if (list) list.push(photo);
    else cameras.set(photo.camera, [photo]);
  }
  for (const list of cameras.values()) list.sort(byFileOrder);
  return [...cameras].sort(([a], [b]) => plainCompare(a, b));
}

const dayNumber = (capture: Date): number => Math.floor(capture.getTime() / DAY_MS);
const onResetDay = (capture: Date): boolean => RESET_DAYS.has(capture.toISOString().slice(0, 10));

/** Whether `next` is the clock of `previous` running on (the rules in the top comment). */
function ranOn(previous: Date, next: Date): boolean {
  const step = next.getTime() - previous.getTime();
  if (!(step >= 0 && step <= RUN_GAP_MS)) return false;
  // A second reset: on a reset day the run did not just run into from that day or 31 December.
  return !(onResetDay(next) && dayNumber(next) - dayNumber(previous) > 1);
}

function makeRun(camera: string, cause: RunCause, members: readonly ClockPhoto[]): ClockRun {
  return { camera, cause, ids: members.map((p) => p.id), first: members[0]!, last: members[members.length - 1]! };
}

/** One camera's runs, its photos in file order. */
function cameraRuns(camera: string, sequence: readonly ClockPhoto[], now: number): ClockRun[] {
  const runs: ClockRun[] = [];
  let members: ClockPhoto[] = [];
  let cause: RunCause | null = null;
  for (const photo of sequence) {
    if (cause !== null && ranOn(members[members.length - 1]!.capture, photo.capture)) {
      members.push(photo);
      continue;
    }
    if (cause !== null) runs.push(makeRun(camera, cause, members));
    cause = clockProblem(photo.capture, now);
    members = [photo];
  }
  if (cause !== null) runs.push(makeRun(camera, cause, members));
  return runs;
}

/** Every run of every camera, ordered by camera then file order. `now`: ms since epoch (our clock) for "future". */
export function findClockRuns(photos: readonly ClockPhoto[], now: number): ClockRun[] {
  return cameraSequences(photos).flatMap(([camera, sequence]) => cameraRuns(camera, sequence, now));
}

/** A member's correction: move `camera`'s photos by offsetSeconds — the run's photos (`ids`) or, absent, all of that camera's photos. */
export interface ClockCorrection {
  camera: string;
  offsetSeconds: number;
  ids?: readonly string[];
}

/**
 * The offset (whole seconds) that makes `photo` read `realTime` (a wall clock Date with UTC
 * fields, as from an <input type="datetime-local"> value parsed as UTC). NaN when `realTime` is
 * not a valid date (`checkCorrection` then refuses: nothing to move).
 */
export function offsetToMake(photo: ClockPhoto, realTime: Date): number {
  return Math.round((realTime.getTime() - photo.capture.getTime()) / SECOND_MS);
}

const moveBy = (capture: Date, offsetSeconds: number): Date => new Date(capture.getTime() + offsetSeconds * SECOND_MS);

/**
 * A capture time string "YYYY-MM-DDTHH:MM:SS" (PhotoExif.captureTime) moved by seconds, same
 * form. Throws a RangeError when the string is not of that form or the result leaves years
 * 1–9999 (EXIF writes four digits).
 */
export function shiftCaptureTime(captureTime: string, offsetSeconds: number): string {
  const capture = captureDate({ captureTime });
  if (!capture) throw new RangeError(`Not a capture time: ${captureTime}`);
  const moved = moveBy(capture, Math.round(offsetSeconds));
  const year = moved.getUTCFullYear();
  if (!(year >= 1 && year <= 9999)) throw new RangeError(`${captureTime} moved by ${offsetSeconds} s leaves years 1–9999`);
  return moved.toISOString().slice(0, 19);
}

/** A photo's capture as the notices write it: "January 1, 2000, 12:03 AM" (the camera's clock). */
export function formatPhotoTime(capture: Date): string {
  return `${formatDate(capture)}, ${formatTimeUTC(capture)}`;
}

/**
 * Why a correction is refused, word for word (docs cite them here). `label` names the camera
 * (model/camera-match.ts `cameraLabel`); times are the camera's clock, moved ones as they would be.
 */
export const CORRECTION_REFUSALS = {
  future: (name: string, moved: Date, label: string): string =>
    `This would date ${name} after today (${formatPhotoTime(moved)}). Check the time you entered for ${label}.`,
  stillWrong: (name: string, moved: Date, label: string): string =>
    `This would still date ${name} before ${EARLIEST_CAMERA_YEAR} (${formatPhotoTime(moved)}), so ${label}'s clock would still be wrong. Check the time you entered.`,
  earlier: (name: string, neighbour: ClockPhoto, label: string): string =>
    `This would put ${name} before ${neighbour.name}, which ${label} took earlier (${formatPhotoTime(neighbour.capture)}). A camera's photos must stay in the order it took them.`,
  later: (name: string, neighbour: ClockPhoto, label: string): string =>
    `This would put ${name} after ${neighbour.name}, which ${label} took later (${formatPhotoTime(neighbour.capture)}). A camera's photos must stay in the order it took them.`,
  noPhotos: (label: string): string => `Nothing to correct: none of ${label}'s photos are listed.`,
  noOffset: (label: string): string => `Nothing to correct: the time you entered is the time ${label}'s photos already show.`,
  noTime: (label: string): string => `Nothing to correct: enter when the photo was really taken, or how far ${label}'s clock was off.`,
} as const;

export type CorrectionVerdict = { ok: true; moved: number } | { ok: false; reason: 'future' | 'out-of-order' | 'still-wrong' | 'nothing'; message: string };

/** The camera's photos in file order, with which of them the correction moves. */
function correctionScope(photos: readonly ClockPhoto[], correction: ClockCorrection): { sequence: ClockPhoto[]; moves: boolean[] } {
  const sequence = photos.filter((p) => p.camera === correction.camera).sort(byFileOrder);
  const chosen = correction.ids ? new Set(correction.ids) : null;
  return { sequence, moves: sequence.map((p) => chosen === null || chosen.has(p.id)) };
}

/** A stretch of moved photos between two correct ones: its earliest and latest capture (file order breaking ties). */
interface Stretch {
  earliest: ClockPhoto;
  latest: ClockPhoto;
  before: ClockPhoto | null;
  after: ClockPhoto | null;
}

/**
 * The stretches of moved photos, each with the correct photos around it in file order: the
 * unmoved ones in no run (unmoved photos still in a run are passed over, wrong anyway).
 */
function stretches(sequence: readonly ClockPhoto[], moves: readonly boolean[], now: number): Stretch[] {
  const wrong = new Set(cameraRuns('', sequence, now).flatMap((run) => run.ids));
  const found: Stretch[] = [];
  let before: ClockPhoto | null = null;
  let open: Stretch | null = null;
  sequence.forEach((photo, i) => {
    if (moves[i]) {
      if (open === null) found.push((open = { earliest: photo, latest: photo, before, after: null }));
      const time = photo.capture.getTime();
      if (time < open.earliest.capture.getTime()) open.earliest = photo;
      if (time >= open.latest.capture.getTime()) open.latest = photo;
    } else if (!wrong.has(photo.id)) {
      if (open !== null) open.after = photo;
      open = null;
      before = photo;
    }
  });
  return found;
}

/**
 * The refusal when the moved photos would leave the camera's order: a stretch's earliest photo
 * moved before the correct photo just before it in file order, or its latest after the one just after.
 */
function orderRefusal(sequence: readonly ClockPhoto[], moves: readonly boolean[], offsetSeconds: number, now: number, label: string): string | null {
  for (const { earliest, latest, before, after } of stretches(sequence, moves, now)) {
    if (before && moveBy(earliest.capture, offsetSeconds).getTime() < before.capture.getTime())
      return CORRECTION_REFUSALS.earlier(earliest.name, before, label);
    if (after && moveBy(latest.capture, offsetSeconds).getTime() > after.capture.getTime()) return CORRECTION_REFUSALS.later(latest.name, after, label);
  }
  return null;
}

/**
 * Whether the correction may be applied to `photos` (all listed photos, other corrections
 * already applied), with the refusal in words (CORRECTION_REFUSALS); `label` names a camera.
 */
export function checkCorrection(photos: readonly ClockPhoto[], correction: ClockCorrection, now: number, label: (camera: string) => string): CorrectionVerdict {
  const name = label(correction.camera);
  const offset = correction.offsetSeconds;
  const { sequence, moves } = correctionScope(photos, correction);
  const moved = sequence.filter((_, i) => moves[i]);
  if (!Number.isFinite(offset)) return { ok: false, reason: 'nothing', message: CORRECTION_REFUSALS.noTime(name) };
  if (moved.length === 0) return { ok: false, reason: 'nothing', message: CORRECTION_REFUSALS.noPhotos(name) };
  if (offset === 0) return { ok: false, reason: 'nothing', message: CORRECTION_REFUSALS.noOffset(name) };
  // A camera moved whole may still hold a run not set right yet: what was wrong before is judged
  // by its own correction, so only the photos that looked right are held to "after today" and
  // "before 2010" — unless every moved photo was wrong (a run's own correction).
  const right = moved.filter((p) => clockProblem(p.capture, now) === null);
  const judged = right.length > 0 ? right : moved;
  // One offset for all: the latest capture lands latest, the earliest earliest.
  const latest = judged.reduce((a, b) => (b.capture.getTime() > a.capture.getTime() ? b : a));
  const latestMoved = moveBy(latest.capture, offset);
  if (latestMoved.getTime() - now > FUTURE_SLACK_MS)
    return { ok: false, reason: 'future', message: CORRECTION_REFUSALS.future(latest.name, latestMoved, name) };
  const earliest = judged.reduce((a, b) => (b.capture.getTime() < a.capture.getTime() ? b : a));
  const earliestMoved = moveBy(earliest.capture, offset);
  if (earliestMoved.getUTCFullYear() < EARLIEST_CAMERA_YEAR) {
    return { ok: false, reason: 'still-wrong', message: CORRECTION_REFUSALS.stillWrong(earliest.name, earliestMoved, name) };
  }
  const outOfOrder = orderRefusal(sequence, moves, offset, now, name);
  if (outOfOrder !== null) return { ok: false, reason: 'out-of-order', message: outOfOrder };
  return { ok: true, moved: moved.length };
}

/** The photos with the correction applied (moved captures in new objects, the rest as they were), for the next check. */
export function applyCorrection(photos: readonly ClockPhoto[], correction: ClockCorrection): ClockPhoto[] {
  const chosen = correction.ids ? new Set(correction.ids) : null;
  return photos.map((p) =>
    p.camera === correction.camera && (chosen === null || chosen.has(p.id)) ? { ...p, capture: moveBy(p.capture, correction.offsetSeconds) } : p,
  );
}

/** How each cause ends a run's notice. */
export const RUN_CAUSE_TEXT: Readonly<Record<RunCause, string>> = {
  reset: 'after its clock was reset',
  future: 'with its clock set in the future',
  'before-2010': `with its clock set before ${EARLIEST_CAMERA_YEAR}`,
};

/**
 * The notice line for one run: "Browning BTC-8E #K123: 6 photos, IMG_0004.JPG (January 1, 2000,
 * 12:03 AM) to IMG_0009.JPG (January 3, 2000, 5:40 PM), were taken after its clock was reset."
 * One photo: "…: 1 photo, IMG_0004.JPG (January 1, 2000, 12:03 AM), was taken …".
 */
export function runNotice(run: ClockRun, label: string): string {
  const n = run.ids.length;
  const first = `${run.first.name} (${formatPhotoTime(run.first.capture)})`;
  if (n === 1) return `${label}: 1 photo, ${first}, was taken ${RUN_CAUSE_TEXT[run.cause]}.`;
  return `${label}: ${formatCount(n)} photos, ${first} to ${run.last.name} (${formatPhotoTime(run.last.capture)}), were taken ${RUN_CAUSE_TEXT[run.cause]}.`;
}

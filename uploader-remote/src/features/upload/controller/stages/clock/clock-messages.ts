/**
 * The camera-clock panel's words (docs/uploader.md#camera-clocks cites them from here). The run
 * notices and refusals are the run finder's (clock-runs.ts runNotice, checkCorrection).
 */
import { formatCount } from '../../../model/messages';
import type { QuarterTurn } from '../../../model/photo-exif';

export const CLOCK_HEADING = 'Camera clocks';
/** The label of the photos whose EXIF names no camera, when no camera is chosen for the batch. */
export const NO_CAMERA_NAMED = 'Photos naming no camera';
export const realTimeLabel = (name: string) => `When was ${name} really taken?`;
export const SET_TIME = 'Set this time';
export const MOVE_BY_LABEL = 'Or move its clock by';
export const MOVE = 'Move';
export const LEAVE = 'Leave as it is';
export const UNDO = 'Undo';
export const ADJUST_SUMMARY = "Adjust a camera's clock or turn its photos";
export const CAMERA_LABEL = 'Camera to adjust';
export const MOVE_CAMERA = 'Move its photos';
export const TURN_LEGEND = 'Turn its photos upright';
export const TIME_NEEDED = 'Enter the date and time the photo was taken.';
export const AMOUNT_NEEDED = 'Enter how far to move the clock: a number above 0.';
export const TURN_NOTE = 'Smaller copies are made upright; originals are sent as they are, with the turn noted for the apps.';

export const TURN_OPTIONS: readonly { turn: QuarterTurn | 0; label: string }[] = [
  { turn: 0, label: 'As stored' },
  { turn: 90, label: 'A quarter turn clockwise' },
  { turn: 180, label: 'Half a turn' },
  { turn: 270, label: 'A quarter turn counterclockwise' },
];

const plural = (n: number, one: string) => `${formatCount(n)} ${n === 1 ? one : `${one}s`}`;

/** A span of seconds in words: "9,450 days 3 hours", "1 hour", "45 minutes 12 seconds". */
export function spanText(seconds: number): string {
  let left = Math.abs(Math.round(seconds));
  const parts: string[] = [];
  for (const [size, unit] of [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ] as const) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(plural(n, unit));
  }
  return parts.length > 0 ? parts.join(' ') : '0 seconds';
}

/** One correction as the list of corrections says it: "Browning BTC-8E: 6 photos moved 9,450 days 3 hours later." */
export function correctionText(label: string, moved: number, offsetSeconds: number): string {
  return `${label}: ${plural(moved, 'photo')} moved ${spanText(offsetSeconds)} ${offsetSeconds > 0 ? 'later' : 'earlier'}.`;
}

/** What is announced when a correction is made or undone. */
export const correctedAnnouncement = (moved: number) => `Corrected the times of ${plural(moved, 'photo')}.`;
export const UNDONE_ANNOUNCEMENT = 'Correction undone.';

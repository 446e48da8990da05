import { formatCount } from './messages';
import { formatMonthDayUTC, formatMonthDayYearUTC } from './en-us-format';
import { formatBytes } from './format-size';

/**
 * The one line that sums up a selection before it is uploaded:
 * "2,431 photos · 6.2 GB · Oct 3 – Nov 19 · 2 cameras · about 48 min at your recent speed".
 *
 * Parts that are not known are left out rather than guessed: no capture dates, no identified
 * camera, or no measured upload speed (a time is only given from a speed this browser measured).
 */

export interface SelectionFacts {
  count: number;
  bytes: number;
  /** The earliest and latest capture times (UTC fields = the camera's clock). */
  first?: Date;
  last?: Date;
  /** Cameras identified among the photos (those without EXIF are not counted). */
  cameras: number;
  /** The recent upload speed, when one was measured. */
  bytesPerSecond?: number | null;
  /** The bytes that will actually be sent (fewer than `bytes` when smaller copies are sent); `bytes` when absent. */
  sendBytes?: number;
  /** The speed is the member's cap ("Upload speed"), below the recent one: the time is said to be at it. */
  capped?: boolean;
}

const SEPARATOR = ' · ';

const valid = (date: Date | undefined): date is Date => date !== undefined && !Number.isNaN(date.getTime());
const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * The capture dates, in the camera's clock (UTC fields): "Oct 3" for one day, "Oct 3 – Nov 19"
 * within a year, "Dec 28, 2024 – Jan 3, 2025" across years; null when neither is known.
 */
export function captureRange(first?: Date, last?: Date): string | null {
  const dates = [first, last].filter(valid).sort((a, b) => a.getTime() - b.getTime());
  const from = dates[0];
  const to = dates[dates.length - 1];
  if (!from || !to) return null;
  if (dayOf(from) === dayOf(to)) return formatMonthDayUTC(from);
  if (from.getUTCFullYear() === to.getUTCFullYear()) return `${formatMonthDayUTC(from)} – ${formatMonthDayUTC(to)}`;
  return `${formatMonthDayYearUTC(from)} – ${formatMonthDayYearUTC(to)}`;
}

/**
 * A duration in words, as rough as an estimate deserves: under a minute "less than a minute";
 * under an hour to the nearest minute ("about 48 min"); under 10 hours to the nearest 5 minutes
 * ("about 2 h 10 min", "about 3 h"); from 10 hours on in whole hours ("about 26 h").
 * Negative counts as 0; a duration that is not finite reads "—".
 */
export function durationText(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  const s = Math.max(0, seconds);
  if (s < 60) return 'less than a minute';
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const fives = Math.round(s / 300) * 5;
  const hours = Math.floor(fives / 60);
  if (hours >= 10) return `about ${Math.round(s / 3600)} h`;
  const rest = fives % 60;
  return rest === 0 ? `about ${hours} h` : `about ${hours} h ${rest} min`;
}

/** The selection's line: count, size, capture dates, cameras and time at the recent speed. */
export function selectionSummary(input: SelectionFacts): string {
  const { count, bytes, cameras, bytesPerSecond } = input;
  const parts = [`${formatCount(count)} ${count === 1 ? 'photo' : 'photos'}`, formatBytes(bytes)];
  const range = captureRange(input.first, input.last);
  if (range !== null) parts.push(range);
  if (cameras > 0) parts.push(`${formatCount(cameras)} ${cameras === 1 ? 'camera' : 'cameras'}`);
  if (typeof bytesPerSecond === 'number' && Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 && bytes >= 0) {
    parts.push(`${durationText((input.sendBytes ?? bytes) / bytesPerSecond)} at ${input.capped ? 'the upload speed chosen' : 'your recent speed'}`);
  }
  return parts.join(SEPARATOR);
}

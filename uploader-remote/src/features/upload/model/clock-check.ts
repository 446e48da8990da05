import { formatCount, formatDate, NOTICE_NAME_LIMIT } from './messages';

/**
 * Photos whose capture time says the camera's clock is wrong. They are still uploaded: the
 * notice only tells the hunter to set the clock, since a wrong date spoils every later sorting by
 * day and time of day.
 *
 * A capture time is the camera's own clock, read as a Date whose UTC fields are that clock's
 * fields (a camera knows no time zone). So all checks read UTC fields, and "the future" allows a
 * day of slack: a camera set to local time may be up to 14 hours ahead of UTC, and our own clock
 * may be off a little too.
 *
 * Which problem a photo has, when several would apply (precedence reset > future > before-2010):
 * - `reset`: the capture falls on a day cameras go back to when they lose power or are reset
 *   (1 January of 1970, 1980, 2000 and 2010–2020). It wins because it names the cause: a photo
 *   of 1 January 2000 is "before 2010" too, but "the clock was reset" is what the hunter must fix.
 *   Only the reset day itself is recognised: a reset camera's clock runs on from it, so its photos
 *   of the next days pass unnoticed; the first day's photos are enough to prompt a clock check.
 *   A real photo taken on one of those New Year's Days is flagged too; that costs a notice, not
 *   an upload. Later years are not listed: a New Year's Day photo of a recent year is far more
 *   likely real.
 * - `future`: more than one day after now.
 * - `before-2010`: a year before 2010, when trail cameras with such clocks were not in use.
 * A capture time that is not a valid date is no clock problem here (nothing to judge).
 */

export type ClockProblem = 'future' | 'before-2010' | 'reset';

/** The slack allowed ahead of our clock before a capture counts as in the future. */
export const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/** The first year whose capture times are believable. */
export const EARLIEST_CAMERA_YEAR = 2010;

/** Days (UTC fields, `YYYY-MM-DD`) that camera clocks go back to when reset or out of power. */
export const RESET_DAYS: ReadonlySet<string> = new Set([
  '1970-01-01',
  '1980-01-01',
  '2000-01-01',
  ...Array.from({ length: 11 }, (_, i) => `${2010 + i}-01-01`),
]);

/** The day of a capture as `YYYY-MM-DD`, from its UTC fields (the camera's clock). */
const dayOf = (capture: Date): string => capture.toISOString().slice(0, 10);

/** What is wrong with a capture time (`now` in ms since the epoch), or null when it looks right. */
export function clockProblem(capture: Date, now: number): ClockProblem | null {
  const time = capture.getTime();
  if (Number.isNaN(time)) return null;
  if (RESET_DAYS.has(dayOf(capture))) return 'reset';
  if (time - now > FUTURE_SLACK_MS) return 'future';
  if (capture.getUTCFullYear() < EARLIEST_CAMERA_YEAR) return 'before-2010';
  return null;
}

/** One photo with a clock problem; `capture` (when known) lets the notice name the reset date. */
export interface ClockFinding {
  name: string;
  problem: ClockProblem;
  capture?: Date;
}

const ORDER: readonly ClockProblem[] = ['reset', 'future', 'before-2010'];

/** "A", "A or B", "A, B or C". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** What a group's photos "are dated": the problem in words, reset dates spelled out when known. */
function datedAs(problem: ClockProblem, findings: readonly ClockFinding[]): string {
  switch (problem) {
    case 'future':
      return 'in the future';
    case 'before-2010':
      return `before ${EARLIEST_CAMERA_YEAR}`;
    case 'reset': {
      const days = new Map<string, Date>();
      for (const f of findings) if (f.capture && !Number.isNaN(f.capture.getTime())) days.set(dayOf(f.capture), f.capture);
      const dates = [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, date]) => formatDate(date));
      if (dates.length === 0) return 'on a date cameras reset to when they lose power';
      return `${orList(dates)}, ${dates.length === 1 ? 'a date' : 'dates'} cameras reset to when they lose power`;
    }
  }
}

/**
 * The one notice for a selection's clock problems, grouped by problem (reset, future, before
 * 2010), each group naming at most `NOTICE_NAME_LIMIT` photos then "and N more":
 * "Check the camera's clock: 2 photos are dated January 1, 2013, a date cameras reset to when
 * they lose power (IMG_0004.JPG, IMG_0005.JPG); 3 photos are dated in the future (IMG_0001.JPG,
 * IMG_0002.JPG, IMG_0003.JPG). They can still be uploaded." Null when there are none.
 */
export function clockNotice(problems: readonly ClockFinding[]): string | null {
  if (problems.length === 0) return null;
  const groups = ORDER.map((problem) => ({ problem, findings: problems.filter((p) => p.problem === problem) })).filter((g) => g.findings.length > 0);
  const parts = groups.map(({ problem, findings }) => {
    const n = findings.length;
    const names = findings.slice(0, NOTICE_NAME_LIMIT).map((f) => f.name);
    const more = n - names.length;
    const listed = `${names.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
    return `${formatCount(n)} ${n === 1 ? 'photo is' : 'photos are'} dated ${datedAs(problem, findings)} (${listed})`;
  });
  const still = problems.length === 1 ? 'It can still be uploaded.' : 'They can still be uploaded.';
  return `Check the camera's clock: ${parts.join('; ')}. ${still}`;
}

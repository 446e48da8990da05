/**
 * Whether one photo's capture time says the camera's clock is wrong, on its own. The run finder
 * (controller/stages/clock/clock-runs.ts) starts a camera's run of wrong times at such a photo, and the member sets the
 * run right (docs/uploader.md#camera-clocks): a wrong date spoils every later sorting by day and
 * time of day.
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
 *   Only the reset day itself is recognised here: the days after it, as the clock ran on, are
 *   the run finder's (controller/stages/clock/clock-runs.ts). A real photo taken on one of those New Year's Days is
 *   flagged too; that costs a notice, not an upload. Later years are not listed: a New Year's Day photo of a recent year is far more
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

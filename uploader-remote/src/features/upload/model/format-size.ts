import { formatOneDecimal } from './en-us-format';
import { formatCount } from './messages';

/**
 * Sizes as people read them, in base-1024 units: "512 B", "40 KB", "4.2 MB", "6.2 GB", "1.1 TB".
 *
 * - bytes are whole numbers (a fraction is rounded);
 * - KB are whole numbers: a trail-camera photo is 1–5 MB, so KB only show small files and speeds,
 *   where a decimal adds nothing;
 * - MB, GB and TB have one decimal, always shown ("1.0 MB"), so a size never jumps in width;
 * - a value that rounds up to 1024 of its unit rolls over to the next one: 1023.96 KB reads
 *   "1.0 MB", never "1024 KB", and the smallest MB shown is "1.0 MB", never "0.0 MB";
 * - TB is the largest unit (beyond it: "1,536.0 TB");
 * - numbers of four digits carry a thousands separator, as every count on the screen does
 *   ("1,023 B", "1,023 KB").
 */

/** What an unknown size (negative, NaN, infinite) reads as: a dash, never a made-up number. */
export const UNKNOWN_SIZE = '—';

const KIB = 1024;
const DECIMAL_UNITS = ['MB', 'GB', 'TB'] as const;

/** A byte count as shown: "512 B", "40 KB", "4.2 MB"; `UNKNOWN_SIZE` when it is not a size. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return UNKNOWN_SIZE;
  const whole = Math.round(bytes);
  if (whole < KIB) return `${formatCount(whole)} B`;
  const kb = Math.round(bytes / KIB);
  if (kb < KIB) return `${formatCount(kb)} KB`;
  let value = bytes / KIB ** 2;
  for (let unit = 0; ; unit++) {
    const rounded = Math.round(value * 10) / 10;
    if (rounded < KIB || unit === DECIMAL_UNITS.length - 1) return `${formatOneDecimal(rounded)} ${DECIMAL_UNITS[unit]}`;
    value /= KIB;
  }
}

/**
 * The uploader's numbers and dates in en-US, as `Intl` writes them, without starting `Intl` for
 * the common cases (docs/architecture.md#no-intl-on-the-uploaders-first-screen).
 *
 * The first `Intl.NumberFormat` a page makes loads ICU's locale data: 53–102 ms on a phone (4×
 * CPU, measured in Chromium), plus 11–20 ms for the first `Intl.DateTimeFormat`. Made at import,
 * as the uploader did, that lands in the task that evaluates the remote, the longest of
 * /uploader's load. These functions give the same text for the values the uploader formats —
 * integers, one-decimal sizes, dates of years 1000–9999 — and hand anything else to an `Intl`
 * formatter created on first need. `test/en-us-format.test.ts` checks them against `Intl`.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;
const SHORT_MONTHS = MONTHS.map((month) => month.slice(0, 3));

/** One `Intl` formatter per set of options, made on first use only. */
function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

const intlInteger = lazy(() => new Intl.NumberFormat('en-US'));
const intlOneDecimal = lazy(() => new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }));

/** Thousands separated by commas: "1234567" → "1,234,567". */
function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "10,000": an integer as `Intl.NumberFormat('en-US')` writes it. */
export function formatInteger(n: number): string {
  if (!Number.isSafeInteger(n)) return intlInteger().format(n);
  // -0 reads "-0" in Intl.
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  return sign + group(String(Math.abs(n)));
}

/** "4.2", "1,024.0": one decimal, as `Intl.NumberFormat('en-US', { minimum and maximumFractionDigits: 1 })`. */
export function formatOneDecimal(n: number): string {
  // Intl rounds the number's shortest decimal form (0.15 → "0.2"), half away from zero; so does
  // this, on String(n) — toFixed would round the binary value (0.15 → "0.1").
  const decimal = Number.isFinite(n) && n >= 0 && n < 1e14 && !Object.is(n, -0) ? String(n) : 'e';
  if (decimal.includes('e')) return intlOneDecimal().format(n);
  const [whole = '0', fraction = ''] = decimal.split('.');
  const tenths = Number(whole) * 10 + Number(fraction[0] ?? '0') + (Number(fraction[1] ?? '0') >= 5 ? 1 : 0);
  return `${group(String(Math.floor(tenths / 10)))}.${tenths % 10}`;
}

/** The date's fields in UTC or in the browser's zone. */
interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

function fields(date: Date, utc: boolean): Fields {
  // Intl throws on an invalid date: so do these, with the same error type.
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid time value');
  return utc
    ? { year: date.getUTCFullYear(), month: date.getUTCMonth(), day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes() }
    : { year: date.getFullYear(), month: date.getMonth(), day: date.getDate(), hour: date.getHours(), minute: date.getMinutes() };
}

/** Years Intl writes as plain four digits (no era, no padding). */
const plainYear = (year: number) => year >= 1000 && year <= 9999;
const pad2 = (n: number) => String(n).padStart(2, '0');

/** A date pattern: the fast path for plain years, else the same `Intl` options. */
function datePattern(options: Intl.DateTimeFormatOptions, utc: boolean, write: (f: Fields) => string): (date: Date) => string {
  const intl = lazy(() => new Intl.DateTimeFormat('en-US', options));
  return (date) => {
    const f = fields(date, utc);
    return plainYear(f.year) ? write(f) : intl().format(date);
  };
}

/** "June 30, 2027" (UTC). */
export const formatLongDateUTC = datePattern(
  { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' },
  true,
  (f) => `${MONTHS[f.month]} ${f.day}, ${f.year}`,
);

/** "Nov 21" (the browser's time zone). */
export const formatMonthDayLocal = datePattern({ month: 'short', day: 'numeric' }, false, (f) => `${SHORT_MONTHS[f.month]} ${f.day}`);

/** "Oct 3" (UTC). */
export const formatMonthDayUTC = datePattern({ month: 'short', day: 'numeric', timeZone: 'UTC' }, true, (f) => `${SHORT_MONTHS[f.month]} ${f.day}`);

/** "Dec 28, 2024" (UTC). */
export const formatMonthDayYearUTC = datePattern(
  { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' },
  true,
  (f) => `${SHORT_MONTHS[f.month]} ${f.day}, ${f.year}`,
);

/** "Oct 3, 05:12" (UTC, 24-hour clock). */
export const formatMonthDayTimeUTC = datePattern(
  { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' },
  true,
  (f) => `${SHORT_MONTHS[f.month]} ${f.day}, ${pad2(f.hour)}:${pad2(f.minute)}`,
);

/** "12:03 AM", "5:40 PM" (UTC, 12-hour clock). */
export const formatTimeUTC = datePattern(
  { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' },
  true,
  (f) => `${f.hour % 12 === 0 ? 12 : f.hour % 12}:${pad2(f.minute)} ${f.hour < 12 ? 'AM' : 'PM'}`,
);

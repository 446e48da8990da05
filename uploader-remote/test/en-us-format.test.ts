import {
  formatInteger,
  formatLongDateUTC,
  formatMonthDayLocal,
  formatMonthDayTimeUTC,
  formatMonthDayUTC,
  formatMonthDayYearUTC,
  formatOneDecimal,
  formatTimeUTC,
} from '../src/features/upload/model/en-us-format';
import { prng as random } from '../../test-support/prng';

describe('formatInteger writes what Intl.NumberFormat("en-US") writes', () => {
  const intl = new Intl.NumberFormat('en-US');

  it('for counts of every length, zero and negatives', () => {
    const next = random(1);
    const values = [
      0,
      -0,
      1,
      9,
      10,
      999,
      1000,
      1001,
      9999,
      10000,
      123456,
      999999,
      1000000,
      -1,
      -1000,
      -1234567,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ];
    for (let i = 0; i < 5000; i++) values.push(Math.floor(next() * 10 ** Math.floor(next() * 16)) * (next() < 0.1 ? -1 : 1));
    for (const n of values) expect([n, formatInteger(n)]).toEqual([n, intl.format(n)]);
  });

  it('for what is not a safe integer (fractions, huge, NaN, infinities), through Intl itself', () => {
    for (const n of [1.5, 0.1234, 2 ** 60, NaN, Infinity, -Infinity, 1e21]) expect(formatInteger(n)).toBe(intl.format(n));
  });
});

describe('formatOneDecimal writes what Intl.NumberFormat("en-US", one fraction digit) writes', () => {
  const intl = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

  it('for sizes in MB, GB and TB, ties included', () => {
    const next = random(2);
    const values = [0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.95, 1, 1.05, 2.25, 9.95, 99.95, 999.95, 1023.95, 1000, 12345.65, 1e14 + 0.5];
    for (let i = 0; i < 5000; i++) values.push(next() * 10 ** Math.floor(next() * 7));
    for (let i = 0; i < 2000; i++) values.push(Math.round(next() * 100000) / 100);
    for (const n of values) expect([n, formatOneDecimal(n)]).toEqual([n, intl.format(n)]);
  });

  it('for negatives and what is not finite, through Intl itself', () => {
    for (const n of [-1.25, -0, NaN, Infinity, 1e20]) expect(formatOneDecimal(n)).toBe(intl.format(n));
  });
});

describe('the date patterns write what Intl.DateTimeFormat("en-US") writes', () => {
  const cases: [string, (date: Date) => string, Intl.DateTimeFormatOptions][] = [
    ['long, UTC', formatLongDateUTC, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }],
    ['month and day, local', formatMonthDayLocal, { month: 'short', day: 'numeric' }],
    ['month and day, UTC', formatMonthDayUTC, { month: 'short', day: 'numeric', timeZone: 'UTC' }],
    ['month, day and year, UTC', formatMonthDayYearUTC, { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }],
    [
      'month, day and time, UTC',
      formatMonthDayTimeUTC,
      { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' },
    ],
    ['time, UTC', formatTimeUTC, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }],
  ];
  const next = random(3);
  const dates = [
    new Date(Date.UTC(2024, 9, 3, 5, 12, 44)),
    new Date(Date.UTC(2027, 5, 30)),
    new Date(Date.UTC(2024, 11, 31, 23, 59, 59, 999)),
    new Date(Date.UTC(2025, 0, 1, 0, 0)),
    new Date(Date.UTC(2024, 1, 29, 12, 0)),
    new Date(Date.UTC(1000, 0, 1)),
    new Date(Date.UTC(9999, 11, 31, 23, 59)),
  ];
  // Any moment from 1970 to 2100: every month, day, hour and minute comes up.
  for (let i = 0; i < 3000; i++) dates.push(new Date(Math.floor(next() * Date.UTC(2100, 0, 1))));

  it.each(cases)('%s', (_label, format, options) => {
    const intl = new Intl.DateTimeFormat('en-US', options);
    for (const date of dates) expect([date.toISOString(), format(date)]).toEqual([date.toISOString(), intl.format(date)]);
  });

  it.each(cases)('%s, for years Intl writes otherwise (before 1000, BC), through Intl itself', (_label, format, options) => {
    const intl = new Intl.DateTimeFormat('en-US', options);
    for (const date of [new Date(Date.UTC(999, 11, 31, 12)), new Date(Date.UTC(-44, 2, 15, 12)), new Date(Date.UTC(45, 0, 1, 12))]) {
      expect(format(date)).toBe(intl.format(date));
    }
  });

  it.each(cases)('%s: an invalid date is refused as Intl refuses it', (_label, format, options) => {
    expect(() => new Intl.DateTimeFormat('en-US', options).format(new Date(NaN))).toThrow(RangeError);
    expect(() => format(new Date(NaN))).toThrow(RangeError);
  });
});

/**
 * What scrubbing one error message costs (shared/src/analytics/client-errors.ts, scrubText), by the
 * message's length from 1 KB to 1 MB, for the texts that made the old patterns quadratic: a run
 * without spaces (minified code), one with an "@" in the middle, a data URL, a stack of many URLs.
 * "before" is the scrub as it was until this bench (its patterns unbounded, run over the whole
 * message), timed only while a call stays under a few seconds; "after" is today's. In Node (V8, as
 * Chromium). `npm run bench:scrub`; `BENCH_SCRUB_MAX_KB` (default 1024).
 */
import { scrubText } from '../shared/src/analytics/client-errors';
import { printTable } from './table';

const MAX_KB = Number(process.env.BENCH_SCRUB_MAX_KB ?? 1024);

/** The scrub before: every pattern over the whole message, unbounded, then cut to 300. */
function scrubBefore(text: string): string {
  // eslint-disable-next-line no-control-regex -- as the scrub had it
  const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
  const scrubbed = text
    .replace(control, ' ')
    .replace(/[^\s@"'<>()]+@[^\s@"'<>()]+\.[a-z]{2,}/gi, '<email>')
    .replace(/\b(https?:\/\/[^\s?#"'<>]*)[?#][^\s"'<>]*/gi, '$1')
    .replace(/\d{6,}/g, '<number>')
    .replace(/\s+/g, ' ')
    .trim();
  return scrubbed.length > 300 ? `${scrubbed.slice(0, 299)}…` : scrubbed;
}

const KINDS: [string, (n: number) => string][] = [
  ['a run without spaces', (n) => 'x'.repeat(n)],
  ['a run with "@" in the middle', (n) => `${'a'.repeat(n / 2)}@${'b'.repeat(n / 2 - 1)}`],
  ['a data URL', (n) => `Failed to load data:image/jpeg;base64,${'QUJD'.repeat(n / 4)}`.slice(0, n)],
  ['a stack of URLs', (n) => 'at f (https://trailsense.example/a.js?v=1:1:2) '.repeat(Math.ceil(n / 47)).slice(0, n)],
];

/** Median ms of one call over enough calls to take ~200 ms (at least 3); null once a call took over `giveUpMs`. */
function time(scrub: (text: string) => string, text: string, giveUpMs: number): number | null {
  const first = performance.now();
  scrub(text);
  const once = performance.now() - first;
  if (once > giveUpMs) return once;
  const runs = Math.max(3, Math.min(1000, Math.round(200 / Math.max(once, 0.001))));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    scrub(text);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const ms = (v: number | null) => (v === null ? 'not run' : v >= 100 ? `${v.toFixed(0)} ms` : v >= 1 ? `${v.toFixed(1)} ms` : `${(v * 1000).toFixed(0)} µs`);

function main() {
  const lengths: number[] = [];
  for (let kb = 1; kb <= MAX_KB; kb *= 4) lengths.push(kb * 1024);
  if (lengths.at(-1)! < MAX_KB * 1024) lengths.push(MAX_KB * 1024);
  const rows: string[][] = [['message', ...lengths.map((n) => `${n / 1024} KB`)]];
  for (const [kind, make] of KINDS) {
    for (const [name, scrub] of [
      ['before', scrubBefore],
      ['after', scrubText],
    ] as const) {
      let gaveUp = false;
      const cells = lengths.map((n) => {
        if (gaveUp) return 'not run';
        const t = time(scrub, make(n), 3000);
        if (t !== null && t > 3000) gaveUp = true;
        return ms(t);
      });
      rows.push([`${kind}, ${name}`, ...cells]);
    }
  }
  console.log(`\nscrubText, one call, median (Node ${process.version}; "not run": the call before took over 3 s)\n`);
  printTable(rows);
}

main();

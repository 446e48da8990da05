// bench/crc32-main-thread: how long Amplify's CRC32 of a photo holds the page's main thread.
// The uploader asks Amplify for `checksumAlgorithm: 'crc-32'` (infra/docs/server.md#checksums);
// Amplify then reads the file in 1 MiB slices with FileReader and runs the `crc-32` package's
// `crc32.buf` over each on the main thread, before it sends a byte (its foundation/utils/crc32).
// This runs that very loop, with the very package Amplify imports, in real Chromium over a 5 MB
// photo (random bytes: the CRC's cost does not depend on them), RUNS times (default 5) at each CPU
// factor (1×, and 4×: Lighthouse's mobile factor, by CDP throttling). Each `crc32.buf` call is a
// task of its own between two FileReader loads, so its duration is the longest the page waits;
// PerformanceObserver counts the tasks over 50 ms. Prints one table; asserts nothing.
//   npm run bench:crc32
//   RUNS=9 MB=5 npm run bench:crc32
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/support/chromium';

const RUNS = Number(process.env.RUNS ?? 5);
const MB = Number(process.env.MB ?? 5);
const CPUS = [1, 4];

/** The crc-32 build Amplify's storage imports (resolved from @aws-amplify/storage). */
function crc32Source(): string {
  const fromStorage = createRequire(require.resolve('@aws-amplify/storage/package.json'));
  return fs.readFileSync(path.join(path.dirname(fromStorage.resolve('crc-32/package.json')), 'crc32.js'), 'utf8');
}

interface Run {
  /** Each crc32.buf call, ms. */
  chunks: number[];
  /** Main-thread tasks over 50 ms while it ran. */
  longTasks: number;
  /** From the first slice read to the checksum, ms. */
  total: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const browser = await chromium.launch(chromiumLaunchOptions());
  const rows: string[] = [];
  try {
    for (const cpu of CPUS) {
      const runs: Run[] = [];
      for (let r = 0; r < RUNS; r++) {
        const page = await browser.newPage();
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
        await page.setContent('<!doctype html><title>crc32</title>');
        await page.addScriptTag({ content: crc32Source() });
        // tsx names the functions it compiles with a helper the page lacks.
        await page.evaluate('globalThis.__name = globalThis.__name || ((f) => f)');
        runs.push(
          await page.evaluate(async (megabytes) => {
            const size = megabytes * 1_000_000;
            const bytes = new Uint8Array(size);
            for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65_536)));
            const file = new File([bytes], 'IMG_0001.JPG', { type: 'image/jpeg' });
            let longTasks = 0;
            const observer = new PerformanceObserver((list) => (longTasks += list.getEntries().length));
            observer.observe({ type: 'longtask' });
            const crc = (window as unknown as { CRC32: { buf(data: Uint8Array, seed: number): number } }).CRC32;
            const read = (blob: Blob) =>
              new Promise<ArrayBuffer>((resolve, reject) => {
                const reader = new FileReader();
                reader.onload = () => resolve(reader.result as ArrayBuffer);
                reader.onerror = () => reject(new Error(String(reader.error)));
                reader.readAsArrayBuffer(blob);
              });
            // Amplify's loop (foundation/utils/crc32: CHUNK_SIZE 1 MiB).
            const chunks: number[] = [];
            const started = performance.now();
            let seed = 0;
            for (let offset = 0; offset < file.size; offset += 1024 * 1024) {
              const data = new Uint8Array(await read(file.slice(offset, Math.min(offset + 1024 * 1024, file.size))));
              const t = performance.now();
              seed = crc.buf(data, seed) >>> 0;
              chunks.push(performance.now() - t);
            }
            const total = performance.now() - started;
            await new Promise((resolve) => setTimeout(resolve, 100));
            observer.disconnect();
            return { chunks, longTasks, total };
          }, MB),
        );
        await page.close();
      }
      // The page's first call runs crc-32 before V8 optimised it: the first photo's first MiB.
      const first = runs.map((run) => run.chunks[0] ?? 0);
      const warm = runs.flatMap((run) => run.chunks.slice(1));
      rows.push(
        `| ${cpu}× | ${MB} MB | ${median(first).toFixed(0)} (${Math.min(...first).toFixed(0)}–${Math.max(...first).toFixed(0)}) | ${median(warm).toFixed(1)} | ${Math.max(...warm).toFixed(1)} | ${runs.reduce((n, run) => n + run.longTasks, 0)} in ${runs.length} runs | ${median(runs.map((run) => run.total)).toFixed(0)} |`,
      );
    }
  } finally {
    await browser.close();
  }
  console.log(`Amplify's CRC32 of a photo on Chromium's main thread (${RUNS} runs each)\n`);
  console.log(
    '| CPU | photo | first 1 MiB crc32.buf of the page, median (range) ms | each later 1 MiB, median ms | longest later, ms | tasks over 50 ms | whole checksum (reads included), median ms |',
  );
  console.log('|---|---|---:|---:|---:|---|---:|');
  for (const row of rows) console.log(row);
}

void main();

/**
 * "Send smaller copies" over a slow link (docs/performance.md#smaller-copies): the real uploader
 * (production builds, Chromium) against the sandbox behind its link emulator, at 3 Mbit/s with a
 * 600 ms round trip (a satellite or rural DSL uplink) and at 20 Mbit/s with 80 ms, each sending
 * realistic 3–5 MB photos (e2e/support/photos.ts: painted in Chromium, cached) as originals and as
 * copies, in one run. Per row: photos per hour, bytes sent per photo, how busy the link was (bytes
 * it carried / (capacity × time)), and the longest main-thread task while sending (PerformanceObserver
 * 'longtask'). Goal: at least 6× the photos per hour with copies at 3 Mbit/s, the link ≥ 95 % busy.
 *
 * Needs `npm run build` first and the ports free (the sandbox's and 3000–3002). `npm run bench:copies-link`.
 * BENCH_COPY_PHOTOS (default 96: a minute of copies at 3 Mbit/s, so the first photo's wait for its
 * slot and copy weighs as little as on a card), cycled from BENCH_PAINTED (default 24) painted
 * photos, each made its own; BENCH_ORIGINAL_PHOTOS (default 6, about as long at 3 Mbit/s);
 * BENCH_COPY_LINKS (default `3:600,20:80`). BENCH_COPY_WHOLE=1 adds a run of copies decoded
 * whole, as before the DCT scale (the production copy worker served with `ImageDecoder` removed
 * from its scope, so it takes its whole-decode path), after the copies; BENCH_CPU=1 prints, for
 * each run, where the machine's CPU went from the Upload click to 100 % (bench/process-cpu.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { formatLink, parseCleanLink, startSandbox } from '../sandbox/src/index';
import type { CleanLink } from '../sandbox/src/index';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { realisticPhotos } from '../e2e/support/photos';
import { startStack } from '../e2e/support/servers';
import { linkQuiet, ownPhotos, sendBatch } from './link-runs';
import { cpuBetween, cpuSnapshot, type CpuSnapshot } from './process-cpu';
import { printTable } from './table';

const COPY_PHOTOS = Number(process.env.BENCH_COPY_PHOTOS ?? 96);
const ORIGINAL_PHOTOS = Number(process.env.BENCH_ORIGINAL_PHOTOS ?? 6);
const PAINTED = Number(process.env.BENCH_PAINTED ?? 24);
const WHOLE = process.env.BENCH_COPY_WHOLE === '1';
const CPU = process.env.BENCH_CPU === '1';
/** How a run sends its photos: as they are, as copies, or as copies decoded whole (the worker's path before the DCT scale). */
type Form = 'originals' | 'copies' | 'copies, decoded whole';
const LINKS: CleanLink[] = (process.env.BENCH_COPY_LINKS ?? '3:600,20:80').split(',').map((spec) => {
  const parsed = parseCleanLink(spec.trim());
  if ('error' in parsed || !parsed.link) throw new Error(`BENCH_COPY_LINKS: ${'error' in parsed ? parsed.error : 'a link cannot be off here'}`);
  return parsed.link;
});

interface Run {
  photos: number;
  fileBytes: number;
  /** Retries the batch's outcome event counted. */
  retries: number;
  seconds: number;
  carried: number;
  longestTaskMs: number;
  /** Where the machine's CPU went meanwhile (BENCH_CPU). */
  cpu: ReturnType<typeof cpuBetween> | null;
}

/** Sends `files` as `form` says in a fresh signed-in page, the link quiet before the click (bench/link-runs.ts). */
async function send(browser: Browser, shellUrl: string, files: string[], form: Form, carried: () => number): Promise<Run> {
  let before = 0;
  let after = 0;
  let cpuBefore: CpuSnapshot | null = null;
  let cpuAfter: CpuSnapshot | null = null;
  const run = await sendBatch(browser, shellUrl, files, {
    copies: form !== 'originals',
    // The production copy worker with ImageDecoder taken from its scope: it takes its whole-decode path.
    ...(form === 'copies, decoded whole'
      ? {
          prepare: (context) =>
            context.route('**/copy-worker.*.js', async (route) => {
              const response = await route.fetch();
              await route.fulfill({ response, body: `delete self.ImageDecoder;\n${await response.text()}` });
            }),
        }
      : {}),
    beforeClick: async () => {
      await linkQuiet(carried);
      before = carried();
      cpuBefore = CPU ? cpuSnapshot() : null;
    },
    atEnd: () => {
      after = carried();
      cpuAfter = cpuBefore ? cpuSnapshot() : null;
    },
  });
  return {
    photos: files.length,
    fileBytes: files.reduce((n, f) => n + fs.statSync(f).size, 0),
    retries: run.retries,
    seconds: run.seconds,
    carried: after - before,
    longestTaskMs: run.longestTaskMs,
    cpu: cpuBefore && cpuAfter ? cpuBetween(cpuBefore, cpuAfter) : null,
  };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-copies-'));
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...(chromiumLaunchOptions().args ?? []), '--no-sandbox'] });
  const painted = await realisticPhotos(PAINTED, { firstSeed: 1001, browser });
  const sources = Array.from({ length: Math.max(COPY_PHOTOS, ORIGINAL_PHOTOS) }, (_, i) => painted[i % painted.length]!);
  const stack = await startStack(3000);
  const cpuTables: { title: string; rows: string[][] }[] = [];
  const rows: string[][] = [
    [
      'link',
      'sent as',
      'photos',
      'photos per hour',
      'bytes per photo',
      'link busy',
      'retries',
      'longest task',
      'vs originals',
      'vs originals at 100 % of the link',
    ],
  ];
  try {
    for (const link of LINKS) {
      const sandbox = await startSandbox({ dataDir: path.join(work, 'sandbox'), reset: true, quiet: true, link });
      try {
        const capacity = (link.mbit * 1e6) / 8;
        const runs: [Form, Run][] = [];
        const forms: Form[] = ['originals', 'copies', ...(WHOLE ? (['copies, decoded whole'] as const) : [])];
        for (const [i, form] of forms.entries()) {
          const files = ownPhotos(form === 'originals' ? sources.slice(0, ORIGINAL_PHOTOS) : sources, path.join(work, `${link.mbit}-${i}`));
          runs.push([form, await send(browser, stack.shellUrl, files, form, () => sandbox.linkBytesSent())]);
          const cpu = runs.at(-1)![1].cpu;
          if (cpu) cpuTables.push(cpuTable(`${formatLink(link)}, ${form}`, runs.at(-1)![1].seconds, cpu));
        }
        const perHour = (r: Run) => (r.photos * 3600) / r.seconds;
        const base = perHour(runs[0]![1]);
        // The most originals the link could carry: their bytes at its full rate, no retry, no gap.
        const original = runs[0]![1];
        const ideal = (capacity * 3600) / (original.fileBytes / original.photos);
        for (const [form, r] of runs) {
          const busy = r.carried / (capacity * r.seconds);
          rows.push([
            formatLink(link),
            form,
            String(r.photos),
            perHour(r).toFixed(0),
            `${(r.carried / r.photos / 1e6).toFixed(2)} MB (files ${(r.fileBytes / r.photos / 1e6).toFixed(2)} MB)`,
            `${(busy * 100).toFixed(1)} %`,
            String(r.retries),
            `${r.longestTaskMs.toFixed(0)} ms`,
            form !== 'originals' ? `${(perHour(r) / base).toFixed(1)}×` : '1×',
            form !== 'originals' ? `${(perHour(r) / ideal).toFixed(1)}× (of ${ideal.toFixed(0)} an hour)` : `${(perHour(r) / ideal).toFixed(2)}×`,
          ]);
        }
      } finally {
        await sandbox.stop();
      }
    }
  } finally {
    await browser.close();
    await stack.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`\nSmaller copies through the link emulator (${os.cpus().length} CPUs; photos painted, 3–5 MB; link busy = bytes carried / (capacity × time))\n`);
  printTable(rows);
  for (const table of cpuTables) {
    console.log(`\n${table.title}`);
    printTable(table.rows);
  }
}

/** One run's CPU, as a table: seconds per process role and thread, and their share of one core over the run. */
function cpuTable(title: string, seconds: number, cpu: NonNullable<Run['cpu']>): { title: string; rows: string[][] } {
  const share = (s: number) => `${((100 * s) / seconds).toFixed(0)} %`;
  return {
    title: `CPU from Upload to 100 %: ${title}, ${seconds.toFixed(1)} s; the machine ${cpu.machineBusy.toFixed(1)} of ${cpu.machineTotal.toFixed(1)} CPU s busy`,
    rows: [['process · thread', 'CPU s', 'of one core'], ...cpu.rows.map(([key, s]) => [key, s.toFixed(1), share(s)])],
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

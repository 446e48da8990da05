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
 * BENCH_COPY_LINKS (default `3:600,20:80`).
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
import { printTable } from './table';

const COPY_PHOTOS = Number(process.env.BENCH_COPY_PHOTOS ?? 96);
const ORIGINAL_PHOTOS = Number(process.env.BENCH_ORIGINAL_PHOTOS ?? 6);
const PAINTED = Number(process.env.BENCH_PAINTED ?? 24);
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
}

/** Sends `files` as copies or originals in a fresh signed-in page, the link quiet before the click (bench/link-runs.ts). */
async function send(browser: Browser, shellUrl: string, files: string[], copies: boolean, carried: () => number): Promise<Run> {
  let before = 0;
  let after = 0;
  const run = await sendBatch(browser, shellUrl, files, {
    copies,
    beforeClick: async () => {
      await linkQuiet(carried);
      before = carried();
    },
    atEnd: () => {
      after = carried();
    },
  });
  return {
    photos: files.length,
    fileBytes: files.reduce((n, f) => n + fs.statSync(f).size, 0),
    retries: run.retries,
    seconds: run.seconds,
    carried: after - before,
    longestTaskMs: run.longestTaskMs,
  };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-copies-'));
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...(chromiumLaunchOptions().args ?? []), '--no-sandbox'] });
  const painted = await realisticPhotos(PAINTED, { firstSeed: 1001, browser });
  const sources = Array.from({ length: Math.max(COPY_PHOTOS, ORIGINAL_PHOTOS) }, (_, i) => painted[i % painted.length]!);
  const stack = await startStack(3000);
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
        const runs: [string, Run][] = [];
        for (const copies of [false, true]) {
          const files = ownPhotos(copies ? sources : sources.slice(0, ORIGINAL_PHOTOS), path.join(work, `${link.mbit}-${copies}`));
          runs.push([copies ? 'copies' : 'originals', await send(browser, stack.shellUrl, files, copies, () => sandbox.linkBytesSent())]);
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
            form === 'copies' ? `${(perHour(r) / base).toFixed(1)}×` : '1×',
            form === 'copies' ? `${(perHour(r) / ideal).toFixed(1)}× (of ${ideal.toFixed(0)} an hour)` : `${(perHour(r) / ideal).toFixed(2)}×`,
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
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

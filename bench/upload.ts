/**
 * Uploader benchmark, in real Chromium against the sandbox and the production builds:
 * 300 JPEGs of about 1.5 MB uploaded with concurrency 1, 4, 6 and the default (as the link fits), side by
 * side; then 10,000 small files selected — time until the list is interactive, JS heap, DOM rows,
 * and when the background check of their first bytes ends.
 * Then a whole card through Add Folder (BENCH_INTAKE_FILES, default 10,000 EXIF JPEGs of 1 MiB,
 * sparse on disk): time until listed and until EXIF and fingerprints are known, longest task, heap;
 * and 50,000 small files (BENCH_INTAKE_SMALL) until the list is usable.
 * Then, through the sandbox's link emulator (one shared uplink, default 20 Mbit/s and 80 ms RTT):
 * 200 JPEGs of about 2 MB with the default concurrency and with concurrency 1, goodput =
 * bytes / (link capacity × time).
 * Needs `npm run build` first and the ports free (wrap in flock). `npm run bench:upload`.
 * Smaller runs: BENCH_FILES (loopback, default 300), BENCH_LINK_FILES (through the link, default
 * 200), BENCH_LINK (the link, `<mbit>:<rttMs>`, default 20:80).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { formatLink, parseCleanLink, startSandbox } from '../sandbox/src/index';
import type { CleanLink, Sandbox } from '../sandbox/src/index';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack } from '../e2e/support/servers';
import { accounts, startSignedIn } from '../e2e/support/session';
import { jpegBytes, writeJpegs } from '../e2e/support/uploads';
import { jpegWithExif } from '../test-support/jpeg';
import { FINGERPRINT_SAMPLE_BYTES } from '../uploader-remote/src/features/upload/model/fingerprint';
import { DEFAULT_CONCURRENCY } from '../uploader-remote/src/features/upload/model/concurrency';
import { timeUpload } from './upload-page';
import { printTable } from './table';
import { chooseFiles } from '../e2e/support/uploader-page';

const FILES = Number(process.env.BENCH_FILES ?? 300);
const PADDING = 1_500_000;
const LINK_FILES = Number(process.env.BENCH_LINK_FILES ?? 200);
const REPICK_OLD = Number(process.env.BENCH_REPICK_OLD ?? 9000);
const REPICK_NEW = Number(process.env.BENCH_REPICK_NEW ?? 1000);
const INTAKE_FILES = Number(process.env.BENCH_INTAKE_FILES ?? 10_000);
const INTAKE_SMALL = Number(process.env.BENCH_INTAKE_SMALL ?? 50_000);
/** Each intake photo's apparent size: reading it whole would take 10 GB of reads; sparse on disk. */
const INTAKE_BYTES = 1024 * 1024;
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? 'loopback,repick,intake,link').split(',').map((s) => s.trim()));
const LINK_PADDING = 2_000_000;
const LINK: CleanLink = (() => {
  const parsed = parseCleanLink(process.env.BENCH_LINK ?? '20:80');
  if ('error' in parsed || !parsed.link) throw new Error(`BENCH_LINK: ${'error' in parsed ? parsed.error : 'the link cannot be off here'}`);
  return parsed.link;
})();

/**
 * `count` JPEGs of varied sizes (as a card's are: sizes decide which photos must be fingerprinted
 * before they are listed), `base` bytes ± 10 %.
 */
function writeVariedJpegs(dir: string, count: number, prefix: string, base: number): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const file = path.join(dir, `${prefix}${String(i + 1).padStart(5, '0')}.JPG`);
    fs.writeFileSync(file, jpegBytes(`${prefix}${i}`, Math.round(base * (0.9 + Math.random() * 0.2))));
    return file;
  });
}

/**
 * Records the page's long tasks and when the picker's change event fired. The task that delivers a
 * selection is Chromium's own (building a FileList of 10,000 files takes about 1.1 s on a bare page
 * here, before any of our code runs), so it is reported apart from the longest of the others.
 */
const longTaskProbe = () => {
  const w = window as unknown as { __tasks: { start: number; duration: number }[]; __changeAt: number };
  w.__tasks = [];
  w.__changeAt = -1;
  document.addEventListener('change', () => (w.__changeAt = performance.now()), { capture: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) w.__tasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask' });
};

const longTasks = () =>
  (() => {
    const w = window as unknown as { __tasks: { start: number; duration: number }[]; __changeAt: number };
    const picker = w.__tasks.find((t) => t.start <= w.__changeAt && w.__changeAt <= t.start + t.duration);
    const others = w.__tasks.filter((t) => t !== picker).map((t) => t.duration);
    return { picker: picker?.duration ?? 0, longest: others.length > 0 ? Math.max(...others) : 0 };
  })();

/** The re-pick rows: a card of which most photos were uploaded before, picked again. */
async function rePick(browser: Browser, shellUrl: string, work: string): Promise<string[][]> {
  const rows: string[][] = [];
  const old = writeVariedJpegs(path.join(work, 'repick-old'), REPICK_OLD, 'OLD_', 20_000);
  // One browser profile for both visits, as a hunter's own browser: the journal is in its IndexedDB.
  const profile = await browser.newContext();
  const page = await profile.newPage();
  await startSignedIn(page, accounts.subscriber);
  await page.goto(`${shellUrl}/uploader`);
  await page.getByText(/You have uploaded/).waitFor();
  await chooseFiles(page, old);
  await page.getByText(`Overall Progress: 0 of ${formatNumber(REPICK_OLD)} = 0%`).waitFor({ timeout: 600_000 });
  const uploadStart = Date.now();
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.getByText(`Overall Progress: ${formatNumber(REPICK_OLD)} of ${formatNumber(REPICK_OLD)} = 100%`).waitFor({ timeout: 3_600_000 });
  const uploadSeconds = (Date.now() - uploadStart) / 1000;
  await page.close();
  rows.push([
    `journal ${formatNumber(REPICK_OLD)} photos by uploading them (~20 KB)`,
    `${uploadSeconds.toFixed(1)} s`,
    `${(REPICK_OLD / uploadSeconds).toFixed(1)} files/s`,
    '',
    '',
  ]);

  const fresh = writeVariedJpegs(path.join(work, 'repick-new'), REPICK_NEW, 'NEW_', 2_500_000);
  const freshBytes = fresh.reduce((n, f) => n + fs.statSync(f).size, 0);
  const card = [...old, ...fresh];
  const repick = await profile.newPage();
  await startSignedIn(repick, accounts.subscriber);
  await repick.goto(`${shellUrl}/uploader`);
  await repick.getByText(/You have uploaded/).waitFor();
  await repick.evaluate(longTaskProbe);
  const cdp = await repick.context().newCDPSession(repick);
  await cdp.send('Performance.enable');
  await chooseFiles(repick, card);
  const picked = Date.now();
  await repick
    .getByRole('region', { name: `File list, ${formatNumber(REPICK_NEW)} files` })
    .waitFor({ timeout: 120_000 })
    .catch(async (error: unknown) => {
      const shown = await repick
        .locator('main')
        .innerText()
        .catch(() => '(no page)');
      throw new Error(`The re-picked list never showed the ${REPICK_NEW} new photos. The page says:\n${shown.slice(0, 1500)}`, { cause: error });
    });
  const listed = (Date.now() - picked) / 1000;
  await repick.getByText(/^Checking [\d,]+ files…$/).waitFor({ state: 'hidden', timeout: 600_000 });
  const decided = (Date.now() - picked) / 1000;
  const skipped = (await repick.getByTestId('uploader-notice').textContent()) ?? '';
  await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1e6;
  const tasks = await repick.evaluate(longTasks);
  const goal = (ok: boolean, text: string) => `${text}: ${ok ? 'met' : 'MISSED'}`;
  rows.push([
    `re-pick ${formatNumber(card.length)} (${formatNumber(REPICK_OLD)} uploaded before) → list shows the ${formatNumber(REPICK_NEW)} to go`,
    `${listed.toFixed(2)} s`,
    goal(listed <= 2, 'goal ≤ 2 s'),
    `JS heap ${heap.toFixed(1)} MB (${goal(heap <= 200, 'goal ≤ 200 MB')})`,
    `longest main-thread task ${tasks.longest > 0 ? `${tasks.longest.toFixed(0)} ms` : '< 50 ms'} (the picker's own: ${tasks.picker.toFixed(0)} ms)`,
  ]);
  rows.push([
    `  … all ${formatNumber(card.length)} decided (fingerprinted, journal asked)`,
    `${decided.toFixed(2)} s`,
    `notice: ${skipped.slice(0, 60)}`,
    '',
    '',
  ]);
  await profile.close();

  // Fingerprints of the multi-MB photos alone, in a fresh page: how fast a card is read.
  const alone = await browser.newPage();
  await startSignedIn(alone, accounts.subscriber);
  await alone.goto(`${shellUrl}/uploader`);
  await alone.getByText(/You have uploaded/).waitFor();
  await chooseFiles(alone, fresh);
  const start = Date.now();
  await alone.getByText(/^Checking [\d,]+ files…$/).waitFor({ state: 'hidden', timeout: 600_000 });
  const seconds = (Date.now() - start) / 1000;
  const sampled = fresh.length * 2 * FINGERPRINT_SAMPLE_BYTES;
  rows.push([
    `fingerprint ${formatNumber(REPICK_NEW)} photos of ~2.5 MB (first and last 64 KiB each)`,
    `${seconds.toFixed(2)} s`,
    `${(fresh.length / seconds).toFixed(0)} files/s`,
    `${(sampled / 1e6 / seconds).toFixed(0)} MB/s read`,
    `${(freshBytes / 1e6 / seconds).toFixed(0)} MB/s of photos`,
  ]);
  await alone.close();
  return rows;
}

const formatNumber = (n: number) => new Intl.NumberFormat('en-US').format(n);

/**
 * `count` trail-camera photos of INTAKE_BYTES each, in DCIM/100MEDIA…: EXIF (make, model, serial,
 * capture time) in the first bytes, a distinct tail, and a sparse hole between, so 10 GB of
 * photos take a few MB of disk while reading one whole would still cost a megabyte.
 */
function writeCard(root: string, count: number): string {
  const card = path.join(root, 'DCIM');
  for (let i = 0; i < count; i++) {
    const folder = path.join(card, `${100 + Math.floor(i / 1000)}MEDIA`);
    if (i % 1000 === 0) fs.mkdirSync(folder, { recursive: true });
    const day = String((i % 28) + 1).padStart(2, '0');
    const head = jpegWithExif({
      make: 'Browning',
      model: 'BTC-8E',
      serial: 'BR-0042',
      dateTimeOriginal: `2026:10:${day} 05:${String(i % 60).padStart(2, '0')}:00`,
    });
    const file = path.join(folder, `IMG_${String(i + 1).padStart(5, '0')}.JPG`);
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, head, 0, head.length, 0);
    const tail = Buffer.from(`tail ${i} ${file}`.padEnd(64, '.'));
    fs.writeSync(fd, tail, 0, tail.length, INTAKE_BYTES - tail.length);
    fs.closeSync(fd);
  }
  return card;
}

/** The intake rows: a whole card through Add Folder (EXIF and fingerprints), and 50,000 small files. */
async function intake(browser: Browser, shellUrl: string, work: string): Promise<string[][]> {
  const rows: string[][] = [];
  const goal = (ok: boolean, text: string) => `${text}: ${ok ? 'met' : 'MISSED'}`;
  const open = async () => {
    const page = await browser.newPage();
    // The directory input (a headless browser cannot answer showDirectoryPicker).
    await page.addInitScript(() => delete (window as { showDirectoryPicker?: unknown }).showDirectoryPicker);
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${shellUrl}/uploader`);
    await page.getByText(/You have uploaded/).waitFor();
    await page.evaluate(longTaskProbe);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    return { page, cdp };
  };
  const pickFolder = async (page: Page, folder: string) => {
    await chooseFiles(page, folder, 'Add Folder');
  };
  const heapOf = async (cdp: Awaited<ReturnType<typeof open>>['cdp']) => {
    await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
    const { metrics } = await cdp.send('Performance.getMetrics');
    return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1e6;
  };

  const card = writeCard(path.join(work, 'intake'), INTAKE_FILES);
  {
    const { page, cdp } = await open();
    // Sampled while the card is read, every 250 ms: the peak, not only what is left after a GC.
    let peak = 0;
    const sampler = setInterval(() => {
      void cdp
        .send('Performance.getMetrics')
        .then((r) => {
          const used = (r.metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1e6;
          peak = Math.max(peak, used);
        })
        .catch(() => undefined);
    }, 250);
    await pickFolder(page, card);
    const picked = Date.now();
    await page.getByRole('region', { name: `File list, ${formatNumber(INTAKE_FILES)} files` }).waitFor({ timeout: 300_000 });
    const listed = (Date.now() - picked) / 1000;
    await page.getByText(/^Checking [\d,]+ files…$/).waitFor({ state: 'hidden', timeout: 900_000 });
    const known = (Date.now() - picked) / 1000;
    clearInterval(sampler);
    const summary = (await page.getByTestId('selection-summary').textContent()) ?? '';
    const heap = await heapOf(cdp);
    const tasks = await page.evaluate(longTasks);
    rows.push([
      `Add Folder: ${formatNumber(INTAKE_FILES)} EXIF JPEGs of 1 MiB in 10 folders → listed`,
      `${listed.toFixed(2)} s`,
      `longest main-thread task ${tasks.longest > 0 ? `${tasks.longest.toFixed(0)} ms` : 'none over 50 ms'} (${goal(tasks.longest <= 50, 'goal ≤ 50 ms')}; the picker's own: ${tasks.picker.toFixed(0)} ms)`,
      `JS heap peak ${peak.toFixed(1)} MB, ${heap.toFixed(1)} MB after GC (${goal(peak <= 200, 'goal ≤ 200 MB')})`,
      '',
    ]);
    rows.push([`  … EXIF and fingerprints known for all`, `${known.toFixed(2)} s`, `${(INTAKE_FILES / known).toFixed(0)} files/s`, `summary: ${summary}`, '']);

    // Scrolling the 10,000 rows: a wheel step per frame for 3 s; rows on screen get thumbnails
    // (these photos have no EXIF thumbnail, so each one shown is decoded in the worker).
    await page.evaluate(() => ((window as unknown as { __tasks: unknown[] }).__tasks = []));
    const list = page.getByRole('region', { name: /^File list/ });
    const box = (await list.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // A string, not a function: tsx would wrap the named callback in a helper the page lacks.
    const frames = await page.evaluate<{ frames: number; longest: number }>(`new Promise((resolve) => {
      const el = document.querySelector('[role=region][aria-label^="File list"]');
      let last = performance.now(), longest = 0, frames = 0;
      const end = last + 3000;
      requestAnimationFrame(function step(now) {
        longest = Math.max(longest, now - last);
        last = now;
        frames++;
        el.scrollTop += 400;
        if (now < end) requestAnimationFrame(step);
        else resolve({ frames, longest });
      });
    })`);
    const scrolled = await page.evaluate(longTasks);
    const thumbs = await page.getByRole('list', { name: 'Files to upload' }).getByRole('listitem').locator('img').count();
    rows.push([
      `  … scrolling the 10,000 rows, 400 px a frame for 3 s`,
      `${frames.frames} frames`,
      `longest frame ${frames.longest.toFixed(0)} ms`,
      `longest task ${scrolled.longest > 0 ? `${scrolled.longest.toFixed(0)} ms` : '< 50 ms'}`,
      `${thumbs} thumbnails on screen at the end`,
    ]);
    await page.close();
  }

  const small = path.join(work, 'small');
  writeJpegs(small, INTAKE_SMALL, { prefix: 'S' });
  {
    const { page, cdp } = await open();
    await pickFolder(page, small);
    const picked = Date.now();
    // The first rows (the first thousand listed), timed in the page from its change event: the
    // browser's own task that builds the FileList comes before it and is reported apart.
    await page.getByRole('list', { name: 'Files to upload' }).getByRole('listitem').first().waitFor({ timeout: 300_000 });
    const firstRows = await page.evaluate(() => (performance.now() - (window as unknown as { __changeAt: number }).__changeAt) / 1000);
    await page.getByRole('region', { name: `File list, ${formatNumber(INTAKE_SMALL)} files` }).waitFor({ timeout: 300_000 });
    const listed = (Date.now() - picked) / 1000;
    // Usable: the list scrolls to its end and shows the last rows.
    await page.getByRole('region', { name: /^File list/ }).evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.locator(`li[aria-posinset="${INTAKE_SMALL}"]`).waitFor();
    const usable = (Date.now() - picked) / 1000;
    const heap = await heapOf(cdp);
    const tasks = await page.evaluate(longTasks);
    rows.push([
      `Add Folder: ${formatNumber(INTAKE_SMALL)} small files → all listed, scrolled to the end`,
      `${usable.toFixed(2)} s (listed ${listed.toFixed(2)} s)`,
      `${goal(usable <= 1, 'goal ≤ 1 s')}; first rows ${firstRows.toFixed(2)} s after the page got the selection`,
      `JS heap ${heap.toFixed(1)} MB`,
      `longest main-thread task ${tasks.longest > 0 ? `${tasks.longest.toFixed(0)} ms` : 'none over 50 ms'} (the picker's own: ${tasks.picker.toFixed(0)} ms)`,
    ]);
    await page.close();
  }
  return rows;
}

/** The loopback rows: upload throughput by concurrency, and 10,000 files selected. */
async function loopback(browser: Browser, shellUrl: string, work: string): Promise<string[][]> {
  const rows: string[][] = [];
  const big = writeJpegs(path.join(work, 'big'), FILES, { padding: PADDING });
  const mb = big.reduce((n, f) => n + fs.statSync(f).size, 0) / 1e6;
  const runs: { concurrency: number | 'fit'; seconds: number }[] = [];
  for (const concurrency of [1, 4, 6, DEFAULT_CONCURRENCY]) {
    runs.push({ concurrency, seconds: await timeUpload(browser, shellUrl, big, { query: `?concurrency=${concurrency}` }) });
  }
  const base = runs[0]!.seconds;
  for (const r of runs) {
    rows.push([
      `upload ${FILES} × ~1.5 MB, concurrency ${r.concurrency}${r.concurrency === DEFAULT_CONCURRENCY ? ' (default)' : ''}`,
      `${r.seconds.toFixed(1)} s`,
      `${(FILES / r.seconds).toFixed(1)} files/s`,
      `${(mb / r.seconds).toFixed(1)} MB/s`,
      `×${(base / r.seconds).toFixed(2)} vs 1`,
    ]);
  }

  const small = writeJpegs(path.join(work, 'small'), 10_000);
  const page = await browser.newPage();
  await startSignedIn(page, accounts.subscriber);
  await page.goto(`${shellUrl}/uploader`);
  await page.getByText(/You have uploaded/).waitFor();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const start = Date.now();
  await chooseFiles(page, small);
  // Playwright's own transfer of 10,000 paths into the page is part of `start`; this is not.
  const picked = Date.now();
  await page.getByRole('region', { name: 'File list, 10,000 files' }).waitFor({ timeout: 120_000 });
  const listed = (Date.now() - picked) / 1000;
  // Interactive: a click on a row's Remove button is handled (the list shrinks by one).
  await page.getByRole('button', { name: 'Remove IMG_0001.JPG' }).click();
  await page.getByRole('region', { name: 'File list, 9,999 files' }).waitFor();
  const seconds = (Date.now() - start) / 1000;
  // The first bytes are checked in the background after the list is shown; the status goes when done.
  await page.getByText(/^Checking [\d,]+ files…$/).waitFor({ state: 'hidden', timeout: 120_000 });
  const checked = (Date.now() - picked) / 1000;
  await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1e6;
  const domRows = await page.getByRole('list', { name: 'Files to upload' }).getByRole('listitem').count();
  rows.push([
    `select 10,000 small files → list interactive (${listed.toFixed(2)} s after the picker returned)`,
    `${seconds.toFixed(2)} s`,
    `JS heap ${heap.toFixed(1)} MB`,
    `${domRows} DOM rows`,
    '',
  ]);
  rows.push([`  … first bytes of all 10,000 checked in the background`, `${checked.toFixed(2)} s after the picker returned`, '', '', '']);
  await page.close();
  return rows;
}
/** The link rows: goodput through the emulated shared uplink, default and sequential. */
async function throughLink(browser: Browser, shellUrl: string, work: string, sandbox: Sandbox): Promise<string[][]> {
  const linkRows: string[][] = [];
  const linked = writeJpegs(path.join(work, 'linked'), LINK_FILES, { padding: LINK_PADDING });
  const linkBytes = linked.reduce((n, f) => n + fs.statSync(f).size, 0);
  const capacity = (LINK.mbit * 1e6) / 8; // bytes per second
  const linkRuns: { concurrency: number | 'fit'; seconds: number; carried: number }[] = [];
  for (const concurrency of [DEFAULT_CONCURRENCY, 1]) {
    const before = sandbox.linkBytesSent();
    const seconds = await timeUpload(browser, shellUrl, linked, { query: `?concurrency=${concurrency}` });
    linkRuns.push({ concurrency, seconds, carried: sandbox.linkBytesSent() - before });
  }
  const ideal = linkBytes / capacity;
  for (const r of linkRuns) {
    const goodput = linkBytes / (capacity * r.seconds);
    linkRows.push([
      `upload ${LINK_FILES} × ~${(LINK_PADDING / 1e6).toFixed(0)} MB, concurrency ${r.concurrency}${r.concurrency === DEFAULT_CONCURRENCY ? ' (default)' : ' (sequential)'}`,
      `${r.seconds.toFixed(1)} s (ideal ${ideal.toFixed(1)} s)`,
      `${((linkBytes * 8) / 1e6 / r.seconds).toFixed(2)} Mbit/s`,
      `goodput ${(goodput * 100).toFixed(1)} % of the link${r.concurrency === DEFAULT_CONCURRENCY ? (goodput >= 0.9 ? ' (goal ≥ 90 %: met)' : ' (goal ≥ 90 %: MISSED)') : ''}`,
      `link carried ${(r.carried / 1e6).toFixed(1)} MB for ${(linkBytes / 1e6).toFixed(1)} MB of files`,
    ]);
  }
  return linkRows;
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-upload-'));
  let sandbox: Sandbox = await startSandbox({ dataDir: path.join(work, 'sandbox'), reset: true, quiet: true, link: null });
  const stack = await startStack(3000);
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...(chromiumLaunchOptions().args ?? []), '--no-sandbox'] });
  const rows: string[][] = [];
  const linkRows: string[][] = [];
  const repickRows: string[][] = [];
  const intakeRows: string[][] = [];
  try {
    if (SECTIONS.has('loopback')) rows.push(...(await loopback(browser, stack.shellUrl, work)));
    if (SECTIONS.has('repick')) {
      // On a fresh sandbox: its 9,000 uploads need the month's allowance.
      await sandbox.stop();
      sandbox = await startSandbox({ dataDir: path.join(work, 'sandbox'), reset: true, quiet: true, link: null });
      repickRows.push(...(await rePick(browser, stack.shellUrl, work)));
    }
    if (SECTIONS.has('intake')) intakeRows.push(...(await intake(browser, stack.shellUrl, work)));
    if (SECTIONS.has('link')) {
      // The same sandbox state behind the emulated shared uplink.
      await sandbox.stop();
      sandbox = await startSandbox({ dataDir: path.join(work, 'sandbox'), quiet: true, link: LINK });
      linkRows.push(...(await throughLink(browser, stack.shellUrl, work, sandbox)));
    }
  } finally {
    await browser.close();
    await stack.close();
    await sandbox.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`\nUploader benchmark (Chromium, sandbox on loopback; ${os.cpus().length} CPUs)\n`);
  printTable(rows);
  console.log(`\nA card picked again (journal, fingerprints in a worker)\n`);
  printTable(repickRows);
  console.log(`\nA whole card taken (Add Folder: walk, EXIF and fingerprints in a worker)\n`);
  printTable(intakeRows);
  console.log(`\nThrough the link emulator (one shared uplink of ${formatLink(LINK)}; goodput = file bytes / (capacity × time))\n`);
  printTable(linkRows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

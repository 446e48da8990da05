/**
 * A batch in a hidden tab (docs/uploader.md#a-batch-left-running), in real Chromium against the
 * production builds and the sandbox's link emulator: the same photos' worth sent from a tab in
 * front and from a tab behind another one, side by side in one run, goodput = file bytes /
 * (link capacity × time).
 *
 * The browser tests' Chromium keeps every page visible and unthrottled: Playwright launches it
 * with --disable-background-timer-throttling (and two more) and turns on focus emulation, which
 * counts as a capture and keeps a tab "visible". Here Chromium is started by hand, without those
 * flags, and driven over CDP with `noDefaults` (no focus emulation): a tab opened in front of the
 * uploader hides it (`document.visibilityState` is "hidden"), and Chromium throttles it as it
 * would a member's. Its grace period before intensive throttling (timers woken once a minute) is
 * cut from 5 minutes to BENCH_GRACE seconds (default 10), so the whole hidden batch runs under it.
 * A chained 250 ms timer in the uploader's page shows the throttling: its ticks and longest gap
 * are in the table.
 *
 * Needs `npm run build` first and the ports free (3000–3002, 4100–4104, 20005).
 * `npm run bench:hidden`; BENCH_FILES (default 200 photos of ~2 MB), BENCH_LINK (default 20:80,
 * `<mbit>:<rttMs>`), BENCH_ROUNDS (default 1: visible then hidden; 2 adds hidden then visible).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import { formatLink, parseCleanLink, startSandbox } from '../sandbox/src/index';
import type { CleanLink } from '../sandbox/src/index';
import { memberChromium } from '../e2e/support/chromium';
import { startStack } from '../e2e/support/servers';
import { accounts, startSignedIn } from '../e2e/support/session';
import { writeJpegs } from '../e2e/support/uploads';
import { chooseFiles } from '../e2e/support/uploader-page';
import { printTable } from './table';

const FILES = Number(process.env.BENCH_FILES ?? 200);
const GRACE_SECONDS = Number(process.env.BENCH_GRACE ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const PADDING = 2_000_000;
const LINK: CleanLink = (() => {
  const parsed = parseCleanLink(process.env.BENCH_LINK ?? '20:80');
  if ('error' in parsed || !parsed.link) throw new Error(`BENCH_LINK: ${'error' in parsed ? parsed.error : 'the link cannot be off here'}`);
  return parsed.link;
})();

/**
 * A chained timer in the page (each one set from the last one's callback), the kind Chromium
 * throttles hardest. A string, not a function: tsx's transform would wrap a named inner function
 * in a helper the page does not have.
 */
const TIMER_PROBE = `(() => {
  const probe = { ticks: 0, last: performance.now(), longest: 0 };
  window.__probe = probe;
  const tick = () => {
    const now = performance.now();
    probe.ticks++;
    probe.longest = Math.max(probe.longest, now - probe.last);
    probe.last = now;
    setTimeout(tick, 250);
  };
  setTimeout(tick, 250);
})()`;

interface Run {
  hidden: boolean;
  seconds: number;
  bytes: number;
  visibility: string;
  ticks: number;
  longestGapMs: number;
}

async function runBatch(context: BrowserContext, shellUrl: string, files: string[], hidden: boolean): Promise<Run> {
  const page: Page = await context.newPage();
  let cover: Page | null = null;
  try {
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${shellUrl}/uploader`);
    await page.getByText(/You have uploaded/).waitFor();
    await chooseFiles(page, files);
    await page.getByText(`Overall Progress: 0 of ${files.length} = 0%`).waitFor();
    await page.getByText(/^Checking [\d,]+ files?…$/).waitFor({ state: 'hidden', timeout: 120_000 });
    await page.evaluate(TIMER_PROBE);
    const start = Date.now();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    // Another tab in front: the uploader's tab is hidden, as when the member switches tabs.
    if (hidden) cover = await context.newPage();
    const visibility = await page.evaluate(() => document.visibilityState);
    const done = `Overall Progress: ${files.length} of ${files.length} = 100%`;
    // Polled from here, not from the page: a hidden page's own polling would be throttled too.
    for (;;) {
      const label = await page.evaluate(() => document.getElementById('uploader-progress-label')?.textContent ?? '');
      if (label === done) break;
      if (Date.now() - start > 3_600_000) throw new Error(`not done after an hour: ${label}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (Date.now() - start) / 1000;
    const probe = await page.evaluate(() => (window as unknown as { __probe: { ticks: number; longest: number } }).__probe);
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    return { hidden, seconds, bytes, visibility, ticks: probe.ticks, longestGapMs: probe.longest };
  } finally {
    await cover?.close();
    await page.close();
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hidden-'));
  const sandbox = await startSandbox({ dataDir: path.join(work, 'sandbox'), reset: true, quiet: true, link: LINK });
  const stack = await startStack(3000);
  const { browser, close } = await memberChromium(path.join(work, 'profile'), GRACE_SECONDS);
  const runs: Run[] = [];
  try {
    const context = browser.contexts()[0]!;
    const order = ROUNDS >= 2 ? [false, true, true, false] : [false, true];
    for (const [i, hidden] of order.entries()) {
      const files = writeJpegs(path.join(work, `run-${i}`), FILES, { prefix: `R${i}_`, padding: PADDING });
      runs.push(await runBatch(context, stack.shellUrl, files, hidden));
    }
  } finally {
    await close();
    await stack.close();
    await sandbox.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const capacity = (LINK.mbit * 1e6) / 8;
  const goodput = (r: Run) => r.bytes / (capacity * r.seconds);
  const mean = (hidden: boolean) => {
    const mine = runs.filter((r) => r.hidden === hidden);
    return mine.reduce((n, r) => n + goodput(r), 0) / mine.length;
  };
  const ratio = mean(true) / mean(false);
  console.log(`\nHidden-tab benchmark (Chromium, production builds, sandbox; ${os.cpus().length} CPUs)`);
  console.log(`${FILES} photos of ~2 MB per batch through ${formatLink(LINK)}; intensive throttling after ${GRACE_SECONDS} s hidden\n`);
  printTable([
    ['tab', 'time', 'goodput', 'visibilityState', 'chained 250 ms timer in the page'],
    ...runs.map((r) => [
      r.hidden ? 'hidden' : 'in front',
      `${r.seconds.toFixed(1)} s`,
      `${(goodput(r) * 100).toFixed(1)} %`,
      r.visibility,
      `${r.ticks} ticks (${((r.ticks / r.seconds) * 60).toFixed(0)}/min), longest gap ${(r.longestGapMs / 1000).toFixed(1)} s`,
    ]),
  ]);
  console.log(`\nhidden / in front: ${(ratio * 100).toFixed(1)} % of the goodput (goal ≥ 90 %: ${ratio >= 0.9 ? 'met' : 'MISSED'})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// One batch sent by the real uploader over an emulated link, as the link benches drive it
// (bench/copies-link.ts, bench/links.ts): photos made the run's own, a signed-in page with the
// settings the run wants, the link quiet before the Upload click, the time to 100 % and the
// longest main-thread task meanwhile (PerformanceObserver 'longtask').
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from '@playwright/test';
import { accounts, startSignedIn } from '../e2e/support/session';
import { chooseFiles } from '../e2e/support/uploader-page';

/** The photos made this run's own (a random COM segment after SOI): the ranch has never seen them. */
export function ownPhotos(sources: readonly string[], dir: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return sources.map((source, i) => {
    const bytes = fs.readFileSync(source);
    const text = Buffer.from(`bench ${crypto.randomUUID()}`, 'ascii');
    const com = Buffer.from([0xff, 0xfe, (text.length + 2) >> 8, (text.length + 2) & 0xff]);
    const file = path.join(dir, `IMG_${String(i + 1).padStart(4, '0')}.JPG`);
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, 2), com, text, bytes.subarray(2)]));
    return file;
  });
}

/**
 * Waits until the link has carried nothing for 3 s: bytes of an aborted upload the emulator had
 * already taken in still cross it after the page let go, and must not count in the next run.
 */
export async function linkQuiet(carried: () => number | Promise<number>): Promise<void> {
  let last = await carried();
  for (let quiet = 0; quiet < 6;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await carried();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

/** What the page saw of one batch. */
export interface PageRun {
  /** Epoch ms of the Upload click. */
  startedAt: number;
  /** From the click to 100 % (or to `stopAfterMs`). */
  seconds: number;
  /** Whether the batch reached 100 %. */
  finished: boolean;
  longestTaskMs: number;
  /** Retries the batch's outcome event counted (0 when it did not end). */
  retries: number;
}

export interface SendOptions {
  /** Send smaller copies (`trailsense:send-copies`). */
  copies: boolean;
  /** More localStorage items set before the page's scripts run (a setting under test). */
  storage?: Record<string, string>;
  /** Runs just before the Upload click, once every file is checked (wait for a quiet link, take counters). */
  beforeClick?: () => Promise<void>;
  /** Runs at once when the batch reaches 100 % (or is given up): take the counters at the end. */
  atEnd?: () => void | Promise<void>;
  /** Stop waiting for 100 % after this long (the batch is left unfinished). */
  stopAfterMs?: number;
  /** Called every second while the batch runs. */
  everySecond?: () => void | Promise<void>;
  /** Runs on the fresh context before its page opens (a route that serves a build changed for the run). */
  prepare?: (context: BrowserContext) => Promise<unknown>;
}

/** Sends `files` in a fresh page signed in as the subscriber. */
export async function sendBatch(browser: Browser, shellUrl: string, files: string[], options: SendOptions): Promise<PageRun> {
  const context = await browser.newContext();
  await options.prepare?.(context);
  const page = await context.newPage();
  let retries = 0;
  page.on('request', (request) => {
    const body = request.method() === 'POST' ? request.postData() : null;
    if (!body?.includes('batchOutcome')) return;
    for (const match of body.matchAll(/"retries":(\d+)/g)) retries += Number(match[1]);
  });
  let ticker: NodeJS.Timeout | undefined;
  try {
    await page.addInitScript(
      ({ copies, storage }: { copies: boolean; storage: Record<string, string> }) => {
        localStorage.setItem('trailsense:send-copies', JSON.stringify(copies));
        for (const [key, value] of Object.entries(storage)) localStorage.setItem(key, value);
        const w = window as unknown as { longest: number };
        w.longest = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) w.longest = Math.max(w.longest, entry.duration);
        }).observe({ type: 'longtask', buffered: false });
      },
      { copies: options.copies, storage: options.storage ?? {} },
    );
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${shellUrl}/uploader`);
    await page.getByText(/You have uploaded/).waitFor();
    await chooseFiles(page, files);
    await page.getByText(`Overall Progress: 0 of ${files.length} = 0%`).waitFor();
    await page.getByText(/^Checking [\d,]+ files?…$/).waitFor({ state: 'hidden', timeout: 300_000 });
    await page.evaluate(() => ((window as unknown as { longest: number }).longest = 0));
    await options.beforeClick?.();
    const startedAt = Date.now();
    if (options.everySecond) {
      const tick = options.everySecond;
      ticker = setInterval(() => void tick(), 1000);
    }
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const done = page.getByText(`Overall Progress: ${files.length} of ${files.length} = 100%`);
    const finished = await done.waitFor({ timeout: options.stopAfterMs ?? 3_600_000 }).then(
      () => true,
      (error: unknown) => {
        if (options.stopAfterMs === undefined) throw error;
        return false;
      },
    );
    const seconds = (Date.now() - startedAt) / 1000;
    clearInterval(ticker);
    await options.atEnd?.();
    const longestTaskMs = await page.evaluate(() => (window as unknown as { longest: number }).longest);
    // The outcome event goes when the batch has ended, just after 100 %.
    if (finished) await page.waitForTimeout(1500);
    return { startedAt, seconds, finished, longestTaskMs, retries };
  } finally {
    clearInterval(ticker);
    await context.close();
  }
}

// bench/bundle: the JavaScript a real browser requests per route, from the production builds
// served as in production: before the page is interactive (the budget: 100 KiB gzip on / and
// /support) and in all until the network is idle. Sizes are the scripts' bytes (raw), gzip -9 of
// them (what the budget counts) and what actually crossed the wire (brotli, from the server's
// precompressed copies). Prints a table; asserts nothing.
//   npm run bench:bundle            (builds first)
//   npm run bench:bundle -- --no-build
import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { accounts, startSignedIn } from '../e2e/support/session';
import { repo, ROUTES, startStack, stop } from './stack';

interface Script {
  url: string;
  raw: number;
  gzip: number;
  transfer: number;
  /** Requested before the page was interactive (hydrated, or rendered, with the session known). */
  critical: boolean;
  /** Requested before the route was usable (its remote's button on screen; = critical for pages). */
  beforeUsable: boolean;
}

interface Row {
  route: string;
  critical: Script[];
  all: Script[];
  /** ms from navigation start until the page was interactive. */
  interactiveMs: number;
  /** ms from navigation start until the route was usable. */
  usableMs: number;
}

/**
 * The page is interactive when React has rendered with the session known: the shell's header
 * then sets <html data-session>. An observer installed before the page's scripts records when.
 */
async function markInteractive(page: Page): Promise<void> {
  await page.addInitScript(() => {
    new MutationObserver((_records, observer) => {
      if (document.documentElement.dataset.session === 'signed-out' || document.documentElement.dataset.session === 'signed-in') {
        // The inline script may set signed-in before React; React sets it again (same value):
        // only a mark made after the root has React's listeners counts.
        const root = document.getElementById('root') as (HTMLElement & Record<string, unknown>) | null;
        if (root && Object.keys(root).some((key) => key.startsWith('__reactContainer'))) {
          performance.mark('trailsense-interactive');
          observer.disconnect();
        }
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-session'] }); // <html> is not parsed yet
  });
}

async function measure(page: Page, route: string, usable?: string): Promise<Row> {
  const bodies = new Map<string, { raw: number; gzip: number; transfer: number }>();
  page.on('requestfinished', async (request) => {
    if (request.resourceType() !== 'script') return;
    const response = await request.response();
    const sizes = await request.sizes();
    const body = (await response?.body().catch(() => null)) ?? Buffer.alloc(0);
    bodies.set(request.url(), { raw: body.length, gzip: gzipSync(body, { level: 9 }).length, transfer: sizes.responseBodySize });
  });
  await markInteractive(page);
  await page.goto(`http://localhost:3000${route}`, { waitUntil: 'networkidle' });
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForFunction(() => performance.getEntriesByName('trailsense-interactive').length > 0);
  // When the route's button appeared, checked in the page every frame.
  const usableMs = usable
    ? await (
        await page.waitForFunction(
          (label) => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === label) && performance.now(),
          usable,
          { polling: 'raf', timeout: 60_000 },
        )
      ).jsonValue()
    : undefined;
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  const timing = await page.evaluate(() => ({
    interactive: performance.getEntriesByName('trailsense-interactive')[0]!.startTime,
    scripts: performance
      .getEntriesByType('resource')
      .filter((entry) => entry.initiatorType === 'script' || entry.name.endsWith('.js'))
      .map((entry) => ({ url: entry.name, start: entry.startTime })),
  }));
  const all: Script[] = timing.scripts
    .filter((s) => bodies.has(s.url))
    .map((s) => ({ url: s.url, ...bodies.get(s.url)!, critical: s.start <= timing.interactive, beforeUsable: s.start <= (usableMs || timing.interactive) }));
  return { route, all, critical: all.filter((s) => s.critical), interactiveMs: timing.interactive, usableMs: usableMs || timing.interactive };
}

async function main() {
  if (!process.argv.includes('--no-build')) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }
  const children = await startStack('bench');
  try {
    const browser = await chromium.launch(chromiumLaunchOptions());
    const rows: Row[] = [];
    for (const route of ROUTES) {
      // A cold cache for every route.
      const context = await browser.newContext();
      const page = await context.newPage();
      if (route.signedIn) await startSignedIn(page, accounts.subscriber);
      rows.push(await measure(page, route.path, route.usable));
      await context.close();
    }
    await browser.close();
    const kib = (n: number) => (n / 1024).toFixed(1);
    const sum = (scripts: Script[], key: 'raw' | 'gzip' | 'transfer') => scripts.reduce((n, s) => n + s[key], 0);
    const remote = (scripts: Script[]) => scripts.filter((s) => /:300[12]\//.test(s.url));
    console.log('\nJavaScript per route (cold cache). Budget: 100 KiB gzip before interactive on / and /support.\n');
    console.log("Usable: an app route's button (Sign In, Add Images, Save changes) is on screen; a page is usable when interactive.\n");
    console.log(
      '| route | before interactive: scripts | raw KiB | gzip KiB | brotli (sent) KiB | before usable: scripts | gzip KiB | until idle: scripts | raw KiB | gzip KiB | of which remotes, gzip KiB |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const usable = r.all.filter((s) => s.beforeUsable);
      console.log(
        `| ${r.route} | ${r.critical.length} | ${kib(sum(r.critical, 'raw'))} | ${kib(sum(r.critical, 'gzip'))} | ${kib(sum(r.critical, 'transfer'))} | ` +
          `${usable.length} | ${kib(sum(usable, 'gzip'))} | ` +
          `${r.all.length} | ${kib(sum(r.all, 'raw'))} | ${kib(sum(r.all, 'gzip'))} | ${kib(sum(remote(r.all), 'gzip'))} |`,
      );
    }
    if (process.argv.includes('--files')) {
      for (const r of rows) {
        console.log(`\n${r.route} (interactive at ${r.interactiveMs.toFixed(0)} ms, usable at ${r.usableMs.toFixed(0)} ms)`);
        for (const s of r.all) console.log(`  ${s.critical ? '*' : ' '} ${kib(s.gzip).padStart(6)} KiB gzip  ${s.url}`);
      }
    }
  } finally {
    for (const child of children) stop(child);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// bench/bundle: the JavaScript a real browser requests per route, raw and gzip, from the
// production builds served as in production. Prints a table; asserts nothing.
//   npm run bench:bundle            (builds first)
//   npm run bench:bundle -- --no-build
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { accounts, startSignedIn } from '../e2e/support/session';

const repo = path.resolve(__dirname, '..');
const ROUTES: { path: string; signedIn: boolean }[] = [
  { path: '/', signedIn: false },
  { path: '/support', signedIn: false },
  { path: '/login', signedIn: false },
  { path: '/uploader', signedIn: true },
  { path: '/profile', signedIn: true },
  { path: '/delete', signedIn: false },
];

interface Row {
  route: string;
  requests: number;
  raw: number;
  gzip: number;
  remote: number;
  /** gzip bytes of @aws-amplify/ui-react's chunks (should be 0 except on /login). */
  uiReact: number;
}

/** Starts a server in its own process group, so stopping it stops its children too (npm → tsx → node). */
function start(command: string, args: string[]): ChildProcess {
  return spawn(command, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
}

function stop(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

async function waitFor(url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up`);
}

async function measure(page: Page, route: string): Promise<Row> {
  const scripts: { url: string; raw: number; transfer: number; uiReact: boolean }[] = [];
  page.on('requestfinished', async (request) => {
    if (request.resourceType() !== 'script') return;
    const response = await request.response();
    const sizes = await request.sizes();
    const body = await response?.body().catch(() => Buffer.alloc(0));
    // The Authenticator's kit announces itself in its code; a chunk naming it is the kit.
    const uiReact = (body ?? Buffer.alloc(0)).includes('data-amplify-authenticator');
    scripts.push({ url: request.url(), raw: body?.length ?? 0, transfer: sizes.responseBodySize, uiReact });
  });
  await page.goto(`http://localhost:3000${route}`, { waitUntil: 'networkidle' });
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  return {
    route,
    requests: scripts.length,
    raw: scripts.reduce((n, s) => n + s.raw, 0),
    gzip: scripts.reduce((n, s) => n + s.transfer, 0),
    remote: scripts.filter((s) => /:300[12]\//.test(s.url)).reduce((n, s) => n + s.transfer, 0),
    uiReact: scripts.filter((s) => s.uiReact).reduce((n, s) => n + s.transfer, 0),
  };
}

async function main() {
  if (!process.argv.includes('--no-build')) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }
  const children = [
    start('npm', ['run', 'sandbox', '--', '--reset', '--quiet', '--data-dir', path.join(repo, '.sandbox-data/bench')]),
    start('node', ['scripts/serve.mjs']),
  ];
  try {
    await Promise.all([waitFor('http://localhost:4103/ranches/cedar-creek'), waitFor('http://localhost:3000/config.json')]);
    const browser = await chromium.launch(chromiumLaunchOptions());
    const rows: Row[] = [];
    for (const route of ROUTES) {
      const context = await browser.newContext(); // a cold cache for every route
      const page = await context.newPage();
      if (route.signedIn) await startSignedIn(page, accounts.subscriber);
      rows.push(await measure(page, route.path));
      await context.close();
    }
    await browser.close();
    const kib = (n: number) => (n / 1024).toFixed(1);
    console.log('\nJavaScript requested per route (cold cache, until network idle)\n');
    console.log('| route | scripts | raw KiB | gzip KiB | of which remotes, gzip KiB | of which the Authenticator kit, gzip KiB |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.route} | ${r.requests} | ${kib(r.raw)} | ${kib(r.gzip)} | ${kib(r.remote)} | ${kib(r.uiReact)} |`);
    }
  } finally {
    for (const child of children) stop(child);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// bench/lighthouse: Lighthouse (mobile defaults: simulated slow 4G, 4× CPU slowdown, Moto G
// Power-sized screen) against the production builds served as in production, with Debian's
// Chromium (CHROME_PATH). Each page is audited RUNS times; the table shows the run with the
// median performance score. Goals: marketing pages and /login Performance ≥ 95, /uploader and
// /profile ≥ 90; Accessibility 100, Best Practices ≥ 95, SEO 100, CLS ≤ 0.02, TBT ≤ 150 ms.
// Prints a table; asserts nothing.
// Pages that need sign-in (/uploader, /profile, /delete) are audited signed in: the sandbox is
// started (its own data directory, reseeded), the demo subscriber signs in through /login in the
// audited browser itself (Playwright over the DevTools protocol), and Lighthouse then loads the
// page keeping that browser's storage (disableStorageReset) — a member coming back with a session.
// Plain JavaScript run by node, not tsx: Lighthouse sends functions' source into the page, and
// tsx's transform adds helpers there that the page does not have.
//   npm run bench:lighthouse            (after npm run build)
//   RUNS=5 npm run bench:lighthouse -- /about
//   npm run bench:lighthouse -- /login /uploader /profile
//   LONG_TASKS=1 npm run bench:lighthouse -- /login   (also lists the median run's long tasks)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from '@playwright/test';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The flags of e2e/support/chromium.ts (a TypeScript module this script cannot import). */
const CHROMIUM_FLAGS = fs
  .readFileSync(path.join(repo, 'e2e/support/chromium.ts'), 'utf8')
  .match(/CHROMIUM_FLAGS = \[([^\]]*)\]/)[1]
  .match(/'[^']+'/g)
  .map((flag) => flag.slice(1, -1));
const RUNS = Number(process.env.RUNS ?? 3);
const pages = process.argv.slice(2).filter((a) => a.startsWith('/'));
const PAGES = pages.length > 0 ? pages : ['/', '/support', '/login', '/uploader', '/profile'];
/** Routes that need sign-in (shell/src/app/route-table.ts): audited with a session. */
const SIGNED_IN = new Set(['/uploader', '/profile', '/delete']);
/** The seeded subscriber (sandbox/src/seed.ts). */
const ACCOUNT = { email: 'subscriber@trailsense.example', password: 'CedarCreek2025' };
const SITE = 'http://localhost:3000';

/**
 * @typedef {{ performance: number, accessibility: number, bestPractices: number, seo: number,
 *   cls: number, tbt: number, fcp: number, lcp: number, si: number,
 *   longTasks: { url: string, start: number, duration: number }[], failing: string[],
 *   error: string | undefined }} Result
 */

async function waitFor(url, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up`);
}

/** Signs in through /login in the browser Lighthouse will audit with, leaving the session in its storage. */
async function signIn(port) {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  const page = await browser.contexts()[0].newPage();
  await page.goto(`${SITE}/login`);
  await page.getByLabel('Email').fill(ACCOUNT.email);
  await page.getByLabel('Password', { exact: true }).fill(ACCOUNT.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL(`${SITE}/uploader`, { timeout: 60_000 });
  await page.close();
  // Only this connection ends; the browser stays for Lighthouse.
  await browser.close();
}

/** @returns {Promise<Result>} */
async function audit(url, signedIn = false) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-lh-'));
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    userDataDir,
    chromeFlags: ['--headless=new', '--no-sandbox', ...CHROMIUM_FLAGS],
  });
  try {
    if (signedIn) await signIn(chrome.port);
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', disableStorageReset: signedIn });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { categories, audits } = result.lhr;
    const score = (id) => Math.round((categories[id]?.score ?? 0) * 100);
    const value = (id) => audits[id]?.numericValue ?? NaN;
    // Audits that cost points outside performance (what to fix when a score is under 100).
    const failing = ['accessibility', 'best-practices', 'seo'].flatMap((id) =>
      (categories[id]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0 && audits[ref.id]?.score !== null && (audits[ref.id]?.score ?? 1) < 1)
        .map((ref) => `${id}: ${ref.id}`),
    );
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      seo: score('seo'),
      cls: value('cumulative-layout-shift'),
      tbt: value('total-blocking-time'),
      fcp: value('first-contentful-paint'),
      lcp: value('largest-contentful-paint'),
      si: value('speed-index'),
      longTasks: (audits['long-tasks']?.details?.items ?? []).map((task) => ({ url: task.url, start: task.startTime, duration: task.duration })),
      failing,
      // A run Lighthouse could not finish (e.g. NO_FCP on a starved machine) has no performance
      // score; it is named in the table and left out of the median rather than counted as 0.
      error: result.lhr.runtimeError?.code,
    };
  } finally {
    await chrome.kill();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

/** A detached child process group, stopped with everything it started. */
function stopGroup(child) {
  try {
    if (child?.pid) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

async function main() {
  const server = spawn('node', ['scripts/serve.mjs'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  let sandbox;
  const sandboxData = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-lh-sandbox-'));
  try {
    if (PAGES.some((page) => SIGNED_IN.has(page))) {
      sandbox = spawn('npm', ['run', 'sandbox', '--', '--data-dir', sandboxData, '--reset', '--quiet'], {
        cwd: repo,
        stdio: ['ignore', 'ignore', 'inherit'],
        detached: true,
      });
      await waitFor('http://localhost:4100/health');
    }
    await waitFor(`${SITE}/config.json`);
    const rows = [];
    for (const page of PAGES) {
      const results = [];
      for (let i = 0; i < RUNS; i++) results.push(await audit(`${SITE}${page}`, SIGNED_IN.has(page)));
      const finished = results.filter((r) => !r.error);
      const sorted = [...(finished.length > 0 ? finished : results)].sort((a, b) => a.performance - b.performance);
      rows.push({ page, result: sorted[Math.floor(sorted.length / 2)], scores: results.map((r) => r.error ?? String(r.performance)) });
    }
    console.log(
      `\nLighthouse ${RUNS}× per page, mobile defaults; the run with the median performance score; ${[...SIGNED_IN].filter((p) => PAGES.includes(p)).join(', ') || 'no page'} signed in\n`,
    );
    console.log('| page | Performance (all runs) | Accessibility | Best Practices | SEO | CLS | TBT ms | FCP ms | LCP ms | Speed Index ms |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const { page, result: r, scores } of rows) {
      console.log(
        `| ${page} | ${r.performance} (${scores.join(', ')}) | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${r.cls.toFixed(3)} | ` +
          `${r.tbt.toFixed(0)} | ${r.fcp.toFixed(0)} | ${r.lcp.toFixed(0)} | ${r.si.toFixed(0)} |`,
      );
    }
    if (process.env.LONG_TASKS) {
      for (const { page, result } of rows) {
        console.log(`\n${page}: long tasks of the median run (simulated start and duration, ms; FCP ${result.fcp.toFixed(0)})`);
        for (const task of result.longTasks) console.log(`  ${task.start.toFixed(0).padStart(6)} ${task.duration.toFixed(0).padStart(5)}  ${task.url}`);
      }
    }
    for (const { page, result } of rows) {
      if (result.failing.length > 0) console.log(`\n${page}: audits below full marks: ${result.failing.join(', ')}`);
    }
  } finally {
    stopGroup(server);
    stopGroup(sandbox);
    fs.rmSync(sandboxData, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * What the server's vouching costs (infra/docs/server.md#the-uploads-api), in real Chromium
 * against the production builds and the sandbox, one table per section:
 * - goodput through the link emulator (20 Mbit/s, 80 ms and 3 Mbit/s, 600 ms), with the uploader
 *   asking for its slots as it does, and without: every photo under one reservation the bench
 *   asked for beforehand (`?reservation=`), so no slot call is made. Both in one run, alternating.
 *   The uploads API sits behind a delay of the link's RTT (plus its bytes at the link's rate), as
 *   it would be reached over that uplink;
 * - a 10,000-photo card already uploaded from another device (the ranch's photos known to the
 *   server, nothing in this browser): picked → the list shows nothing to go, and every file decided;
 * - the uploads API's latency on loopback: a reservation of 500 new photos, of 500 the ranch has,
 *   a lookup of 1,000 sizes.
 * Needs `npm run build` first and the ports free (3000–3002, 4100–4104, 20005).
 * `npm run bench:reservations`; BENCH_SECTIONS=goodput,card,latency; BENCH_LINKS (default
 * `20:80:100,3:600:24`: mbit:rtt:photos of ~2 MB); BENCH_CARD (default 10,000).
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from '@playwright/test';
import { formatLink, parseCleanLink, startSandbox } from '../sandbox/src/index';
import type { CleanLink, Sandbox } from '../sandbox/src/index';
import { openDb } from '../sandbox/src/db';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack } from '../e2e/support/servers';
import { accounts, startSignedIn } from '../e2e/support/session';
import { idTokenOf, jpegBytes, writeJpegs } from '../e2e/support/uploads';
import { fingerprintOf } from '../test-support/fingerprint';
import localConfig from '../config/local.json';
import { chooseFiles } from '../e2e/support/uploader-page';
import { timeUpload } from './upload-page';
import { printTable } from './table';

const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? 'goodput,card,latency').split(',').map((s) => s.trim()));
const LINKS = (process.env.BENCH_LINKS ?? '20:80:100,3:600:24').split(',').map((spec) => {
  const [mbit, rtt, files] = spec.split(':');
  const parsed = parseCleanLink(`${mbit}:${rtt}`);
  if ('error' in parsed || !parsed.link) throw new Error(`BENCH_LINKS: ${spec}`);
  return { link: parsed.link, files: Number(files ?? 50) };
});
const CARD = Number(process.env.BENCH_CARD ?? 10_000);
const PHOTO_PADDING = 2_000_000;
const RANCH = 'cedar-creek';
const formatNumber = (n: number) => new Intl.NumberFormat('en-US').format(n);

/** An HTTP proxy to `target` that holds each request for the link's RTT and its body's time on the link. */
function delayProxy(target: number, link: CleanLink): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const delay = link.rttMs + ((body.length + 500) * 8 * 1000) / (link.mbit * 1e6);
      setTimeout(() => {
        const upstream = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.writeHead(502).end());
        upstream.end(body);
      }, delay);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ url: `http://localhost:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

/** Asks the uploads API for `count` slots (made-up fingerprints: slots are not bound to photos). */
async function reserveSlots(base: string, idToken: string, count: number): Promise<string> {
  const fingerprints = Array.from({ length: count }, () => `v1-${1_000_000 + Math.floor(Math.random() * 1e6)}-${randomBytes(16).toString('hex')}`);
  const res = await fetch(`${base}/ranches/${RANCH}/reservations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ fingerprints }),
  });
  const answer = (await res.json()) as { reservation: string | null; granted: string[] };
  if (!answer.reservation || answer.granted.length < count) throw new Error(`reservation for ${count}: ${JSON.stringify(answer).slice(0, 200)}`);
  return answer.reservation;
}

async function goodput(browser: Browser, work: string): Promise<string[][]> {
  const rows: string[][] = [];
  for (const [i, { link, files: count }] of LINKS.entries()) {
    const sandbox: Sandbox = await startSandbox({ dataDir: path.join(work, `sandbox-link-${i}`), reset: true, quiet: true, link });
    const proxy = await delayProxy(sandbox.ports.api, link);
    const stack = await startStack(3000, (config) => ({ ...config, api: { ...config.api, uploadsBaseUrl: proxy.url } }));
    try {
      const capacity = (link.mbit * 1e6) / 8;
      const variants = i % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
      const results = new Map<string, { seconds: number; bytes: number }>();
      for (const variant of variants) {
        const files = writeJpegs(path.join(work, `link-${i}-${variant}`), count, { prefix: `${variant.toUpperCase()}_`, padding: PHOTO_PADDING });
        const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
        let query = '';
        if (variant === 'without') {
          const page = await browser.newPage();
          await startSignedIn(page, accounts.subscriber);
          await page.goto(`${stack.shellUrl}/uploader`);
          await page.getByText(/You have uploaded/).waitFor();
          query = `?reservation=${await reserveSlots(localConfig.api.uploadsBaseUrl, await idTokenOf(page), count)}`;
          await page.close();
        }
        results.set(variant, { seconds: await timeUpload(browser, stack.shellUrl, files, { query, afterChecks: true }), bytes });
      }
      const goodputOf = (r: { seconds: number; bytes: number }) => r.bytes / (capacity * r.seconds);
      const withSlots = results.get('with')!;
      const without = results.get('without')!;
      const lost = (goodputOf(without) - goodputOf(withSlots)) * 100;
      rows.push([
        `${formatLink(link)}, ${count} × ~2 MB`,
        `${withSlots.seconds.toFixed(1)} s → ${(goodputOf(withSlots) * 100).toFixed(1)} %`,
        `${without.seconds.toFixed(1)} s → ${(goodputOf(without) * 100).toFixed(1)} %`,
        `${lost.toFixed(1)} points (goal ≤ 1: ${lost <= 1 ? 'met' : 'MISSED'})`,
        `ideal ${(withSlots.bytes / capacity).toFixed(1)} s; order ${variants.join(', ')}`,
      ]);
    } finally {
      await stack.close();
      await proxy.close();
      await sandbox.stop();
    }
  }
  return rows;
}

async function card(browser: Browser, work: string): Promise<string[][]> {
  const dataDir = path.join(work, 'sandbox-card');
  const sandbox = await startSandbox({ dataDir, reset: true, quiet: true, link: null });
  const stack = await startStack(3000);
  try {
    // The card: photos of varied small sizes, sent before from another device — known to the ledger.
    const dir = path.join(work, 'card');
    fs.mkdirSync(dir, { recursive: true });
    const db = openDb(path.join(dataDir, 'sandbox.db'));
    const files: string[] = [];
    db.raw.transaction(() => {
      for (let i = 0; i < CARD; i++) {
        const bytes = jpegBytes(`card-${i}-${randomBytes(4).toString('hex')}`, 2000 + Math.floor(Math.random() * 18_000));
        const file = path.join(dir, `IMG_${String(i + 1).padStart(5, '0')}.JPG`);
        fs.writeFileSync(file, bytes);
        files.push(file);
        db.insertPhoto(RANCH, fingerprintOf(bytes), bytes.length, `uploads/public/${RANCH}/earlier-${i}.jpg`, new Date().toISOString());
      }
    })();
    db.close();

    const context = await browser.newContext();
    const page = await context.newPage();
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${stack.shellUrl}/uploader`);
    await page.getByText(/You have uploaded/).waitFor();
    await chooseFiles(page, files);
    const picked = Date.now();
    const notice = `${formatNumber(CARD)} files skipped: ${formatNumber(CARD)} already uploaded.`;
    // Nothing to go: no file listed to send at any moment, and every file decided.
    let listedAtMost = 0;
    for (;;) {
      const state = await page.evaluate(() => ({
        listed: /File list, ([\d,]+) files/.exec(document.querySelector('[aria-label^="File list"]')?.getAttribute('aria-label') ?? '')?.[1] ?? '0',
        notice: document.querySelector('[data-testid="uploader-notice"]')?.textContent ?? '',
      }));
      listedAtMost = Math.max(listedAtMost, Number(state.listed.replace(/,/g, '')));
      if (state.notice === notice) break;
      if (Date.now() - picked > 600_000) throw new Error(`the card was never decided; the notice says: ${state.notice}`);
      await page.waitForTimeout(50);
    }
    const decided = (Date.now() - picked) / 1000;
    await context.close();
    return [
      [
        `${formatNumber(CARD)} photos sent before from another device, picked in a fresh browser`,
        `every file decided "already uploaded": ${decided.toFixed(2)} s after the picker returned (goal ≤ 3 s: ${decided <= 3 ? 'met' : 'MISSED'})`,
        `files listed to send at any moment: ${listedAtMost}${listedAtMost === 0 ? ' (0 to go throughout)' : ''}`,
      ],
    ];
  } finally {
    await stack.close();
    await sandbox.stop();
  }
}

async function latency(work: string): Promise<string[][]> {
  const sandbox = await startSandbox({ dataDir: path.join(work, 'sandbox-latency'), reset: true, quiet: true, link: null });
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...(chromiumLaunchOptions().args ?? []), '--no-sandbox'] });
  const stack = await startStack(3000);
  try {
    const page = await browser.newPage();
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${stack.shellUrl}/uploader`);
    await page.getByText(/You have uploaded/).waitFor();
    const idToken = await idTokenOf(page);
    await page.close();
    const base = sandbox.config.api.uploadsBaseUrl;
    const post = async (pathname: string, body: unknown) => {
      const start = performance.now();
      const res = await fetch(`${base}/ranches/${RANCH}/${pathname}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      return { ms: performance.now() - start, json };
    };
    const fps = (n: number) => Array.from({ length: n }, () => `v1-${1_000_000 + Math.floor(Math.random() * 1e6)}-${randomBytes(16).toString('hex')}`);
    const RUNS = 30;
    const stats = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;
    };
    const fresh: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { ms, json } = await post('reservations', { fingerprints: fps(500) });
      fresh.push(ms);
      await fetch(`${base}/ranches/${RANCH}/reservations/${String(json['reservation'])}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${idToken}` },
      });
    }
    // 500 photos the ranch has (counted in the ledger directly): all answered known, nothing granted.
    const db = openDb(path.join(sandbox.dataDir, 'sandbox.db'));
    const known = fps(500);
    db.raw.transaction(() => known.forEach((f, i) => db.insertPhoto(RANCH, f, Number(f.split('-')[1]), `x/${i}`, new Date().toISOString())))();
    db.close();
    const knownRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) knownRuns.push((await post('reservations', { fingerprints: known })).ms);
    const sizes: number[] = [];
    for (let i = 0; i < RUNS; i++) sizes.push((await post('photo-lookups', { sizes: Array.from({ length: 1000 }, (_, j) => 1_000_000 + j * 7) })).ms);
    return [
      [`reservation, 500 new photos (granted; released after)`, stats(fresh), `${RUNS} calls`],
      [`reservation, 500 photos the ranch has (all "known")`, stats(knownRuns), `${RUNS} calls`],
      [`photo lookup, 1,000 file sizes`, stats(sizes), `${RUNS} calls`],
    ];
  } finally {
    await stack.close();
    await browser.close();
    await sandbox.stop();
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-reservations-'));
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...(chromiumLaunchOptions().args ?? []), '--no-sandbox'] });
  const tables: { title: string; rows: string[][] }[] = [];
  try {
    if (SECTIONS.has('goodput')) {
      tables.push({
        title: 'Goodput through the link emulator, slots asked for as the uploader does vs none asked (one reservation made beforehand)',
        rows: [['link, photos', 'with slot calls', 'without', 'goodput lost', ''], ...(await goodput(browser, work))],
      });
    }
    if (SECTIONS.has('card')) tables.push({ title: 'A card already uploaded from another device', rows: await card(browser, work) });
    if (SECTIONS.has('latency')) tables.push({ title: 'The uploads API on loopback (the sandbox, SQLite)', rows: await latency(work) });
  } finally {
    await browser.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`\nServer reservations benchmark (Chromium, production builds, sandbox; ${os.cpus().length} CPUs)`);
  for (const t of tables) {
    console.log(`\n${t.title}\n`);
    printTable(t.rows);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

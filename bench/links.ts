/**
 * The uploader over the links members have (docs/performance.md#links--npm-run-benchlinks): the
 * real uploader (production builds, Chromium) against the sandbox behind an emulated link — the
 * packet emulator where the machine allows it (bench/netem/: root and TUN), else the sandbox's
 * proxy; the bench says which. Per link profile (sandbox/README.md#link-profiles) × originals or
 * copies × the uploader build before and after: photos per hour, goodput (file bytes delivered ÷
 * what the link could carry over the run, outages as zero), bytes sent twice (S3's PUT body
 * bytes beyond what was stored), false stalls (PUTs aborted mid-body: these links never truly
 * stall), time to the first stored photo, the longest main-thread task, how busy the link was.
 * Then the cap section (bench/link-cap.ts). Each prints one table, with the lead's goals.
 *
 * Needs `npm run build` first and the ports free (the sandbox's and 3000–3002), or root with TUN.
 * `BENCH_BEFORE=<dir>` the earlier build: a directory holding uploader-remote/dist (or the dist
 * itself); without it only "after" runs. `BENCH_AFTER` (default this tree's uploader-remote/dist).
 * `BENCH_LINKS` (default `3:600,geo,starlink,lte,20:80`), `BENCH_FORMS` (`originals,copies`),
 * `BENCH_MINUTES` (each run's length on its link, default 4), `BENCH_ORIGINAL_PHOTOS` /
 * `BENCH_COPY_PHOTOS` (instead of sizing by minutes), `BENCH_MAX_PHOTOS` (400), `BENCH_PAINTED`
 * (24), `BENCH_SECTIONS` (`profiles,cap`), `BENCH_EMULATOR` (auto, packets, proxy); the cap
 * section's own: bench/link-cap.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { formatLink, linkName, parseLink } from '../sandbox/src/index';
import type { LinkSpec } from '../sandbox/src/index';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { realisticPhotos } from '../e2e/support/photos';
import { repo, startStack, type Stack } from '../e2e/support/servers';
import { capSection } from './link-cap';
import { chooseEmulator, openBenchLink } from './link-emulators';
import type { BenchLink, EmulatorKind } from './link-emulators';
import { linkQuiet, ownPhotos, sendBatch } from './link-runs';
import { printTable } from './table';

const num = (name: string, fallback: number) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const MINUTES = num('BENCH_MINUTES', 4);
const MAX_PHOTOS = num('BENCH_MAX_PHOTOS', 400);
const PAINTED = num('BENCH_PAINTED', 24);
const FORMS = list('BENCH_FORMS', 'originals,copies').map((f) => f === 'copies');
const SECTIONS = new Set(list('BENCH_SECTIONS', 'profiles,cap'));
const LINKS: LinkSpec[] = list('BENCH_LINKS', '3:600,geo,starlink,lte,20:80').map((spec) => {
  const parsed = parseLink(spec);
  if ('error' in parsed || !parsed.link) throw new Error(`BENCH_LINKS: ${'error' in parsed ? parsed.error : 'a link cannot be off here'}`);
  return parsed.link;
});
/** A photo's mean size as sent: an original of the painted photos, a copy (5.7 % of it, docs/performance.md#smaller-copies). */
const ORIGINAL_BYTES = 4_000_000;
const COPY_BYTES = 230_000;

/** An uploader build: its name in the table and the directory served as uploader-remote. */
export interface Build {
  name: 'before' | 'after';
  dir: string;
}

/** Where a saved build's uploader-remote is: `<dir>/uploader-remote/dist`, `<dir>/uploader-remote` or `<dir>` itself. */
function uploaderDist(dir: string, variable: string): string {
  for (const candidate of [path.join(dir, 'uploader-remote', 'dist'), path.join(dir, 'uploader-remote'), dir]) {
    if (fs.existsSync(path.join(candidate, 'mf-manifest.json'))) return candidate;
  }
  throw new Error(
    `${variable}=${dir}: no mf-manifest.json in ${dir}/uploader-remote/dist, ${dir}/uploader-remote or ${dir}; build uploader-remote there first`,
  );
}

function builds(): Build[] {
  const after: Build = { name: 'after', dir: uploaderDist(process.env.BENCH_AFTER ?? path.join(repo, 'uploader-remote', 'dist'), 'BENCH_AFTER') };
  const before = process.env.BENCH_BEFORE;
  return before ? [{ name: 'before', dir: uploaderDist(before, 'BENCH_BEFORE') }, after] : [after];
}

/** How many photos make a run of about MINUTES on this link (capped by MAX_PHOTOS), or the count asked for. */
function photoCount(bench: BenchLink, copies: boolean): number {
  const asked = process.env[copies ? 'BENCH_COPY_PHOTOS' : 'BENCH_ORIGINAL_PHOTOS'];
  if (asked !== undefined) return Number(asked);
  const perSecond = bench.timeline.capacityBytes(0, 3_600_000) / 3_600;
  const photos = Math.round((perSecond * MINUTES * 60 * 0.85) / (copies ? COPY_BYTES : ORIGINAL_BYTES));
  return Math.max(4, Math.min(MAX_PHOTOS, photos));
}

export interface Measured {
  build: Build['name'];
  copies: boolean;
  photos: number;
  finished: boolean;
  seconds: number;
  /** Bytes of the objects stored during the run (the files delivered). */
  delivered: number;
  /** Bytes S3 received in PUT bodies during the run, every attempt. */
  body: number;
  aborted: number;
  firstPhotoSeconds: number;
  longestTaskMs: number;
  /** What the link could carry from the click to the end (outages as zero). */
  capacity: number;
  /** What its uplink carried meanwhile. */
  carried: number;
}

/** One batch on `bench`'s link with `build` serving the uploader. */
async function measure(browser: Browser, stack: Stack, bench: BenchLink, build: Build, files: string[], copies: boolean): Promise<Measured> {
  await stack.startRemote('uploader', build.dir);
  const { sandbox } = bench;
  const at = { t: 0, carried: 0, body: 0, aborted: 0, stored: 0 };
  const end = { ...at };
  const snapshot = async (into: typeof at) => {
    into.t = await bench.time();
    into.carried = await bench.carried();
    into.body = sandbox.putBodyBytes();
    into.aborted = sandbox.abortedPuts();
    into.stored = sandbox.storedObjects().length;
  };
  const run = await sendBatch(browser, stack.shellUrl, files, {
    copies,
    beforeClick: async () => {
      await linkQuiet(() => bench.carried());
      await snapshot(at);
    },
    atEnd: () => snapshot(end),
  });
  const stored = sandbox.storedObjects().slice(at.stored, end.stored);
  return {
    build: build.name,
    copies,
    photos: files.length,
    finished: run.finished,
    seconds: run.seconds,
    delivered: stored.reduce((n, o) => n + o.bytes, 0),
    body: end.body - at.body,
    aborted: end.aborted - at.aborted,
    firstPhotoSeconds: stored.length > 0 ? (Math.min(...stored.map((o) => o.at)) - run.startedAt) / 1000 : NaN,
    longestTaskMs: run.longestTaskMs,
    capacity: bench.timeline.capacityBytes(at.t, end.t),
    carried: end.carried - at.carried,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const hasOutage = (link: LinkSpec) => 'profile' in link && link.profile !== 'geo';

/** The table's rows for one link's runs, goals beside the figures. */
function rowsFor(link: LinkSpec, runs: Measured[]): string[][] {
  const goodputGoal = hasOutage(link) ? 0.8 : 0.9;
  const isCleanTwenty = !('profile' in link) && link.mbit === 20;
  return runs.map((r) => {
    const goodput = r.delivered / r.capacity;
    const twice = Math.max(0, r.body - r.delivered) / r.delivered;
    const busy = r.carried / r.capacity;
    const before = runs.find((b) => b.build === 'before' && b.copies === r.copies);
    const sooner = r.build === 'after' && before ? 1 - r.firstPhotoSeconds / before.firstPhotoSeconds : undefined;
    const geoGoal = 'profile' in link && link.profile === 'geo' && sooner !== undefined ? ` (goal ≥ 30 % sooner: ${verdict(sooner >= 0.3)})` : '';
    return [
      linkName(link),
      r.copies ? 'copies' : 'originals',
      r.build,
      `${r.photos}${r.finished ? '' : ' (unfinished)'}`,
      `${r.seconds.toFixed(0)} s`,
      ((r.photos * 3600) / r.seconds).toFixed(0),
      `${pct(goodput)} (≥ ${goodputGoal * 100} %: ${verdict(goodput >= goodputGoal)})`,
      `${pct(twice)} (≤ 3 %: ${verdict(twice <= 0.03)})`,
      `${r.aborted} (0: ${verdict(r.aborted === 0)})`,
      `${r.firstPhotoSeconds.toFixed(1)} s${sooner === undefined ? '' : `, ${Math.abs(sooner * 100).toFixed(0)} % ${sooner >= 0 ? 'sooner' : 'later'} than before${geoGoal}`}`,
      r.longestTaskMs === 0 ? 'none ≥ 50 ms' : `${r.longestTaskMs.toFixed(0)} ms`,
      `${pct(busy)}${isCleanTwenty && r.copies ? ` (≥ 90 %: ${verdict(busy >= 0.9)})` : ''}`,
    ];
  });
}

/** How long a link's runs can take: each run's minutes, generously, for the packet emulator's timeline. */
const horizonMs = (runs: number) => Math.max(3_600_000, runs * (MINUTES + 10) * 60_000);

async function profiles(browser: Browser, stack: Stack, kind: EmulatorKind, work: string, sources: string[], all: Build[]): Promise<string[][]> {
  const rows: string[][] = [];
  for (const link of LINKS) {
    const dir = path.join(work, linkName(link).replace(/\W/g, '-'));
    const bench = await openBenchLink(link, kind, dir, horizonMs(FORMS.length * all.length));
    try {
      console.log(`${linkName(link)}: ${formatLink(link)}`);
      const runs: Measured[] = [];
      for (const copies of FORMS) {
        for (const build of all) {
          const count = photoCount(bench, copies);
          const files = ownPhotos(
            Array.from({ length: count }, (_, i) => sources[i % sources.length]!),
            path.join(dir, `${copies ? 'copies' : 'originals'}-${build.name}`),
          );
          const measured = await measure(browser, stack, bench, build, files, copies);
          runs.push(measured);
          console.log(`  ${rowsFor(link, runs).at(-1)!.slice(1).join(' | ')}`);
          fs.rmSync(path.dirname(files[0]!), { recursive: true, force: true });
        }
      }
      rows.push(...rowsFor(link, runs));
    } finally {
      await bench.close();
    }
  }
  return rows;
}

async function main() {
  const emulator = await chooseEmulator(__filename);
  if ('rerun' in emulator) process.exit(emulator.rerun);
  console.log(`Emulator: ${emulator.kind === 'packets' ? 'the packet emulator' : "the sandbox's TCP proxy"} (${emulator.why})`);
  const all = builds();
  for (const b of all) console.log(`Uploader ${b.name}: ${b.dir}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-links-'));
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...(chromiumLaunchOptions().args ?? []), '--no-sandbox'] });
  let stack: Stack | undefined;
  const tables: [string, string[][]][] = [];
  try {
    const painted = await realisticPhotos(PAINTED, { firstSeed: 1001, browser });
    stack = await startStack(3000, undefined, { uploader: all[0]!.dir });
    const header = [
      'link',
      'sent as',
      'build',
      'photos',
      'time',
      'photos per hour',
      'goodput',
      'sent twice',
      'false stalls',
      'first photo',
      'longest task',
      'link busy',
    ];
    if (SECTIONS.has('profiles')) tables.push(['profiles', [header, ...(await profiles(browser, stack, emulator.kind, work, painted, all))]]);
    if (SECTIONS.has('cap')) tables.push(['cap', await capSection({ browser, stack, kind: emulator.kind, work, sources: painted, builds: all })]);
  } finally {
    await browser.close();
    await stack?.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const machine = `${os.cpus().length} CPUs, ${emulator.kind === 'packets' ? 'packet emulator' : 'proxy'}`;
  for (const [name, rows] of tables) {
    console.log(
      name === 'profiles'
        ? `\nThe uploader over members' links (${machine}; goodput = bytes stored ÷ what the link could carry, outages as zero; sent twice = PUT body bytes beyond those stored ÷ those stored; false stalls = PUTs aborted mid-body)\n`
        : `\nThe upload cap: half the link (${machine}; per minute of the batch, the uploader's PUT body bytes and a bulk TCP flow on the same link)\n`,
    );
    printTable(rows);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

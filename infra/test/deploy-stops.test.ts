/**
 * A deploy stopped at each write in turn, against the S3 emulator (support/s3-emulator.ts): the
 * bucket's adapter lets the first n writes through and fails the rest (support/deploy-faults.ts),
 * for every n from 0 to the deploy's last write. After each stop, what is served must be one
 * release, whole — for a remote, its mf-manifest.json and every file it names (the entry script,
 * the chunks), the previous release's until the manifest's write; for the shell, every page and
 * the hashed script it loads — and the error must say which entry files are which, in agreement
 * with the bucket, claiming "intact" only when no entry file was written. Four kinds of remote
 * release: manifests naming a content-hashed entry script (today's builds, webpack/index.js) or
 * remoteEntry.js (older ones), each over either. Then: a rollback after a stopped deploy puts the
 * previous release back; and two deploys racing after --break-lock never mix their files, the
 * first paused after each step's first and last write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostDescription } from '@trailsense/webpack-config/federation-check';
import { deploy } from '../src/deploy/deploy';
import type { DeployOptions } from '../src/deploy/deploy';
import type { DeployPlan } from '../src/deploy/plan';
import { DeployError } from '../src/deploy/execute';
import { manifestEntry } from '../src/deploy/order';
import { formatResult, formatRollback } from '../src/deploy/report';
import { rollback } from '../src/deploy/rollback';
import { pauseAfter, stopAfter } from './support/deploy-faults';
import type { WriteLog } from './support/deploy-faults';
import { writeFixtureRelease, writeFixtureShell, writeShellHost } from './support/fixture-release';
import type { FixtureRelease, FixtureShell } from './support/fixture-release';
import { emulatorDeploy, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';

// A test here runs a deploy per write of a release (or, racing, per step's first and last write),
// each against the emulator's own process, each over the previous release copied into place
// (live(): deployed once). The bound is for a test that never finishes, not a timing: a loaded
// machine takes longer, the result is the same.
jest.setTimeout(300_000);

let s3: S3Emulator;
let work: string;
let shellHost: string;
const remotes: Record<string, FixtureRelease> = {};
let shells: { S1: FixtureShell; S2: FixtureShell; S3: FixtureShell };
/** Each shell release's runtime config (--config): each its own, so that config.json changes with the release. */
const configs: Record<string, string> = {};

beforeAll(async () => {
  s3 = await startS3Emulator('stops');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-deploy-stops-'));
  shellHost = writeShellHost(path.join(work, 'live-shell', 'federation-host.json'));
  for (const marker of ['A', 'B', 'C']) {
    remotes[`${marker}-hashed`] = writeFixtureRelease(path.join(work, `${marker}-hashed`), marker, { hashedEntry: true });
    remotes[`${marker}-plain`] = writeFixtureRelease(path.join(work, `${marker}-plain`), marker);
  }
  // Each release its own federation-host.json too (what it provides, stamped with its name).
  const host = (marker: string) => ({ ...hostDescription(REPO), builtBy: marker });
  shells = {
    S1: writeFixtureShell(path.join(work, 'S1'), 'S1', { host: host('S1') }),
    S2: writeFixtureShell(path.join(work, 'S2'), 'S2', { host: host('S2') }),
    S3: writeFixtureShell(path.join(work, 'S3'), 'S3', { host: host('S3') }),
  };
  const example = JSON.parse(fs.readFileSync(path.join(REPO, 'config', 'production.example.json'), 'utf8')) as { analytics: { vitalsSampleRate: number } };
  for (const [i, marker] of ['S1', 'S2', 'S3'].entries()) {
    configs[marker] = path.join(work, `config-${marker}.json`);
    fs.writeFileSync(configs[marker], `${JSON.stringify({ ...example, analytics: { ...example.analytics, vitalsSampleRate: (i + 1) / 10 } }, null, 2)}\n`);
  }
});
afterAll(async () => {
  await s3?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const REPO = path.resolve(__dirname, '..', '..');

function remoteOptions(release: FixtureRelease, prefix: string, extra: Partial<DeployOptions> = {}): DeployOptions {
  return { app: 'uploader-remote', distDir: release.dir, shell: shellHost, ...emulatorDeploy(s3, prefix), ...extra };
}

function shellOptions(shell: FixtureShell, prefix: string, extra: Partial<DeployOptions> = {}): DeployOptions {
  // Checked against production in deploy-checks.test.ts; here only the writes matter.
  const configFile = configs[path.basename(shell.dir)] as string;
  return { app: 'shell', distDir: shell.dir, configFile, skipProductionChecks: true, warn: () => undefined, ...emulatorDeploy(s3, prefix), ...extra };
}

/** An object's text, or undefined when the bucket has none. */
async function get(prefix: string, key: string): Promise<string | undefined> {
  const res = await fetch(s3.url(prefix + key));
  return res.status === 404 ? undefined : res.text();
}

const text = (dir: string, file: string) => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : undefined);

/** Which of `candidates` (by marker) has this content at `file`. */
function whose(content: string | undefined, file: string, candidates: { dir: string; marker: string }[]): string {
  return candidates.find((c) => content !== undefined && text(c.dir, file) === content)?.marker ?? (content === undefined ? 'missing' : 'unknown');
}

/** What the shell loads of the remote under `prefix`: whose manifest is served, and whose is each file it names. */
async function servedRemote(prefix: string, candidates: FixtureRelease[]): Promise<{ manifest: string; files: Record<string, string> }> {
  const body = await get(prefix, 'mf-manifest.json');
  const manifest = whose(body, 'mf-manifest.json', candidates);
  const parsed = JSON.parse(body ?? '{}') as { exposes?: { assets: { js: { sync: string[]; async: string[] } } }[] };
  const named = [manifestEntry(parsed) ?? '(none)', ...(parsed.exposes ?? []).flatMap((e) => [...e.assets.js.sync, ...e.assets.js.async])];
  const files: Record<string, string> = {};
  for (const file of named) files[file] = whose(await get(prefix, file), file, candidates);
  return { manifest, files };
}

/** The shell's pages under `prefix`: whose each is, and whose the hashed script it loads. */
async function servedPages(prefix: string, candidates: FixtureShell[]): Promise<Record<string, string>> {
  const withMarker = candidates.map((c) => ({ dir: c.dir, marker: path.basename(c.dir) }));
  const pages = [...new Set(candidates.flatMap((c) => c.files.filter((f) => f.endsWith('.html'))))].sort();
  const served: Record<string, string> = {};
  for (const page of pages) {
    const body = await get(prefix, page);
    const owner = whose(body, page, withMarker);
    const script = /src=\/([^>\s]+)/.exec(body ?? '')?.[1];
    const scriptOwner = script ? whose(await get(prefix, script), script, withMarker) : 'none';
    served[page] = owner === scriptOwner ? owner : `${owner} page, ${scriptOwner} script`;
  }
  return served;
}

/** A deploy of `next` over `previous`: its plan, and the keys of its writes in order. */
async function plannedWrites(
  options: (prefix: string, extra?: Partial<DeployOptions>) => DeployOptions,
  deployPrevious: (prefix: string) => Promise<unknown>,
): Promise<{ plan: DeployPlan; writes: string[] }> {
  const prefix = `count-${Math.random().toString(36).slice(2, 8)}/`;
  await deployPrevious(prefix);
  const log: WriteLog = { landed: [] };
  const { plan } = await deploy(options(prefix, { wrapStore: stopAfter(Infinity, log), concurrency: 1 }));
  return { plan, writes: log.landed };
}

/** The number of writes of a deploy of `next` over `previous`, and their keys in order. */
async function writesOf(
  options: (prefix: string, extra?: Partial<DeployOptions>) => DeployOptions,
  deployPrevious: (prefix: string) => Promise<unknown>,
): Promise<string[]> {
  return (await plannedWrites(options, deployPrevious)).writes;
}

/**
 * Where to pause a deploy of `plan` in a race: after the first and after the last write of each of
 * its steps, the record's excepted (nothing of the deploy follows it). Each is a kind of moment a
 * write can be followed by: the rest of its step, already started (past the lock's check, each a
 * write conditional on what the plan was made over), or the next step, which renews the lock
 * first. A pause after another write of a step is one of these again: its step's other writes
 * started, or not one.
 */
function pausePoints(plan: DeployPlan): number[] {
  const points = new Set<number>();
  let before = 0;
  for (const step of plan.steps) {
    points.add(before + 1);
    points.add(before + step.uploads.length);
    before += step.uploads.length;
  }
  return [...points].sort((a, b) => a - b);
}

/** Releases deployed once each over an empty prefix (seed-<release>/), by release folder name. */
const seeds = new Map<string, Promise<string>>();

/**
 * Makes `release` the live one under the empty `prefix`, as a deploy of it there leaves the bucket:
 * deployed once, under a prefix of its own, and copied from there (S3Emulator.copyPrefix) each
 * time after — the same objects, without the same deploy's requests again.
 */
async function live(release: FixtureRelease | FixtureShell, prefix: string): Promise<void> {
  const name = path.basename(release.dir);
  let seed = seeds.get(name);
  if (!seed) {
    const at = `seed-${name}/`;
    seed = deploy('marker' in release ? remoteOptions(release, at) : shellOptions(release, at)).then(() => at);
    seeds.set(name, seed);
  }
  s3.copyPrefix(await seed, prefix);
}

/** A release's file as the deploy uploads it: the shell's config.json is its --config. */
function contentOf(release: { dir: string }, file: string): string | undefined {
  const config = configs[path.basename(release.dir)];
  return file === 'config.json' && config ? fs.readFileSync(config, 'utf8') : text(release.dir, file);
}

/** Holds a stopped deploy's error to the bucket: each entry file it lists is the release it says, and those it wrote are the ones that landed. */
async function checkEntries(prefix: string, error: DeployError, next: { dir: string }, previous: { dir: string }, landed: WriteLog): Promise<void> {
  const entries = error.entries!;
  expect(entries.written).toEqual(
    landed.landed.filter((k) => [...entries.written, ...entries.previous, ...entries.unknown, ...entries.absent].includes(k)).sort(),
  );
  for (const file of entries.written) expect({ file, content: await get(prefix, file) }).toEqual({ file, content: contentOf(next, file) });
  for (const file of entries.previous) expect({ file, content: await get(prefix, file) }).toEqual({ file, content: contentOf(previous, file) });
  for (const file of entries.absent) expect({ file, content: await get(prefix, file) }).toEqual({ file, content: undefined });
  for (const file of entries.unknown) expect([contentOf(previous, file), contentOf(next, file)]).toContain(await get(prefix, file));
}

/** Whether the stopped deploy wrote, or tried to write, an entry file. */
const touched = (error: DeployError) => error.entries!.written.length + error.entries!.unknown.length > 0;

const ENTRY_PATHS = new Set(['index.html', 'main.js', 'remoteEntry.js', 'mf-manifest.json']);

describe('a remote’s deploy stopped after each write', () => {
  test.each([
    ['hashed', 'hashed', true],
    ['plain', 'hashed', true],
    ['hashed', 'plain', true],
    ['plain', 'plain', false],
  ])('a release naming a %s entry script, deployed over one naming a %s one: atomic %s', async (nextKind, previousKind, atomic) => {
    const previous = remotes[`A-${previousKind}`]!;
    const next = remotes[`B-${nextKind}`]!;
    const candidates = [previous, next];
    const writes = await writesOf(
      (prefix, extra) => remoteOptions(next, prefix, extra),
      (prefix) => deploy(remoteOptions(previous, prefix)),
    );
    expect(writes.at(-1)).toMatch(/^_releases\/.*\.json$/);
    for (let n = 0; n < writes.length; n++) {
      const prefix = `remote-${nextKind}-${previousKind}-${n}/`;
      await live(previous, prefix);
      const log: WriteLog = { landed: [] };
      const error = await deploy(remoteOptions(next, prefix, { wrapStore: stopAfter(n, log) })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeployError);
      const message = (error as DeployError).message;
      const landed = new Set(log.landed);
      const switched = landed.has('mf-manifest.json');
      const served = await servedRemote(prefix, candidates);
      const halfway = switched && !landed.has('remoteEntry.js') && next.entry === 'remoteEntry.js';
      if (halfway && !atomic) {
        // The one state a release naming remoteEntry.js over another cannot avoid, said as such.
        expect(served).toEqual({ manifest: 'B', files: { 'remoteEntry.js': 'A', [next.lazyChunk]: 'B', [next.vendorChunk]: 'B' } });
        expect(message).toMatch(
          /mf-manifest\.json is the new release's, but remoteEntry\.js, which it names, (is|may) not( be)?: the shell checks the new manifest and runs the previous release's code \(the switch is not atomic/,
        );
      } else {
        const release = switched ? 'B' : 'A';
        expect({ n, served }).toEqual({ n, served: { manifest: release, files: Object.fromEntries(Object.keys(served.files).map((f) => [f, release])) } });
      }
      await checkEntries(prefix, error as DeployError, next, previous, log);
      const entryWritten = touched(error as DeployError);
      if (!entryWritten) {
        expect(message).toMatch(/No entry file was written: the previous release is still live and intact/);
        // Intact: every file of the previous release is as it was.
        for (const file of previous.files.filter((f) => !/\.(map|br|gz)$|^\./.test(f)))
          expect({ file, content: await get(prefix, file) }).toEqual({ file, content: text(previous.dir, file) });
      } else {
        expect(message).not.toMatch(/intact/);
        expect(message).toMatch(/Deploy again to finish, or roll back \(--rollback\) to put the entry files of _releases\/\S+\.json back\.$/);
      }
      if (entryWritten && !switched && !landed.has('mf-manifest.json')) {
        const failedManifest = writes[n] === 'mf-manifest.json';
        expect(message).toMatch(
          failedManifest
            ? /mf-manifest\.json's write failed: S3 holds the previous release's or the new release's/
            : /The shell still loads the previous release, whole/,
        );
      }
      if (switched && !halfway)
        expect(message).toMatch(/The shell loads the new release, whole: mf-manifest\.json is the new release's, and every file it names is in place\./);
      if (n === writes.length - 1) expect(message).toMatch(/^The record _releases\/\S+ was not written: .* Every changed entry file is the new release's/);
    }
    // Uninterrupted, it says whether its switch was one write.
    await deploy(remoteOptions(previous, `remote-${nextKind}-${previousKind}-done/`));
    const done = await deploy(remoteOptions(next, `remote-${nextKind}-${previousKind}-done/`));
    expect(done.result.switchNote === undefined).toBe(atomic);
    if (!atomic) expect(formatResult(emulatorDeploy(s3).target, done.plan, done.result)).toMatch(/note: the switch is not atomic/);
  });

  test('the writes of a hashed release: the manifest last of the entry files, remoteEntry.js before it', async () => {
    const writes = await writesOf(
      (prefix, extra) => remoteOptions(remotes['B-hashed']!, prefix, extra),
      (prefix) => deploy(remoteOptions(remotes['A-hashed']!, prefix)),
    );
    const entries = writes.filter((k) => ENTRY_PATHS.has(k));
    expect(entries.slice(-2)).toEqual(['remoteEntry.js', 'mf-manifest.json']);
    expect(writes.indexOf(remotes['B-hashed']!.entry)).toBeLessThan(writes.indexOf('main.js'));
    // Over a release whose manifest names remoteEntry.js, that file goes right after the manifest.
    const transition = await writesOf(
      (prefix, extra) => remoteOptions(remotes['B-hashed']!, prefix, extra),
      (prefix) => deploy(remoteOptions(remotes['A-plain']!, prefix)),
    );
    expect(transition.filter((k) => ENTRY_PATHS.has(k)).slice(-2)).toEqual(['mf-manifest.json', 'remoteEntry.js']);
  });
});

describe('the shell’s deploy stopped after each write', () => {
  test('every page served is whole, and the error lists each entry file as the bucket has it', async () => {
    const { S1, S2 } = shells;
    const writes = await writesOf(
      (prefix, extra) => shellOptions(S2, prefix, extra),
      (prefix) => deploy(shellOptions(S1, prefix)),
    );
    const isEntry = (k: string) => !/^_releases\//.test(k) && !/\.[0-9a-f]{10}\.js/.test(k);
    const entries = writes.filter(isEntry);
    expect(entries.slice(0, 2)).toEqual(['config.json', expect.stringMatching(/\.html$/)]);
    expect(entries.at(-1)).toBe('federation-host.json');
    for (let n = 0; n < writes.length; n++) {
      const prefix = `shell-${n}/`;
      await live(S1, prefix);
      const log: WriteLog = { landed: [] };
      const error = await deploy(shellOptions(S2, prefix, { wrapStore: stopAfter(n, log) })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeployError);
      const served = await servedPages(prefix, [S1, S2]);
      for (const [page, owner] of Object.entries(served)) expect({ n, page, owner }).toEqual({ n, page, owner: expect.stringMatching(/^S[12]$/) });
      await checkEntries(prefix, error as DeployError, S2, S1, log);
      const message = (error as DeployError).message;
      if (!touched(error as DeployError)) expect(message).toMatch(/No entry file was written: the previous release is still live and intact/);
      else {
        expect(message).not.toMatch(/intact/);
        expect(message).toMatch(/Each page served is whole/);
        expect(message).toMatch(/Deploy again to finish, or roll back \(--rollback\) to put the entry files of _releases\/\S+\.json back\.$/);
      }
    }
  });

  test('after a deploy stopped midway, --rollback puts the previous release’s entry files back; deploying again finishes it', async () => {
    const { S1, S2 } = shells;
    const prefix = 'repair/';
    const first = await deploy(shellOptions(S1, prefix));
    const writes = await writesOf(
      (p, extra) => shellOptions(S2, p, extra),
      (p) => deploy(shellOptions(S1, p)),
    );
    // Stopped with config.json and a page written, the other pages not yet.
    const n = writes.indexOf('config.json') + 2;
    await expect(deploy(shellOptions(S2, prefix, { wrapStore: stopAfter(n) }))).rejects.toThrow(DeployError);
    expect(await get(prefix, 'config.json')).toBe(fs.readFileSync(configs.S2!, 'utf8'));
    const undone = await rollback({ ...shellOptions(S1, prefix), dryRun: false });
    expect(undone.choice).toMatchObject({ repair: true, target: { key: first.plan.releaseKey } });
    expect(formatRollback(emulatorDeploy(s3).target, undone.plan, undone.result, undone.choice)).toMatch(
      /put back the entry files of the live release, .*\n.*undoing a deploy that stopped midway/,
    );
    for (const file of S1.files.filter((f) => !/\.(map|br|gz)$/.test(f) && f !== 'config.json')) {
      expect({ file, content: await get(prefix, file) }).toEqual({ file, content: text(S1.dir, file) });
    }
    expect(await get(prefix, 'config.json')).toBe(fs.readFileSync(configs.S1!, 'utf8'));
    const again = await deploy(shellOptions(S2, prefix));
    expect(again.result.uploaded.files).toBeGreaterThan(0);
    expect(new Set(Object.values(await servedPages(prefix, [S1, S2])))).toEqual(new Set(['S2']));
  });
});

describe('two deploys racing after --break-lock', () => {
  /**
   * Deploy X pauses after its n-th write (its process stopped: no renewals); Y, half an hour later
   * by its clock, breaks X's lock and deploys; then X resumes. X must write no entry file after
   * that, nor prune: what is served is Y's release, whole, with every file of it in place. X
   * pauses after each step's first and last write in turn (pausePoints): every kind of moment it
   * can be stopped at.
   */
  async function race(kind: 'remote' | 'shell', n: number) {
    const prefix = `race-${kind}-${n}/`;
    const [x, y] =
      kind === 'remote'
        ? [remotes['B-hashed']!, remotes['C-hashed']!].map((r) => (extra: Partial<DeployOptions>) => remoteOptions(r, prefix, extra))
        : [shells.S2, shells.S3].map((s) => (extra: Partial<DeployOptions>) => shellOptions(s, prefix, extra));
    await live(kind === 'remote' ? remotes['A-hashed']! : shells.S1, prefix);
    const pause = pauseAfter(n);
    const warnings: string[] = [];
    const xDone = deploy(x!({ wrapStore: pause.wrap, warn: (line) => warnings.push(line) })).then(
      () => undefined,
      (e: unknown) => e,
    );
    await Promise.race([pause.paused, xDone]);
    const landedBefore = pause.log.landed.length;
    const later = new Date(Date.now() + 31 * 60_000);
    const breakerWarnings: string[] = [];
    await deploy(y!({ now: later, breakLock: true, warn: (line) => breakerWarnings.push(line) }));
    expect(breakerWarnings).toEqual(expect.arrayContaining([expect.stringMatching(/^broke the stale lock .* of .*a deploy of /)]));
    pause.resume();
    const xError = await xDone;
    const lateWrites = pause.log.landed.slice(landedBefore);
    return { prefix, xError, lateWrites, warnings };
  }

  test('a remote: the deploy whose lock was broken stops before its switch, prunes nothing, and Y’s release is served whole', async () => {
    const [A, B, C] = [remotes['A-hashed']!, remotes['B-hashed']!, remotes['C-hashed']!];
    const { plan, writes } = await plannedWrites(
      (prefix, extra) => remoteOptions(B, prefix, extra),
      (prefix) => live(A, prefix),
    );
    const points = pausePoints(plan);
    expect(points.at(-1)).toBe(writes.length - 1);
    for (const n of points) {
      const { prefix, xError, lateWrites } = await race('remote', n);
      expect(xError).toBeInstanceOf(DeployError);
      expect((xError as DeployError).message).toMatch(/Another deploy or rollback has taken over/);
      expect({ n, lateEntries: lateWrites.filter((k) => ENTRY_PATHS.has(k)) }).toEqual({ n, lateEntries: [] });
      expect(await servedRemote(prefix, [A, B, C])).toEqual({ manifest: 'C', files: { [C.entry]: 'C', [C.lazyChunk]: 'C', [C.vendorChunk]: 'C' } });
      for (const file of C.files.filter((f) => !/\.(map|br|gz)$|^\./.test(f)))
        expect({ n, file, content: await get(prefix, file) }).toEqual({ n, file, content: text(C.dir, file) });
    }
  });

  test('the shell: whatever write the first deploy paused after, every page is the breaker’s', async () => {
    const { S1, S2, S3 } = shells;
    const { plan, writes } = await plannedWrites(
      (prefix, extra) => shellOptions(S2, prefix, extra),
      (prefix) => live(S1, prefix),
    );
    const points = pausePoints(plan);
    expect(points.at(-1)).toBe(writes.length - 1);
    for (const n of points) {
      const { prefix, xError } = await race('shell', n);
      expect(xError).toBeInstanceOf(DeployError);
      const served = await servedPages(prefix, [S1, S2, S3]);
      expect({ n, owners: [...new Set(Object.values(served))] }).toEqual({ n, owners: ['S3'] });
      for (const file of ['config.json', 'routes.json', 'federation-host.json']) {
        const content = file === 'config.json' ? fs.readFileSync(configs.S3!, 'utf8') : text(S3.dir, file);
        expect({ n, file, content: await get(prefix, file) }).toEqual({ n, file, content });
      }
    }
  });
});

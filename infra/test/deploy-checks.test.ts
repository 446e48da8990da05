/**
 * The checks a deploy and a rollback go through before anything is written (src/deploy/checks.ts),
 * against the S3 emulator: a shell's deploy or rollback needs --settings or, said outright,
 * --skip-production-checks; a remote's rollback needs --shell or --skip-shell-check, and the
 * release it would put back must fit the live shell; a shell's rollback puts back a config that
 * passes the production checks and a shell the live remotes fit — a rollback past a contract
 * change is refused, listing why, and writes nothing. The live remotes' manifests are served by a
 * stub fetch at the example environment's URLs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostDescription } from '@trailsense/webpack-config/federation-check';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import { liveRemotesProblems } from '../src/deploy/checks';
import { parseDeployArgs, UsageError } from '../src/deploy/cli';
import { deploy } from '../src/deploy/deploy';
import type { DeployOptions } from '../src/deploy/deploy';
import { PreflightError } from '../src/deploy/preflight';
import { rollback } from '../src/deploy/rollback';
import {
  EXAMPLE_REMOTES,
  exampleRemotesFetch,
  fetchFrom,
  FIXTURE_RUNTIME,
  writeFixtureRelease,
  writeFixtureShell,
  writeShellHost,
} from './support/fixture-release';
import type { FixtureRelease } from './support/fixture-release';
import { emulatorDeploy, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';

const REPO = path.resolve(__dirname, '..', '..');
const SETTINGS = path.join(REPO, 'infra', 'config', 'example.json');
const PRODUCTION_CONFIG = path.join(REPO, 'config', 'production.example.json');

let s3: S3Emulator;
let work: string;
let shellHost: string;
/** A remote release that fits this repository's shell; the live remotes serve its manifest. */
let fitting: FixtureRelease;
let liveRemotes: typeof fetch;

beforeAll(async () => {
  s3 = await startS3Emulator('checks');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-deploy-checks-'));
  shellHost = writeShellHost(path.join(work, 'live-shell', 'federation-host.json'));
  fitting = writeFixtureRelease(path.join(work, 'fitting'), 'F', { hashedEntry: true });
  liveRemotes = exampleRemotesFetch(fitting);
});
afterAll(async () => {
  await s3?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function keys(prefix: string): Promise<string[]> {
  const res = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => (m[1] as string).slice(prefix.length)).sort();
}

async function refusal(attempt: Promise<unknown>): Promise<PreflightError> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PreflightError)) throw new Error(`not refused by a check: ${String(error)}`);
  return error;
}

/** The shell's federation runtime, one minor version on: what a remote built after a runtime upgrade needs. */
function nextMinorRuntime(): string {
  const [major, minor] = hostDescription(REPO).runtime.version.split('.').map(Number) as [number, number];
  return `~${major}.${minor + 1}.0`;
}

describe('a shell’s deploy: --settings or --skip-production-checks', () => {
  const shellDeploy = (prefix: string, extra: Partial<DeployOptions> = {}) =>
    deploy({ app: 'shell', distDir: path.join(work, 'shell-S'), configFile: PRODUCTION_CONFIG, ...emulatorDeploy(s3, prefix), fetch: liveRemotes, ...extra });
  beforeAll(() => {
    writeFixtureShell(path.join(work, 'shell-S'), 'S');
  });

  test('without either it refuses, saying what to give, and uploads nothing', async () => {
    await expect(shellDeploy('bare/')).rejects.toThrow(
      /^A deploy of the shell checks it against production: give --settings infra\/config\/<env>\.json .*, or --skip-production-checks to deploy without them/,
    );
    await expect(shellDeploy('bare/', { settingsFile: SETTINGS, skipProductionChecks: true })).rejects.toThrow(
      'Give --settings or --skip-production-checks, not both.',
    );
    expect(await keys('bare/')).toEqual([]);
  });

  test('with --skip-production-checks it deploys, with a warning saying what was not checked', async () => {
    const warnings: string[] = [];
    const { result } = await shellDeploy('skipped/', { skipProductionChecks: true, warn: (line) => warnings.push(line) });
    expect(result.uploaded.files).toBeGreaterThan(0);
    expect(warnings).toEqual([
      "the shell is deployed without the production checks (--skip-production-checks): its runtime config is not checked against the environment's settings, its CSP against the distribution's, nor the live remotes against it.",
    ]);
  });

  test('with --settings, the live remotes must fit its federation-host.json: a shell that no longer provides their runtime is refused', async () => {
    const host = hostDescription(REPO);
    const older = writeFixtureShell(path.join(work, 'shell-older'), 'O', { host: { ...host, runtime: { ...host.runtime, version: '0.0.1' } } });
    const error = await refusal(shellDeploy('older/', { distDir: older.dir, settingsFile: SETTINGS }));
    const runtimeProblem = (remote: string, url: string) =>
      `the live ${remote} (${url}) was built against the federation runtime ${FIXTURE_RUNTIME.package}@${FIXTURE_RUNTIME.requiredVersion}, and the shell provides 0.0.1`;
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(runtimeProblem('auth-remote', EXAMPLE_REMOTES.auth)),
        expect.stringContaining(runtimeProblem('uploader-remote', EXAMPLE_REMOTES.uploader)),
      ]),
    );
    // A live remote that cannot be read is a problem too: whether it fits is unknown.
    const unreadable = await refusal(shellDeploy('older/', { settingsFile: SETTINGS, fetch: fetchFrom({}) }));
    expect(unreadable.problems).toEqual(
      expect.arrayContaining([
        `remotes.auth: the live auth-remote's manifest ${EXAMPLE_REMOTES.auth} could not be read (it answered 404): whether it fits this shell is unknown.`,
      ]),
    );
    expect(await keys('older/')).toEqual([]);
  });

  test('the command line: --skip-production-checks is the shell’s, and not with --settings', () => {
    const parse = (args: string[]) => parseDeployArgs(args, { INIT_CWD: '/srv' }, REPO);
    expect(parse(['shell', '--target', 's3://site', '--config', 'c.json', '--skip-production-checks']).skipProductionChecks).toBe(true);
    expect(parse(['shell', '--target', 's3://site', '--rollback', '--settings', 's.json'])).toMatchObject({ rollback: true, settingsFile: '/srv/s.json' });
    expect(() => parse(['shell', '--target', 's3://site', '--settings', 's.json', '--skip-production-checks'])).toThrow(
      'Give --settings or --skip-production-checks, not both.',
    );
    expect(() => parse(['auth-remote', '--target', 's3://site', '--skip-production-checks'])).toThrow(UsageError);
    expect(() => parse(['auth-remote', '--target', 's3://site', '--skip-production-checks'])).toThrow(
      '--skip-production-checks: for the shell; auth-remote takes --shell <url|file> or --skip-shell-check.',
    );
  });
});

describe('a remote’s rollback is checked against the live shell', () => {
  const prefix = 'remote-rollback/';
  const remote = (release: FixtureRelease, extra: Partial<DeployOptions> = {}): DeployOptions => ({
    app: 'uploader-remote',
    distDir: release.dir,
    ...emulatorDeploy(s3, prefix),
    ...extra,
  });

  test('the previous release needs a runtime, or a module version, the live shell does not provide: refused, nothing written', async () => {
    // Released when the shell had a newer runtime (then rolled back), or deployed without the check.
    const needsNewer = writeFixtureRelease(path.join(work, 'needs-newer'), 'N', { hashedEntry: true });
    const manifestFile = path.join(needsNewer.dir, 'mf-manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { metaData: Record<string, unknown>; shared: unknown[] };
    manifest.metaData.federationRuntime = { ...FIXTURE_RUNTIME, requiredVersion: nextMinorRuntime() };
    manifest.shared = [{ name: 'react', version: '99.0.0', requiredVersion: '^99.0.0' }];
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    const warnings: string[] = [];
    await deploy(remote(needsNewer, { skipShellCheck: true, warn: (line) => warnings.push(line) }));
    await deploy(remote(fitting, { shell: shellHost }));
    const before = await keys(prefix);

    await expect(rollback(remote(fitting))).rejects.toThrow(/^A remote's rollback checks the release it puts back against the live shell: give --shell/);
    const error = await refusal(rollback(remote(fitting, { shell: shellHost })));
    expect(error.message).toMatch(
      /^refusing to roll back uploader-remote to _releases\/\S+\.json \(deployed .*\): it does not fit what is live now \(a rollback past a contract change\); nothing was written:\n {2}- uploader-remote was built against the federation runtime/,
    );
    expect(error.problems[0]).toContain(`the federation runtime ${FIXTURE_RUNTIME.package}@${nextMinorRuntime()}`);
    expect(error.problems.slice(1).join('\n')).toMatch(/react/);
    expect(await keys(prefix)).toEqual(before);

    // Said outright, it goes back anyway, warned.
    warnings.length = 0;
    const { choice } = await rollback(remote(fitting, { skipShellCheck: true, warn: (line) => warnings.push(line) }));
    expect(choice.target.record.files.some((f) => f.path === needsNewer.entry)).toBe(true);
    expect(warnings).toEqual([
      'uploader-remote is rolled back without checking it against the live shell (--skip-shell-check): if it does not fit, its route shows an error.',
    ]);
  });
});

describe('a shell’s rollback is checked against production and the live remotes', () => {
  const shellOptions = (dir: string, prefix: string, extra: Partial<DeployOptions> = {}): DeployOptions => ({
    app: 'shell',
    distDir: dir,
    configFile: PRODUCTION_CONFIG,
    ...emulatorDeploy(s3, prefix),
    fetch: liveRemotes,
    ...extra,
  });

  test('the previous shell does not provide what the live remotes need, and its config fails the production checks: refused, nothing written', async () => {
    const prefix = 'shell-rollback-refused/';
    const host = hostDescription(REPO);
    const old = writeFixtureShell(path.join(work, 'shell-old'), 'old', { host: { ...host, runtime: { ...host.runtime, version: '0.0.1' } } });
    const current = writeFixtureShell(path.join(work, 'shell-current'), 'current');
    // The old one went out, unchecked, with a config naming an analytics stream the environment no longer has; the current one fits.
    const example = JSON.parse(fs.readFileSync(PRODUCTION_CONFIG, 'utf8')) as { analytics: object };
    const oldConfig = path.join(work, 'old-config.json');
    fs.writeFileSync(oldConfig, JSON.stringify({ ...example, analytics: { ...example.analytics, streamName: 'trailsense-old-events' } }));
    await deploy(shellOptions(old.dir, prefix, { configFile: oldConfig, skipProductionChecks: true, warn: () => undefined }));
    await deploy(shellOptions(current.dir, prefix, { skipProductionChecks: true, warn: () => undefined }));
    const before = await keys(prefix);

    await expect(rollback(shellOptions(current.dir, prefix))).rejects.toThrow(
      /^A rollback of the shell checks the release it puts back against production: give --settings/,
    );
    const warnings: string[] = [];
    const error = await refusal(rollback(shellOptions(current.dir, prefix, { settingsFile: SETTINGS, warn: (line) => warnings.push(line) })));
    expect(error.message).toMatch(/^refusing to roll back shell to _releases\/\S+\.json .*\(a rollback past a contract change\); nothing was written:/);
    expect(error.problems).toEqual(
      expect.arrayContaining([
        "runtime config: analytics.streamName is trailsense-old-events, but the settings' analyticsStreamName (the stream the Analytics stack creates) is trailsense-example-events.",
        expect.stringMatching(
          new RegExp(
            `^the live auth-remote \\(${EXAMPLE_REMOTES.auth.replace(/[.]/g, '\\.')}\\) was built against the federation runtime .* and the shell provides 0\\.0\\.1`,
          ),
        ),
        expect.stringMatching(/^the live uploader-remote .* and the shell provides 0\.0\.1/),
      ]),
    );
    expect(warnings).toEqual([expect.stringMatching(/^no --distribution: the CSP of the release put back is not compared/)]);
    expect(await keys(prefix)).toEqual(before);
  });

  test('a previous shell that fits is put back; the live remotes were read at the URLs its config names', async () => {
    const prefix = 'shell-rollback-fits/';
    const asked: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      asked.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return liveRemotes(input, init);
    };
    const a = writeFixtureShell(path.join(work, 'shell-a'), 'a');
    const b = writeFixtureShell(path.join(work, 'shell-b'), 'b');
    const first = await deploy(shellOptions(a.dir, prefix, { settingsFile: SETTINGS, distributionId: undefined, fetch: recording })).catch((e: unknown) => e);
    // A deploy without --distribution cannot compare the CSP: that alone refuses it.
    expect((first as PreflightError).problems).toEqual([
      "no --distribution: the shell's CSP cannot be compared with the distribution's response-headers policy.",
    ]);
    expect(asked.sort()).toEqual([EXAMPLE_REMOTES.auth, EXAMPLE_REMOTES.uploader]);
    await deploy(shellOptions(a.dir, prefix, { skipProductionChecks: true, warn: () => undefined }));
    await deploy(shellOptions(b.dir, prefix, { skipProductionChecks: true, warn: () => undefined }));
    asked.length = 0;
    const { choice, result } = await rollback(shellOptions(b.dir, prefix, { settingsFile: SETTINGS, fetch: recording, warn: () => undefined }));
    expect(choice.repair).toBeUndefined();
    expect(result.uploaded.files).toBeGreaterThan(0);
    expect(asked.sort()).toEqual([EXAMPLE_REMOTES.auth, EXAMPLE_REMOTES.uploader]);
    expect(await (await fetch(s3.url(`${prefix}index.html`))).text()).toBe(fs.readFileSync(path.join(a.dir, 'index.html'), 'utf8'));
  });
});

describe('liveRemotesProblems', () => {
  test('a config naming a remote’s entry script is checked through the manifest beside it; no problem when both fit', async () => {
    const parsed = parseRuntimeConfig(JSON.parse(fs.readFileSync(PRODUCTION_CONFIG, 'utf8')));
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const config = { ...parsed.config, remotes: { ...parsed.config.remotes, auth: 'https://auth.trailsense.example/remoteEntry.js' } };
    // The stub answers only at the manifests' URLs: a fetch of remoteEntry.js would be a problem.
    expect(await liveRemotesProblems(config, shellHost, liveRemotes)).toEqual([]);
  });
});

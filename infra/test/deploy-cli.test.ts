/**
 * The deploy command's line (src/deploy/cli.ts, bin/deploy.ts): its arguments parsed and refused,
 * then the command itself run as a process against the S3 emulator (support/s3-emulator.ts) —
 * what it prints, its exit codes, --rollback, the lock's message, the shell's production checks
 * asked for or skipped outright.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseDeployArgs, UsageError } from '../src/deploy/cli';
import { writeFixtureRelease, writeFixtureShell, writeShellHost } from './support/fixture-release';
import type { FixtureRelease, FixtureShell } from './support/fixture-release';
import { startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';

const REPO = path.resolve(__dirname, '..', '..');
const PRODUCTION_CONFIG = path.join(REPO, 'config', 'production.example.json');

/**
 * What one run of the command (a Node process compiling bin/deploy.ts with tsx) may take: about
 * 0.6 s on a quiet 2-core machine, 2.5 s with both cores busy (four CPU-bound processes beside the
 * run); a run still going after this is killed and its test fails saying so.
 */
const RUN_LIMIT_MS = 60_000;
/** The most runs one test makes ("refuses bad arguments…"): each test gets the time of that many. */
const MOST_RUNS_PER_TEST = 4;
jest.setTimeout(MOST_RUNS_PER_TEST * RUN_LIMIT_MS + 30_000);

describe('parseDeployArgs', () => {
  const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => parseDeployArgs(args, { INIT_CWD: '/srv/checkout', ...env }, '/repo');

  test('a remote to a bucket prefix, with the sandbox’s endpoint and keys', () => {
    expect(parse(['uploader-remote', '--target', 's3://hosting-bucket/site/v1/', '--endpoint', 'http://localhost:20005', '--keep', '3', '--dry-run'])).toEqual({
      app: 'uploader-remote',
      target: { bucket: 'hosting-bucket', prefix: 'site/v1/' },
      distDir: '/repo/uploader-remote/dist',
      region: 'us-east-1',
      endpoint: 'http://localhost:20005',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      keep: 3,
      concurrency: 8,
      dryRun: true,
    });
  });

  test('on AWS: the usual credential chain, paths from where npm was started', () => {
    const options = parse(['shell', '--target', 's3://site-bucket', '--config', 'config/prod.json', '--distribution', 'E2QWRUHEXAMPLE'], {
      AWS_PROFILE: 'prod',
      AWS_REGION: 'us-east-2',
    });
    expect(options).toMatchObject({
      app: 'shell',
      target: { bucket: 'site-bucket', prefix: '' },
      configFile: '/srv/checkout/config/prod.json',
      distributionId: 'E2QWRUHEXAMPLE',
      region: 'us-east-2',
      keep: 2,
      dryRun: false,
    });
    expect(options.credentials).toBeUndefined();
  });

  test('--rollback and --break-lock', () => {
    expect(parse(['auth-remote', '--target', 's3://site-bucket', '--rollback', '--break-lock'])).toMatchObject({
      app: 'auth-remote',
      rollback: true,
      breakLock: true,
    });
    const plain = parse(['auth-remote', '--target', 's3://site-bucket']);
    expect(plain.rollback).toBeUndefined();
    expect(plain.breakLock).toBeUndefined();
  });

  test.each([
    [[], 'Which app?'],
    [['website'], 'Unknown app "website"'],
    [['shell'], '--target s3://<bucket>[/<prefix>] is required.'],
    [['shell', '--target', 'https://bucket'], '--target must be s3://'],
    [['shell', '--target', 's3://bucket/../x'], 'may not contain . or ..'],
    [['shell', '--target', 's3://bucket', '--keep', '0'], '--keep must be a whole number of at least 1'],
    [['shell', '--target', 's3://bucket', '--distribution', 'not an id'], '--distribution must be a CloudFront distribution id'],
    [['shell', '--target', 's3://bucket', '--endpoint', 'ftp://x'], '--endpoint must be an http(s) URL'],
    [['shell', '--target', 's3://bucket', '--bogus'], "Unknown option '--bogus'"],
    [
      ['shell', '--target', 's3://bucket', '--rollback', '--keep', '3'],
      "--rollback puts back the previous release's own files and prunes nothing: --keep would be ignored.",
    ],
    [['shell', '--target', 's3://bucket', '--rollback', '--config', 'c.json'], '--config would be ignored'],
    [['shell', '--target', 's3://bucket', '--skip-shell-check'], '--skip-shell-check: for a remote'],
    [['uploader-remote', '--target', 's3://bucket', '--settings', 's.json'], '--settings: for the shell; uploader-remote takes --shell'],
  ])('refuses %j', (args, message) => {
    expect(() => parse(args)).toThrow(UsageError);
    expect(() => parse(args)).toThrow(message);
  });
});

let s3: S3Emulator;
let work: string;
let releases: Record<'A' | 'B' | 'C', FixtureRelease>;
let shell: FixtureShell;
/** The live shell's federation-host.json, which each remote's deploy checks its build against. */
let shellHost: string;

beforeAll(async () => {
  s3 = await startS3Emulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-deploy-cli-'));
  shellHost = writeShellHost(path.join(work, 'live-shell', 'federation-host.json'));
  releases = {
    A: writeFixtureRelease(path.join(work, 'A'), 'A'),
    B: writeFixtureRelease(path.join(work, 'B'), 'B'),
    C: writeFixtureRelease(path.join(work, 'C'), 'C'),
  };
  shell = writeFixtureShell(path.join(work, 'shell-release'), 'S');
});
afterAll(async () => {
  await s3?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function get(key: string, prefix = '') {
  const res = await fetch(s3.url(prefix + key));
  return { status: res.status, body: await res.text() };
}

const fixtureText = (release: FixtureRelease, file: string) => fs.readFileSync(path.join(release.dir, file), 'utf8');

describe('the command line', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(REPO, 'infra', 'bin', 'deploy.ts'), ...args], {
      cwd: REPO,
      env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_PROFILE: '', INIT_CWD: REPO },
      timeout: RUN_LIMIT_MS,
    }).then(
      (out) => ({ code: 0, stdout: out.stdout, stderr: out.stderr }),
      (error: { code: number | null; killed?: boolean; stdout: string; stderr: string }) => {
        if (error.killed) throw new Error(`deploy ${args.join(' ')} did not finish within ${RUN_LIMIT_MS / 1000} s (killed); its stderr:\n${error.stderr}`);
        return { code: error.code, stdout: error.stdout, stderr: error.stderr };
      },
    );

  test('deploys a build and prints what it did', async () => {
    const out = await run(['uploader-remote', '--target', `s3://${s3.bucket}/cli`, '--endpoint', s3.endpoint, '--dist', releases.A.dir, '--shell', shellHost]);
    expect(out.stderr).not.toContain('deploy:');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/uploaded\s+7\s/);
    expect(out.stdout).toMatch(/not uploaded \(\.map, \.br, \.gz\)\s+4/);
    expect(out.stdout).toContain(`checked against the live shell (${shellHost}): it provides the federation runtime and every module uploader-remote shares.`);
    expect(out.stdout).toContain(`checked against the live shell (${shellHost}): it provides the federation runtime and every module uploader-remote shares.`);
    expect((await get('mf-manifest.json', 'cli/')).body).toBe(fixtureText(releases.A, 'mf-manifest.json'));
  });

  test('--rollback puts the previous release back and prints what it did', async () => {
    const where = ['--target', `s3://${s3.bucket}/cli`, '--endpoint', s3.endpoint];
    expect((await run(['uploader-remote', ...where, '--dist', releases.B.dir, '--shell', shellHost])).code).toBe(0);
    const out = await run(['uploader-remote', ...where, '--rollback', '--shell', shellHost]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/rolled back to _releases\/\S+\.json \(deployed /);
    expect(out.stdout).toMatch(/entry files restored\s+4\s/);
    expect((await get('mf-manifest.json', 'cli/')).body).toBe(fixtureText(releases.A, 'mf-manifest.json'));
    const held = await fetch(s3.url('cli/_releases/deploy.lock'), {
      method: 'PUT',
      body: JSON.stringify({
        format: 1,
        app: 'uploader-remote',
        operation: 'deploy',
        holder: 'bo@laptop (pid 7)',
        acquiredAt: new Date().toISOString(),
        token: 't',
      }),
    });
    expect(held.status).toBe(200);
    const refused = await run(['uploader-remote', ...where, '--dist', releases.C.dir, '--shell', shellHost]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^deploy: Another deploy of uploader-remote holds the lock s3:\/\/hosting\/cli\/_releases\/deploy\.lock: bo@laptop \(pid 7\), a deploy of uploader-remote, since /,
    );
    await fetch(s3.url('cli/_releases/deploy.lock'), { method: 'DELETE' });
  });

  test('a shell without --settings is refused, saying what to give; with --skip-production-checks it is deployed, warned', async () => {
    const where = ['--target', `s3://${s3.bucket}/cli-shell`, '--endpoint', s3.endpoint, '--dist', shell.dir, '--config', PRODUCTION_CONFIG];
    const refused = await run(['shell', ...where]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^deploy: A deploy of the shell checks it against production: give --settings infra\/config\/<env>\.json/);
    const skipped = await run(['shell', ...where, '--skip-production-checks']);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toBe(
      'deploy: warning: the shell is deployed without the production checks (--skip-production-checks): ' +
        "its runtime config is not checked against the environment's settings, its CSP against the distribution's, nor the live remotes against it.\n",
    );
    expect(skipped.stdout).toMatch(/uploaded\s+13\s/);
  });

  test('refuses bad arguments, a missing build and the shell without a valid config', async () => {
    const bad = await run(['uploader-remote', '--target', 'bucket-without-scheme']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--target must be s3://<bucket>[/<prefix>]');
    const missing = await run(['auth-remote', '--target', `s3://${s3.bucket}`, '--endpoint', s3.endpoint, '--dist', path.join(work, 'nothing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('run `npm run build -w auth-remote` first');
    const shellDir = path.join(work, 'shell');
    fs.mkdirSync(shellDir, { recursive: true });
    fs.writeFileSync(path.join(shellDir, 'index.html'), '<!doctype html>');
    const noConfig = await run(['shell', '--target', `s3://${s3.bucket}`, '--endpoint', s3.endpoint, '--dist', shellDir, '--skip-production-checks']);
    expect(noConfig.code).toBe(1);
    expect(noConfig.stderr).toContain('The shell needs --config <file>');
    const configFile = path.join(work, 'bad-config.json');
    fs.writeFileSync(configFile, JSON.stringify({ auth: { region: 'us-east-2' } }));
    const invalid = await run([
      'shell',
      '--target',
      `s3://${s3.bucket}`,
      '--endpoint',
      s3.endpoint,
      '--dist',
      shellDir,
      '--config',
      configFile,
      '--skip-production-checks',
    ]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('is not a valid runtime config; refusing to deploy it');
    expect(invalid.stderr).toMatch(/auth\.userPoolId/);
  });
});

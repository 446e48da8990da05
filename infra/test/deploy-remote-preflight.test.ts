/**
 * A remote's deploy against the live shell (`--shell`, src/deploy/preflight.ts
 * preflightRemoteDeploy): the build's mf-manifest.json must need the federation runtime the live
 * shell's federation-host.json says it provides, and share only modules it provides, or nothing is
 * uploaded. Through the real deploy() against the S3 emulator, with the live shell served by a
 * local HTTP server as a site serves it.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseDeployArgs } from '../src/deploy/cli';
import { deploy } from '../src/deploy/deploy';
import type { DeployOptions } from '../src/deploy/deploy';
import { PreflightError } from '../src/deploy/preflight';
import { emulatorDeploy, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';
import { FIXTURE_RUNTIME, writeFixtureRelease, writeShellHost } from './support/fixture-release';
import type { FixtureRelease } from './support/fixture-release';

const REPO = path.resolve(__dirname, '..', '..');

let s3: S3Emulator;
let work: string;
let shellHost: string;
let site: { url: string; requests: string[]; close(): Promise<void> };

/** A site whose shell serves its federation-host.json (or, under /old/, a shell from before it published one). */
async function startSite(hostFile: string): Promise<typeof site> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/federation-host.json' || req.url === '/app/federation-host.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(fs.readFileSync(hostFile));
    } else {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Not found</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  s3 = await startS3Emulator('remote-preflight');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-remote-preflight-'));
  shellHost = writeShellHost(path.join(work, 'live-shell', 'federation-host.json'));
  site = await startSite(shellHost);
});
afterAll(async () => {
  await Promise.all([s3?.stop(), site?.close()]);
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function keys(prefix: string): Promise<string[]> {
  const res = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1] as string);
}

/** A fixture release whose manifest is changed by `edit`. */
function release(name: string, edit: (manifest: Record<string, unknown> & { metaData: Record<string, unknown> }) => void = () => undefined): FixtureRelease {
  const fixture = writeFixtureRelease(path.join(work, name), name);
  const file = path.join(fixture.dir, 'mf-manifest.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown> & { metaData: Record<string, unknown> };
  edit(manifest);
  fs.writeFileSync(file, JSON.stringify(manifest));
  return fixture;
}

function remoteDeploy(fixture: FixtureRelease, prefix: string, extra: Partial<DeployOptions> = {}) {
  return deploy({
    app: 'uploader-remote',
    distDir: fixture.dir,
    ...emulatorDeploy(s3, prefix),
    ...extra,
  });
}

/** The problems a refused deploy lists, and its message. */
async function refusal(attempt: Promise<unknown>): Promise<PreflightError> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PreflightError)) throw new Error(`the deploy was not refused by the preflight: ${String(error)}`);
  return error;
}

test('a remote that fits the live shell is deployed; the site’s URL is read at its /federation-host.json', async () => {
  const { result } = await remoteDeploy(release('fits'), 'fits/', { shell: `${site.url}/` });
  expect(result.uploaded.files).toBeGreaterThan(0);
  expect(site.requests).toContain('/federation-host.json');
  // A site served under a path, and the file's own URL.
  await remoteDeploy(release('under-path'), 'under-path/', { shell: `${site.url}/app` });
  expect(site.requests).toContain('/app/federation-host.json');
  await remoteDeploy(release('file-url'), 'file-url/', { shell: `${site.url}/federation-host.json` });
});

test('a remote built for another federation runtime is refused before anything is uploaded, saying which runtime each needs', async () => {
  const provided = (JSON.parse(fs.readFileSync(shellHost, 'utf8')) as { runtime: { version: string } }).runtime.version;
  const [major, minor] = provided.split('.').map(Number) as [number, number];
  const newer = `~${major}.${minor + 1}.0`;
  const error = await refusal(
    remoteDeploy(
      release('newer-runtime', (m) => {
        m.metaData.federationRuntime = { ...FIXTURE_RUNTIME, requiredVersion: newer };
      }),
      'newer/',
      { shell: site.url },
    ),
  );
  expect(error.problems).toEqual([
    `uploader-remote was built against the federation runtime @module-federation/runtime-core@${newer}, and the shell provides ${provided}: ` +
      `in the shell's page the remote would be refused. Build the remote with the shell's runtime version, or release a shell that provides ${newer} first.`,
  ]);
  expect(error.message).toMatch(/^refusing to deploy uploader-remote; nothing was uploaded:\n {2}- uploader-remote was built against/);
  expect(await keys('newer/')).toEqual([]);

  const unstated = await refusal(
    remoteDeploy(
      release('no-runtime', (m) => delete m.metaData.federationRuntime),
      'unstated/',
      { shell: site.url },
    ),
  );
  expect(unstated.problems[0]).toMatch(/^uploader-remote does not say which federation runtime it needs/);
  expect(await keys('unstated/')).toEqual([]);
});

test('a remote that shares a module the live shell does not provide is refused, each module named', async () => {
  const error = await refusal(
    remoteDeploy(
      release('extra-share', (m) => {
        m.shared = [
          { name: 'react', version: '19.2.0' },
          { name: '@aws-amplify/core/internals/not-provided', version: '6.0.0' },
        ];
      }),
      'extra/',
      { shell: shellHost },
    ),
  );
  expect(error.problems).toHaveLength(1);
  expect(error.problems[0]).toMatch(/^uploader-remote shares @aws-amplify\/core\/internals\/not-provided@6\.0\.0, which the shell does not provide/);
  expect(await keys('extra/')).toEqual([]);
});

test('a live shell that publishes no federation-host.json, a site that is down, or a build without a manifest: refused, nothing uploaded', async () => {
  const fixture = release('plain');
  const missing = await refusal(remoteDeploy(fixture, 'plain/', { shell: `${site.url}/old/` }));
  expect(missing.problems).toEqual([
    `the live shell (--shell): ${site.url}/old/federation-host.json answered 404: that shell publishes no federation-host.json (deploy the shell first).`,
  ]);
  const down = await refusal(remoteDeploy(fixture, 'plain/', { shell: 'http://127.0.0.1:9/' }));
  expect(down.problems[0]).toMatch(/^the live shell \(--shell\): http:\/\/127\.0\.0\.1:9\/federation-host\.json could not be read/);
  const notJson = path.join(work, 'not-a-host.json');
  fs.writeFileSync(notJson, '<html>');
  expect((await refusal(remoteDeploy(fixture, 'plain/', { shell: notJson }))).problems[0]).toBe(
    `the live shell (--shell): ${notJson} is not JSON: it is not a shell's federation-host.json.`,
  );
  fs.rmSync(path.join(fixture.dir, 'mf-manifest.json'));
  expect((await refusal(remoteDeploy(fixture, 'plain/', { shell: site.url }))).problems[0]).toMatch(
    /mf-manifest\.json cannot be read as JSON .*: run `npm run build -w uploader-remote` again\.$/,
  );
  expect(await keys('plain/')).toEqual([]);
});

test('a remote’s deploy needs --shell or, said outright, --skip-shell-check; the shell takes neither', async () => {
  const fixture = release('choice');
  await expect(remoteDeploy(fixture, 'choice/')).rejects.toThrow(/^A remote's deploy checks its build against the live shell: give --shell https:\/\/<site>/);
  await expect(remoteDeploy(fixture, 'choice/', { shell: site.url, skipShellCheck: true })).rejects.toThrow('Give --shell or --skip-shell-check, not both.');
  expect(await keys('choice/')).toEqual([]);
  const warnings: string[] = [];
  const { result } = await remoteDeploy(fixture, 'choice/', { skipShellCheck: true, warn: (line) => warnings.push(line) });
  expect(result.uploaded.files).toBeGreaterThan(0);
  expect(warnings).toEqual([
    'uploader-remote is deployed without checking it against the live shell (--skip-shell-check): if it does not fit, its route shows an error.',
  ]);
  const shellDir = path.join(work, 'shell');
  fs.mkdirSync(shellDir, { recursive: true });
  fs.writeFileSync(path.join(shellDir, 'index.html'), '<!doctype html>');
  await expect(
    deploy({ app: 'shell', distDir: shellDir, configFile: path.join(work, 'x.json'), shell: site.url, ...emulatorDeploy(s3, 'shell/') }),
  ).rejects.toThrow('--shell and --skip-shell-check are for a remote: they check its build against the live shell.');
  expect(() => parseDeployArgs(['shell', '--target', `s3://${s3.bucket}/shell`, '--shell', site.url, '--config', 'x.json'], { INIT_CWD: work }, REPO)).toThrow(
    '--shell: for a remote (its build against the live shell); the shell takes --settings or --skip-production-checks.',
  );
});

test('--shell on the command line: a URL as given, a path from where npm was started; a rollback takes it too', () => {
  const parse = (args: string[]) => parseDeployArgs(args, { INIT_CWD: '/home/ana/site' }, REPO);
  expect(parse(['auth-remote', '--target', 's3://site-bucket', '--shell', 'https://www.example.com']).shell).toBe('https://www.example.com');
  expect(parse(['auth-remote', '--target', 's3://site-bucket', '--shell', 'live/federation-host.json']).shell).toBe('/home/ana/site/live/federation-host.json');
  expect(parse(['auth-remote', '--target', 's3://site-bucket', '--skip-shell-check']).skipShellCheck).toBe(true);
  expect(parse(['auth-remote', '--target', 's3://site-bucket', '--rollback', '--shell', 'https://www.example.com'])).toMatchObject({
    rollback: true,
    shell: 'https://www.example.com',
  });
  expect(() => parse(['auth-remote', '--target', 's3://site-bucket', '--shell', 'https://www.example.com', '--skip-shell-check'])).toThrow(
    'Give --shell or --skip-shell-check, not both.',
  );
});

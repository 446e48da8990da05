/**
 * The deploy command against the sandbox's S3 emulator (s3rver, support/s3-emulator.ts) and a stub
 * CloudFront API: releases of a miniature remote (support/fixture-release.ts) deployed one after
 * another — objects and their headers, the previous release's chunks kept, the one before pruned,
 * identical files skipped, one invalidation of entry paths only, a failure mid-upload that leaves
 * the previous release's entry files in place; a miniature shell with the environment's config and
 * its routed paths invalidated. The command line itself: deploy-cli.test.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { deploy } from '../src/deploy/deploy';
import { rollback } from '../src/deploy/rollback';
import type { DeployOptions } from '../src/deploy/deploy';
import { DeployError } from '../src/deploy/execute';
import { IMMUTABLE, NO_CACHE } from '../src/deploy/files';
import { emulatorDeploy, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';
import { deployedFiles, writeFixtureRelease, writeFixtureShell, writeShellHost } from './support/fixture-release';
import type { FixtureRelease, FixtureShell } from './support/fixture-release';

const REPO = path.resolve(__dirname, '..', '..');
const ENTRY_FILES = ['index.html', 'main.js', 'mf-manifest.json', 'remoteEntry.js'];

let s3: S3Emulator;
let cloudFront: { url: string; requests: { distribution: string; paths: string[] }[]; close(): Promise<void> };
let work: string;
let releases: Record<'A' | 'B' | 'C' | 'D', FixtureRelease>;
/** The live shell's federation-host.json, which each remote's deploy checks its build against. */
let shellHost: string;

async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** CloudFront's CreateInvalidation, recorded; answers as the API does (201, the invalidation). */
async function startCloudFrontStub() {
  const requests: { distribution: string; paths: string[] }[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const match = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match) {
        res.writeHead(404).end();
        return;
      }
      const paths = [...body.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => m[1] as string);
      requests.push({ distribution: match[1] as string, paths });
      const id = `I${requests.length}STUB`;
      res.writeHead(201, { 'Content-Type': 'text/xml', Location: `https://cloudfront.amazonaws.com/2020-05-31/distribution/${match[1]}/invalidation/${id}` });
      res.end(
        `<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${id}</Id><Status>InProgress</Status><CreateTime>2026-01-01T00:00:00Z</CreateTime>` +
          `<InvalidationBatch><Paths><Quantity>${paths.length}</Quantity><Items>${paths.map((p) => `<Path>${p}</Path>`).join('')}</Items></Paths><CallerReference>x</CallerReference></InvalidationBatch></Invalidation>`,
      );
    });
  });
  return { ...server, requests };
}

function options(release: FixtureRelease, extra: Partial<DeployOptions> = {}): DeployOptions {
  return {
    app: 'uploader-remote',
    distDir: release.dir,
    ...(extra.app === 'shell' ? {} : { shell: shellHost }),
    ...emulatorDeploy(s3),
    ...extra,
  };
}

async function get(key: string, prefix = '') {
  const res = await fetch(s3.url(prefix + key));
  return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control') };
}

async function keys(prefix = ''): Promise<string[]> {
  const res = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => (m[1] as string).slice(prefix.length)).sort();
}

const fixtureText = (release: FixtureRelease, file: string) => fs.readFileSync(path.join(release.dir, file), 'utf8');
/** The keys of a release's entry files' copies (what a rollback puts back). */
const entryCopies = (release: FixtureRelease) =>
  ENTRY_FILES.map(
    (file) =>
      `_releases/entry-files/${createHash('md5')
        .update(fs.readFileSync(path.join(release.dir, file)))
        .digest('hex')}`,
  ).sort();

beforeAll(async () => {
  [s3, cloudFront] = await Promise.all([startS3Emulator(), startCloudFrontStub()]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-deploy-'));
  shellHost = writeShellHost(path.join(work, 'live-shell', 'federation-host.json'));
  releases = {
    A: writeFixtureRelease(path.join(work, 'A'), 'A'),
    B: writeFixtureRelease(path.join(work, 'B'), 'B'),
    C: writeFixtureRelease(path.join(work, 'C'), 'C'),
    D: writeFixtureRelease(path.join(work, 'D'), 'D'),
  };
});
afterAll(async () => {
  await Promise.all([s3?.stop(), cloudFront?.close()]);
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('deploying releases one after another', () => {
  test('a first deploy to an empty bucket uploads the release with its headers and records it', async () => {
    const { result, plan } = await deploy(options(releases.A, { distributionId: 'E2STUB', cloudfrontEndpoint: cloudFront.url }));
    expect(result.uploaded.files).toBe(deployedFiles(releases.A).length);
    expect(result.excluded).toBe(4);
    expect(result.deleted).toBe(0);
    expect(result.copied).toBe(4);
    expect(await keys()).toEqual([...deployedFiles(releases.A), plan.releaseKey, ...entryCopies(releases.A)].sort());
    for (const file of deployedFiles(releases.A)) {
      const object = await get(file);
      expect(object.body).toBe(fixtureText(releases.A, file));
      expect(object.cacheControl).toBe(/\.[0-9a-f]{10}\.js$/.test(file) ? IMMUTABLE : NO_CACHE);
    }
    expect((await get('index.html')).contentType).toBe('text/html; charset=utf-8');
    expect((await get(releases.A.lazyChunk)).contentType).toBe('text/javascript; charset=utf-8');
    expect((await get('mf-manifest.json')).contentType).toBe('application/json; charset=utf-8');
    expect((await get(`${releases.A.vendorChunk}.LICENSE.txt`)).contentType).toBe('text/plain; charset=utf-8');
    const record = JSON.parse((await get(plan.releaseKey)).body);
    expect(record).toMatchObject({ format: 1, app: 'uploader-remote', id: plan.release.id });
    expect(record.files.map((f: { path: string }) => f.path).sort()).toEqual(deployedFiles(releases.A));
    expect(cloudFront.requests).toEqual([{ distribution: 'E2STUB', paths: ['/', '/index.html', '/main.js', '/mf-manifest.json', '/remoteEntry.js'] }]);
    expect(result.invalidationId).toBe('I1STUB');
  });

  test('a redeploy keeps the previous release’s chunks and replaces the entry files', async () => {
    cloudFront.requests.length = 0;
    const releaseA = await fetch(s3.url('index.html'), { method: 'HEAD' });
    await deploy(options(releases.B, { distributionId: 'E2STUB', cloudfrontEndpoint: cloudFront.url }));
    // A tab revalidating its no-cache entry page sends release A's validators. When the redeploy
    // falls within the second of A's Last-Modified (the date below), the new ETag must still win.
    const releaseB = await fetch(s3.url('index.html'), { method: 'HEAD' });
    const revalidated = await fetch(s3.url('index.html'), {
      headers: { 'If-None-Match': releaseA.headers.get('etag') ?? '', 'If-Modified-Since': releaseB.headers.get('last-modified') ?? '' },
    });
    expect(revalidated.status).toBe(200);
    expect(await revalidated.text()).toBe(fixtureText(releases.B, 'index.html'));
    // An open tab of release A still gets its chunks.
    for (const chunk of [releases.A.lazyChunk, releases.A.vendorChunk]) expect((await get(chunk)).status).toBe(200);
    expect((await get(releases.B.lazyChunk)).status).toBe(200);
    for (const file of ENTRY_FILES) expect((await get(file)).body).toBe(fixtureText(releases.B, file));
    expect(cloudFront.requests).toHaveLength(1);
    expect(cloudFront.requests[0]?.paths).toEqual(['/', '/index.html', '/main.js', '/mf-manifest.json', '/remoteEntry.js']);
    expect(cloudFront.requests[0]?.paths.some((p) => /[0-9a-f]{10}/.test(p))).toBe(false);
  });

  test('deploying the same build again uploads nothing and invalidates nothing', async () => {
    cloudFront.requests.length = 0;
    const { result } = await deploy(options(releases.B, { distributionId: 'E2STUB', cloudfrontEndpoint: cloudFront.url, keep: 3 }));
    expect(result.uploaded.files).toBe(0);
    expect(result.unchanged.files).toBe(deployedFiles(releases.B).length);
    expect(cloudFront.requests).toEqual([]);
  });

  test('a third release prunes the first one’s chunks, never an entry file', async () => {
    const { result } = await deploy(options(releases.C));
    const now = await keys();
    for (const chunk of [releases.A.lazyChunk, releases.A.vendorChunk, `${releases.A.vendorChunk}.LICENSE.txt`]) expect(now).not.toContain(chunk);
    // B's record (deployed twice) is the previous release: its chunks stay.
    for (const chunk of [releases.B.lazyChunk, releases.B.vendorChunk, releases.C.lazyChunk]) expect(now).toContain(chunk);
    for (const file of ENTRY_FILES) expect(now).toContain(file);
    // A's three hashed files and its four entry-file copies; B's and C's copies stay.
    expect(result.deleted).toBe(7);
    for (const copy of entryCopies(releases.A)) expect(now).not.toContain(copy);
    for (const copy of [...entryCopies(releases.B), ...entryCopies(releases.C)]) expect(now).toContain(copy);
    expect(now.filter((k) => /^_releases\/[^/]+\.json$/.test(k))).toHaveLength(2);
  });

  test('a failure mid-upload stops the deploy with the previous release’s entry files in place', async () => {
    // A proxy that fails the PUT of one of D's chunks with a 500.
    const failing = await listen((req, res) => {
      if (req.method === 'PUT' && req.url?.includes(releases.D.vendorChunk)) {
        req.resume();
        req.on('end', () =>
          res.writeHead(500, { 'Content-Type': 'application/xml' }).end('<Error><Code>InternalError</Code><Message>injected</Message></Error>'),
        );
        return;
      }
      const upstream = http.request(`${s3.endpoint}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    try {
      const before = await keys('_releases/');
      const failure = await deploy(options(releases.D, { endpoint: failing.url, maxAttempts: 1, concurrency: 1 })).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DeployError);
      expect((failure as DeployError).message).toMatch(
        /^Upload failed in step "hashed files": .*\. No entry file was written: the previous release is still live and intact — its entry files, and every file they name, are as they were\. Deploy again\.$/s,
      );
      for (const file of ENTRY_FILES) expect((await get(file)).body).toBe(fixtureText(releases.C, file));
      expect(await keys('_releases/')).toEqual(before);
      expect((await get(releases.B.lazyChunk)).status).toBe(200);
    } finally {
      await failing.close();
    }
  });

  test('a bucket with files no record lists: kept while their age against the releases is unknown, pruned once older than the kept ones', async () => {
    const prefix = 'legacy/';
    for (const file of ['index.html', 'old.0123456789.js', 'robots.txt']) {
      await fetch(s3.url(prefix + file), { method: 'PUT', body: 'unrecorded', headers: { 'Content-Type': 'text/plain' } });
    }
    const target = { bucket: s3.bucket, prefix };
    // S3's Last-Modified has whole seconds here: let the records be written in a later second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const first = await deploy(options(releases.A, { target }));
    expect(first.result.deleted).toBe(0);
    expect(first.result.unknownKept).toBe(2);
    // Release A is kept besides B, and the unrecorded files are older than A: the hashed one goes, robots.txt (an entry name) never.
    const { result } = await deploy(options(releases.B, { target }));
    const now = await keys(prefix);
    expect(now).not.toContain('old.0123456789.js');
    expect(now).toContain('robots.txt');
    expect(now).toContain(releases.A.lazyChunk);
    expect(result.deleted).toBe(1);
    expect(result.unknownKept).toBe(1);
  });
});

describe('rolling back', () => {
  const prefix = 'rollback/';
  const target = () => ({ bucket: s3.bucket, prefix });
  const bytes = async (key: string) => Buffer.from(await (await fetch(s3.url(prefix + key))).arrayBuffer());
  const records = async () => (await keys(prefix)).filter((k) => /^_releases\/[^/]+\.json$/.test(k));

  test('makes the previous release live again: its entry files byte for byte, invalidated, recorded', async () => {
    const a = await deploy(options(releases.A, { target: target() }));
    const b = await deploy(options(releases.B, { target: target() }));
    for (const file of ENTRY_FILES) expect((await bytes(file)).equals(fs.readFileSync(path.join(releases.B.dir, file)))).toBe(true);
    cloudFront.requests.length = 0;
    const { plan, result, choice } = await rollback(options(releases.A, { target: target(), distributionId: 'E2STUB', cloudfrontEndpoint: cloudFront.url }));
    expect([choice.live.key, choice.target.key]).toEqual([b.plan.releaseKey, a.plan.releaseKey]);
    expect(await records()).toEqual([a.plan.releaseKey, b.plan.releaseKey, plan.releaseKey]);
    for (const file of ENTRY_FILES) expect((await bytes(file)).equals(fs.readFileSync(path.join(releases.A.dir, file)))).toBe(true);
    for (const file of ENTRY_FILES) expect((await get(file, prefix)).cacheControl).toBe(NO_CACHE);
    expect((await get('index.html', prefix)).contentType).toBe('text/html; charset=utf-8');
    // Release A's chunks were kept (the previous release), so its pages load them.
    for (const chunk of [releases.A.lazyChunk, releases.A.vendorChunk]) expect((await get(chunk, prefix)).body).toBe(fixtureText(releases.A, chunk));
    expect(result).toMatchObject({ uploaded: { files: 4 }, deleted: 0, invalidationId: 'I1STUB' });
    expect(cloudFront.requests).toEqual([{ distribution: 'E2STUB', paths: ['/', '/index.html', '/main.js', '/mf-manifest.json', '/remoteEntry.js'] }]);
    const record = JSON.parse((await get(plan.releaseKey, prefix)).body);
    expect(record.rollback).toEqual({ from: choice.live.key, to: choice.target.key });
    expect(record.files).toEqual(choice.target.record.files);
    expect(await keys(prefix)).not.toContain('_releases/deploy.lock');
  });

  test('no release before the one restored: a second rollback is refused and changes nothing', async () => {
    const before = await keys(prefix);
    await expect(rollback(options(releases.A, { target: target() }))).rejects.toThrow(
      /No release of uploader-remote before the live one, .* there is no previous release to roll back to/,
    );
    expect(await keys(prefix)).toEqual(before);
  });

  test('the next deploy counts the rollback as the live release: the undone release’s chunks are pruned, the restored ones kept', async () => {
    const { result } = await deploy(options(releases.C, { target: target() }));
    const now = await keys(prefix);
    for (const chunk of [releases.A.lazyChunk, releases.A.vendorChunk, releases.C.lazyChunk]) expect(now).toContain(chunk);
    for (const chunk of [releases.B.lazyChunk, releases.B.vendorChunk]) expect(now).not.toContain(chunk);
    expect(result.expiredReleases).toBe(2);
    expect(await records()).toHaveLength(2);
  });

  test('pruning keeps N releases: with --keep 3 three releases’ chunks stay, with --keep 1 only the new one’s', async () => {
    const n = { bucket: s3.bucket, prefix: 'keep/' };
    for (const release of [releases.A, releases.B, releases.C]) await deploy(options(release, { target: n, keep: 3 }));
    const chunks = (release: FixtureRelease) => [release.lazyChunk, release.vendorChunk, `${release.vendorChunk}.LICENSE.txt`];
    await deploy(options(releases.D, { target: n, keep: 3 }));
    let now = await keys('keep/');
    for (const chunk of [...chunks(releases.B), ...chunks(releases.C), ...chunks(releases.D)]) expect(now).toContain(chunk);
    for (const chunk of chunks(releases.A)) expect(now).not.toContain(chunk);
    await deploy(options(releases.A, { target: n, keep: 1 }));
    now = await keys('keep/');
    for (const chunk of chunks(releases.A)) expect(now).toContain(chunk);
    for (const chunk of [...chunks(releases.B), ...chunks(releases.C), ...chunks(releases.D)]) expect(now).not.toContain(chunk);
    expect(now.filter((k) => k.startsWith('_releases/entry-files/')).sort()).toEqual(entryCopies(releases.A));
  });
});

describe('the shell', () => {
  const target = () => ({ bucket: s3.bucket, prefix: 'shell/' });
  const shellOptions = (shell: FixtureShell, configFile: string, extra: Partial<DeployOptions> = {}) =>
    options(releases.A, {
      app: 'shell',
      distDir: shell.dir,
      configFile,
      target: target(),
      distributionId: 'E2SHELL',
      cloudfrontEndpoint: cloudFront.url,
      // Its checks against production are deploy-checks.test.ts's and deploy-preflight.test.ts's.
      skipProductionChecks: true,
      warn: () => undefined,
      ...extra,
    });
  const PRODUCTION_CONFIG = path.join(REPO, 'config', 'production.example.json');
  let shell: FixtureShell;
  beforeAll(() => {
    shell = writeFixtureShell(path.join(work, 'shell-release'), 'S');
  });

  test('a dry run reads the bucket and plans, and writes nothing', async () => {
    cloudFront.requests.length = 0;
    const { result, plan } = await deploy(shellOptions(shell, PRODUCTION_CONFIG, { dryRun: true }));
    expect(result).toMatchObject({ dryRun: true, uploaded: { files: 13 }, excluded: 3 });
    expect(plan.steps.map((s) => s.name)).toEqual([
      'hashed files',
      'companion files',
      'entry file copies',
      'other entry files',
      'config.json',
      'routes.json',
      'pages',
      'federation-host.json',
    ]);
    expect(await keys('shell/')).toEqual([]);
    expect(cloudFront.requests).toEqual([]);
  });

  test('the environment’s config becomes /config.json; pages, config and routed paths are invalidated, no hashed file', async () => {
    cloudFront.requests.length = 0;
    const { result, plan } = await deploy(shellOptions(shell, PRODUCTION_CONFIG));
    expect(result.uploaded.files).toBe(13);
    const config = await get('config.json', 'shell/');
    expect(config).toMatchObject({ body: fs.readFileSync(PRODUCTION_CONFIG, 'utf8'), cacheControl: NO_CACHE, contentType: 'application/json; charset=utf-8' });
    expect(await get(shell.mainChunk, 'shell/')).toMatchObject({ status: 200, cacheControl: IMMUTABLE });
    for (const page of ['index.html', 'about.html', 'app.html', '404.html'])
      expect(await get(page, 'shell/')).toMatchObject({ status: 200, cacheControl: NO_CACHE, contentType: 'text/html; charset=utf-8' });
    expect(plan.release.files.map((f) => f.path)).not.toContain('index.html.br');
    expect(cloudFront.requests).toEqual([
      {
        distribution: 'E2SHELL',
        paths: [
          '/',
          '/404.html',
          '/about',
          '/about.html',
          '/app.html',
          '/config.json',
          '/contact',
          '/contact.html',
          '/delete',
          '/favicon.svg',
          '/federation-host.json',
          '/index.html',
          '/login',
          '/profile',
          '/routes.json',
          '/support',
          '/support.html',
          '/uploader',
          '/videos',
          '/videos.html',
        ],
      },
    ]);
  });

  test('a new config alone: only config.json is uploaded and invalidated', async () => {
    cloudFront.requests.length = 0;
    const local = path.join(REPO, 'config', 'local.json');
    const { result } = await deploy(shellOptions(shell, local));
    expect(result.uploaded.files).toBe(1);
    expect((await get('config.json', 'shell/')).body).toBe(fs.readFileSync(local, 'utf8'));
    expect(cloudFront.requests).toEqual([{ distribution: 'E2SHELL', paths: ['/config.json'] }]);
  });

  test('a remote’s bucket is refused for the shell', async () => {
    await expect(deploy(shellOptions(shell, PRODUCTION_CONFIG, { target: { bucket: s3.bucket, prefix: '' } }))).rejects.toThrow(
      /holds releases of uploader-remote .* not of shell/,
    );
    await expect(deploy(options(releases.A, { configFile: PRODUCTION_CONFIG }))).rejects.toThrow(
      "--config is the shell's runtime config; uploader-remote has none.",
    );
  });
});

/**
 * The deploy planner (src/deploy/plan.ts) and the plan's execution (src/deploy/execute.ts) with
 * in-memory ports: order, headers, identical files skipped, pruning, invalidation paths, dry run,
 * failures; and the command line's arguments (src/deploy/cli.ts).
 */
import { parseDeployArgs, UsageError } from '../src/deploy/cli';
import { DeployError, eachBounded, executePlan } from '../src/deploy/execute';
import type { CdnPort, ObjectStorePort } from '../src/deploy/execute';
import { contentTypeOf, IMMUTABLE, NO_CACHE } from '../src/deploy/files';
import { parseReleaseRecord, planDeploy, PlanError } from '../src/deploy/plan';
import type { LocalFile, PlanInput, StoredRelease } from '../src/deploy/plan';

const NOW = new Date('2026-05-04T10:21:33.123Z');

const file = (path: string, md5 = `md5-of-${path}`): LocalFile => ({ path, size: 100, md5 });

const REMOTE_BUILD = [
  '114.5436204ded.js',
  '325.e8d85c681d.js',
  '325.e8d85c681d.js.LICENSE.txt',
  '325.e8d85c681d.js.map',
  '325.e8d85c681d.js.br',
  '325.e8d85c681d.js.gz',
  '853.6a29b46991.css',
  '__federation_expose_Uploader.51af695600.js',
  'index.html',
  'main.js',
  'mf-manifest.json',
  'mf-stats.json',
  'remoteEntry.js',
  'remoteEntry.js.br',
  '.build-stamp',
].map((p) => file(p));

const SHELL_BUILD = [
  '105.5438cbda79.js',
  'main.eeddb1335a.js',
  'main.deef52792e.css',
  '25.b3c45e448b.js.LICENSE.txt',
  '25.b3c45e448b.js',
  'index.html',
  'about.html',
  'app.html',
  '404.html',
  'routes.json',
  'config.json',
  'favicon.svg',
  'badges/app-store.svg',
  'policy.css',
  'privacypolicy.html',
].map((p) => file(p));

const ROUTES = { pages: { '/': 'index.html', '/about': 'about.html' }, appPaths: ['/login', '/uploader'], app: 'app.html' };

function input(extra: Partial<PlanInput> = {}): PlanInput {
  return { app: 'uploader-remote', files: REMOTE_BUILD, stored: [], releases: [], keep: 2, releaseId: 'abc123', now: NOW, ...extra };
}

/** What a previous deploy of `files` left: the objects and its record. */
function deployed(plan: ReturnType<typeof planDeploy>) {
  const stored = plan.release.files.map((f) => ({ key: f.path, etag: f.md5, size: f.size }));
  const release: StoredRelease = { key: plan.releaseKey, record: plan.release };
  return { stored, release };
}

describe('planDeploy', () => {
  test('a remote: hashed files first, companions, other entry files, the page, remoteEntry.js, mf-manifest.json last', () => {
    const plan = planDeploy(input());
    expect(plan.steps.map((s) => [s.name, s.parallel, s.uploads.map((u) => u.path)])).toEqual([
      ['hashed files', true, ['114.5436204ded.js', '325.e8d85c681d.js', '853.6a29b46991.css', '__federation_expose_Uploader.51af695600.js']],
      ['companion files', true, ['325.e8d85c681d.js.LICENSE.txt']],
      ['other entry files', true, ['main.js', 'mf-stats.json']],
      ['pages', true, ['index.html']],
      ['remoteEntry.js', false, ['remoteEntry.js']],
      ['mf-manifest.json', false, ['mf-manifest.json']],
    ]);
    expect(plan.excluded.map((e) => e.path)).toEqual([
      '.build-stamp',
      '325.e8d85c681d.js.br',
      '325.e8d85c681d.js.gz',
      '325.e8d85c681d.js.map',
      'remoteEntry.js.br',
    ]);
    expect(plan.releaseKey).toBe('_releases/2026-05-04T10-21-33.123Z-abc123.json');
  });

  test('the shell: config.json, then routes.json, then the pages last', () => {
    const plan = planDeploy(input({ app: 'shell', files: SHELL_BUILD, routes: ROUTES }));
    expect(plan.steps.map((s) => [s.name, s.uploads.map((u) => u.path)])).toEqual([
      ['hashed files', ['105.5438cbda79.js', '25.b3c45e448b.js', 'main.deef52792e.css', 'main.eeddb1335a.js']],
      ['companion files', ['25.b3c45e448b.js.LICENSE.txt']],
      ['other entry files', ['badges/app-store.svg', 'favicon.svg', 'policy.css']],
      ['config.json', ['config.json']],
      ['routes.json', ['routes.json']],
      ['pages', ['404.html', 'about.html', 'app.html', 'index.html', 'privacypolicy.html']],
    ]);
  });

  test('cache headers: hashed files immutable for a year, every other file no-cache; content types by extension', () => {
    const byPath = new Map(planDeploy(input({ app: 'shell', files: SHELL_BUILD, routes: ROUTES })).release.files.map((f) => [f.path, f]));
    expect(byPath.get('main.eeddb1335a.js')).toMatchObject({ kind: 'hashed', cacheControl: IMMUTABLE, contentType: 'text/javascript; charset=utf-8' });
    expect(byPath.get('main.deef52792e.css')).toMatchObject({ kind: 'hashed', cacheControl: IMMUTABLE, contentType: 'text/css; charset=utf-8' });
    expect(byPath.get('25.b3c45e448b.js.LICENSE.txt')).toMatchObject({ kind: 'companion', cacheControl: NO_CACHE, contentType: 'text/plain; charset=utf-8' });
    expect(byPath.get('index.html')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE, contentType: 'text/html; charset=utf-8' });
    expect(byPath.get('config.json')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE, contentType: 'application/json; charset=utf-8' });
    expect(byPath.get('policy.css')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE });
    expect(byPath.get('badges/app-store.svg')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE, contentType: 'image/svg+xml' });
    expect(contentTypeOf('assets/photo.0123456789.webp')).toBe('image/webp');
    expect(contentTypeOf('README')).toBe('application/octet-stream');
    const remote = new Map(planDeploy(input()).release.files.map((f) => [f.path, f]));
    expect(remote.get('remoteEntry.js')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE });
    expect(remote.get('main.js')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE });
    expect(remote.get('mf-manifest.json')).toMatchObject({ kind: 'entry', cacheControl: NO_CACHE });
  });

  test('a file already in the bucket with the same content and headers is skipped', () => {
    const first = planDeploy(input());
    const { stored, release } = deployed(first);
    const again = planDeploy(input({ stored, releases: [release], releaseId: 'def456' }));
    expect(again.steps).toEqual([]);
    expect(again.unchanged).toHaveLength(first.release.files.length);
    expect(again.invalidationPaths).toEqual([]);
    // The new record still lists every file of the release.
    expect(again.release.files).toEqual(first.release.files);

    const changed = REMOTE_BUILD.map((f) => (f.path === 'remoteEntry.js' ? file('remoteEntry.js', 'new') : f));
    expect(planDeploy(input({ files: changed, stored, releases: [release] })).steps.flatMap((s) => s.uploads.map((u) => u.path))).toEqual(['remoteEntry.js']);
    // Same bytes, but no record says with which headers: uploaded again.
    expect(planDeploy(input({ stored })).unchanged).toEqual([]);
    // A record with other headers: uploaded again.
    const otherHeaders: StoredRelease = {
      ...release,
      record: { ...release.record, files: release.record.files.map((f) => ({ ...f, cacheControl: 'max-age=60' })) },
    };
    expect(planDeploy(input({ stored, releases: [otherHeaders] })).unchanged).toEqual([]);
  });

  test('pruning keeps the previous release’s files and deletes those only older releases list', () => {
    const build = (marker: string) => [
      file(`chunk.${marker.repeat(10)}.js`),
      file(`chunk.${marker.repeat(10)}.js.LICENSE.txt`),
      file(`only-${marker}.html`),
      file('remoteEntry.js', marker),
      file('mf-manifest.json', marker),
      file('shared.0123456789.js'),
    ];
    const a = planDeploy(input({ files: build('a'), releaseId: 'aaa', now: new Date('2026-01-01T00:00:00Z') }));
    const afterA = deployed(a);
    const b = planDeploy(
      input({ files: build('b'), stored: afterA.stored, releases: [afterA.release], releaseId: 'bbb', now: new Date('2026-02-01T00:00:00Z') }),
    );
    expect(b.deletions).toEqual([]);
    expect(b.expiredReleases).toEqual([]);
    const afterB = deployed(b);
    const stored = [...afterA.stored, ...afterB.stored.filter((o) => !afterA.stored.some((s) => s.key === o.key))];
    const releases = [afterB.release, afterA.release];
    const c = planDeploy(input({ files: build('c'), stored, releases, releaseId: 'ccc', now: new Date('2026-03-01T00:00:00Z') }));
    // A's chunk and companion go; its page (an entry file) stays; B's files and the shared chunk stay.
    expect(c.deletions).toEqual(['chunk.aaaaaaaaaa.js', 'chunk.aaaaaaaaaa.js.LICENSE.txt']);
    expect(c.expiredReleases).toEqual([afterA.release.key]);
    expect(planDeploy(input({ files: build('c'), stored, releases, keep: 3 })).deletions).toEqual([]);
    expect(planDeploy(input({ files: build('c'), stored, releases, keep: 1 })).deletions).toEqual([
      'chunk.aaaaaaaaaa.js',
      'chunk.aaaaaaaaaa.js.LICENSE.txt',
      'chunk.bbbbbbbbbb.js',
      'chunk.bbbbbbbbbb.js.LICENSE.txt',
    ]);
  });

  test('files no record lists are never deleted; a first deploy deletes nothing', () => {
    const stored = ['old.0123456789.js', 'index.html', 'legacy.txt'].map((key) => ({ key, etag: 'x', size: 1 }));
    const plan = planDeploy(input({ stored, keep: 1 }));
    expect(plan.deletions).toEqual([]);
    expect(plan.unknown).toEqual(['legacy.txt', 'old.0123456789.js']);
    expect(planDeploy(input()).deletions).toEqual([]);
  });

  test('invalidation: only the changed entry files, `/` for index.html, and the shell’s routed paths', () => {
    expect(planDeploy(input()).invalidationPaths).toEqual(['/', '/index.html', '/main.js', '/mf-manifest.json', '/mf-stats.json', '/remoteEntry.js']);
    const shell = planDeploy(input({ app: 'shell', files: SHELL_BUILD, routes: ROUTES }));
    expect(shell.invalidationPaths).toEqual([
      '/',
      '/404.html',
      '/about',
      '/about.html',
      '/app.html',
      '/badges/app-store.svg',
      '/config.json',
      '/favicon.svg',
      '/index.html',
      '/login',
      '/policy.css',
      '/privacypolicy.html',
      '/routes.json',
      '/uploader',
    ]);
    expect(shell.invalidationPaths.some((p) => /[0-9a-f]{10}/.test(p))).toBe(false);
    const { stored, release } = deployed(shell);
    const onlyAbout = SHELL_BUILD.map((f) => (f.path === 'about.html' || f.path === 'main.eeddb1335a.js' ? file(f.path, 'changed') : f));
    expect(planDeploy(input({ app: 'shell', files: onlyAbout, routes: ROUTES, stored, releases: [release] })).invalidationPaths).toEqual([
      '/about',
      '/about.html',
    ]);
  });

  test('refuses a release without its entry files, a bucket of another app, and keep below 1', () => {
    const problems = (extra: Partial<PlanInput>) => {
      try {
        planDeploy(input(extra));
      } catch (error) {
        expect(error).toBeInstanceOf(PlanError);
        return (error as PlanError).problems;
      }
      throw new Error('no PlanError');
    };
    expect(problems({ app: 'shell', files: SHELL_BUILD.filter((f) => f.path !== 'config.json' && f.path !== 'app.html') })).toEqual([
      "app.html is missing: shell's release must have it.",
      "config.json is missing: shell's release must have it.",
    ]);
    const shellRecord = deployed(planDeploy(input({ app: 'shell', files: SHELL_BUILD }))).release;
    expect(problems({ releases: [shellRecord] })[0]).toMatch(/holds releases of shell .* not of uploader-remote/);
    expect(problems({ keep: 0 })[0]).toMatch(/keep must be a whole number of at least 1/);
  });

  test('release records round-trip; anything else is refused by name', () => {
    const plan = planDeploy(input());
    expect(parseReleaseRecord('k', JSON.stringify(plan.release))).toEqual(plan.release);
    expect(() => parseReleaseRecord('_releases/x.json', '{"format":2}')).toThrow('_releases/x.json is not a release record');
    expect(() => parseReleaseRecord('_releases/y.json', 'nope')).toThrow('_releases/y.json is not JSON');
  });
});

/** An in-memory bucket and CDN that log every call in order. */
function fakes(options: { failOn?: string } = {}) {
  const calls: string[] = [];
  const store: ObjectStorePort = {
    async put(key, body, headers) {
      await Promise.resolve();
      if (key === options.failOn) throw new Error(`500 InternalError on ${key}`);
      calls.push(`put ${key} ${headers.cacheControl} ${body.length}`);
    },
    async deleteMany(keys) {
      calls.push(`delete ${keys.join(',')}`);
    },
  };
  const cdn: CdnPort = {
    async invalidate(paths) {
      calls.push(`invalidate ${paths.join(',')}`);
      return 'I123';
    },
  };
  return { calls, store, cdn, read: async () => Buffer.from('body') };
}

describe('executePlan', () => {
  test('uploads in the plan’s order, records the release, invalidates, then prunes', async () => {
    const plan = planDeploy(input());
    const { calls, store, cdn, read } = fakes();
    const result = await executePlan(
      { ...plan, deletions: ['old.0123456789.js'], expiredReleases: ['_releases/old.json'] },
      { store, cdn, read, concurrency: 3, dryRun: false },
    );
    const puts = calls.filter((c) => c.startsWith('put')).map((c) => c.split(' ')[1]);
    expect(puts.slice(0, 4).every((p) => /\.[0-9a-f]{10}\.(js|css)$/.test(p as string))).toBe(true);
    expect(puts.slice(-3)).toEqual(['remoteEntry.js', 'mf-manifest.json', plan.releaseKey]);
    expect(calls.slice(-3)).toEqual([`invalidate ${plan.invalidationPaths.join(',')}`, 'delete old.0123456789.js', 'delete _releases/old.json']);
    expect(calls).toContain(`put 114.5436204ded.js ${IMMUTABLE} 4`);
    expect(calls).toContain(`put index.html ${NO_CACHE} 4`);
    expect(result).toMatchObject({ uploaded: { files: 10, bytes: 1000 }, excluded: 5, deleted: 1, expiredReleases: 1, invalidationId: 'I123' });
  });

  test('a failed upload stops the deploy: no entry file, no record, no invalidation, no deletion', async () => {
    const plan = planDeploy(input());
    const { calls, store, cdn, read } = fakes({ failOn: '325.e8d85c681d.js' });
    const error = await executePlan({ ...plan, deletions: ['old.0123456789.js'] }, { store, cdn, read, concurrency: 1, dryRun: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeployError);
    expect((error as DeployError).message).toContain('Upload failed in step "hashed files": 500 InternalError on 325.e8d85c681d.js');
    expect(calls).toEqual([`put 114.5436204ded.js ${IMMUTABLE} 4`]);
  });

  test('a dry run writes nothing and says what it would do', async () => {
    const plan = planDeploy(input());
    const { calls, store, cdn, read } = fakes();
    const result = await executePlan({ ...plan, deletions: ['old.0123456789.js'] }, { store, cdn, read, concurrency: 8, dryRun: true });
    expect(calls).toEqual([]);
    expect(result).toMatchObject({ dryRun: true, uploaded: { files: 10 }, deleted: 1, invalidationPaths: plan.invalidationPaths });
    expect(result.invalidationId).toBeUndefined();
  });

  test('without a distribution nothing is invalidated', async () => {
    const { calls, store, read } = fakes();
    const result = await executePlan(planDeploy(input()), { store, read, concurrency: 8, dryRun: false });
    expect(calls.some((c) => c.startsWith('invalidate'))).toBe(false);
    expect(result.invalidationPaths).toEqual([]);
  });

  test('eachBounded runs at most `limit` tasks at once and starts none after a failure', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await eachBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      for (let i = 0; i < n; i++) await Promise.resolve();
      running--;
    });
    expect(most).toBe(3);
    expect(started).toHaveLength(7);
    const seen: number[] = [];
    await expect(
      eachBounded([1, 2, 3, 4, 5], 2, async (n) => {
        seen.push(n);
        await Promise.resolve();
        if (n === 2) throw new Error('two');
      }),
    ).rejects.toThrow('two');
    expect(seen).toEqual([1, 2, 3]);
  });
});

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
  ])('refuses %j', (args, message) => {
    expect(() => parse(args)).toThrow(UsageError);
    expect(() => parse(args)).toThrow(message);
  });
});

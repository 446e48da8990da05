/**
 * The deploy planner (src/deploy/plan.ts) and the plan's execution (src/deploy/execute.ts) with
 * in-memory ports: order, headers, identical files skipped, pruning, invalidation paths, dry run,
 * failures; and the command line's arguments (src/deploy/cli.ts).
 */
import { parseDeployArgs, UsageError } from '../src/deploy/cli';
import { DeployError, eachBounded, executePlan } from '../src/deploy/execute';
import type { CdnPort, ObjectStorePort } from '../src/deploy/execute';
import { contentTypeOf, IMMUTABLE, NO_CACHE } from '../src/deploy/files';
import { entryCopyKey, parseReleaseRecord, planDeploy, PlanError } from '../src/deploy/plan';
import type { LocalFile, PlanInput, StoredObject, StoredRelease } from '../src/deploy/plan';
import { chooseRollback, planRollback, RollbackError } from '../src/deploy/rollback-plan';

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

/** What a previous deploy of `files` left: the objects (its entry files' copies too) and its record. */
function deployed(plan: ReturnType<typeof planDeploy>, lastModified?: Date) {
  const at = lastModified ? { lastModified } : {};
  const copies = plan.release.files.filter((f) => f.kind === 'entry').map((f) => ({ key: entryCopyKey(f.md5), etag: f.md5, size: f.size, ...at }));
  const record = { key: plan.releaseKey, etag: `md5-of-${plan.releaseKey}`, size: 1, ...at };
  const objects = [...plan.release.files.map((f) => ({ key: f.path, etag: f.md5, size: f.size, ...at })), ...copies, record];
  const stored = [...new Map(objects.map((o) => [o.key, o])).values()];
  const release: StoredRelease = { key: plan.releaseKey, record: plan.release };
  return { stored, release };
}

describe('planDeploy', () => {
  test('a remote: hashed files first, companions, other entry files, the page, remoteEntry.js, mf-manifest.json last', () => {
    const plan = planDeploy(input());
    expect(plan.steps.map((s) => [s.name, s.parallel, s.uploads.map((u) => u.path)])).toEqual([
      ['hashed files', true, ['114.5436204ded.js', '325.e8d85c681d.js', '853.6a29b46991.css', '__federation_expose_Uploader.51af695600.js']],
      ['companion files', true, ['325.e8d85c681d.js.LICENSE.txt']],
      // Each entry file's copy (by MD5), before any entry file: what a rollback puts back.
      ['entry file copies', true, ['index.html', 'main.js', 'mf-manifest.json', 'mf-stats.json', 'remoteEntry.js']],
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
    expect(plan.steps.find((s) => s.copies)?.uploads.map((u) => entryCopyKey(u.md5))).toEqual([
      '_releases/entry-files/md5-of-index.html',
      '_releases/entry-files/md5-of-main.js',
      '_releases/entry-files/md5-of-mf-manifest.json',
      '_releases/entry-files/md5-of-mf-stats.json',
      '_releases/entry-files/md5-of-remoteEntry.js',
    ]);
  });

  test('the shell: config.json, then routes.json, then the pages last', () => {
    const plan = planDeploy(input({ app: 'shell', files: SHELL_BUILD, routes: ROUTES }));
    expect(plan.steps.map((s) => [s.name, s.uploads.map((u) => u.path)])).toEqual([
      ['hashed files', ['105.5438cbda79.js', '25.b3c45e448b.js', 'main.deef52792e.css', 'main.eeddb1335a.js']],
      ['companion files', ['25.b3c45e448b.js.LICENSE.txt']],
      [
        'entry file copies',
        [
          '404.html',
          'about.html',
          'app.html',
          'badges/app-store.svg',
          'config.json',
          'favicon.svg',
          'index.html',
          'policy.css',
          'privacypolicy.html',
          'routes.json',
        ],
      ],
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
    const steps = planDeploy(input({ files: changed, stored, releases: [release] })).steps;
    expect(steps.map((s) => [s.name, s.uploads.map((u) => u.md5)])).toEqual([
      ['entry file copies', ['new']],
      ['remoteEntry.js', ['new']],
    ]);
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
    // A's chunk, companion and entry-file copies go; its page (an entry file) stays; B's files and the shared chunk stay.
    expect(c.deletions).toEqual([
      '_releases/entry-files/a',
      '_releases/entry-files/md5-of-only-a.html',
      'chunk.aaaaaaaaaa.js',
      'chunk.aaaaaaaaaa.js.LICENSE.txt',
    ]);
    expect(c.expiredReleases).toEqual([afterA.release.key]);
    expect(planDeploy(input({ files: build('c'), stored, releases, keep: 3 })).deletions).toEqual([]);
    expect(planDeploy(input({ files: build('c'), stored, releases, keep: 1 })).deletions).toEqual([
      '_releases/entry-files/a',
      '_releases/entry-files/b',
      '_releases/entry-files/md5-of-only-a.html',
      '_releases/entry-files/md5-of-only-b.html',
      'chunk.aaaaaaaaaa.js',
      'chunk.aaaaaaaaaa.js.LICENSE.txt',
      'chunk.bbbbbbbbbb.js',
      'chunk.bbbbbbbbbb.js.LICENSE.txt',
    ]);
  });

  test('N releases kept: with keep N the files of the N-1 releases before the new one stay, older ones go', () => {
    const build = (marker: string) => [
      file(`chunk.${marker.repeat(10)}.js`),
      file('index.html', marker),
      file('remoteEntry.js', marker),
      file('mf-manifest.json', marker),
    ];
    let stored: ReturnType<typeof deployed>['stored'] = [];
    const releases: StoredRelease[] = [];
    for (const [i, marker] of ['a', 'b', 'c', 'd'].entries()) {
      const plan = planDeploy(input({ files: build(marker), stored, releases, keep: 10, releaseId: marker.repeat(3), now: new Date(Date.UTC(2026, i, 1)) }));
      const after = deployed(plan);
      stored = [...stored.filter((o) => !after.stored.some((n) => n.key === o.key)), ...after.stored];
      releases.push(after.release);
    }
    const chunksDeleted = (keep: number) =>
      planDeploy(input({ files: build('e'), stored, releases, keep, now: new Date('2026-06-01T00:00:00Z') })).deletions.filter((k) => k.startsWith('chunk.'));
    expect(chunksDeleted(5)).toEqual([]);
    expect(chunksDeleted(4)).toEqual(['chunk.aaaaaaaaaa.js']);
    expect(chunksDeleted(3)).toEqual(['chunk.aaaaaaaaaa.js', 'chunk.bbbbbbbbbb.js']);
    expect(chunksDeleted(1)).toEqual(['chunk.aaaaaaaaaa.js', 'chunk.bbbbbbbbbb.js', 'chunk.cccccccccc.js', 'chunk.dddddddddd.js']);
    const plan = planDeploy(input({ files: build('e'), stored, releases, keep: 3, now: new Date('2026-06-01T00:00:00Z') }));
    expect(plan.expiredReleases).toEqual([releases[1]!.key, releases[0]!.key]);
  });

  test('files no record lists: pruned once older than the kept releases (hashed and companions only), never when their age is unknown', () => {
    const a = deployed(planDeploy(input({ releaseId: 'aaa', now: new Date('2026-01-01T00:00:00Z') })), new Date('2026-01-01T00:00:01Z'));
    const unrecorded = (lastModified?: Date) =>
      ['old.0123456789.js', 'old.0123456789.js.LICENSE.txt', 'index.html', 'legacy.txt', '_releases/notes.txt'].map((key) => ({
        key,
        etag: 'x',
        size: 1,
        ...(lastModified ? { lastModified } : {}),
      }));
    // A first deploy keeps every file it does not know of: nothing says how old it is against a release.
    const first = planDeploy(input({ stored: unrecorded(new Date('2025-01-01T00:00:00Z')) }));
    expect(first.deletions).toEqual([]);
    expect(first.unknown).toEqual(['legacy.txt', 'old.0123456789.js', 'old.0123456789.js.LICENSE.txt']);
    // Before release A (the one kept besides the new one): a failed deploy's leftovers, or older. Pruned.
    const before = planDeploy(
      input({ stored: [...a.stored, ...unrecorded(new Date('2025-12-31T00:00:00Z'))], releases: [a.release], now: new Date('2026-02-01T00:00:00Z') }),
    );
    expect(before.deletions).toEqual(['old.0123456789.js', 'old.0123456789.js.LICENSE.txt']);
    expect(before.unrecordedDeletions).toBe(2);
    expect(before.unknown).toEqual(['legacy.txt']);
    // After release A (a failed deploy since): kept, until A is no longer among the kept releases.
    const after = unrecorded(new Date('2026-01-15T00:00:00Z'));
    expect(planDeploy(input({ stored: [...a.stored, ...after], releases: [a.release], now: new Date('2026-02-01T00:00:00Z') })).deletions).toEqual([]);
    expect(planDeploy(input({ stored: [...a.stored, ...after], releases: [a.release], keep: 1, now: new Date('2026-02-01T00:00:00Z') })).deletions).toEqual(
      expect.arrayContaining(['old.0123456789.js', 'old.0123456789.js.LICENSE.txt']),
    );
    // No Last-Modified: never.
    expect(planDeploy(input({ stored: [...a.stored, ...unrecorded()], releases: [a.release], keep: 1 })).unrecordedDeletions).toBe(0);
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

describe('rollback', () => {
  const WHERE = 's3://hosting/';
  const build = (marker: string) => [
    file(`chunk.${marker.repeat(10)}.js`),
    file('index.html', `index-${marker}`),
    file('main.js', `main-${marker}`),
    file('remoteEntry.js', `entry-${marker}`),
    file('mf-manifest.json', `manifest-${marker}`),
  ];
  /** Releases deployed one after another (keep 10: nothing pruned); the bucket after them. */
  function history(markers: string[]) {
    let stored: StoredObject[] = [];
    const releases: StoredRelease[] = [];
    markers.forEach((marker, i) => {
      const plan = planDeploy(input({ files: build(marker), stored, releases, keep: 10, releaseId: `${marker}${i}`, now: new Date(Date.UTC(2026, 0, i + 1)) }));
      const after = deployed(plan);
      stored = [...stored.filter((o) => !after.stored.some((n) => n.key === o.key)), ...after.stored];
      releases.push(after.release);
    });
    return { stored, releases };
  }
  const LATER = new Date('2026-03-01T00:00:00Z');

  test('makes the previous release live again: its entry files from their copies, in the deploy’s order, and records it', () => {
    const { stored, releases } = history(['a', 'b']);
    const choice = chooseRollback('uploader-remote', releases, WHERE);
    expect([choice.live.key, choice.target.key]).toEqual([releases[1]!.key, releases[0]!.key]);
    const plan = planRollback({ app: 'uploader-remote', choice, stored, releaseId: 'r01', now: LATER, where: WHERE });
    expect(plan.steps.map((s) => [s.name, s.uploads.map((u) => u.md5)])).toEqual([
      ['other entry files', ['main-a']],
      ['pages', ['index-a']],
      ['remoteEntry.js', ['entry-a']],
      ['mf-manifest.json', ['manifest-a']],
    ]);
    expect(plan.unchanged.map((f) => f.path)).toEqual(['chunk.aaaaaaaaaa.js']);
    expect(plan.release).toMatchObject({
      app: 'uploader-remote',
      files: releases[0]!.record.files,
      rollback: { from: releases[1]!.key, to: releases[0]!.key },
    });
    expect(plan.releaseKey).toBe('_releases/2026-03-01T00-00-00.000Z-r01.json');
    expect(plan.deletions).toEqual([]);
    expect(plan.expiredReleases).toEqual([]);
    expect(plan.invalidationPaths).toEqual(['/', '/index.html', '/main.js', '/mf-manifest.json', '/remoteEntry.js']);
  });

  test('a second rollback goes one release further back, not forward to the release undone; the same build deployed twice is passed over', () => {
    const { stored, releases } = history(['a', 'b', 'b', 'c']);
    const first = chooseRollback('uploader-remote', releases, WHERE);
    expect(first.target.key).toBe(releases[2]!.key);
    const plan = planRollback({ app: 'uploader-remote', choice: first, stored, releaseId: 'r01', now: LATER, where: WHERE });
    const afterRollback = [...releases, { key: plan.releaseKey, record: plan.release }];
    // Live: b (the rollback). Before it: c was undone, and b was deployed twice: a.
    expect(chooseRollback('uploader-remote', afterRollback, WHERE).target.key).toBe(releases[0]!.key);
  });

  test('refuses with what to do instead: nothing recorded, no release before the live one, another app’s bucket', () => {
    expect(() => chooseRollback('uploader-remote', [], WHERE)).toThrow(
      new RollbackError('No release of uploader-remote is recorded in s3://hosting/: there is nothing to roll back to.'),
    );
    const { releases } = history(['a', 'a']);
    expect(() => chooseRollback('uploader-remote', releases, WHERE)).toThrow(
      /No release of uploader-remote before the live one, .* Deploy the build you want instead/,
    );
    expect(() => chooseRollback('shell', history(['a', 'b']).releases, WHERE)).toThrow(/holds releases of uploader-remote .* not of shell/);
  });

  test('refuses a release whose hashed files were pruned, or whose entry files have no copy', () => {
    const { stored, releases } = history(['a', 'b']);
    const choice = chooseRollback('uploader-remote', releases, WHERE);
    const without = (key: string) => stored.filter((o) => o.key !== key);
    expect(() => planRollback({ app: 'uploader-remote', choice, stored: without('chunk.aaaaaaaaaa.js'), releaseId: 'r', now: LATER, where: WHERE })).toThrow(
      /its files chunk\.aaaaaaaaaa\.js are no longer in the bucket \(pruned\)\. Deploy its build again instead\./,
    );
    expect(() => planRollback({ app: 'uploader-remote', choice, stored: without(entryCopyKey('main-a')), releaseId: 'r', now: LATER, where: WHERE })).toThrow(
      /no copy of its entry files main\.js is in the bucket/,
    );
    // A clock behind the live record would hide the rollback's record behind it.
    expect(() => planRollback({ app: 'uploader-remote', choice, stored, releaseId: 'r', now: new Date('2025-01-01T00:00:00Z'), where: WHERE })).toThrow(
      /clock .* is behind the newest release record/,
    );
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
  ])('refuses %j', (args, message) => {
    expect(() => parse(args)).toThrow(UsageError);
    expect(() => parse(args)).toThrow(message);
  });
});

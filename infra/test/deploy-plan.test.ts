/**
 * The deploy planner (src/deploy/plan.ts, order.ts), pure: the order a release is uploaded in (a
 * remote's switch by its manifest's entry script, the shell's entry files last), headers,
 * identical files skipped, pruning, invalidation paths, refusals. The rollback planner:
 * deploy-rollback-plan.test.ts; the plan's execution: deploy-execute.test.ts.
 */
import { contentTypeOf, IMMUTABLE, NO_CACHE } from '../src/deploy/files';
import { entryCopyKey, parseReleaseRecord, planDeploy, PlanError } from '../src/deploy/plan';
import type { PlanInput, StoredRelease } from '../src/deploy/plan';
import { deployed, file, input, REMOTE_BUILD, ROUTES, SHELL_BUILD } from './support/plan-input';

describe('planDeploy: what is uploaded, in which order, with which headers', () => {
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

  test('a remote’s entry script and manifest: the manifest is the switch, and no write makes the live manifest name new code', () => {
    const hashedEntry = 'remoteEntry.0123456789.js';
    const build = [...REMOTE_BUILD.filter((f) => !f.path.endsWith('.br')), file(hashedEntry)];
    const tail = (live: string | null | undefined, next: string) => {
      const plan = planDeploy(input({ files: next === hashedEntry ? build : REMOTE_BUILD, entries: { live, next } }));
      return { order: plan.steps.slice(-2).map((s) => s.name), note: plan.switchNote };
    };
    // Its manifest names the hashed copy, uploaded with the hashed files: one write switches.
    expect(planDeploy(input({ files: build, entries: { next: hashedEntry } })).steps[0]?.uploads.map((u) => u.path)).toContain(hashedEntry);
    expect(tail('remoteEntry.9876543210.js', hashedEntry)).toEqual({ order: ['remoteEntry.js', 'mf-manifest.json'], note: undefined });
    expect(tail(undefined, hashedEntry)).toEqual({ order: ['remoteEntry.js', 'mf-manifest.json'], note: undefined });
    // The live manifest names remoteEntry.js (or cannot be read): replacing that first would run new code under it.
    expect(tail('remoteEntry.js', hashedEntry)).toEqual({ order: ['mf-manifest.json', 'remoteEntry.js'], note: undefined });
    expect(tail(null, hashedEntry)).toEqual({ order: ['mf-manifest.json', 'remoteEntry.js'], note: undefined });
    // An older build (its manifest names remoteEntry.js) over a hashed one: remoteEntry.js first, unread until the manifest names it.
    expect(tail('remoteEntry.9876543210.js', 'remoteEntry.js')).toEqual({ order: ['remoteEntry.js', 'mf-manifest.json'], note: undefined });
    // Both name remoteEntry.js: no order is one write; the manifest first, and the plan says so.
    const both = tail('remoteEntry.js', 'remoteEntry.js');
    expect(both.order).toEqual(['mf-manifest.json', 'remoteEntry.js']);
    expect(both.note).toMatch(
      /^the switch is not atomic: this release's mf-manifest\.json names remoteEntry\.js, not a content-hashed copy, and so does the live one/,
    );
  });

  test('a remote whose manifest names an entry script the build lacks, or none, is refused', () => {
    expect(() => planDeploy(input({ entries: { next: 'remoteEntry.abcdefabcd.js' } }))).toThrow(
      'mf-manifest.json names remoteEntry.abcdefabcd.js as its entry script, which the build does not have.',
    );
    expect(() => planDeploy(input({ entries: {} }))).toThrow('mf-manifest.json names no entry script (metaData.remoteEntry.name).');
  });

  test('the shell: config.json, then routes.json, then the pages, federation-host.json last', () => {
    const plan = planDeploy(input({ app: 'shell', files: [...SHELL_BUILD, file('federation-host.json')], routes: ROUTES }));
    expect(plan.steps.map((s) => s.name).slice(-4)).toEqual(['config.json', 'routes.json', 'pages', 'federation-host.json']);
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
});

describe('planDeploy: pruning, invalidation, refusals', () => {
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

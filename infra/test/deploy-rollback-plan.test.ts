/**
 * The rollback planner (src/deploy/rollback-plan.ts), pure: which release a rollback makes live
 * again (the previous one; after a rollback, one further back; after a deploy stopped midway, the
 * live record's own; after a rollback stopped midway, the same one again), how (its entry files
 * from their copies, in the deploy's order), and its refusals.
 */
import { entryCopyKey, planDeploy } from '../src/deploy/plan';
import type { StoredObject, StoredRelease } from '../src/deploy/plan';
import { chooseRollback, planRollback, RollbackError } from '../src/deploy/rollback-plan';
import { deployed, file, input } from './support/plan-input';

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

  test('after a deploy stopped midway, the live record’s own entry files are put back; after a stopped rollback, it goes on', () => {
    const { stored, releases } = history(['a', 'b']);
    const withEntry = (objects: StoredObject[], path: string, etag: string) => objects.map((o) => (o.key === path ? { ...o, etag } : o));
    // A deploy of c wrote its main.js and stopped: a rollback puts b's back.
    const stopped = withEntry(stored, 'main.js', 'main-c');
    const repair = chooseRollback('uploader-remote', releases, WHERE, stopped);
    expect(repair).toMatchObject({ repair: true, target: { key: releases[1]!.key } });
    const plan = planRollback({ app: 'uploader-remote', choice: repair, stored: stopped, releaseId: 'r', now: LATER, where: WHERE });
    expect(plan.steps.map((s) => [s.name, s.uploads.map((u) => u.md5)])).toEqual([['other entry files', ['main-b']]]);
    expect(plan.release.rollback).toEqual({ from: releases[1]!.key, to: releases[1]!.key });
    // Recorded, the next rollback goes back to a, not to b again.
    const afterRepair = [...releases, { key: plan.releaseKey, record: plan.release }];
    const repaired = withEntry(stopped, 'main.js', 'main-b');
    expect(chooseRollback('uploader-remote', afterRepair, WHERE, repaired).target.key).toBe(releases[0]!.key);
    // A rollback to a stopped after putting back a's main.js: run again, it goes on to a.
    const halfRolledBack = withEntry(stored, 'main.js', 'main-a');
    expect(chooseRollback('uploader-remote', releases, WHERE, halfRolledBack)).toEqual({ live: releases[1], target: releases[0] });
    // A first release, its redeploy stopped midway: put back.
    const first = history(['a']);
    expect(chooseRollback('uploader-remote', first.releases, WHERE, withEntry(first.stored, 'index.html', 'index-z')).repair).toBe(true);
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

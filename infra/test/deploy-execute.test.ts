/**
 * A plan's execution (src/deploy/execute.ts) with in-memory ports: the plan's order, the record,
 * the invalidation, the pruning; a failure stopping it; the deploy lock renewed before each entry
 * step, the record and the pruning, and checked before each entry file; entry files written only
 * over what the plan saw; a dry run. Against the S3 emulator, stopped after each write:
 * deploy-stops.test.ts.
 */
import { DeployError, eachBounded, executePlan, WriteConflictError } from '../src/deploy/execute';
import type { CdnPort, LockGuard, ObjectStorePort, WriteCondition } from '../src/deploy/execute';
import { IMMUTABLE, NO_CACHE } from '../src/deploy/files';
import { LockError } from '../src/deploy/lock';
import { planDeploy } from '../src/deploy/plan';
import { deployed, file, input, REMOTE_BUILD } from './support/plan-input';

/** An in-memory bucket and CDN that log every call in order; `conditions` records each conditional write. */
function fakes(options: { failOn?: string; conflictOn?: string } = {}) {
  const calls: string[] = [];
  const conditions = new Map<string, WriteCondition>();
  const store: ObjectStorePort = {
    async put(key, body, headers, condition) {
      await Promise.resolve();
      if (key === options.failOn) throw new Error(`500 InternalError on ${key}`);
      if (key === options.conflictOn) throw new WriteConflictError(key);
      if (condition) conditions.set(key, condition);
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
  return { calls, conditions, store, cdn, read: async () => Buffer.from('body') };
}

/** A lock guard that logs its checks into `calls`, and fails from the `lostAt`-th call on. */
function guard(calls: string[], lostAt = Infinity): LockGuard {
  let n = 0;
  const step = async (what: string) => {
    n += 1;
    calls.push(what);
    if (n >= lostAt) throw new LockError('the lock s3://b/_releases/deploy.lock was broken while this ran and is now held by someone else.');
  };
  return { check: () => step('check'), renew: () => step('renew') };
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

  test('the lock: renewed before each entry step, the record and the pruning, checked before each entry file', async () => {
    const plan = planDeploy(input());
    const { calls, store, read } = fakes();
    await executePlan({ ...plan, deletions: ['old.0123456789.js'] }, { store, read, concurrency: 1, dryRun: false, lock: guard(calls) });
    const ops = calls.map((c) => c.split(' ').slice(0, 2).join(' '));
    const firstEntry = ops.findIndex((c) => c === 'put main.js');
    expect(ops.slice(firstEntry - 2, firstEntry)).toEqual(['renew', 'check']);
    expect(ops.slice(0, firstEntry - 2).every((c) => c.startsWith('put '))).toBe(true);
    expect(ops.slice(-6)).toEqual(['check', 'put mf-manifest.json', 'renew', `put ${plan.releaseKey}`, 'renew', 'delete old.0123456789.js']);
  });

  test('a lock lost before the switch: no entry file written, nothing recorded or pruned, and the message says another deploy took over', async () => {
    const plan = planDeploy(input());
    const { calls, store, read } = fakes();
    const error = await executePlan({ ...plan, deletions: ['old.0123456789.js'] }, { store, read, concurrency: 1, dryRun: false, lock: guard(calls, 1) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeployError);
    expect(calls.filter((c) => c.startsWith('put')).every((c) => !/ (index\.html|main\.js|remoteEntry\.js|mf-manifest\.json|mf-stats\.json) /.test(c))).toBe(
      true,
    );
    expect(calls.some((c) => c.startsWith('delete') || c.includes('_releases/2026'))).toBe(false);
    expect((error as DeployError).message).toMatch(
      /^Stopped before step "other entry files": the lock .* was broken while this ran .*\. It wrote no entry file\. Another deploy or rollback has taken over .* this one wrote nothing more and pruned nothing\./,
    );
  });

  test('entry files are written only over what the plan saw; a file another deploy wrote stops the deploy', async () => {
    const first = planDeploy(input());
    const { stored, release } = deployed(first);
    const changed = REMOTE_BUILD.map((f) => (['index.html', 'mf-manifest.json'].includes(f.path) ? file(f.path, `new-${f.path}`) : f));
    const withNewPage = [...changed, file('new.html')];
    const plan = planDeploy(input({ files: withNewPage, stored, releases: [release] }));
    const { conditions, store, read } = fakes();
    await executePlan(plan, { store, read, concurrency: 1, dryRun: false });
    expect(Object.fromEntries(conditions)).toEqual({
      'index.html': { ifMatch: 'md5-of-index.html' },
      'mf-manifest.json': { ifMatch: 'md5-of-mf-manifest.json' },
      'new.html': { ifNoneMatch: '*' },
      [plan.releaseKey]: { ifNoneMatch: '*' },
    });
    const conflict = fakes({ conflictOn: 'mf-manifest.json' });
    const error = await executePlan(plan, { store: conflict.store, read, concurrency: 1, dryRun: false }).catch((e: unknown) => e);
    expect((error as DeployError).message).toMatch(
      /^Stopped in step "mf-manifest\.json": mf-manifest\.json changed in the bucket while this ran .* This deploy wrote: index\.html, new\.html\. It did not write: mf-manifest\.json\. Another deploy/,
    );
    expect((error as DeployError).entries).toEqual({ written: ['index.html', 'new.html'], previous: ['mf-manifest.json'], absent: [], unknown: [] });
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

/**
 * The rollback planner: pure. From the release records and the bucket's listing, which release
 * to make live again and how: its entry files put back from their copies
 * (`_releases/entry-files/<md5>`, written by each deploy: plan.ts) in the deploy's order, the
 * changed entry paths invalidated, and a record of the rollback written last — a release record
 * like a deploy's, listing the restored release's files, with `rollback: { from, to }`. Its
 * hashed files are still in the bucket (the previous release is among the kept ones); nothing is
 * uploaded from a build and nothing is pruned. infra/README.md ("Deploy command") explains it;
 * infra/test/deploy-plan.test.ts and infra/test/deploy.test.ts check it.
 *
 * Which release: the one that was live before the live one. The live release is the newest
 * record. Before a deploy, what was live is the record just older than it; before a rollback,
 * what was live before the release it restored — so a second rollback goes one release further
 * back, not forward again to the release just undone. A release whose entry files are those of
 * the live one (the same build deployed twice) is passed over.
 *
 * After a deploy that stopped midway (some entry files in the bucket are not the live record's,
 * nor those of the release before it), a rollback puts back the live record's own entry files:
 * the release that was live before that deploy (`repair`). After a rollback that stopped midway
 * (the entry files that differ are the release before's), it goes on to that same release.
 */
import type { AppName } from './files';
import { invalidationPathsFor, orderSteps, switchNote } from './order';
import type { RemoteEntries } from './order';
import { entryCopyKey, entryEtagsOf, newestFirst, releaseName, releaseProblems, RELEASES_PREFIX } from './plan';
import type { DeployPlan, ReleaseRecord, StoredObject, StoredRelease } from './plan';
import type { ReleaseFile, RoutedPaths } from './release-files';

/** Nothing to roll back to, or the release to restore is incomplete: the message says what to do instead. */
export class RollbackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RollbackError';
  }
}

export interface RollbackChoice {
  /** The newest record: what is live. */
  live: StoredRelease;
  /** The release to make live again. */
  target: StoredRelease;
  /** A deploy stopped midway: the target is the live record itself, whose entry files are put back. */
  repair?: boolean;
}

export function describeRelease(release: StoredRelease): string {
  const rollback = release.record.rollback ? `, a rollback to ${release.record.rollback.to}` : '';
  return `${release.key} (deployed ${release.record.createdAt}${rollback})`;
}

function entrySignature(record: ReleaseRecord): string {
  return record.files
    .filter((f) => f.kind === 'entry')
    .map((f) => `${f.path}\n${f.md5}`)
    .sort()
    .join('\n');
}

/** The entry files of `record` the bucket holds with other content. */
function entriesChanged(record: ReleaseRecord, stored: readonly StoredObject[]): ReleaseFile[] {
  const etags = new Map(stored.map((o) => [o.key, o.etag]));
  return record.files.filter((f) => f.kind === 'entry' && etags.has(f.path) && etags.get(f.path) !== f.md5);
}

/**
 * `where` names the target in messages (`s3://bucket/prefix`). With the bucket's listing
 * (`stored`), a deploy that stopped midway is undone (`repair`).
 */
export function chooseRollback(app: AppName, releases: readonly StoredRelease[], where: string, stored?: readonly StoredObject[]): RollbackChoice {
  const sorted = newestFirst(releases);
  const live = sorted[0];
  if (!live) throw new RollbackError(`No release of ${app} is recorded in ${where}: there is nothing to roll back to.`);
  const foreign = releases.find((r) => r.record.app !== app);
  if (foreign) throw new RollbackError(`${where} holds releases of ${foreign.record.app} (${foreign.key}), not of ${app}: is it the right bucket?`);
  const byKey = new Map(sorted.map((r) => [r.key, r]));
  // Keys sort as time does, and a rollback's `to` is older than the rollback: each step goes back.
  const previousOf = (key: string): StoredRelease | undefined => {
    const to = byKey.get(key)?.record.rollback?.to;
    if (to !== undefined && to < key) return previousOf(to);
    return sorted.find((r) => r.key < key);
  };
  const liveEntries = entrySignature(live.record);
  let target = previousOf(live.key);
  while (target && entrySignature(target.record) === liveEntries) target = previousOf(target.key);
  const changed = stored ? entriesChanged(live.record, stored) : [];
  if (changed.length > 0) {
    // Entry files that are not the live record's: a rollback stopped midway left the previous
    // release's (go on to it); anything else is a stopped deploy's (put the live release back).
    const previous = new Map((target?.record.files ?? []).map((f) => [f.path, f.md5]));
    const etags = new Map((stored ?? []).map((o) => [o.key, o.etag]));
    const rollingBack = target !== undefined && changed.every((f) => previous.get(f.path) === etags.get(f.path));
    if (!rollingBack) return { live, target: live, repair: true };
  }
  if (!target) {
    throw new RollbackError(
      `No release of ${app} before the live one, ${describeRelease(live)}, is recorded in ${where}: there is no previous release to roll back to. ` +
        'Deploy the build you want instead (a deploy deletes the records of the releases past --keep).',
    );
  }
  return { live, target };
}

export interface RollbackPlanInput {
  app: AppName;
  choice: RollbackChoice;
  stored: StoredObject[];
  releaseId: string;
  now: Date;
  /** The shell's routes.json, live and restored: their routed paths are invalidated with the pages. */
  routes?: RoutedPaths[];
  /** A remote: the entry script the live mf-manifest.json and the restored one name (order.ts). */
  entries?: RemoteEntries;
  where: string;
}

export function planRollback(input: RollbackPlanInput): DeployPlan {
  const { target, live } = input.choice;
  const clock = releaseProblems(input.app, [live], input.now);
  if (clock.length > 0) throw new RollbackError(`Cannot roll back: ${clock.join(' ')}`);
  const storedByKey = new Map(input.stored.map((o) => [o.key, o]));
  const missing: string[] = [];
  const noCopy: string[] = [];
  const restore: ReleaseFile[] = [];
  const unchanged: ReleaseFile[] = [];
  for (const file of target.record.files) {
    const stored = storedByKey.get(file.path);
    const same = stored !== undefined && stored.etag === file.md5;
    if (file.kind !== 'entry') {
      if (same) unchanged.push(file);
      else missing.push(file.path);
    } else if (same) unchanged.push(file);
    else if (storedByKey.has(entryCopyKey(file.md5))) restore.push(file);
    else noCopy.push(file.path);
  }
  const cannot = `Cannot roll back ${input.where} to ${describeRelease(target)}:`;
  const some = (paths: string[]) => `${paths.slice(0, 3).join(', ')}${paths.length > 3 ? `, … (${paths.length} in all)` : ''}`;
  if (missing.length > 0) throw new RollbackError(`${cannot} its files ${some(missing)} are no longer in the bucket (pruned). Deploy its build again instead.`);
  if (noCopy.length > 0) {
    throw new RollbackError(
      `${cannot} no copy of its entry files ${some(noCopy)} is in the bucket (deployed before the deploy command kept them). Deploy its build again instead.`,
    );
  }
  const name = releaseName(input.now, input.releaseId);
  const release: ReleaseRecord = {
    format: 1,
    app: input.app,
    id: input.releaseId,
    createdAt: input.now.toISOString(),
    files: target.record.files,
    rollback: { from: live.key, to: target.key },
  };
  const steps = orderSteps(input.app, restore, [], input.entries);
  const note = switchNote(input.app, steps, input.entries ?? {});
  const paths = new Set((input.routes && input.routes.length > 0 ? input.routes : [undefined]).flatMap((routes) => invalidationPathsFor(restore, routes)));
  return {
    app: input.app,
    releaseKey: `${RELEASES_PREFIX}${name}.json`,
    release,
    steps,
    unchanged,
    excluded: [],
    deletions: [],
    unrecordedDeletions: 0,
    expiredReleases: [],
    unknown: [],
    invalidationPaths: [...paths].sort(),
    live: live.key,
    entriesNotInBucket: restore.filter((f) => !storedByKey.has(f.path)).map((f) => f.path),
    entryEtags: entryEtagsOf(restore, input.stored),
    ...(note ? { switchNote: note } : {}),
    ...(input.entries ? { entries: input.entries } : {}),
  };
}

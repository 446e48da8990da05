/**
 * `--rollback`: makes the release before the live one live again (rollback-plan.ts chooses it and
 * plans the writes), after the same checks a deploy goes through (checks.ts), run on the release
 * it would put back — its files read from the bucket — and under the same lock (session.ts).
 * Nothing is written when a check fails.
 */
import { createHash, randomBytes } from 'node:crypto';
import { checkShellRoutes } from '../hosting/shell-routes';
import type { BucketStore } from './aws';
import { checksWanted, rollbackRefusal, shellReleaseProblems } from './checks';
import type { ReleaseCheckOptions } from './checks';
import { executePlan } from './execute';
import type { DeployResult } from './execute';
import { HOST_FILE, liveEntryOf, MANIFEST, manifestEntryOfText } from './order';
import type { RemoteEntries } from './order';
import { entryCopyKey } from './plan';
import type { DeployPlan, StoredObject } from './plan';
import type { ReleaseFile, RoutedPaths } from './release-files';
import { PreflightError, remoteFitProblems } from './preflight';
import { chooseRollback, describeRelease, planRollback } from './rollback-plan';
import type { RollbackChoice } from './rollback-plan';
import { targetUrl, withBucket } from './session';
import type { BucketOptions } from './session';

export type RollbackOptions = BucketOptions & ReleaseCheckOptions;

/** A file of a recorded release, from the bucket: the served object when it is still that content, else the entry file's copy; checked against the record's MD5. */
async function readReleaseFile(store: BucketStore, stored: readonly StoredObject[], file: ReleaseFile): Promise<Buffer> {
  const live = stored.some((o) => o.key === file.path && o.etag === file.md5);
  const key = live ? file.path : entryCopyKey(file.md5);
  const body = await store.getBytes(key);
  if (createHash('md5').update(body).digest('hex') !== file.md5)
    throw new Error(`${key}, the bucket's ${file.path} of that release, does not match its record`);
  return body;
}

/** Checks the release `choice` would put back against what is live (checks.ts); throws a PreflightError listing every problem. */
async function checkRestored(options: RollbackOptions, choice: RollbackChoice, read: (path: string) => Promise<Buffer | undefined>): Promise<void> {
  const { app } = options;
  const heading = rollbackRefusal(app, describeRelease(choice.target));
  const problems: string[] = [];
  if (app !== 'shell') {
    const manifest = await read(MANIFEST);
    if (!manifest) problems.push(`the release has no ${MANIFEST}.`);
    else problems.push(...(await remoteFitProblems(app, JSON.parse(manifest.toString('utf8')) as object, options.shell as string)));
  } else {
    const configBody = await read('config.json');
    const routes = await read('routes.json');
    if (!configBody || !routes) throw new PreflightError([`the release has no ${configBody ? 'routes.json' : 'config.json'}.`], app, heading);
    const host = await read(HOST_FILE);
    const { inlineScriptHashes } = checkShellRoutes(JSON.parse(routes.toString('utf8')), 'routes.json');
    problems.push(
      ...(await shellReleaseProblems(
        { configBody, inlineScriptHashes, ...(host ? { host: { body: host } } : {}) },
        {
          settingsFile: options.settingsFile as string,
          ...(options.distributionId ? { distributionId: options.distributionId } : {}),
          action: 'rollback',
          aws: options,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          warn: options.warn ?? options.log ?? (() => undefined),
        },
      )),
    );
  }
  if (problems.length > 0) throw new PreflightError(problems, app, heading);
}

/** Makes the release before the live one live again (rollback-plan.ts); after a deploy that stopped midway, the live record's own release. */
export async function rollback(options: RollbackOptions): Promise<{ plan: DeployPlan; result: DeployResult; choice: RollbackChoice }> {
  const warn = options.warn ?? options.log ?? (() => undefined);
  const checked = checksWanted(options.app, options, 'rollback', warn);
  return withBucket(options, 'rollback', async ({ store, cdn, stored, releases, lock, text }) => {
    const where = targetUrl(options.target);
    const choice = chooseRollback(options.app, releases, where, stored);
    const read = async (path: string) => {
      const file = choice.target.record.files.find((f) => f.path === path);
      return file ? readReleaseFile(store, stored, file) : undefined;
    };
    if (checked) await checkRestored(options, choice, read);
    const routes: RoutedPaths[] = [];
    if (options.app === 'shell') {
      // The paths routed to a restored page, by the live routes.json and by the restored one.
      const sources: [string, () => Promise<string | undefined>][] = [
        ['routes.json', () => text('routes.json')],
        [`routes.json of ${choice.target.key}`, async () => (await read('routes.json').catch(() => undefined))?.toString('utf8')],
      ];
      for (const [name, get] of sources) {
        const body = await get();
        if (body === undefined) continue;
        try {
          routes.push(checkShellRoutes(JSON.parse(body), name));
        } catch (error) {
          warn(`${name}: ${(error as Error).message}; its routed paths are not invalidated.`);
        }
      }
    }
    let entries: RemoteEntries | undefined;
    if (options.app !== 'shell') {
      const next = manifestEntryOfText((await read(MANIFEST).catch(() => undefined))?.toString('utf8') ?? '{}');
      entries = { live: liveEntryOf(await text(MANIFEST)), ...(next ? { next } : {}) };
    }
    const plan = planRollback({
      app: options.app,
      choice,
      stored,
      releaseId: options.releaseId ?? randomBytes(3).toString('hex'),
      now: options.now ?? new Date(),
      routes,
      ...(entries ? { entries } : {}),
      where,
    });
    const result = await executePlan(plan, {
      store,
      ...(cdn ? { cdn } : {}),
      read: (file) => readReleaseFile(store, stored, file),
      concurrency: options.concurrency ?? 8,
      dryRun: options.dryRun,
      ...(options.log ? { log: options.log } : {}),
      ...(lock ? { lock } : {}),
    });
    return { plan, result, choice };
  });
}

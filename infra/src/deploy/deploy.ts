/**
 * One deploy of an app's build to its hosting bucket: reads the build (and, for the shell, the
 * environment's runtime config), the bucket's listing and release records, plans (plan.ts) and
 * carries the plan out (execute.ts). Or one rollback to the previous release (rollback-plan.ts).
 * Either holds the app's deploy lock (lock.ts) from before it reads the bucket to the end.
 * infra/bin/deploy.ts is its command line.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import { checkShellRoutes } from '../hosting/shell-routes';
import { cloudFrontCdn, s3Store } from './aws';
import type { AwsOptions, BucketStore, Target } from './aws';
import { executePlan } from './execute';
import type { CdnPort, DeployResult } from './execute';
import type { AppName } from './files';
import { acquireLock, LOCK_KEY } from './lock';
import { preflightRemoteDeploy, preflightShellDeploy } from './preflight';
import type { HeldLock, Operation } from './lock';
import { entryCopyKey, isReleaseRecordKey, parseReleaseRecord, planDeploy } from './plan';
import type { DeployPlan, LocalFile, ReleaseFile, RoutedPaths, StoredObject, StoredRelease } from './plan';
import { chooseRollback, describeRelease, planRollback } from './rollback-plan';
import type { RollbackChoice } from './rollback-plan';

/** What a deploy and a rollback both need: the app's bucket, its distribution, the lock. */
export interface BucketOptions extends AwsOptions {
  app: AppName;
  target: Target;
  distributionId?: string;
  dryRun: boolean;
  /** Uploads at once within a step (default 8). */
  concurrency?: number;
  /** Defaults: now, and 6 random hex digits. */
  now?: Date;
  releaseId?: string;
  /** Break a stale lock (older than LOCK_STALE_AFTER_MS, lock.ts). */
  breakLock?: boolean;
  /** Who holds the lock, in other deploys' messages (default: user@host (pid)). */
  lockHolder?: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Warnings that do not fail the command (default: log). */
  warn?: (line: string) => void;
}

export interface DeployOptions extends BucketOptions {
  /** The build folder (`<app>/dist`). */
  distDir: string;
  /** The shell's runtime config file, uploaded as `/config.json` (required for the shell, refused for a remote). */
  configFile?: string;
  /** The environment's settings file: the shell's deploy then runs the preflight checks (preflight.ts) before uploading. */
  settingsFile?: string;
  /**
   * A remote's deploy: the live shell (`--shell`: the site's URL, its federation-host.json's URL
   * or a file); the remote's build must fit it (preflight.ts preflightRemoteDeploy). A remote's
   * deploy needs this or `skipShellCheck`.
   */
  shell?: string;
  /** A remote's deploy without the check against the live shell (`--skip-shell-check`), warned about. */
  skipShellCheck?: boolean;
  keep: number;
  /** Make the previous release live again instead (`--rollback`): no build is read. */
  rollback?: boolean;
}

/** A problem the user fixes before deploying (bad config, missing build): printed without a stack. */
export class DeployInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeployInputError';
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** Every file under `dir`, with its relative path (`/`), size and MD5. */
export async function readBuild(dir: string): Promise<LocalFile[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  const files: LocalFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const body = await fs.readFile(full);
    files.push({ path: path.relative(dir, full).split(path.sep).join('/'), size: body.length, md5: createHash('md5').update(body).digest('hex') });
  }
  return files;
}

/** Reads and checks the shell's runtime config with the site's own parser; every problem listed. */
export async function readRuntimeConfig(file: string): Promise<Buffer> {
  let body: Buffer;
  try {
    body = await fs.readFile(file);
  } catch {
    throw new DeployInputError(`--config ${file}: cannot read the file.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new DeployInputError(`--config ${file}: not valid JSON (${(error as Error).message}).`);
  }
  const parsed = parseRuntimeConfig(raw);
  if (!parsed.ok) {
    throw new DeployInputError(`--config ${file} is not a valid runtime config; refusing to deploy it:\n${parsed.problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return body;
}

export async function deploy(options: DeployOptions): Promise<{ plan: DeployPlan; result: DeployResult }> {
  const { app, distDir } = options;
  const mainFile = app === 'shell' ? 'index.html' : 'remoteEntry.js';
  if (!(await exists(path.join(distDir, mainFile)))) {
    throw new DeployInputError(`${app} has no build (${path.join(distDir, mainFile)} is missing): run \`npm run build -w ${app}\` first.`);
  }
  if (app === 'shell' && !options.configFile) {
    throw new DeployInputError(
      'The shell needs --config <file>: the runtime config this environment serves as /config.json (docs/architecture.md#runtime-configuration).',
    );
  }
  if (app !== 'shell' && options.configFile) throw new DeployInputError(`--config is the shell's runtime config; ${app} has none.`);
  if (app !== 'shell' && options.settingsFile) throw new DeployInputError(`--settings checks the shell's runtime config and CSP; ${app} has neither.`);
  if (app === 'shell' && (options.shell !== undefined || options.skipShellCheck)) {
    throw new DeployInputError('--shell and --skip-shell-check are for a remote: they check its build against the live shell.');
  }
  if (app !== 'shell') {
    if (options.shell !== undefined && options.skipShellCheck) throw new DeployInputError('Give --shell or --skip-shell-check, not both.');
    if (options.shell !== undefined) {
      await preflightRemoteDeploy({ app, distDir, shell: options.shell });
    } else if (options.skipShellCheck) {
      (options.warn ?? options.log)?.(
        `${app} is deployed without checking it against the live shell (--skip-shell-check): if it does not fit, its route shows an error.`,
      );
    } else {
      throw new DeployInputError(
        `A remote's deploy checks its build against the live shell: give --shell https://<site> (or the URL or path of the shell's federation-host.json), ` +
          'or --skip-shell-check to deploy without (docs/architecture.md#one-federation-runtime).',
      );
    }
  }

  let files = await readBuild(distDir);
  let configBody: Buffer | undefined;
  let routes: RoutedPaths | undefined;
  let inlineScriptHashes: string[] = [];
  if (app === 'shell') {
    configBody = await readRuntimeConfig(options.configFile as string);
    // The build's own config.json, if any, is not the environment's: --config replaces it.
    files = files.filter((f) => f.path !== 'config.json');
    files.push({ path: 'config.json', size: configBody.length, md5: createHash('md5').update(configBody).digest('hex') });
    try {
      const shellRoutes = checkShellRoutes(JSON.parse(await fs.readFile(path.join(distDir, 'routes.json'), 'utf8')), path.join(distDir, 'routes.json'));
      routes = shellRoutes;
      inlineScriptHashes = shellRoutes.inlineScriptHashes;
    } catch (error) {
      throw new DeployInputError(`${(error as Error).message} Run \`npm run build -w shell\` again.`);
    }
    if (options.settingsFile) {
      const { settingsFile, distributionId } = options;
      await preflightShellDeploy({ settingsFile, configBody, inlineScriptHashes, ...(distributionId ? { distributionId } : {}), aws: options });
    }
  }

  return withBucket(options, 'deploy', async ({ store, cdn, stored, releases, lock }) => {
    const plan = planDeploy({
      app,
      files,
      stored,
      releases,
      keep: options.keep,
      releaseId: options.releaseId ?? randomBytes(3).toString('hex'),
      now: options.now ?? new Date(),
      ...(routes ? { routes } : {}),
    });
    const result = await executePlan(plan, {
      store,
      ...(cdn ? { cdn } : {}),
      read: (file) => (file.path === 'config.json' && configBody ? Promise.resolve(configBody) : fs.readFile(path.join(distDir, file.path))),
      concurrency: options.concurrency ?? 8,
      dryRun: options.dryRun,
      ...(options.log ? { log: options.log } : {}),
      ...(lock ? { beforePrune: () => lock.confirm() } : {}),
    });
    return { plan, result };
  });
}

/** `s3://bucket/prefix`, for messages. */
export function targetUrl(target: Target): string {
  return `s3://${target.bucket}/${target.prefix}`;
}

function defaultHolder(): string {
  let user = process.env.USER ?? 'someone';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): USER it is.
  }
  return `${user}@${os.hostname()} (pid ${process.pid})`;
}

interface BucketSession {
  store: BucketStore;
  cdn?: CdnPort;
  /** The bucket's objects and release records, read under the lock. */
  stored: StoredObject[];
  releases: StoredRelease[];
  /** Absent in a dry run, which writes nothing and takes no lock. */
  lock?: HeldLock;
}

/** Opens the bucket (and distribution), takes the app's lock, reads the bucket, runs `work`, and releases the lock whatever happened. */
async function withBucket<T>(options: BucketOptions, operation: Operation, work: (session: BucketSession) => Promise<T>): Promise<T> {
  const log = options.log ?? (() => undefined);
  const warn = options.warn ?? log;
  const store = s3Store(options.target, options);
  const cdn = options.distributionId ? cloudFrontCdn(options.distributionId, options) : undefined;
  const where = `${targetUrl(options.target)}${LOCK_KEY}`;
  let lock: HeldLock | undefined;
  try {
    if (options.dryRun) {
      const current = await store.lock.read(LOCK_KEY);
      if (current) warn(`${where} is held (${current.text.replace(/\s+/g, ' ').trim()}): a real ${operation} would be refused now.`);
    } else {
      lock = await acquireLock(store.lock, {
        app: options.app,
        operation,
        holder: options.lockHolder ?? defaultHolder(),
        ...(options.now ? { now: () => options.now as Date } : {}),
        ...(options.breakLock ? { breakStale: true } : {}),
        where,
      });
      if (lock.broke) warn(`broke the stale lock ${where} of ${lock.broke}.`);
    }
    const stored = await store.list();
    const releases: StoredRelease[] = [];
    for (const object of stored) {
      if (isReleaseRecordKey(object.key)) releases.push({ key: object.key, record: parseReleaseRecord(object.key, await store.getText(object.key)) });
    }
    return await work({ store, ...(cdn ? { cdn } : {}), stored, releases, ...(lock ? { lock } : {}) });
  } finally {
    if (lock) {
      try {
        const warning = await lock.release();
        if (warning) warn(warning);
      } catch (error) {
        warn(`could not release the lock: ${(error as Error).message}. Delete ${where} once no deploy of ${options.app} runs.`);
      }
    }
    store.destroy();
    cdn?.destroy();
  }
}

/** An entry file's bytes from its copy, checked against the record's MD5. */
async function readCopy(store: BucketStore, file: ReleaseFile): Promise<Buffer> {
  const body = await store.getBytes(entryCopyKey(file.md5));
  if (createHash('md5').update(body).digest('hex') !== file.md5)
    throw new Error(`the copy of ${file.path} (${entryCopyKey(file.md5)}) does not match its record`);
  return body;
}

/** Makes the release live before the live one live again (rollback-plan.ts). */
export async function rollback(options: BucketOptions): Promise<{ plan: DeployPlan; result: DeployResult; choice: RollbackChoice }> {
  const warn = options.warn ?? options.log ?? (() => undefined);
  return withBucket(options, 'rollback', async ({ store, cdn, stored, releases }) => {
    const where = targetUrl(options.target);
    const choice = chooseRollback(options.app, releases, where);
    const routes: RoutedPaths[] = [];
    if (options.app === 'shell') {
      // The paths routed to a restored page, by the live routes.json and by the restored one.
      const restored = choice.target.record.files.find((f) => f.path === 'routes.json');
      const sources: [string, () => Promise<string>][] = [['routes.json', () => store.getText('routes.json')]];
      if (restored) sources.push([entryCopyKey(restored.md5), async () => (await store.getBytes(entryCopyKey(restored.md5))).toString('utf8')]);
      for (const [key, read] of sources) {
        if (!stored.some((o) => o.key === key)) continue;
        try {
          routes.push(checkShellRoutes(JSON.parse(await read()), key));
        } catch (error) {
          warn(`${key}: ${(error as Error).message}; its routed paths are not invalidated.`);
        }
      }
    }
    const plan = planRollback({
      app: options.app,
      choice,
      stored,
      releaseId: options.releaseId ?? randomBytes(3).toString('hex'),
      now: options.now ?? new Date(),
      routes,
      where,
    });
    const result = await executePlan(plan, {
      store,
      ...(cdn ? { cdn } : {}),
      read: (file) => readCopy(store, file),
      concurrency: options.concurrency ?? 8,
      dryRun: options.dryRun,
      ...(options.log ? { log: options.log } : {}),
    });
    return { plan, result, choice };
  });
}

const kib = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

function table(head: string[], rows: [string, string, string][]): string {
  const width = Math.max(...rows.map((r) => r[0].length));
  const count = Math.max(...rows.map((r) => r[1].length));
  return [...head, ...rows.map(([what, n, extra]) => `  ${what.padEnd(width)}  ${n.padStart(count)}  ${extra}`.trimEnd())].join('\n');
}

function invalidationRow(verb: string, result: DeployResult): [string, string, string] {
  return [
    `${verb}invalidated`,
    String(result.invalidationPaths.length),
    result.invalidationId ?? (result.dryRun && result.invalidationPaths.length > 0 ? '(dry run)' : '—'),
  ];
}

/** The table the command prints. */
export function formatResult(target: Target, plan: DeployPlan, result: DeployResult): string {
  const verb = result.dryRun ? 'would be ' : '';
  return table(
    [`${plan.app} → ${targetUrl(target)}${result.dryRun ? ' (dry run: nothing written)' : ''}`, `release ${plan.releaseKey}`],
    [
      [`${verb}uploaded`, String(result.uploaded.files), kib(result.uploaded.bytes)],
      [`entry files ${verb}copied (for rollback)`, String(result.copied), ''],
      ['unchanged (skipped)', String(result.unchanged.files), kib(result.unchanged.bytes)],
      ['not uploaded (.map, .br, .gz)', String(result.excluded), ''],
      [`${verb}deleted (older releases)`, String(result.deleted), ''],
      ['kept (in no release record)', String(result.unknownKept), ''],
      invalidationRow(verb, result),
    ],
  );
}

/** What the command prints after a rollback. */
export function formatRollback(target: Target, plan: DeployPlan, result: DeployResult, choice: RollbackChoice): string {
  const verb = result.dryRun ? 'would be ' : '';
  return table(
    [
      `${plan.app} → ${targetUrl(target)}${result.dryRun ? ' (dry run: nothing written)' : ''}`,
      `${result.dryRun ? 'would roll' : 'rolled'} back to ${describeRelease(choice.target)}`,
      `undoing ${describeRelease(choice.live)}`,
      `record ${plan.releaseKey}`,
    ],
    [
      [`entry files ${verb}restored`, String(result.uploaded.files), kib(result.uploaded.bytes)],
      ['files already in place', String(result.unchanged.files), ''],
      invalidationRow(verb, result),
    ],
  );
}

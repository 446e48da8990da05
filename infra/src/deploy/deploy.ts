/**
 * One deploy of an app's build to its hosting bucket: reads the build (and, for the shell, the
 * environment's runtime config), the bucket's listing and release records, plans (plan.ts) and
 * carries the plan out (execute.ts). infra/bin/deploy.ts is its command line.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import { checkShellRoutes } from '../hosting/shell-routes';
import { cloudFrontCdn, s3Store } from './aws';
import type { AwsOptions, Target } from './aws';
import { executePlan } from './execute';
import type { DeployResult } from './execute';
import type { AppName } from './files';
import { parseReleaseRecord, planDeploy, RELEASES_PREFIX } from './plan';
import type { DeployPlan, LocalFile, StoredRelease } from './plan';

export interface DeployOptions extends AwsOptions {
  app: AppName;
  /** The build folder (`<app>/dist`). */
  distDir: string;
  target: Target;
  /** The shell's runtime config file, uploaded as `/config.json` (required for the shell, refused for a remote). */
  configFile?: string;
  distributionId?: string;
  keep: number;
  dryRun: boolean;
  /** Uploads at once within a step (default 8). */
  concurrency?: number;
  /** Defaults: now, and 6 random hex digits. */
  now?: Date;
  releaseId?: string;
  log?: (line: string) => void;
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

  let files = await readBuild(distDir);
  let configBody: Buffer | undefined;
  let routes;
  if (app === 'shell') {
    configBody = await readRuntimeConfig(options.configFile as string);
    // The build's own config.json, if any, is not the environment's: --config replaces it.
    files = files.filter((f) => f.path !== 'config.json');
    files.push({ path: 'config.json', size: configBody.length, md5: createHash('md5').update(configBody).digest('hex') });
    try {
      routes = checkShellRoutes(JSON.parse(await fs.readFile(path.join(distDir, 'routes.json'), 'utf8')), path.join(distDir, 'routes.json'));
    } catch (error) {
      throw new DeployInputError(`${(error as Error).message} Run \`npm run build -w shell\` again.`);
    }
  }

  const store = s3Store(options.target, options);
  const cdn = options.distributionId ? cloudFrontCdn(options.distributionId, options) : undefined;
  try {
    const stored = await store.list();
    const releases: StoredRelease[] = [];
    for (const object of stored) {
      if (!object.key.startsWith(RELEASES_PREFIX) || !object.key.endsWith('.json')) continue;
      releases.push({ key: object.key, record: parseReleaseRecord(object.key, await store.getText(object.key)) });
    }
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
    });
    return { plan, result };
  } finally {
    store.destroy();
    cdn?.destroy();
  }
}

/** The table the command prints. */
export function formatResult(target: Target, plan: DeployPlan, result: DeployResult): string {
  const kib = (bytes: number) =>
    bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  const verb = result.dryRun ? 'would be ' : '';
  const rows: [string, string, string][] = [
    [`${verb}uploaded`, String(result.uploaded.files), kib(result.uploaded.bytes)],
    ['unchanged (skipped)', String(result.unchanged.files), kib(result.unchanged.bytes)],
    ['not uploaded (.map, .br, .gz)', String(result.excluded), ''],
    [`${verb}deleted (older releases)`, String(result.deleted), ''],
    ['kept (in no release record)', String(result.unknownKept), ''],
    [
      `${verb}invalidated`,
      result.invalidationPaths.length > 0 ? String(result.invalidationPaths.length) : '0',
      result.invalidationId ?? (result.dryRun && result.invalidationPaths.length > 0 ? '(dry run)' : '—'),
    ],
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  const count = Math.max(...rows.map((r) => r[1].length));
  return [
    `${plan.app} → s3://${target.bucket}/${target.prefix}${result.dryRun ? ' (dry run: nothing written)' : ''}`,
    `release ${plan.releaseKey}`,
    ...rows.map(([what, n, extra]) => `  ${what.padEnd(width)}  ${n.padStart(count)}  ${extra}`.trimEnd()),
  ].join('\n');
}

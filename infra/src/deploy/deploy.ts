/**
 * One deploy of an app's build to its hosting bucket: reads the build (and, for the shell, the
 * environment's runtime config), checks it against what is live (checks.ts), reads the bucket's
 * listing and release records under the deploy lock (session.ts), plans (plan.ts) and carries the
 * plan out (execute.ts). A rollback to the previous release is rollback.ts's. infra/bin/deploy.ts
 * is its command line.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import { checkShellRoutes } from '../hosting/shell-routes';
import { checksWanted, DeployInputError, shellReleaseProblems } from './checks';
import type { ReleaseCheckOptions } from './checks';
import { executePlan } from './execute';
import type { DeployResult } from './execute';
import { HOST_FILE, liveEntryOf, MANIFEST, manifestEntryOfText } from './order';
import type { RemoteEntries } from './order';
import { planDeploy } from './plan';
import type { DeployPlan, LocalFile } from './plan';
import type { RoutedPaths } from './release-files';
import { PreflightError, preflightRemoteDeploy } from './preflight';
import { withBucket } from './session';
import type { BucketOptions } from './session';

export interface DeployOptions extends BucketOptions, ReleaseCheckOptions {
  /** The build folder (`<app>/dist`). */
  distDir: string;
  /** The shell's runtime config file, uploaded as `/config.json` (required for the shell, refused for a remote). */
  configFile?: string;
  keep: number;
  /** Make the previous release live again instead (`--rollback`, rollback.ts): no build is read. */
  rollback?: boolean;
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
  const warn = options.warn ?? options.log ?? (() => undefined);
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
  const checked = checksWanted(app, options, 'deploy', warn);
  if (app !== 'shell' && checked) await preflightRemoteDeploy({ app, distDir, shell: options.shell as string });

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
    if (checked) {
      const host = path.join(distDir, HOST_FILE);
      const problems = await shellReleaseProblems(
        { configBody, inlineScriptHashes, ...((await exists(host)) ? { host: { file: host } } : {}) },
        {
          settingsFile: options.settingsFile as string,
          ...(options.distributionId ? { distributionId: options.distributionId } : {}),
          action: 'deploy',
          aws: options,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          warn,
        },
      );
      if (problems.length > 0) throw new PreflightError(problems);
    }
  }
  let next: string | undefined;
  if (app !== 'shell') {
    const named = manifestEntryOfText(await fs.readFile(path.join(distDir, MANIFEST), 'utf8').catch(() => '{}'));
    if (named === null) throw new DeployInputError(`${path.join(distDir, MANIFEST)} is not JSON: run \`npm run build -w ${app}\` again.`);
    next = named;
  }

  return withBucket(options, 'deploy', async ({ store, cdn, stored, releases, lock, text }) => {
    const entries: RemoteEntries | undefined = app === 'shell' ? undefined : { live: liveEntryOf(await text(MANIFEST)), ...(next ? { next } : {}) };
    const plan = planDeploy({
      app,
      files,
      stored,
      releases,
      keep: options.keep,
      releaseId: options.releaseId ?? randomBytes(3).toString('hex'),
      now: options.now ?? new Date(),
      ...(routes ? { routes } : {}),
      ...(entries ? { entries } : {}),
    });
    const result = await executePlan(plan, {
      store,
      ...(cdn ? { cdn } : {}),
      read: (file) => (file.path === 'config.json' && configBody ? Promise.resolve(configBody) : fs.readFile(path.join(distDir, file.path))),
      concurrency: options.concurrency ?? 8,
      dryRun: options.dryRun,
      ...(options.log ? { log: options.log } : {}),
      ...(lock ? { lock } : {}),
    });
    return { plan, result };
  });
}

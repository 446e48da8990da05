/**
 * The checks a release goes through before anything is written — the same for a deploy and for a
 * rollback, which puts an older release back and can cross a contract change as a deploy can:
 *
 * - **A remote** (`--shell <url|file>`, or `--skip-shell-check` said outright): its mf-manifest.json
 *   (the build's; a rollback's, the copy of the release it would put back) must fit the live
 *   shell's federation-host.json (preflight.ts remoteFitProblems).
 * - **The shell** (`--settings <file>`, or `--skip-production-checks` said outright): its runtime
 *   config (the `--config`; a rollback's, the config.json of the release it would put back) passes
 *   the production checks; its CSP is the distribution's (a deploy needs `--distribution` for it; a
 *   rollback without one is warned that it was not compared); and the live remotes — the
 *   manifests that config's `remotes.*` name — fit the shell's federation-host.json (the build's,
 *   or the one of the release put back): a shell that no longer provides what a live remote needs
 *   would show an error on its routes until the remote is released again.
 *
 * Every problem is listed in one PreflightError (preflight.ts). deploy.ts and rollback.ts call these;
 * infra/test/deploy-checks.test.ts checks them.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { manifestProblems, readHost } from '@trailsense/webpack-config/federation-check';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import type { AwsOptions } from './aws';
import type { AppName } from './files';
import { HOST_FILE } from './order';
import { cspProblems, productionConfigProblems, readSettings } from './preflight';

/** A problem the user fixes before deploying (bad config, missing build, missing flag): printed without a stack. */
export class DeployInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeployInputError';
  }
}

export type Action = 'deploy' | 'rollback';

/** How a deploy or a rollback is checked (cli.ts: --settings, --skip-production-checks, --shell, --skip-shell-check). */
export interface ReleaseCheckOptions {
  /** The shell: the environment's settings file; its checks run (above). */
  settingsFile?: string;
  /** The shell without its checks, warned about. */
  skipProductionChecks?: boolean;
  /** A remote: the live shell (the site's URL, its federation-host.json's URL, or a file). */
  shell?: string;
  /** A remote without the check against the live shell, warned about. */
  skipShellCheck?: boolean;
  /** How the live remotes' manifests are read (tests); default: fetch. */
  fetch?: typeof fetch;
}

/**
 * Which checks `app`'s `action` runs: throws a DeployInputError for flags of the other kind of app,
 * both of a pair, or neither; warns of a skipped check. Returns false when the checks are skipped.
 */
export function checksWanted(app: AppName, options: ReleaseCheckOptions, action: Action, warn: (line: string) => void): boolean {
  const done = action === 'deploy' ? 'deployed' : 'rolled back';
  if (app === 'shell') {
    if (options.shell !== undefined || options.skipShellCheck) {
      throw new DeployInputError('--shell and --skip-shell-check are for a remote: they check its build against the live shell.');
    }
    if (options.settingsFile && options.skipProductionChecks) throw new DeployInputError('Give --settings or --skip-production-checks, not both.');
    if (options.skipProductionChecks) {
      warn(
        `the shell is ${done} without the production checks (--skip-production-checks): its runtime config is not checked against the environment's settings, ` +
          "its CSP against the distribution's, nor the live remotes against it.",
      );
      return false;
    }
    if (!options.settingsFile) {
      throw new DeployInputError(
        `A ${action} of the shell checks ${action === 'deploy' ? 'it' : 'the release it puts back'} against production: give --settings infra/config/<env>.json ` +
          "(its runtime config against the settings, its CSP against --distribution's, the live remotes against its federation-host.json), " +
          `or --skip-production-checks to ${action === 'deploy' ? 'deploy' : 'roll back'} without them (infra/README.md#deploy-command).`,
      );
    }
    return true;
  }
  if (options.settingsFile) throw new DeployInputError(`--settings checks the shell's runtime config and CSP; ${app} has neither.`);
  if (options.skipProductionChecks)
    throw new DeployInputError(`--skip-production-checks is for the shell; ${app} is checked against the live shell (--shell).`);
  if (options.shell !== undefined && options.skipShellCheck) throw new DeployInputError('Give --shell or --skip-shell-check, not both.');
  if (options.skipShellCheck) {
    warn(`${app} is ${done} without checking it against the live shell (--skip-shell-check): if it does not fit, its route shows an error.`);
    return false;
  }
  if (options.shell === undefined) {
    throw new DeployInputError(
      `A remote's ${action} checks ${action === 'deploy' ? 'its build' : 'the release it puts back'} against the live shell: give --shell https://<site> ` +
        "(or the URL or path of the shell's federation-host.json), " +
        `or --skip-shell-check to ${action === 'deploy' ? 'deploy' : 'roll back'} without (docs/federation.md#one-federation-runtime).`,
    );
  }
  return true;
}

/** The app each key of the runtime config's `remotes` names. */
const REMOTE_APPS: Record<keyof RuntimeConfig['remotes'], AppName> = { auth: 'auth-remote', uploader: 'uploader-remote' };

/** A remote's mf-manifest.json URL from the runtime config's `remotes.*`: as given, or the manifest beside the script it names. */
function manifestUrl(url: string): string {
  return new URL(url).pathname.endsWith('.json') ? url : new URL('mf-manifest.json', url).href;
}

/**
 * Whether the live remotes — the manifests `config.remotes` names — fit the shell whose
 * federation-host.json is at `host` (a path or URL readHost reads). Every problem listed; a
 * manifest that cannot be read is one (whether that remote fits is then unknown).
 */
export async function liveRemotesProblems(config: RuntimeConfig, host: string, fetchImpl: typeof fetch = fetch): Promise<string[]> {
  let described;
  try {
    described = await readHost(host);
  } catch (error) {
    return [`the shell's ${HOST_FILE}: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  for (const key of Object.keys(REMOTE_APPS) as (keyof typeof REMOTE_APPS)[]) {
    const url = manifestUrl(config.remotes[key]);
    let manifest: object;
    try {
      const response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
      if (!response.ok) throw new Error(`it answered ${response.status}`);
      manifest = (await response.json()) as object;
    } catch (error) {
      problems.push(
        `remotes.${key}: the live ${REMOTE_APPS[key]}'s manifest ${url} could not be read (${(error as Error).message}): whether it fits this shell is unknown.`,
      );
      continue;
    }
    problems.push(...manifestProblems(`the live ${REMOTE_APPS[key]} (${url})`, manifest, described));
  }
  return problems;
}

/** A shell release to check: its runtime config, its routes' inline script hashes, its federation-host.json. */
export interface ShellRelease {
  configBody: Buffer;
  inlineScriptHashes: readonly string[];
  /** Its federation-host.json: a path, or the file's bytes (a rollback's copy); absent when the release has none. */
  host?: { file: string } | { body: Buffer };
}

/**
 * The shell's checks (above) for a deploy or a rollback: every problem, or [] when it may go
 * live. `warn` says that a rollback without --distribution did not compare the CSP.
 */
export async function shellReleaseProblems(
  release: ShellRelease,
  options: { settingsFile: string; distributionId?: string; action: Action; aws: AwsOptions; fetch?: typeof fetch; warn: (line: string) => void },
): Promise<string[]> {
  const rawSettings = await readSettings(options.settingsFile);
  const parsed = parseRuntimeConfig(JSON.parse(release.configBody.toString('utf8')));
  if (!parsed.ok) return parsed.problems.map((p) => `runtime config: ${p}`);
  const problems = productionConfigProblems(rawSettings, parsed.config);
  if (options.distributionId || options.action === 'deploy') {
    const routes = { inlineScriptHashes: [...release.inlineScriptHashes] };
    problems.push(
      ...(await cspProblems({
        config: parsed.config,
        routes,
        ...(options.distributionId ? { distributionId: options.distributionId } : {}),
        aws: options.aws,
      })),
    );
  } else {
    options.warn("no --distribution: the CSP of the release put back is not compared with the distribution's (and nothing is invalidated).");
  }
  if (!release.host) {
    problems.push(`the release has no ${HOST_FILE}: what it provides remotes is unknown, so whether the live remotes fit it is too.`);
    return problems;
  }
  if ('file' in release.host) {
    problems.push(...(await liveRemotesProblems(parsed.config, release.host.file, options.fetch)));
    return problems;
  }
  // readHost reads a path or a URL: the release's copy goes to a file of its own.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trailsense-rollback-host-'));
  try {
    const file = path.join(dir, HOST_FILE);
    await fs.writeFile(file, release.host.body);
    problems.push(...(await liveRemotesProblems(parsed.config, file, options.fetch)));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  return problems;
}

/** The heading of a rollback's refusal. */
export function rollbackRefusal(app: AppName, release: string): string {
  return `refusing to roll back ${app} to ${release}: it does not fit what is live now (a rollback past a contract change); nothing was written`;
}

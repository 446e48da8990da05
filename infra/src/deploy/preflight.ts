/**
 * The checks' parts (checks.ts runs them for a deploy and a rollback). The shell's, given the
 * environment's settings (`--settings`): the runtime config passes the production checks the
 * stacks apply (environment.ts checkRuntimeConfig: AWS endpoints only, the settings' region, stream,
 * remotes, pools), and the Content-Security-Policy the build and that config call for
 * (shared/src/security/headers.ts, as stacks/hosting-stack.ts makes the policy) is the one the
 * distribution's response-headers policy sends. A config that names an endpoint the deployed CSP
 * does not allow would otherwise go live and fail in every browser until the stacks are deployed.
 *
 * A remote's (`--shell`): its build fits the shell that is live — the federation runtime its
 * mf-manifest.json says it needs is the one the shell provides, and the shell provides every
 * module it shares at a version it accepts (webpack/federation-check.js manifestProblems, the
 * check each remote build runs against the shell in the repository). The live shell would refuse
 * any other (docs/federation.md#one-federation-runtime): its route would show an error until a
 * fitting remote is released.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { manifestProblems, readHost } from '@trailsense/webpack-config/federation-check';
import { CloudFrontClient, GetDistributionConfigCommand, GetResponseHeadersPolicyCommand } from '@aws-sdk/client-cloudfront';
import { securityHeaders } from '@trailsense/shared/security-headers';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import type { ShellRoutes } from '../hosting/shell-routes';
import { checkRuntimeConfig } from '../environment';
import { checkSettings } from '../settings';
import type { AwsOptions } from './aws';

/** A check that failed: every problem listed, nothing uploaded. */
export class PreflightError extends Error {
  constructor(
    readonly problems: readonly string[],
    app = 'the shell',
    /** What was refused (default: `refusing to deploy <app>; nothing was uploaded`). */
    heading?: string,
  ) {
    super(`${heading ?? `refusing to deploy ${app}; nothing was uploaded`}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PreflightError';
  }
}

/** The production checks of the runtime config against the environment's settings (the raw settings JSON). */
export function productionConfigProblems(rawSettings: unknown, config: RuntimeConfig): string[] {
  const checked = checkSettings(rawSettings);
  if (!checked.ok) return checked.problems.map((p) => `settings: ${p}`);
  return checkRuntimeConfig(checked.settings, config).map((p) => `runtime config: ${p}`);
}

/** The CSP the hosting stack would put in the shell's response-headers policy for this build and config. */
export function expectedCsp(config: RuntimeConfig, routes: Pick<ShellRoutes, 'inlineScriptHashes'>): string {
  return securityHeaders({ config, inlineScriptHashes: routes.inlineScriptHashes })['Content-Security-Policy'] as string;
}

function directives(csp: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of csp.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), sources);
  }
  return map;
}

/** How the deployed CSP differs from the expected one, directive by directive (empty: the same policy). */
export function cspDifferences(expected: string, deployed: string): string[] {
  const want = directives(expected);
  const have = directives(deployed);
  const differences: string[] = [];
  for (const name of new Set([...want.keys(), ...have.keys()])) {
    const w = want.get(name);
    const h = have.get(name);
    if (!h) differences.push(`${name} is missing from the distribution's policy`);
    else if (!w) differences.push(`${name} is in the distribution's policy, not in the build's`);
    else {
      const missing = w.filter((s) => !h.includes(s));
      const extra = h.filter((s) => !w.includes(s));
      if (missing.length > 0) differences.push(`${name} lacks ${missing.join(' ')}`);
      if (extra.length > 0) differences.push(`${name} also allows ${extra.join(' ')}`);
      if (missing.length === 0 && extra.length === 0 && w.join(' ') !== h.join(' ')) differences.push(`${name} lists its sources in another order`);
    }
  }
  return differences;
}

/** The Content-Security-Policy the distribution's default behavior sends (its response-headers policy), or null when it sends none. */
export async function distributionCsp(distributionId: string, options: AwsOptions): Promise<string | null> {
  const client = new CloudFrontClient({
    // CloudFront is global; its API lives in us-east-1.
    region: 'us-east-1',
    ...(options.cloudfrontEndpoint ? { endpoint: options.cloudfrontEndpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  try {
    const distribution = await client.send(new GetDistributionConfigCommand({ Id: distributionId }));
    const policyId = distribution.DistributionConfig?.DefaultCacheBehavior?.ResponseHeadersPolicyId;
    if (!policyId) return null;
    const policy = await client.send(new GetResponseHeadersPolicyCommand({ Id: policyId }));
    return policy.ResponseHeadersPolicy?.ResponseHeadersPolicyConfig?.SecurityHeadersConfig?.ContentSecurityPolicy?.ContentSecurityPolicy ?? null;
  } finally {
    client.destroy();
  }
}

/**
 * Whether the Content-Security-Policy this release's config and inline scripts need is the one
 * the distribution sends; without a distribution that is unknown, which is a problem.
 */
export async function cspProblems(input: {
  config: RuntimeConfig;
  routes: Pick<ShellRoutes, 'inlineScriptHashes'>;
  distributionId?: string;
  aws: AwsOptions;
}): Promise<string[]> {
  if (!input.distributionId) return ["no --distribution: the shell's CSP cannot be compared with the distribution's response-headers policy."];
  const deployed = await distributionCsp(input.distributionId, input.aws);
  if (deployed === null) {
    return [`distribution ${input.distributionId} sends no Content-Security-Policy (no response-headers policy with one on its default behavior).`];
  }
  const differences = cspDifferences(expectedCsp(input.config, input.routes), deployed);
  if (differences.length === 0) return [];
  return [
    `the CSP this build and config need is not the one distribution ${input.distributionId} sends (deploy the stacks first, \`npm run deploy:stacks -w infra\`): ${differences.join('; ')}.`,
  ];
}

/** The environment's settings file (`--settings`), read as JSON; a PreflightError when it cannot be. */
export async function readSettings(settingsFile: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(settingsFile, 'utf8'));
  } catch (error) {
    throw new PreflightError([`--settings ${settingsFile} cannot be read as JSON (${(error as Error).message}).`]);
  }
}

/** Why a remote's manifest cannot run in the shell `shell` describes (its URL, or its federation-host.json's URL or path); `label` names the remote in the problems. */
export async function remoteFitProblems(label: string, manifest: object, shell: string): Promise<string[]> {
  let host;
  try {
    host = await readHost(shell);
  } catch (error) {
    return [`the live shell (--shell): ${(error as Error).message}`];
  }
  return manifestProblems(label, manifest, host);
}

/**
 * A remote's deploy (deploy.ts): reads the build's mf-manifest.json and the live shell's
 * federation-host.json (`shell`: the site's URL, that file's URL, or a file) and throws a
 * PreflightError listing every reason the shell would refuse the remote.
 */
export async function preflightRemoteDeploy(input: { app: string; distDir: string; shell: string }): Promise<void> {
  const file = path.join(input.distDir, 'mf-manifest.json');
  let manifest: { shared?: { name: string; version?: string }[]; metaData?: object };
  try {
    manifest = JSON.parse(await fs.readFile(file, 'utf8')) as typeof manifest;
  } catch (error) {
    throw new PreflightError([`${file} cannot be read as JSON (${(error as Error).message}): run \`npm run build -w ${input.app}\` again.`], input.app);
  }
  const problems = await remoteFitProblems(input.app, manifest, input.shell);
  if (problems.length > 0) throw new PreflightError(problems, input.app);
}

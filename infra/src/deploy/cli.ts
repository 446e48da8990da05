/**
 * The deploy command's arguments (infra/bin/deploy.ts; infra/README.md "Deploy command"):
 *   deploy <app> --target s3://bucket[/prefix] [--distribution ID] [--config file]
 *          [--settings file | --skip-production-checks] [--shell url|file | --skip-shell-check] [--region r]
 *          [--endpoint url] [--cloudfront-endpoint url] [--keep N] [--concurrency N] [--dist dir] [--dry-run]
 *          [--rollback] [--break-lock]
 * Paths are relative to the directory npm was started in (INIT_CWD), as the user typed them.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseTarget } from './aws';
import type { DeployOptions } from './deploy';
import { APPS, isAppName } from './files';

export const USAGE = `Usage: npm run deploy -w <app> -- --target s3://<bucket>[/<prefix>] [options]
       (or: npx tsx infra/bin/deploy.ts <app> --target … ; <app>: ${APPS.join(', ')})

  --target s3://bucket[/prefix]  the app's hosting bucket (the hosting stack's BucketName output)
  --distribution <id>            invalidate the changed entry files on this CloudFront distribution
  --config <file>                the shell only, required: the environment's runtime config (/config.json)
  --settings <file>              the shell only: the environment's settings (infra/config/<env>.json); the
                                 config must pass the production checks, the build's CSP must be the
                                 distribution's and the live remotes must fit the shell, or nothing is
                                 written. A shell's deploy or rollback needs --settings or --skip-production-checks
  --skip-production-checks       the shell only: deploy or roll back without those checks (a warning says so)
  --shell <url|file>             a remote only: the live shell, as the site's URL (https://<site>) or its
                                 federation-host.json's URL or path; the remote's build must need the federation
                                 runtime the shell provides and share only modules it provides, or nothing is
                                 written. A remote's deploy or rollback needs --shell or --skip-shell-check
  --skip-shell-check             a remote only: deploy or roll back without that check (a warning says so)
  --keep <n>                     releases whose files are kept, the new one included (default 2);
                                 older hashed files, companions and entry-file copies are pruned
  --rollback                     make the previous release live again (its entry files, from the
                                 copies each deploy keeps), checked as a deploy is; no build, --config or --keep
  --break-lock                   break the deploy lock of a deploy that died (not renewed for 30 minutes)
  --dry-run                      plan and print, write nothing
  --region <region>              the bucket's region (default: the AWS chain's, e.g. AWS_REGION)
  --endpoint <url>               an S3-compatible endpoint, e.g. the sandbox's s3rver (path-style)
  --cloudfront-endpoint <url>    another CloudFront API endpoint (tests)
  --concurrency <n>              uploads at once (default 8)
  --dist <dir>                   the build to deploy (default <app>/dist)`;

/** Thrown for bad arguments; the message says what is wrong, then the usage is printed. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--${name} must be a whole number of at least 1 (got ${JSON.stringify(text)}).`);
  return Number(text);
}

function httpUrl(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--${name} must be an http(s) URL (got ${JSON.stringify(text)}).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--${name} must be an http(s) URL (got ${JSON.stringify(text)}).`);
  return text;
}

/**
 * `argv` without node and the script. `env` gives INIT_CWD and the credentials check: with
 * --endpoint and no AWS credentials in the environment, the sandbox's s3rver keys are used.
 */
export function parseDeployArgs(argv: string[], env: NodeJS.ProcessEnv, repoRoot: string): DeployOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        target: { type: 'string' },
        distribution: { type: 'string' },
        config: { type: 'string' },
        settings: { type: 'string' },
        shell: { type: 'string' },
        'skip-shell-check': { type: 'boolean' },
        'skip-production-checks': { type: 'boolean' },
        region: { type: 'string' },
        endpoint: { type: 'string' },
        'cloudfront-endpoint': { type: 'string' },
        keep: { type: 'string' },
        concurrency: { type: 'string' },
        dist: { type: 'string' },
        'dry-run': { type: 'boolean' },
        rollback: { type: 'boolean' },
        'break-lock': { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [app, ...extra] = positionals;
  if (app === undefined) throw new UsageError(`Which app? Give one of ${APPS.join(', ')}.`);
  if (!isAppName(app)) throw new UsageError(`Unknown app ${JSON.stringify(app)}: give one of ${APPS.join(', ')}.`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument(s): ${extra.join(' ')}.`);
  if (!values.target) throw new UsageError('--target s3://<bucket>[/<prefix>] is required.');
  if (values.rollback) {
    const pointless = (['config', 'dist', 'keep'] as const).filter((name) => values[name] !== undefined);
    if (pointless.length > 0)
      throw new UsageError(
        `--rollback puts back the previous release's own files and prunes nothing: ${pointless.map((n) => `--${n}`).join(', ')} would be ignored.`,
      );
  }
  let target;
  try {
    target = parseTarget(values.target);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const shellOnly = (['settings', 'skip-production-checks'] as const).filter((name) => values[name] !== undefined);
  const remoteOnly = (['shell', 'skip-shell-check'] as const).filter((name) => values[name] !== undefined);
  if (app === 'shell' && remoteOnly.length > 0)
    throw new UsageError(
      `${remoteOnly.map((n) => `--${n}`).join(', ')}: for a remote (its build against the live shell); the shell takes --settings or --skip-production-checks.`,
    );
  if (app !== 'shell' && shellOnly.length > 0)
    throw new UsageError(`${shellOnly.map((n) => `--${n}`).join(', ')}: for the shell; ${app} takes --shell <url|file> or --skip-shell-check.`);
  if (shellOnly.length === 2) throw new UsageError('Give --settings or --skip-production-checks, not both.');
  if (remoteOnly.length === 2) throw new UsageError('Give --shell or --skip-shell-check, not both.');
  if (values.distribution !== undefined && !/^[A-Z0-9]{1,64}$/.test(values.distribution)) {
    throw new UsageError(`--distribution must be a CloudFront distribution id such as E2QWRUHEXAMPLE (got ${JSON.stringify(values.distribution)}).`);
  }
  if (values.region !== undefined && !/^[a-z]{2}(-gov)?-[a-z]+-\d$/.test(values.region))
    throw new UsageError(`--region must be an AWS region such as us-east-2 (got ${JSON.stringify(values.region)}).`);
  const endpoint = httpUrl('endpoint', values.endpoint);
  const cloudfrontEndpoint = httpUrl('cloudfront-endpoint', values['cloudfront-endpoint']);
  const base = env.INIT_CWD ?? process.cwd();
  const hasCredentials = Boolean(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE);
  const region = values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (endpoint ? 'us-east-1' : undefined);
  return {
    app,
    target,
    distDir: values.dist ? path.resolve(base, values.dist) : path.join(repoRoot, app, 'dist'),
    ...(values.config !== undefined ? { configFile: path.resolve(base, values.config) } : {}),
    ...(values.settings !== undefined ? { settingsFile: path.resolve(base, values.settings) } : {}),
    ...(values.shell !== undefined ? { shell: /^https?:\/\//.test(values.shell) ? values.shell : path.resolve(base, values.shell) } : {}),
    ...(values['skip-shell-check'] ? { skipShellCheck: true } : {}),
    ...(values['skip-production-checks'] ? { skipProductionChecks: true } : {}),
    ...(values.distribution !== undefined ? { distributionId: values.distribution } : {}),
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(cloudfrontEndpoint ? { cloudfrontEndpoint } : {}),
    // A plain s3rver (infra/test) accepts its own keys. The sandbox's S3 verifies signatures and
    // knows only its operator's key pair: set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY to it
    // (sandbox/README.md, "Signatures and the operator's keys").
    ...((endpoint || cloudfrontEndpoint) && !hasCredentials ? { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
    keep: positiveInteger('keep', values.keep, 2),
    concurrency: positiveInteger('concurrency', values.concurrency, 8),
    dryRun: values['dry-run'] ?? false,
    ...(values.rollback ? { rollback: true } : {}),
    ...(values['break-lock'] ? { breakLock: true } : {}),
  };
}

/**
 * The shell's deploy with `--settings` (src/deploy/preflight.ts, checks.ts): the runtime config
 * passes the production checks and the build's CSP is the one the distribution's response-headers
 * policy sends, or nothing is uploaded. Through the real deploy() against the S3 emulator and a
 * stub CloudFront API that answers GetDistributionConfig and GetResponseHeadersPolicy; the live
 * remotes the config names are served by a stub fetch (their check: deploy-checks.test.ts).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import { parseDeployArgs } from '../src/deploy/cli';
import { deploy } from '../src/deploy/deploy';
import type { DeployOptions } from '../src/deploy/deploy';
import { cspDifferences, expectedCsp, PreflightError } from '../src/deploy/preflight';
import { emulatorDeploy, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';
import { exampleRemotesFetch, writeFixtureRelease, writeFixtureShell } from './support/fixture-release';
import type { FixtureShell } from './support/fixture-release';

const REPO = path.resolve(__dirname, '..', '..');
const SETTINGS = path.join(REPO, 'infra', 'config', 'example.json');
const PRODUCTION_CONFIG = path.join(REPO, 'config', 'production.example.json');
const LOCAL_CONFIG = path.join(REPO, 'config', 'local.json');
const POLICY_ID = 'policy-1';

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The distributions' response-headers policies: distribution id → the CSP its policy sends (null: no policy). */
const distributions = new Map<string, string | null>();
let cloudFront: { url: string; close(): Promise<void> };
let s3: S3Emulator;
let work: string;
let shell: FixtureShell;
let production: RuntimeConfig;
let liveRemotes: typeof fetch;

async function startCloudFrontStub() {
  const server = http.createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    const config = /^\/2020-05-31\/distribution\/([^/]+)\/config$/.exec(url);
    const policy = /^\/2020-05-31\/response-headers-policy\/([^/]+)$/.exec(url);
    const invalidation = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation$/.exec(url);
    res.setHeader('Content-Type', 'text/xml');
    if (req.method === 'GET' && config && distributions.has(config[1] as string)) {
      const csp = distributions.get(config[1] as string);
      res.setHeader('ETag', 'E1');
      res.end(
        `<?xml version="1.0"?><DistributionConfig xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><CallerReference>x</CallerReference><Enabled>true</Enabled>` +
          `<DefaultCacheBehavior><TargetOriginId>o</TargetOriginId>${csp === null ? '' : `<ResponseHeadersPolicyId>${POLICY_ID}:${config[1] as string}</ResponseHeadersPolicyId>`}</DefaultCacheBehavior></DistributionConfig>`,
      );
      return;
    }
    if (req.method === 'GET' && policy) {
      const csp = distributions.get(decodeURIComponent(policy[1] as string).split(':')[1] as string) ?? '';
      res.setHeader('ETag', 'E2');
      res.end(
        `<?xml version="1.0"?><ResponseHeadersPolicy xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${POLICY_ID}</Id><LastModifiedTime>2026-01-01T00:00:00Z</LastModifiedTime>` +
          `<ResponseHeadersPolicyConfig><Name>shell</Name><SecurityHeadersConfig><ContentSecurityPolicy><Override>true</Override><ContentSecurityPolicy>${xml(csp)}</ContentSecurityPolicy></ContentSecurityPolicy></SecurityHeadersConfig></ResponseHeadersPolicyConfig></ResponseHeadersPolicy>`,
      );
      return;
    }
    if (req.method === 'POST' && invalidation) {
      res.writeHead(201);
      res.end(
        `<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>I1</Id><Status>InProgress</Status><CreateTime>2026-01-01T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>0</Quantity></Paths><CallerReference>x</CallerReference></InvalidationBatch></Invalidation>`,
      );
      return;
    }
    res.writeHead(404).end('<Error><Code>NoSuchDistribution</Code></Error>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function keys(prefix: string): Promise<string[]> {
  const res = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1] as string);
}

const inlineScriptHashes = () =>
  (JSON.parse(fs.readFileSync(path.join(shell.dir, 'routes.json'), 'utf8')) as { inlineScriptHashes: string[] }).inlineScriptHashes;

function shellDeploy(prefix: string, distributionId: string | undefined, extra: Partial<DeployOptions> = {}): Promise<unknown> {
  return deploy({
    app: 'shell',
    distDir: shell.dir,
    configFile: PRODUCTION_CONFIG,
    settingsFile: SETTINGS,
    ...emulatorDeploy(s3, prefix),
    ...(distributionId ? { distributionId } : {}),
    cloudfrontEndpoint: cloudFront.url,
    fetch: liveRemotes,
    ...extra,
  });
}

/** The problems a refused deploy lists. */
async function problemsOf(attempt: Promise<unknown>): Promise<readonly string[]> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof PreflightError) return error.problems;
    throw error;
  }
  throw new Error('the deploy was not refused');
}

beforeAll(async () => {
  [s3, cloudFront] = await Promise.all([startS3Emulator(), startCloudFrontStub()]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-preflight-'));
  shell = writeFixtureShell(path.join(work, 'shell'), 'P');
  liveRemotes = exampleRemotesFetch(writeFixtureRelease(path.join(work, 'live-remote'), 'L', { hashedEntry: true }));
  const parsed = parseRuntimeConfig(JSON.parse(fs.readFileSync(PRODUCTION_CONFIG, 'utf8')));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  production = parsed.config;
});
afterAll(async () => {
  await Promise.all([s3?.stop(), cloudFront?.close()]);
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('deploys when the config passes and the distribution sends the build’s CSP', async () => {
  distributions.set('EMATCH', expectedCsp(production, { inlineScriptHashes: inlineScriptHashes() }));
  await shellDeploy('match/', 'EMATCH');
  expect(await keys('match/')).toContain('match/config.json');
});

test('uploads nothing when the distribution’s CSP is not the build’s, and says which directive differs', async () => {
  const stale = expectedCsp(
    { ...production, api: { ...production.api, uploadsBaseUrl: 'https://old-api.trailsense.example' } },
    {
      inlineScriptHashes: inlineScriptHashes(),
    },
  );
  distributions.set('ESTALE', stale);
  const problems = await problemsOf(shellDeploy('stale/', 'ESTALE'));
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(/distribution ESTALE/);
  expect(problems[0]).toMatch(
    /connect-src lacks https:\/\/uploads-api\.trailsense\.example\/; connect-src also allows https:\/\/old-api\.trailsense\.example\//,
  );
  expect(await keys('stale/')).toEqual([]);
});

test('uploads nothing when the distribution sends no CSP, or no distribution is named', async () => {
  distributions.set('ENONE', null);
  expect(await problemsOf(shellDeploy('none/', 'ENONE'))).toEqual([
    'distribution ENONE sends no Content-Security-Policy (no response-headers policy with one on its default behavior).',
  ]);
  expect((await problemsOf(shellDeploy('none/', undefined)))[0]).toMatch(/^no --distribution/);
  expect(await keys('none/')).toEqual([]);
});

test('uploads nothing when the config fails the production checks (the sandbox’s config), listing each problem', async () => {
  distributions.set('EMATCH', expectedCsp(production, { inlineScriptHashes: inlineScriptHashes() }));
  const problems = await problemsOf(shellDeploy('local/', 'EMATCH', { configFile: LOCAL_CONFIG }));
  expect(problems).toEqual(
    expect.arrayContaining([
      "runtime config: auth.userPoolEndpoint is set: production uses AWS's endpoint (that field is for the sandbox).",
      'runtime config: storage.dangerouslyConnectToHttpEndpointForTesting is set: sandbox only.',
    ]),
  );
  expect(await keys('local/')).toEqual([]);
});

test('a remote takes no --settings', async () => {
  const remote = path.join(work, 'remote');
  fs.mkdirSync(remote, { recursive: true });
  fs.writeFileSync(path.join(remote, 'remoteEntry.js'), '');
  const attempt = deploy({
    app: 'auth-remote',
    distDir: remote,
    settingsFile: SETTINGS,
    ...emulatorDeploy(s3, 'remote/'),
  });
  await expect(attempt).rejects.toThrow("--settings checks the shell's runtime config and CSP; auth-remote has neither.");
});

describe('cspDifferences', () => {
  it('names each directive that differs, and nothing for the same policy', () => {
    expect(cspDifferences("default-src 'none'; img-src 'self' data:", "default-src  'none' ;img-src 'self' data:")).toEqual([]);
    expect(cspDifferences("default-src 'none'; img-src 'self'", "img-src 'self' data:; frame-ancestors 'none'")).toEqual([
      "default-src is missing from the distribution's policy",
      'img-src also allows data:',
      "frame-ancestors is in the distribution's policy, not in the build's",
    ]);
  });
});

test('the command line takes --settings for the shell, resolved from where npm was run', () => {
  const options = parseDeployArgs(
    ['shell', '--target', 's3://site', '--config', 'prod.json', '--settings', 'infra/config/example.json'],
    { INIT_CWD: '/work' },
    REPO,
  );
  expect(options.settingsFile).toBe(path.resolve('/work', 'infra/config/example.json'));
});

/**
 * The deploy command (infra/bin/deploy.ts) as a release goes out: release A of a miniature remote
 * (infra/test/support/fixture-release.ts: an entry page and script that lazy-load a hashed chunk
 * on demand) is deployed with `npm run deploy -w uploader-remote` to a hosting bucket in an S3
 * emulator, opened from the bucket in Chromium, then release B is deployed over it. The tab opened
 * before the redeploy must still load its lazy chunk (the previous release's hashed files are
 * kept), and a tab opened after gets release B. Each deploy checks the release against the live
 * shell, the one these tests run against (`--shell`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { writeFixtureRelease } from '../infra/test/support/fixture-release';
import { startS3Emulator } from '../infra/test/support/s3-emulator';
import type { S3Emulator } from '../infra/test/support/s3-emulator';
import { expect, test } from './support/test';

const repo = path.resolve(__dirname, '..');
let s3: S3Emulator;
let work: string;

test.beforeAll(async () => {
  s3 = await startS3Emulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-e2e-deploy-'));
});
test.afterAll(async () => {
  await s3?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function deployRelease(dir: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'npm',
    // The live shell is the one these tests run against: the remote's build must fit it.
    [
      'run',
      '--silent',
      'deploy',
      '-w',
      'uploader-remote',
      '--',
      '--target',
      `s3://${s3.bucket}/uploader`,
      '--endpoint',
      s3.endpoint,
      '--dist',
      dir,
      '--shell',
      test.info().project.use.baseURL as string,
    ],
    {
      cwd: repo,
      env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_PROFILE: '' },
    },
  );
  return stdout;
}

/** Every failed response and script error of a page. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed ${request.url()}: ${request.failure()?.errorText}`));
  page.on('pageerror', (error) => problems.push(`error: ${error.message}`));
  return problems;
}

test('a tab opened before a redeploy still loads its lazy chunk; a tab opened after gets the new release', async ({ context }) => {
  const a = writeFixtureRelease(path.join(work, 'A'), 'A');
  const b = writeFixtureRelease(path.join(work, 'B'), 'B');
  expect(await deployRelease(a.dir)).toMatch(/uploaded\s+7\s/);

  const before = await context.newPage();
  const beforeProblems = watch(before);
  await before.goto(s3.url('uploader/index.html'));
  await expect(before.locator('html')).toHaveAttribute('data-release', 'A');
  await expect(before.locator('html')).toHaveAttribute('data-vendor', 'A');

  expect(await deployRelease(b.dir)).toMatch(/uploaded\s+7\s/);

  // The open tab asks for its release's lazy chunk only now, after B replaced the entry files.
  const chunk = before.waitForResponse((response) => response.url().endsWith(a.lazyChunk));
  expect(await before.evaluate(() => (window as unknown as { loadLazy(): Promise<string> }).loadLazy())).toBe('lazy chunk of release A');
  const response = await chunk;
  expect(response.status()).toBe(200);
  expect(response.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(beforeProblems).toEqual([]);

  const after = await context.newPage();
  const afterProblems = watch(after);
  await after.goto(s3.url('uploader/index.html'));
  await expect(after.locator('html')).toHaveAttribute('data-release', 'B');
  expect(await after.evaluate(() => (window as unknown as { loadLazy(): Promise<string> }).loadLazy())).toBe('lazy chunk of release B');
  expect(afterProblems).toEqual([]);
});

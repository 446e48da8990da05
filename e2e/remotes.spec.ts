import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from './support/test';
import { accounts, startSignedIn } from './support/session';
import { repo, startStack } from './support/servers';

const run = promisify(execFile);

test('a remote route renders inside the shell with the same user context, React and shared package', async ({ page }) => {
  await startSignedIn(page, accounts.subscriber);
  await page.goto('/uploader');
  const frame = page.locator('[data-remote="@trailsense/uploader-remote"]');
  await expect(frame).toBeVisible();
  // The remote reads the signed-in user from the shell's user context…
  await expect(frame.getByText(accounts.subscriber.email).first()).toBeVisible();
  // …through the one copy of the shared package on the page.
  const shellInstance = await page.locator('html').getAttribute('data-shared-instance');
  await expect(frame).toHaveAttribute('data-shared-instance', shellInstance!);
  // …and on the page's one federation runtime: the shell's instance and the remote's are made by
  // the same runtime code (a remote carries none of its own).
  expect(
    await page.evaluate(() => {
      const federation = (globalThis as unknown as { __FEDERATION__: { __INSTANCES__: Array<{ name: string; constructor: unknown }> } }).__FEDERATION__;
      return { names: federation.__INSTANCES__.map((i) => i.name).sort(), runtimes: new Set(federation.__INSTANCES__.map((i) => i.constructor)).size };
    }),
  ).toEqual({ names: ['shell', 'uploader'], runtimes: 1 });
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Upload' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Profile' })).toBeVisible();
  await expect(nav.getByRole('button', { name: 'Logout' })).toBeVisible();
  await expect(page.getByRole('complementary', { name: /Get the/ })).toHaveCount(0);
  await expect(page).toHaveTitle('Upload Photos | TrailSense');
  expect(await page.locator('head meta[name="description"]').getAttribute('content')).toBe('Upload trail camera photos from an SD card to TrailSense in bulk.');

  // The other protected route, reached by the header, renders the other remote with the same user.
  await nav.getByRole('link', { name: 'Profile' }).click();
  await expect(page).toHaveURL('/profile');
  await expect(page).toHaveTitle('Profile | TrailSense');
  await expect(page.getByRole('heading', { level: 1, name: 'Your profile' })).toBeVisible();
  await expect(page.getByText(accounts.subscriber.email).first()).toBeVisible();
  await nav.getByRole('link', { name: 'Upload' }).click();

  // A reload on a protected deep link keeps the session and the page.
  await page.reload();
  await expect(page).toHaveURL('/uploader');
  await expect(frame.getByText(accounts.subscriber.email).first()).toBeVisible();

  // Logout signs out, goes to /login, and the header offers Login again.
  await nav.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL('/login');
  await expect(nav.getByRole('link', { name: 'Login' })).toBeVisible();
});

test('a remote that is down leaves the site working, and Retry recovers in the same page', async ({ page }) => {
  const stack = await startStack(3110);
  try {
    await stack.stopRemote('auth');
    await page.goto(`${stack.shellUrl}/about`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Login' }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('We couldn’t load the sign-in page');
    await expect(page.getByRole('banner')).toBeVisible();
    await expect(page.getByRole('contentinfo')).toBeVisible();

    await stack.startRemote('auth');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome to TrailSense' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
  } finally {
    await stack.close();
  }
});

test('a remote built for another federation runtime is refused before its code runs, inside its error boundary', async ({ page }) => {
  const manifest = 'http://localhost:3001/mf-manifest.json';
  // The deployed remote says it needs a runtime the shell does not provide (a runtime major
  // released to the remote before the shell).
  await page.route(manifest, async (route) => {
    const response = await route.fetch();
    const json = (await response.json()) as { metaData: { federationRuntime: { requiredVersion: string } } };
    json.metaData.federationRuntime.requiredVersion = '^3.0.0';
    await route.fulfill({ response, json });
  });
  const entries: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith('http://localhost:3001/') && request.url() !== manifest) entries.push(request.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto('/about');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Login' }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('We couldn’t load the sign-in page');
  await expect(page.getByRole('banner')).toBeVisible();
  await expect(page.getByRole('contentinfo')).toBeVisible();
  // Refused on its manifest: none of the remote's scripts was fetched, nothing threw on the page.
  expect(entries).toEqual([]);
  expect(errors).toEqual([]);

  // The remote is rebuilt for the shell's runtime: Retry reads its manifest afresh and loads it.
  await page.unroute(manifest);
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Welcome to TrailSense' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
});

function hashTree(dir: string): string {
  const hash = crypto.createHash('sha256');
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(entry.name).update(fs.readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

test('uploader-remote is released alone: a rebuilt remote shows up on reload, the shell untouched', async ({ page }) => {
  test.setTimeout(180_000);
  const shellBefore = hashTree(path.join(repo, 'shell/dist'));
  const stack = await startStack(3120);
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uploader-release-'));
  try {
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${stack.shellUrl}/uploader`);
    const frame = page.locator('[data-remote="@trailsense/uploader-remote"]');
    await expect(frame).toHaveAttribute('data-remote-version', '0.1.0');
    await expect(frame.getByText('uploader-remote 0.1.0', { exact: true })).toBeVisible();

    const marker = `release-${Date.now()}`;
    await run('npx', ['webpack', '--mode', 'production', '--env', `outputPath=${outDir}`], {
      cwd: path.join(repo, 'uploader-remote'),
      env: { ...process.env, APP_RELEASE_MARKER: marker },
    });
    await stack.startRemote('uploader', outDir);
    await page.reload();
    await expect(frame).toHaveAttribute('data-remote-version', `0.1.0+${marker}`);
    await expect(frame.getByText(`uploader-remote 0.1.0+${marker}`, { exact: true })).toBeVisible();
    expect(hashTree(path.join(repo, 'shell/dist'))).toBe(shellBefore);
  } finally {
    await stack.close();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
});

import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from './support/test';
import { startSignedIn } from './support/session';
import { repo, startStack } from './support/servers';
import { eventsNamed, lastEventId } from './support/events';
import { dropReservations, writeJpegs } from './support/uploads';
import localConfig from '../config/local.json';
import { chooseFiles } from './support/uploader-page';

const run = promisify(execFile);

test('a remote route renders inside the shell with the same user context, React and shared package', async ({ page, accounts }) => {
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

/** How long a test that builds a remote of its own (the two releases below) may take. */
const RELEASE_BUILD_BOUND_MS = 900_000;

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

test('uploader-remote is released alone: a rebuilt remote shows up on reload, the shell untouched', async ({ page, accounts }) => {
  // A production build of the remote, beside the other workers' tests: on a busy 2-core machine
  // it took over 3 minutes. A bound for a build that never ends, not a timing.
  test.setTimeout(RELEASE_BUILD_BOUND_MS);
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

/** The version of the shared package the shell in this repository provides. */
const sharedVersion = (JSON.parse(fs.readFileSync(path.join(repo, 'shared', 'package.json'), 'utf8')) as { version: string }).version;

// Serial (playwright.config.ts): it counts the sandbox's clientError events, which name no
// tenant, and the other remote tests report some too.
test(
  'a remote that needs a version of a provided module the live shell lacks is refused before its code runs, and reported',
  { tag: '@serial' },
  async ({ page, accounts }) => {
    const manifest = localConfig.remotes.uploader;
    const [major, minor] = sharedVersion.split('.').map(Number) as [number, number];
    const needed = `^${major}.${minor + 1}.0`;
    // The uploader was released alone, built against a newer shared package than the live shell's.
    await page.route(manifest, async (route) => {
      const response = await route.fetch();
      const json = (await response.json()) as { shared: Array<{ name: string; requiredVersion: string }> };
      const aws = json.shared.find((entry) => entry.name === '@trailsense/shared/aws');
      if (!aws) throw new Error('the uploader no longer shares @trailsense/shared/aws');
      aws.requiredVersion = needed;
      await route.fulfill({ response, json });
    });
    const remoteScripts: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(new URL(manifest).origin) && request.url() !== manifest) remoteScripts.push(request.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await startSignedIn(page, accounts.subscriber);
    const since = await lastEventId();

    await page.goto('/uploader');
    await expect(page.getByRole('alert')).toContainText('We couldn’t load');
    // Refused on its manifest: none of its scripts was fetched, nothing threw on the page.
    expect(remoteScripts).toEqual([]);
    expect(errors).toEqual([]);
    // The rest of the site works: the header, the footer, the other remote.
    await expect(page.getByRole('contentinfo')).toBeVisible();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Your profile' })).toBeVisible();
    // Operators see why, within minutes (docs/monitoring.md#clienterror).
    await expect.poll(async () => (await eventsNamed('clientError', since)).filter((e) => e['kind'] === 'remote-load').length, { timeout: 15_000 }).toBe(1);
    const [error] = (await eventsNamed('clientError', since)).filter((e) => e['kind'] === 'remote-load');
    expect(error).toMatchObject({ module: 'uploader/Uploader', route: '/uploader' });
    expect(String(error?.['message'])).toContain(`needs @trailsense/shared/aws ${needed}; this shell provides ${sharedVersion}`);
  },
);

test('uploader-remote released alone runs its own upload journal: a change to it reaches members with the shell untouched', async ({
  page,
  accounts,
  tenant,
}) => {
  // A production build of the remote, beside the other workers' tests: on a busy 2-core machine
  // it took over 3 minutes. A bound for a build that never ends, not a timing.
  test.setTimeout(RELEASE_BUILD_BOUND_MS);
  const shellBefore = hashTree(path.join(repo, 'shell/dist'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'uploader-journal-release-'));
  try {
    // The uploader team's release: the journal records which release wrote each entry. Built from
    // a copy of uploader-remote (the repository's own sources stay as they are), against the same
    // installed packages.
    const copy = path.join(work, 'uploader-remote');
    fs.cpSync(path.join(repo, 'uploader-remote'), copy, { recursive: true, filter: (from) => !/[\\/](dist|node_modules|test)$/.test(from) });
    fs.symlinkSync(path.join(repo, 'uploader-remote', 'node_modules'), path.join(copy, 'node_modules'));
    fs.symlinkSync(path.join(repo, 'node_modules'), path.join(work, 'node_modules'));
    const journal = path.join(copy, 'src/features/upload/services/journal/upload-journal.ts');
    const marker = `journal-${Date.now()}`;
    const before = fs.readFileSync(journal, 'utf8');
    const after = before.replace(
      'putEntries: (entries) => enqueue(entries, []),',
      `putEntries: (entries) => enqueue(entries.map((e) => ({ ...e, release: '${marker}' })), []),`,
    );
    expect(after).not.toBe(before);
    fs.writeFileSync(journal, after);
    await run('npx', ['webpack', '--mode', 'production', '--env', `outputPath=${path.join(work, 'dist')}`], {
      cwd: copy,
      env: { ...process.env, APP_RELEASE_MARKER: marker },
    });
    // Released: the uploader's origin serves the new build (as its bucket would after a deploy);
    // the shell and its origin are untouched, and the sandbox knows only the site's own origins.
    const remote = new URL(localConfig.remotes.uploader).origin;
    const dist = path.join(work, 'dist');
    const site = new URL(test.info().project.use.baseURL as string).origin;
    await page.route(`${remote}/**`, async (route) => {
      const file = path.join(dist, decodeURIComponent(new URL(route.request().url()).pathname));
      if (!file.startsWith(dist) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({ path: file, headers: { 'access-control-allow-origin': site, 'cache-control': 'no-cache' } });
    });

    await startSignedIn(page, accounts.subscriber);
    await page.goto('/uploader');
    const frame = page.locator('[data-remote="@trailsense/uploader-remote"]');
    await expect(frame).toHaveAttribute('data-remote-version', `0.1.0+${marker}`);
    await chooseFiles(page, writeJpegs(path.join(work, 'card'), 1, { prefix: `RELEASE_${Date.now()}_` }));
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(page.getByText(/^Overall Progress: 1 of 1 = 100%$/)).toBeVisible({ timeout: 60_000 });

    // The entries in this browser's journal were written by the new release's code.
    const releases = await page.evaluate(
      () =>
        new Promise<unknown[]>((resolve, reject) => {
          const open = indexedDB.open('trailsense-uploads');
          open.onerror = () => reject(new Error(String(open.error)));
          open.onsuccess = () => {
            const all = open.result.transaction('files').objectStore('files').getAll();
            all.onerror = () => reject(new Error(String(all.error)));
            all.onsuccess = () => {
              open.result.close();
              resolve((all.result as Array<{ release?: unknown }>).map((entry) => entry.release));
            };
          };
        }),
    );
    expect(releases.length).toBeGreaterThan(0);
    expect(new Set(releases)).toEqual(new Set([marker]));
    expect(hashTree(path.join(repo, 'shell/dist'))).toBe(shellBefore);
  } finally {
    await dropReservations(tenant.ranches.cedarCreek.id);
    fs.rmSync(work, { recursive: true, force: true });
  }
});

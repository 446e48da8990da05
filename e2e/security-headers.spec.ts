/**
 * The site's security headers (infra/docs/server.md#security-headers), as the local production
 * server sends them from the shared module: the shell's Content-Security-Policy generated from
 * the config it serves (config/e2e.json here) and the build's routes.json, the other headers, the
 * remotes' CORS for the shell's origin alone; and every route, the sign-in kit and a running
 * upload without a single violation (this file's `test`, like every spec's, fails on one:
 * e2e/support/test.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test as plainTest } from '@playwright/test';
import e2eConfig from '../config/e2e.json';
import { parseRuntimeConfig } from '../shared/src/config/validate';
import { securityHeaders } from '../shared/src/security/headers';
import { repo } from './support/servers';
import { startSignedIn } from './support/session';
import { expect, recordCspViolations, test, type CspViolation, type Page } from './support/test';
import { newObjects, bucketObjects, setPutFault, tempDir, writeJpegs } from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const SHELL = 'http://localhost:3000';
const REMOTES = ['http://localhost:3001', 'http://localhost:3002'];
const routes = JSON.parse(fs.readFileSync(path.join(repo, 'shell/dist/routes.json'), 'utf8')) as { inlineScriptHashes: string[] };

/** What the shared module makes of config/e2e.json and the build's inline script hashes. */
function expectedShellHeaders(): Record<string, string> {
  const parsed = parseRuntimeConfig(e2eConfig);
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return securityHeaders({ config: parsed.config, inlineScriptHashes: routes.inlineScriptHashes });
}

test.describe('headers', () => {
  test('every shell response carries the CSP computed from config/e2e.json and routes.json, and the other security headers', async ({ request }) => {
    const expected = expectedShellHeaders();
    const csp = expected['Content-Security-Policy']!;
    // What the requirement names, spelled out: nothing but the sandbox's endpoints may be called.
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `script-src 'self' http://localhost:3001 http://localhost:3002 ${routes.inlineScriptHashes.join(' ')}`,
      "style-src 'self' http://localhost:3001 http://localhost:3002",
      "img-src 'self' data:",
      "connect-src 'self' http://localhost:3001 http://localhost:3002 http://localhost:4100 http://localhost:20005 http://localhost:4103/ http://localhost:4104",
      "worker-src 'self' blob:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ]);
    for (const target of ['/', '/support', '/login', '/uploader', '/no-such-page', '/privacypolicy.html', '/config.json', '/logo.svg']) {
      const response = await request.get(SHELL + target);
      const headers = response.headers();
      for (const [name, value] of Object.entries(expected)) expect(`${target} ${name}: ${headers[name.toLowerCase()]}`).toBe(`${target} ${name}: ${value}`);
    }
    const headers = (await request.get(SHELL)).headers();
    expect(headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(headers['permissions-policy']).toContain('camera=()');
    expect(headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['access-control-allow-origin']).toBeUndefined();
  });

  test('the hashes in routes.json are exactly those of the inline scripts the pages run', async ({ request }) => {
    expect(routes.inlineScriptHashes).toHaveLength(1);
    for (const target of ['/', '/about', '/login', '/no-such-page']) {
      const html = await (await request.get(SHELL + target)).text();
      const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
        ([, text]) => `'sha256-${crypto.createHash('sha256').update(text!).digest('base64')}'`,
      );
      expect(inline, target).toEqual(routes.inlineScriptHashes);
    }
  });

  test('a remote allows the shell’s origin alone to read it, and sends the security headers', async ({ request }) => {
    for (const remote of REMOTES) {
      const fromShell = (await request.get(`${remote}/mf-manifest.json`, { headers: { Origin: SHELL } })).headers();
      expect(fromShell['access-control-allow-origin']).toBe(SHELL);
      expect(fromShell['vary']).toContain('Origin');
      expect(fromShell['x-content-type-options']).toBe('nosniff');
      expect(fromShell['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
      for (const origin of ['https://evil.example', 'http://localhost:3999', 'null']) {
        const other = (await request.get(`${remote}/mf-manifest.json`, { headers: { Origin: origin } })).headers();
        expect(`${origin} → ${other['access-control-allow-origin']}`).toBe(`${origin} → undefined`);
      }
      expect((await request.get(`${remote}/remoteEntry.js`)).headers()['access-control-allow-origin']).toBeUndefined();
    }
  });

  test('a page of another origin cannot read a remote’s files; the shell’s page can', async ({ page }) => {
    const read = (url: string) =>
      page.evaluate(
        (target) =>
          fetch(target).then(
            (r) => r.ok,
            () => 'refused',
          ),
        url,
      );
    await page.goto('http://localhost:3001/');
    expect(await read('http://localhost:3002/mf-manifest.json')).toBe('refused');
    await page.goto(`${SHELL}/about`);
    expect(await read('http://localhost:3002/mf-manifest.json')).toBe(true);
    expect(await read('http://localhost:3001/mf-manifest.json')).toBe(true);
  });
});

plainTest('the violation recorder sees what the policy refuses (so a clean run means something)', async ({ context, page }) => {
  const violations: CspViolation[] = [];
  const refusals: string[] = [];
  await recordCspViolations(context, violations, refusals);
  await page.goto(`${SHELL}/about`);
  await page.evaluate(() => {
    document.body.insertAdjacentHTML('beforeend', '<b style="color: red">inline style</b><img alt="" src="http://localhost:4103/x.png">');
    const script = document.createElement('script');
    script.textContent = 'window.ran = true';
    document.body.append(script);
  });
  await expect.poll(() => [...new Set(violations.map((v) => v.directive))].sort()).toEqual(['img-src', 'script-src-elem', 'style-src-attr']);
  expect(await page.evaluate(() => 'ran' in window)).toBe(false);
  await expect.poll(() => refusals.length).toBeGreaterThanOrEqual(3);
  expect(refusals.every((r) => r.includes('Content Security Policy'))).toBe(true);
});

plainTest('with JavaScript off, the recorder still hears of markup the policy refuses', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const violations: CspViolation[] = [];
    const refusals: string[] = [];
    await recordCspViolations(context, violations, refusals);
    const page = await context.newPage();
    // The served page, headers and all, with a style="" added to its markup.
    await page.route(`${SHELL}/about`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace('<body', '<body style="color: red"') });
    });
    await page.goto(`${SHELL}/about`);
    await expect.poll(() => refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals[0]).toContain("style-src 'self'");
    expect(violations).toEqual([]);
  } finally {
    await context.close();
  }
});

test.describe('no violation anywhere', () => {
  /** A page has drawn its main heading (and its scripts and styles ran, or it would not have). */
  async function visit(page: Page, target: string, heading: string | RegExp) {
    await page.goto(target);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
  }

  test('the marketing pages, the 404 page and the policy pages', async ({ page }) => {
    for (const [target, heading] of [
      ['/', /.+/],
      ['/about', /.+/],
      ['/videos', /.+/],
      ['/support', /.+/],
      ['/contact', /.+/],
      ['/no-such-page', /.+/],
    ] as const) {
      await visit(page, target, heading);
      // The Get App toolbar's QR code is drawn when it scrolls into view: a data: image.
      await page.getByRole('complementary', { name: /^Get the .+ app$/ }).scrollIntoViewIfNeeded();
      await expect(page.locator('img.get-app__qr')).toHaveAttribute('src', /^data:image\//);
    }
    for (const [target, heading] of [
      ['/privacypolicy.html', 'Privacy Policy'],
      ['/termsandconditions.html', 'Terms and Conditions'],
    ] as const) {
      await visit(page, target, heading);
      // Their stylesheet (policy.css, no inline <style>) applied: the page's own background.
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(247, 245, 239)');
    }
  });

  test('the sign-in kit: sign-in form, Create Account tab, forgot password', async ({ page }) => {
    await visit(page, '/login', 'Welcome to TrailSense');
    // The auth remote's logo: inlined into its code, as the policy allows no image of its origin.
    const logo = page.getByRole('main').locator('img').first();
    await expect(logo).toHaveAttribute('src', /^data:image\/svg\+xml/);
    expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await expect(page.getByRole('button', { name: 'Sign In', exact: true })).toBeVisible();
    await page.getByRole('tab', { name: 'Create Account' }).click();
    await expect(page.getByRole('textbox', { name: 'Phone Number' })).toBeVisible();
    await expect(page.getByRole('combobox', { name: /Country Code/i })).toHaveValue('+1');
    await page.getByRole('tab', { name: 'Sign In' }).click();
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await expect(page.getByRole('button', { name: 'Send code' })).toBeVisible();
  });

  test('signed in: /profile, /delete, and /uploader with a running upload', async ({ page, accounts, tenant }) => {
    test.setTimeout(90_000);
    const dir = tempDir();
    const ranch = tenant.ranches.cedarCreek.id;
    try {
      await startSignedIn(page, accounts.subscriber);
      await visit(page, '/profile', 'Your profile');
      await page.goto('/delete');
      await expect(page.getByRole('button', { name: 'Delete my account permanently' })).toBeDisabled();
      await visit(page, '/uploader', 'Upload Images');

      // A batch that keeps running (every PUT fails transiently and is retried) until stopped…
      await setPutFault(ranch, '1:503');
      await chooseFiles(page, writeJpegs(dir, 4));
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
      await page.getByRole('button', { name: 'Stop' }).click();
      await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 20_000 });
      // …then the same batch to the end: credentials, object PUTs, the API and analytics calls.
      await setPutFault(ranch, '0');
      const before = bucketObjects(ranch);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await expect(page.getByText(/^Overall Progress: /)).toHaveText('Overall Progress: 4 of 4 = 100%', { timeout: 30_000 });
      expect(newObjects(ranch, before)).toHaveLength(4);
    } finally {
      await setPutFault(ranch, '0');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { expect, test, type Page } from './support/test';
import { notFoundRoute, routes } from '../shell/src/app/route-table';
import { defaultBrand, fillBrand } from '../shared/src/brand/brand';
import { faq } from '../shell/src/content/faq';
import { startSignedIn } from './support/session';

/**
 * The marketing pages arrive as HTML (scripts/prerender.mjs) and the page hydrates them: they
 * read without JavaScript, and hydration keeps the server's nodes without a mismatch.
 */
const marketing = routes.filter((r) => r.view.kind === 'page');
const fill = (text: string) => fillBrand(text, defaultBrand);
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

test.describe('with JavaScript disabled', () => {
  test.use({ javaScriptEnabled: false });

  for (const route of marketing) {
    test(`${route.path} is readable: content, title and description come in the HTML`, async ({ page }) => {
      const response = await page.goto(route.path);
      expect(response?.status()).toBe(200);
      await expect(page).toHaveTitle(fill(route.title));
      expect(await page.locator('head meta[name="description"]').getAttribute('content')).toBe(fill(route.description));
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      expect((await page.locator('main').innerText()).length).toBeGreaterThan(100);
      // The header and footer are there too, with the links a visitor gets.
      await expect(nav(page).getByRole('link', { name: 'Login' })).toBeVisible();
      await expect(nav(page).getByRole('button', { name: 'Logout' })).toBeHidden();
      await expect(page.getByRole('navigation', { name: 'Legal' }).getByRole('link', { name: 'Privacy Policy' })).toBeVisible();
    });
  }

  test('/support has its FAQ and the FAQPage JSON-LD in the HTML', async ({ page }) => {
    await page.goto('/support');
    for (const entry of faq) await expect(page.getByText(entry.question, { exact: true })).toBeVisible();
    const jsonLd = JSON.parse((await page.locator('head script[type="application/ld+json"]').textContent()) ?? '{}');
    expect(jsonLd['@type']).toBe('FAQPage');
    expect(jsonLd.mainEntity.map((q: { name: string }) => q.name)).toEqual(faq.map((entry) => entry.question));
  });

  test('an unknown path is answered with status 404 and the readable 404 page', async ({ page }) => {
    const response = await page.goto('/no-such-trail');
    expect(response?.status()).toBe(404);
    await expect(page).toHaveTitle(fill(notFoundRoute.title));
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  });

  test('an app route is the bare page, and says in <noscript> that it needs JavaScript', async ({ page, request }) => {
    const response = await page.goto('/uploader');
    expect(response?.status()).toBe(200);
    await expect(page.locator('#root')).toBeEmpty();
    // Chromium's script switch (what this test uses) does not render <noscript>, a browser with
    // JavaScript off does: check the served page carries the message.
    const html = await (await request.get('/uploader')).text();
    expect(html).toMatch(/<noscript>Signing in and uploading need JavaScript\. Our FAQ is at <a href="\/support">/);
  });

  test('/login arrives with its frame: title, heading and the account-help line paint before any script', async ({ page, request }) => {
    const response = await page.goto('/login');
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle(fill('Sign In | {product}'));
    await expect(page.getByRole('heading', { level: 1, name: fill('Welcome to {product}') })).toBeVisible();
    await expect(page.getByText('How do I create an account?')).toBeVisible();
    await expect(page.getByRole('status')).toHaveText('Loading the sign-in form…');
    const html = await (await request.get('/login')).text();
    expect(html).toMatch(/<noscript>Signing in and uploading need JavaScript\./);
    // The remote's manifest is fetched with the HTML, not after the shell's scripts and config.
    expect(html).toMatch(/<link rel="preload" href="http:\/\/localhost:3001\/mf-manifest\.json" as="fetch" crossorigin>/);
  });
});

/** Holds auth-remote's manifest until the returned function is called. */
async function holdAuthRemote(page: Page): Promise<() => void> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/mf-manifest.json', async (route) => {
    if (new URL(route.request().url()).port === '3001') await held;
    await route.continue();
  });
  return release;
}

/** Where the page's heading and footer are. */
const headingAndFooter = (page: Page) =>
  page.evaluate(() => {
    const top = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().top ?? Number.NaN;
    return { h1: top('main h1'), footer: top('footer') };
  });

test.describe("/login: the sign-in form takes the frame's place", () => {
  for (const width of [375, 1280]) {
    test(`without moving the heading or the footer, at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 });
      // auth-remote is held back until the frame has been measured as the page draws it (the
      // running app's own frame, from the served config, not only the prerendered HTML).
      const release = await holdAuthRemote(page);
      const positions = () => headingAndFooter(page);
      await page.goto('/login');
      // React has run (the header marks the session) and shows the frame while the remote waits.
      await expect(page.locator('html')).toHaveAttribute('data-session', 'signed-out');
      await expect(page.getByRole('status')).toHaveText('Loading the sign-in form…');
      const frame = await positions();
      release();
      await expect(page.getByRole('button', { name: 'Sign In', exact: true })).toBeVisible();
      const form = await positions();
      expect(Math.abs(form.h1 - frame.h1)).toBeLessThanOrEqual(1);
      expect(Math.abs(form.footer - frame.footer)).toBeLessThanOrEqual(1);
    });
  }
});

/** The server's nodes that hydration must keep (a mismatch makes React render them afresh). */
const KEPT = ['#root header', '#root main', '#root main h1', '#root main > :last-child', '#root footer'];

/** Remembers the server's nodes as the parser creates them, and collects errors and warnings. */
async function watchHydration(page: Page, options: { holdsAuthManifest?: boolean } = {}) {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      const text = message.text();
      // Local config only: Amplify warns about the sandbox's custom endpoints.
      if (/custom Amazon/.test(text)) return;
      // A test that holds auth-remote's manifest itself (holdAuthRemote) keeps its preload unused
      // for as long as its own steps take: on a busy machine past Chromium's few seconds.
      if (options.holdsAuthManifest && /:3001\/mf-manifest\.json was preloaded using link preload but not used/.test(text)) return;
      problems.push(`${message.type()}: ${text}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.addInitScript((selectors: string[]) => {
    const w = window as unknown as { __serverNodes: (Element | null)[] };
    // DOMContentLoaded comes before React starts: the bootstrap waits for /config.json first.
    document.addEventListener('DOMContentLoaded', () => {
      w.__serverNodes = selectors.map((selector) => document.querySelector(selector));
    });
  }, KEPT);
  return problems;
}

/** Which of the server's nodes are still in the page, by selector. */
const keptNodes = (page: Page) =>
  page.evaluate((selectors: string[]) => {
    const w = window as unknown as { __serverNodes: (Element | null)[] };
    return Object.fromEntries(
      selectors.map((selector, i) => [selector, w.__serverNodes[i] !== null && w.__serverNodes[i] === document.querySelector(selector)]),
    );
  }, KEPT);

test.describe('hydration', () => {
  for (const route of marketing) {
    test(`${route.path} hydrates the prerendered HTML without a mismatch`, async ({ page }) => {
      const problems = await watchHydration(page);
      await page.goto(route.path);
      // The header marks the session on <html> once React runs; then the page is interactive.
      await expect(page.locator('html')).toHaveAttribute('data-session', 'signed-out');
      expect(await keptNodes(page)).toEqual(Object.fromEntries(KEPT.map((selector) => [selector, true])));
      expect(problems).toEqual([]);
    });
  }

  test('/login hydrates its frame when the served config draws the same one, and the form takes its place', async ({ page }) => {
    // The build prerenders with sign-up off (config/local.json); the e2e stack serves it on. Serve
    // this page the same frame's config: the page then hydrates instead of rendering afresh.
    await page.route('**/config.json', async (route) => {
      const config = (await (await route.fetch()).json()) as { auth: { signUpEnabled: boolean } };
      await route.fulfill({ json: { ...config, auth: { ...config.auth, signUpEnabled: false } } });
    });
    const release = await holdAuthRemote(page);
    const problems = await watchHydration(page, { holdsAuthManifest: true });
    const positions = () => headingAndFooter(page);
    await page.goto('/login');
    await expect(page.locator('html')).toHaveAttribute('data-session', 'signed-out');
    await expect(page.getByRole('status')).toHaveText('Loading the sign-in form…');
    // Hydrated: every node of the prerendered page is still the one the parser made.
    expect(await keptNodes(page)).toEqual(Object.fromEntries(KEPT.map((selector) => [selector, true])));
    const frame = await positions();
    release();
    await expect(page.getByRole('button', { name: 'Sign In', exact: true })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Create Account' })).toHaveCount(0);
    const form = await positions();
    expect(Math.abs(form.h1 - frame.h1)).toBeLessThanOrEqual(1);
    expect(Math.abs(form.footer - frame.footer)).toBeLessThanOrEqual(1);
    // The form took the frame's place; the page around it is still the server's.
    const kept = await keptNodes(page);
    expect([kept['#root header'], kept['#root footer']]).toEqual([true, true]);
    expect(problems).toEqual([]);
  });

  test('the hydrated page works: the Get App toggle and client-side navigation', async ({ page }) => {
    const problems = await watchHydration(page);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto('/');
    const toggle = page.getByRole('button', { name: 'Get App' });
    await expect(page.locator('html')).toHaveAttribute('data-session', 'signed-out');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await page.setViewportSize({ width: 1280, height: 800 });
    await nav(page).getByRole('link', { name: 'FAQ' }).click();
    await expect(page).toHaveURL('/support');
    await expect(page).toHaveTitle(fill(routes.find((r) => r.path === '/support')!.title));
    expect(problems).toEqual([]);
  });
});

test.describe('the header before any script runs', () => {
  // Only the inline stored-session check runs: every script file is refused.
  const blockScripts = (page: Page) => page.route(/\.js(\?|$)/, (route) => route.abort());

  test('shows a signed-in user their links at first paint', async ({ page, accounts }) => {
    await startSignedIn(page, accounts.subscriber);
    await blockScripts(page);
    await page.goto('/support');
    await expect(nav(page).getByRole('link', { name: 'Profile' })).toBeVisible();
    await expect(nav(page).getByRole('button', { name: 'Logout' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Login' })).toBeHidden();
  });

  test('shows a visitor the Login link at first paint', async ({ page }) => {
    await blockScripts(page);
    await page.goto('/support');
    await expect(nav(page).getByRole('link', { name: 'Login' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Profile' })).toBeHidden();
  });
});

test('marketing pages load no Amplify, no federation runtime and nothing from the remotes', async ({ page }) => {
  const scripts: { url: string; body: string }[] = [];
  const reads: Promise<void>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    // A body that cannot be read fails the test: it is never taken as empty.
    reads.push(response.text().then((body) => void scripts.push({ url: response.url(), body })));
  });
  for (const path of ['/', '/support']) {
    await page.goto(path, { waitUntil: 'networkidle' });
    await expect(page.locator('html')).toHaveAttribute('data-session', 'signed-out');
    // Every body is read before the next navigation can discard it.
    await Promise.all(reads);
  }
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.filter((s) => s.body.length === 0).map((s) => s.url)).toEqual([]);
  expect(scripts.filter((s) => !s.url.startsWith('http://localhost:3000/')).map((s) => s.url)).toEqual([]);
  // Amplify's user agent and the federation runtime's global name are in their code.
  expect(scripts.filter((s) => s.body.includes('aws-amplify/') || s.body.includes('__FEDERATION__')).map((s) => s.url)).toEqual([]);
});

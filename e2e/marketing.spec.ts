import { expect, test, type Page } from './support/test';
import { axeScan } from './support/axe';
import { notFoundRoute, routes } from '../shell/src/app/route-table';
import { defaultBrand, fillBrand } from '../shared/src/brand/brand';
import { faq } from '../shell/src/content/faq';

const marketing = routes.filter((r) => r.view.kind === 'page');
const fill = (text: string) => fillBrand(text, defaultBrand);
const description = (page: Page) => page.locator('head meta[name="description"]').getAttribute('content');

test.describe('route metadata', () => {
  for (const route of routes.filter((r) => !r.requiresAuth)) {
    test(`${route.path} sets its title and meta description`, async ({ page }) => {
      await page.goto(route.path);
      await expect(page).toHaveTitle(fill(route.title));
      expect(await description(page)).toBe(fill(route.description));
    });
  }

  test('an unknown path shows the 404 page with a way home', async ({ page }) => {
    await page.goto('/no-such-trail');
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    await expect(page).toHaveTitle(fill(notFoundRoute.title));
    await page.getByRole('link', { name: 'Go to the home page' }).click();
    await expect(page).toHaveURL('/');
    await expect(page).toHaveTitle(fill(routes[0]!.title));
  });

  test('titles follow client-side navigation, and /support carries the FAQPage JSON-LD only while shown', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQ' }).click();
    await expect(page).toHaveTitle(fill(routes.find((r) => r.path === '/support')!.title));
    await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(1);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contact' }).click();
    await expect(page).toHaveTitle(fill(routes.find((r) => r.path === '/contact')!.title));
    await expect(page.locator('script[type="application/ld+json"]')).toHaveCount(0);
  });
});

test('the /support JSON-LD parses as a FAQPage matching the visible FAQ', async ({ page }) => {
  await page.goto('/support');
  const raw = await page.locator('script[type="application/ld+json"]').textContent();
  const data = JSON.parse(raw ?? '') as {
    '@context': string;
    '@type': string;
    mainEntity: { '@type': string; name: string; acceptedAnswer: { '@type': string; text: string } }[];
  };
  expect(data['@context']).toBe('https://schema.org');
  expect(data['@type']).toBe('FAQPage');
  const visibleQuestions = await page.locator('#faq h3').allTextContents();
  expect(data.mainEntity.map((q) => q.name)).toEqual(visibleQuestions);
  expect(data.mainEntity.map((q) => q.acceptedAnswer.text)).toEqual(faq.map((e) => e.answer));
  for (const answer of faq) await expect(page.locator('#faq')).toContainText(answer.answer);
});

test.describe('header and footer', () => {
  test('header links reach every page, and the logo goes home', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('navigation', { name: 'Main' });
    const expected: [string, string, string][] = [
      ['About Us', '/about', '/about'],
      ['Videos', '/videos', '/videos'],
      ['FAQ', '/support', '/support'],
      ['Contact', '/contact', '/contact'],
      ['Login', '/login', '/login'],
    ];
    for (const [label, path] of expected) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await expect(page).toHaveURL(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    }
    await page.getByRole('link', { name: 'TrailSense home' }).click();
    await expect(page).toHaveURL('/');
  });

  test('footer links open the policies, and the copyright says 2025', async ({ page }) => {
    await page.goto('/about');
    const footer = page.getByRole('contentinfo');
    await expect(footer).toContainText('© 2025 TrailSense');
    await footer.getByRole('link', { name: 'Privacy Policy' }).click();
    await expect(page).toHaveURL('/privacypolicy.html');
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Privacy');
    await page.goto('/about');
    await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
    await expect(page).toHaveURL('/termsandconditions.html');
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Terms');
  });
});

test.describe('Get App toolbar', () => {
  const toolbar = (page: Page) => page.getByRole('complementary', { name: 'Get the TrailSense app' });

  for (const path of ['/', '/about', '/videos', '/support', '/contact', '/delete', '/no-such-page']) {
    test(`shows on ${path}`, async ({ page }) => {
      await page.goto(path);
      await expect(toolbar(page).getByRole('link', { name: 'Download on the App Store' })).toBeVisible();
    });
  }

  test('is hidden on /login', async ({ page }) => {
    await page.goto('/login');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(toolbar(page)).toHaveCount(0);
  });

  test('is always open at 1280 px, with no toggle', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/');
    await expect(toolbar(page).getByRole('button', { name: 'Get App' })).toBeHidden();
    await expect(toolbar(page).getByRole('link', { name: 'Download on the App Store' })).toBeVisible();
    await expect(toolbar(page).getByRole('img', { name: /QR code/ })).toBeVisible();
    await expect(toolbar(page).getByRole('link', { name: 'Get it on Google Play' })).toBeVisible();
    const qr = await toolbar(page)
      .getByRole('img', { name: /QR code/ })
      .boundingBox();
    expect([qr?.width, qr?.height]).toEqual([100, 100]);
    const badge = await toolbar(page).getByRole('img', { name: 'Get it on Google Play' }).boundingBox();
    expect([badge?.width, badge?.height]).toEqual([150, 50]);
  });

  test('collapses behind a Get App toggle at 375 px', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto('/');
    const toggle = toolbar(page).getByRole('button', { name: 'Get App' });
    await expect(toggle).toBeVisible();
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(toolbar(page).getByRole('link', { name: 'Download on the App Store' })).toBeHidden();
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await expect(toolbar(page).getByRole('link', { name: 'Download on the App Store' })).toBeVisible();
    await expect(toolbar(page).getByText('OR')).toHaveCount(2);
    await toggle.click();
    await expect(toolbar(page).getByRole('link', { name: 'Get it on Google Play' })).toBeHidden();
  });
});

test.describe('marketing pages', () => {
  for (const route of marketing) {
    test(`${route.path} loads no remote, logs no console error and has no serious accessibility violation`, async ({ page }) => {
      const errors: string[] = [];
      const remoteRequests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('request', (request) => {
        if (/:300[12]\//.test(request.url()) || /ui-react/.test(request.url())) remoteRequests.push(request.url());
      });
      await page.goto(route.path, { waitUntil: 'networkidle' });
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      expect(errors).toEqual([]);
      expect(remoteRequests).toEqual([]);
      const axe = await axeScan(page).analyze();
      const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    });
  }

  test('a deep link opened directly works on the production server', async ({ page }) => {
    const response = await page.goto('/support');
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Support' })).toBeVisible();
  });
});

test('the guard sends a visitor from /uploader and /profile to /login, remembering the page', async ({ page }) => {
  await page.goto('/uploader');
  await expect(page).toHaveURL('/login?returnTo=%2Fuploader');
  await page.goto('/profile');
  await expect(page).toHaveURL('/login?returnTo=%2Fprofile');
  await expect(page).toHaveTitle(fill(routes.find((r) => r.path === '/login')!.title));
});

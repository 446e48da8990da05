/**
 * The remotes' styles stay inside them: CSS Modules, extracted into .css files the shell's page
 * loads with each remote. Visiting a remote leaves the shell's own pages looking exactly as on a
 * fresh load, and no remote adds a <style> element (a Content-Security-Policy will forbid them).
 */
import { expect, test, type Locator, type Page } from './support/test';
import { startSignedIn } from './support/session';

const PROPERTIES = [
  'color',
  'background-color',
  'font-family',
  'font-size',
  'font-weight',
  'line-height',
  'padding-top',
  'padding-left',
  'margin-top',
  'margin-bottom',
  'border-top-width',
  'border-left-width',
  'border-left-color',
  'border-top-left-radius',
  'min-height',
  'max-width',
  'display',
  'text-decoration-line',
  'box-shadow',
  'opacity',
];

/** The computed look of each element, by name. */
async function looks(elements: Record<string, Locator>): Promise<Record<string, Record<string, string>>> {
  const result: Record<string, Record<string, string>> = {};
  for (const [name, locator] of Object.entries(elements)) {
    result[name] = await locator.evaluate((element, properties) => {
      const style = getComputedStyle(element);
      return Object.fromEntries(properties.map((p) => [p, style.getPropertyValue(p)]));
    }, PROPERTIES);
  }
  return result;
}

/** Shell elements of the home page whose look a remote's global class could change. */
const homeElements = (page: Page) => ({
  body: page.locator('body'),
  heading: page.getByRole('heading', { level: 1 }),
  text: page.getByText(/identifies bucks, does and hogs/),
  button: page.getByRole('main').getByRole('link', { name: 'Download on the App Store' }),
  secondaryButton: page.getByRole('main').getByRole('link', { name: 'See how it works' }),
});

/** The videos page: the shell's notice, and its buttons. */
const videosElements = (page: Page) => ({
  notice: page.getByText('Coming soon: setup and strategy videos').locator('xpath=..'),
  noticeTitle: page.getByText('Coming soon: setup and strategy videos'),
  button: page.getByRole('link', { name: 'Read the FAQ and setup tips' }),
  secondaryButton: page.getByRole('link', { name: 'Contact us' }),
});

/** The text of every <style> element in the document. */
const styleElements = (page: Page) => page.evaluate(() => [...document.querySelectorAll('style')].map((s) => s.textContent ?? ''));

/** Stylesheets the page loaded from another origin than its own: the remotes' extracted CSS. */
const remoteStylesheets = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].map((l) => l.href).filter((href) => new URL(href).origin !== location.origin),
  );

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

test("after /login, the shell's pages look as on a fresh load: the auth remote's styles stay in the remote", async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  const freshHome = await looks(homeElements(page));
  const styles = await styleElements(page);
  await page.goto('/videos');
  await expect(page.getByRole('heading', { level: 1, name: 'Videos' })).toBeVisible();
  const freshVideos = await looks(videosElements(page));

  await page.goto('/login');
  const help = page.getByRole('button', { name: 'How do I create an account?' });
  await expect(help).toBeVisible();
  // The remote's own styles reached the page as an extracted stylesheet, and apply.
  expect(await remoteStylesheets(page)).not.toEqual([]);
  await expect(help).toHaveCSS('text-decoration-line', 'underline');
  await expect(help).toHaveCSS('font-weight', '600');
  // The logo ships inside the remote's code (a data: URL: the shell's Content-Security-Policy
  // allows no image of the remote's origin), so its own standalone page has it too.
  const logo = page.getByRole('main').locator('img').first();
  await expect(logo).toHaveAttribute('src', /^data:image\/svg\+xml;base64,/);
  await expect(logo).toHaveJSProperty('complete', true);
  expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(logo).toHaveCSS('width', '64px');
  // The help is the browser's own modal dialog.
  await help.click();
  const dialog = page.getByRole('dialog', { name: 'How do I create an account?' });
  expect(await dialog.evaluate((d) => d.matches(':modal'))).toBe(true);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  expect(await styleElements(page)).toEqual(styles);

  // Through the header, in the same document: the remote's stylesheets are still on the page.
  await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
  await page.getByRole('link', { name: 'TrailSense home' }).click();
  await expect(page).toHaveURL('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  expect(await remoteStylesheets(page)).not.toEqual([]);
  expect(await looks(homeElements(page))).toEqual(freshHome);

  await nav(page).getByRole('link', { name: 'Videos' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Videos' })).toBeVisible();
  expect(await looks(videosElements(page))).toEqual(freshVideos);
  expect(await styleElements(page)).toEqual(styles);
});

test('the signed-in remotes bring no <style> element, and their extracted styles apply in the shell', async ({ page, accounts }) => {
  await startSignedIn(page, accounts.subscriber);
  await page.goto('/videos');
  await expect(page.getByRole('heading', { level: 1, name: 'Videos' })).toBeVisible();
  const freshVideos = await looks(videosElements(page));
  const styles = await styleElements(page);

  await nav(page).getByRole('link', { name: 'Upload' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Upload Images' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add Images' })).toHaveCSS('background-color', 'rgb(47, 93, 52)');
  await expect(page.getByTestId('drop-zone')).toHaveCSS('border-top-style', 'dashed');
  expect(await styleElements(page)).toEqual(styles);

  await nav(page).getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Your profile' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save changes' })).toHaveCSS('background-color', 'rgb(47, 93, 52)');
  // Its own visually-hidden class: the label is there for screen readers, not on screen.
  await expect(page.getByText('Country code')).toHaveCSS('position', 'absolute');
  expect(await styleElements(page)).toEqual(styles);

  await nav(page).getByRole('link', { name: 'Videos' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Videos' })).toBeVisible();
  expect(await looks(videosElements(page))).toEqual(freshVideos);
  expect(await styleElements(page)).toEqual(styles);
});

/**
 * Real-user metrics in real Chromium against the production builds and the sandbox
 * (docs/monitoring.md): a page view records its Core Web Vitals, a finished batch its outcome, in
 * the sandbox's analytics sink, with nothing personal in them. Vitals and client errors travel
 * through the uploads API's collection route (`POST <api.uploadsBaseUrl>/events`), for signed-out
 * visitors too, and the last of them as a beacon when the tab closes. The configs sample every
 * page view (analytics.vitalsSampleRate 1); the test fixture also asserts no CSP violation on the way.
 *
 * The events name no member and no ranch (that is the point), so a tenant cannot keep other
 * workers' events out of them: the tests that count them, or that another page's event on the
 * same route would spoil, run alone in the serial project (`@serial`, playwright.config.ts).
 */
import path from 'node:path';
import localConfig from '../config/local.json';
import { expect, test } from './support/test';
import { startSignedIn } from './support/session';
import { dropReservations, tempDir, writeJpegs } from './support/uploads';
import { eventsNamed, lastEventId } from './support/events';
import type { Tenant } from './support/tenant';
import { chooseFiles } from './support/uploader-page';

/** Where pages send their vitals and errors (docs/monitoring.md#delivery). */
const collectionRoute = `${localConfig.api.uploadsBaseUrl}/events`;

/** Monitoring starts when the page is idle after its load; then web-vitals has reported TTFB. */
async function untilMonitoring(since: number) {
  await expect.poll(async () => (await eventsNamed('webVital', since)).map((e) => e['metric']), { timeout: 15_000 }).toContain('TTFB');
}

/** What no monitoring event may carry: the member's email, their ranch, their files' names and keys. */
const personal = (tenant: Tenant) =>
  new RegExp([tenant.accounts.subscriber.email, tenant.ranches.cedarCreek.id, 'MONITOR_', '\\.jpe?g', 'public/'].join('|'), 'i');

test('a page view records its vitals on its route: TTFB at once, LCP and CLS when the page is left', { tag: '@serial' }, async ({ page }) => {
  const since = await lastEventId();
  await page.goto('/about');
  await untilMonitoring(since);
  // An interaction ends LCP's search; leaving the page (hidden) reports LCP and CLS.
  await page.getByRole('heading', { level: 1 }).click();
  await page.goto('/support');
  await expect
    .poll(async () => (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/about').map((e) => e['metric']), { timeout: 15_000 })
    .toEqual(expect.arrayContaining(['TTFB', 'LCP', 'CLS']));
  const vitals = (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/about');
  for (const vital of vitals) {
    expect(vital).toMatchObject({ rating: expect.stringMatching(/^(good|needs-improvement|poor)$/), navigationType: 'navigate' });
    expect(typeof vital['value']).toBe('number');
  }
});

test('a route reached by a click records its own vitals under that route, as a soft navigation (Chromium 151+)', { tag: '@serial' }, async ({ page }) => {
  const since = await lastEventId();
  await page.goto('/');
  await untilMonitoring(since);
  // A click that changes the address and paints: the browser's soft navigation, which web-vitals
  // measures on its own (docs/monitoring.md#webvital).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About Us', exact: true }).click();
  await expect(page).toHaveURL(/\/about$/);
  await page.getByRole('heading', { level: 1 }).click();
  // Leaving the page (hidden) reports what is left of each route.
  await page.goto('/support');
  await expect
    .poll(
      async () =>
        (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/about' && e['navigationType'] === 'soft-navigation').map((e) => e['metric']),
      { timeout: 15_000 },
    )
    .toEqual(expect.arrayContaining(['LCP', 'CLS']));
  const clicked = (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/about');
  // No TTFB for a soft navigation: it made no request of its own.
  expect(clicked.map((e) => e['metric'])).not.toContain('TTFB');
  // The landing page's own vitals stay its own.
  const landing = (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/');
  expect(landing.map((e) => e['navigationType'])).not.toContain('soft-navigation');
  expect(landing.map((e) => e['metric'])).toEqual(expect.arrayContaining(['TTFB', 'LCP']));
});

test('a signed-out visit to / sends its vitals through the collection route, without a token, as text/plain', async ({ page }) => {
  const since = await lastEventId();
  const beacon = page.waitForRequest((request) => request.url() === collectionRoute && request.method() === 'POST');
  await page.goto('/');
  // Signed out: no Cognito tokens in this browser, hence no identity-pool credentials.
  expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('CognitoIdentityServiceProvider')))).toEqual([]);
  const request = await beacon;
  expect(request.headers()['authorization']).toBeUndefined();
  expect(request.headers()['content-type']).toMatch(/^text\/plain/);
  expect((await request.response())?.status()).toBe(202);
  await untilMonitoring(since);
  const vitals = (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/');
  expect(vitals.map((e) => e['metric'])).toContain('TTFB');
  for (const vital of vitals) expect(Object.keys(vital).sort()).toEqual(['id', 'metric', 'name', 'navigationType', 'rating', 'receivedAt', 'route', 'value']);
});

test('closing the tab still delivers the vitals reported as it closes: LCP and CLS of /', async ({ context }) => {
  const since = await lastEventId();
  const tab = await context.newPage();
  await tab.goto('/');
  await untilMonitoring(since);
  // An interaction ends LCP's search; CLS is reported only when the page is hidden, here as it closes.
  await tab.getByRole('heading', { level: 1 }).click();
  await tab.close({ runBeforeUnload: true });
  await expect
    .poll(async () => (await eventsNamed('webVital', since)).filter((e) => e['route'] === '/').map((e) => e['metric']), { timeout: 15_000 })
    .toEqual(expect.arrayContaining(['TTFB', 'LCP', 'CLS']));
});

test(
  'a remote that does not load is reported once as a client error, naming the module and the route',
  { tag: '@serial' },
  async ({ page, accounts, tenant }) => {
    await startSignedIn(page, accounts.subscriber);
    const since = await lastEventId();
    // A broken release of uploader-remote: its manifest answers 503.
    await page.route(localConfig.remotes.uploader, (route) => route.fulfill({ status: 503, body: 'down' }));
    await page.goto('/uploader');
    await expect(page.getByRole('alert')).toContainText('We couldn’t load');
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByRole('alert')).toContainText('We couldn’t load');
    await expect.poll(async () => (await eventsNamed('clientError', since)).length, { timeout: 15_000 }).toBeGreaterThan(0);
    const errors = await eventsNamed('clientError', since);
    // The first try and the Retry fail alike: one report.
    expect(errors.filter((e) => e['kind'] === 'remote-load')).toEqual([
      expect.objectContaining({ kind: 'remote-load', module: 'uploader/Uploader', route: '/uploader', suppressed: 0 }),
    ]);
    for (const error of errors) expect(JSON.stringify(error)).not.toMatch(personal(tenant));
  },
);

test.describe('a batch', () => {
  let dir: string;
  test.beforeEach(() => {
    dir = tempDir('monitoring-');
  });
  test.afterEach(async ({ tenant }) => {
    await dropReservations(tenant.ranches.cedarCreek.id);
  });

  test('a finished batch records one outcome: photos, bytes, duration, goodput, no personal data', { tag: '@serial' }, async ({ page, accounts, tenant }) => {
    test.setTimeout(90_000);
    await startSignedIn(page, accounts.subscriber);
    await page.goto('/uploader');
    await expect(page.getByText(/You have ([\d,]+) remaining/)).toBeVisible();
    const since = await lastEventId();
    const card = writeJpegs(path.join(dir, 'card'), 3, { prefix: `MONITOR_${Date.now()}_`, padding: 50_000 });
    await chooseFiles(page, card);
    await expect(page.getByText(/^Overall Progress: 0 of 3 = 0%$/)).toBeVisible();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(page.getByText(/^Overall Progress: 3 of 3 = 100%$/)).toBeVisible({ timeout: 60_000 });

    await expect.poll(async () => (await eventsNamed('batchOutcome', since)).length, { timeout: 15_000 }).toBe(1);
    const [outcome] = await eventsNamed('batchOutcome', since);
    expect(outcome).toMatchObject({
      photos: 3,
      retries: 0,
      failures: { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
      hiddenMs: 0,
      skippedDuplicates: 0,
      stopped: false,
    });
    expect(outcome!['bytes']).toBeGreaterThan(3 * 50_000);
    expect(outcome!['durationMs']).toBeGreaterThan(0);
    expect(outcome!['goodputBytesPerSecond']).toBeGreaterThan(0);
    expect(JSON.stringify(outcome)).not.toMatch(personal(tenant));
    // The uploader page's own vitals carry its route and nothing else of the member.
    for (const vital of await eventsNamed('webVital', since)) expect(JSON.stringify(vital)).not.toMatch(personal(tenant));
  });
});

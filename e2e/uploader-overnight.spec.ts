/**
 * A batch left running (docs/uploader.md#a-batch-left-running), in real Chromium against the
 * production builds and the sandbox: the tab's title says how far it got and how it ended, the
 * member who allowed notifications (permission granted in the context) is told when it ends,
 * with the counts, and the keep-awake choice and its note are on the screen; a page frozen and
 * resumed with the network gone meanwhile (a laptop's sleep) finishes its batch by itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import { memberChromium } from './support/chromium';
import { startSignedIn } from './support/session';
import type { Tenant } from './support/tenant';
import { bucketObjects, dropReservations, heldPuts, newObjects, setPutStall, tempDir, writeJpegs } from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const progress = (page: Page) => page.getByText(/^Overall Progress: /);

/** Records every notification the page makes (the real constructor still runs). */
async function recordNotifications(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Real = window.Notification;
    const shown: { title: string; body: string }[] = [];
    (window as unknown as { __notifications: typeof shown }).__notifications = shown;
    class Recording extends Real {
      constructor(title: string, options?: NotificationOptions) {
        shown.push({ title, body: options?.body ?? '' });
        super(title, options);
      }
    }
    Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
    Object.defineProperty(Recording, 'requestPermission', { value: Real.requestPermission.bind(Real) });
    window.Notification = Recording;
  });
}

let dir: string;
test.beforeEach(() => {
  dir = tempDir('uploader-overnight-');
});
test.afterEach(async ({ tenant }) => {
  await setPutStall(tenant.ranches.cedarCreek.id, 0);
  await dropReservations(tenant.ranches.cedarCreek.id);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the tab title follows the batch ("N % uploaded — TrailSense", then how it ended), and a notification says it ended, with the counts', async ({
  browser,
  accounts,
  tenant,
}) => {
  test.setTimeout(90_000);
  const cedar = tenant.ranches.cedarCreek.id;
  const context = await browser.newContext({ permissions: ['notifications'] });
  try {
    const page = await context.newPage();
    await recordNotifications(page);
    await startSignedIn(page, accounts.subscriber);
    // A stalled upload is retried after 5 s (?stall=5), so the batch stops part way for a while.
    await page.goto('/uploader?stall=5');
    await expect(page.getByText(/You have uploaded/)).toBeVisible();
    const pageTitle = await page.title();
    await expect(page.getByLabel('Keep this computer awake while uploading')).toBeChecked();

    await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 4, { prefix: 'NIGHT_' }));
    await expect(progress(page)).toHaveText('Overall Progress: 0 of 4 = 0%');
    await setPutStall(cedar, 1);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(page).toHaveTitle('75 % uploaded — TrailSense', { timeout: 20_000 });
    await expect(page).toHaveTitle('Upload finished — TrailSense', { timeout: 30_000 });
    await expect(progress(page)).toHaveText('Overall Progress: 4 of 4 = 100%');
    expect(await page.evaluate(() => (window as unknown as { __notifications: unknown[] }).__notifications)).toEqual([
      { title: 'TrailSense: upload finished', body: '4 sent, 0 skipped, 0 failed.' },
    ]);

    // A new selection: the page's own title again.
    await chooseFiles(page, writeJpegs(path.join(dir, 'next'), 1, { prefix: 'NEXT_' }));
    await expect(page).toHaveTitle(pageTitle);
  } finally {
    await context.close();
  }
});

/**
 * Six photos, two of whose uploads hang as a suspend leaves them (their connections never answer;
 * the stall watchdog would give up only after a minute); then the lid closes: the page, hidden, is
 * frozen (Chromium's page lifecycle: every timer and worker of the page stops) for 3 s, the
 * network gone meanwhile when `offline`, and resumed. The batch must end by itself within
 * seconds: each photo stored once, none failed. Playwright's own Chromium never hides or freezes a
 * page, so this runs in a Chromium started as a member's is (support/chromium.ts memberChromium),
 * against the same servers.
 */
async function sleepMidBatch(tenant: Tenant, offline: boolean): Promise<void> {
  const cedar = tenant.ranches.cedarCreek.id;
  const { context, close } = await memberChromium(path.join(dir, 'profile'));
  try {
    const page = await context.newPage();
    await startSignedIn(page, tenant.accounts.subscriber);
    await page.goto(`${test.info().project.use.baseURL}/uploader`);
    await expect(page.getByText(/You have uploaded/)).toBeVisible();
    await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 6, { prefix: 'SLEEP_' }));
    await expect(progress(page)).toHaveText('Overall Progress: 0 of 6 = 0%');
    await expect(page.getByText(/^Checking [\d,]+ files?…$/)).toBeHidden({ timeout: 30_000 });
    const before = bucketObjects(cedar);
    const heldBefore = await heldPuts(cedar);

    await setPutStall(cedar, 2);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect.poll(() => heldPuts(cedar), { timeout: 20_000 }).toBe(heldBefore + 2);

    // Another tab in front hides the uploader's; then it is frozen, and resumed.
    const cover = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    if (offline) await context.setOffline(true);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    if (offline) await context.setOffline(false);
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await cover.close();

    // Well before the stall watchdog's minute: the wake itself starts the hung uploads again.
    await expect(progress(page)).toHaveText('Overall Progress: 6 of 6 = 100%', { timeout: 20_000 });
    const stored = newObjects(cedar, before);
    expect(stored).toHaveLength(6);
    expect(new Set(stored.map((o) => o.key)).size).toBe(6);
    await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
    await expect(page).toHaveTitle('Upload finished — TrailSense');
  } finally {
    await close();
  }
}

test('a page frozen mid-batch with two uploads hung: on resume they start again at once, each photo stored once', async ({ tenant }) => {
  test.setTimeout(90_000);
  await sleepMidBatch(tenant, false);
});

test('a page frozen mid-batch with the network gone meanwhile goes on by itself when resumed: each photo stored once, none failed', async ({ tenant }) => {
  test.setTimeout(90_000);
  await sleepMidBatch(tenant, true);
});

/**
 * What the server vouches for (infra/docs/server.md#the-uploads-api), in real Chromium against
 * the production builds and the sandbox, which runs the uploads API and the object-created
 * function from infra/: two members of one ranch at its limit, the same card from a second
 * browser, a reservation left unused, the month boundary, and a crafted PUT without a slot.
 * Each test sets the free ranch's count first (the sandbox's ranch-usage switch).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import { startSignedIn } from './support/session';
import {
  bucketObjects,
  craftedPut,
  jpegBytes,
  newObjects,
  setLedgerClock,
  setPutStall,
  setRanchUsage,
  tempDir,
  uploadMetrics,
  writeJpegs,
} from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const progress = (page: Page) => page.getByText(/^Overall Progress: /);
const notice = (page: Page) => page.getByTestId('uploader-notice');
const uploadButton = (page: Page) => page.getByRole('button', { name: 'Upload', exact: true });
const month = (date: Date) => `${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, '0')}`;

async function openUploader(page: Page, account: { email: string; password: string }) {
  await startSignedIn(page, account);
  await page.goto('/uploader');
  await expect(page.getByText(QUOTA)).toBeVisible();
}

let dir: string;
test.beforeEach(async ({ tenant }) => {
  dir = tempDir('uploader-server-');
  await setLedgerClock(tenant.ranches.mesquiteFlats.id, '');
  await setRanchUsage(tenant.ranches.mesquiteFlats.id, 985);
});
test.afterEach(async ({ tenant }) => {
  for (const ranch of tenant.ranchIds) await setPutStall(ranch, 0);
  await setLedgerClock(tenant.ranches.mesquiteFlats.id, '');
  // The next test that uses the free ranch finds it as seeded.
  await setRanchUsage(tenant.ranches.mesquiteFlats.id, 985);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('two members of one ranch with 15 left pick 15 each and press Upload together: 15 stored and counted, none deleted, the rest "not sent"', async ({
  page,
  browser,
  accounts,
  tenant,
}) => {
  test.setTimeout(120_000);
  const mesquite = tenant.ranches.mesquiteFlats.id;
  const partnerContext = await browser.newContext();
  const partner = await partnerContext.newPage();
  try {
    await openUploader(page, accounts.free);
    await openUploader(partner, accounts.partner);
    for (const p of [page, partner]) await expect(p.getByText(/You have 15 remaining\./)).toBeVisible();
    const before = bucketObjects(mesquite);
    await chooseFiles(page, writeJpegs(path.join(dir, 'free'), 15, { prefix: 'FREE_', padding: 20_000 }));
    await chooseFiles(partner, writeJpegs(path.join(dir, 'partner'), 15, { prefix: 'PARTNER_', padding: 20_000 }));
    for (const p of [page, partner]) await expect(progress(p)).toHaveText('Overall Progress: 0 of 15 = 0%');

    await Promise.all([uploadButton(page).click(), uploadButton(partner).click()]);
    // Both batches end: each list holds only what was not sent.
    const sentBy = async (p: Page) => Number(/Overall Progress: (\d+) of 15/.exec((await progress(p).textContent()) ?? '')![1]);
    await expect.poll(async () => (await sentBy(page)) + (await sentBy(partner)), { timeout: 60_000 }).toBe(15);
    for (const p of [page, partner]) await expect(uploadButton(p)).toBeDisabled({ timeout: 30_000 });

    const stored = newObjects(mesquite, before).filter((o) => o.key.startsWith(`public/${mesquite}/`));
    expect(stored).toHaveLength(15);
    expect((await uploadMetrics(page, mesquite, month(new Date()))).total).toBe('1000');
    // Nothing is removed after the fact: a little later the same 15 are still there, each tagged as counted.
    await page.waitForTimeout(1500);
    const still = newObjects(mesquite, before).filter((o) => o.key.startsWith(`public/${mesquite}/`));
    expect(still.map((o) => o.key).sort()).toEqual(stored.map((o) => o.key).sort());
    expect(still.every((o) => (o.tagging ?? '').includes(mesquite))).toBe(true);

    // Whoever got fewer slots is told, in words, how many were not sent and why.
    const notSent = { free: 15 - (await sentBy(page)), partner: 15 - (await sentBy(partner)) };
    expect(notSent.free + notSent.partner).toBe(15);
    for (const [p, n] of [
      [page, notSent.free],
      [partner, notSent.partner],
    ] as const) {
      if (n === 0) continue;
      await expect(notice(p)).toContainText(
        `Your ranch reached its monthly limit while this batch ran: ${n} ${n === 1 ? 'photo was' : 'photos were'} not sent.`,
      );
      // The list keeps them (it draws only the rows in view), each marked why.
      await expect(p.getByRole('region', { name: new RegExp(`File list, ${n} files?`) })).toBeVisible();
      await expect(p.getByText('Not sent: monthly limit reached').first()).toBeVisible();
    }
  } finally {
    await partnerContext.close();
  }
});

test('the same card from a second browser (nothing in its storage): 0 new objects, every photo "already uploaded"', async ({
  page,
  browser,
  accounts,
  tenant,
}) => {
  test.setTimeout(90_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const card = writeJpegs(path.join(dir, 'card'), 6, { prefix: 'CAMP_' });
  await chooseFiles(page, card);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 6 of 6 = 100%', { timeout: 30_000 });
  const before = bucketObjects(cedar);

  const laptop = await browser.newContext();
  try {
    const second = await laptop.newPage();
    await openUploader(second, accounts.subscriber);
    await chooseFiles(second, card);
    await expect(notice(second)).toHaveText('6 files skipped: 6 already uploaded.', { timeout: 30_000 });
    await expect(uploadButton(second)).toBeDisabled();
    expect(newObjects(cedar, before)).toHaveLength(0);
  } finally {
    await laptop.close();
  }
});

test('a reservation left unused (the tab closed mid-batch) returns to the allowance after its lifetime', async ({ page, browser, accounts, tenant }) => {
  test.setTimeout(90_000);
  const mesquite = tenant.ranches.mesquiteFlats.id;
  await openUploader(page, accounts.partner);
  const yearmo = month(new Date());
  const leaving = await browser.newContext();
  try {
    const tab = await leaving.newPage();
    await openUploader(tab, accounts.free);
    // Its uploads hang (the sandbox holds them), so the slots stay reserved when the tab closes.
    // Every PUT is held, not just 15: Chromium may send a PUT again by itself (a request on a
    // reused connection that failed), and a 16th attempt let through would store a photo.
    await setPutStall(mesquite, 1000);
    await chooseFiles(tab, writeJpegs(path.join(dir, 'card'), 15, { prefix: 'GONE_' }));
    await uploadButton(tab).click();
    await expect.poll(async () => (await uploadMetrics(page, mesquite, yearmo)).reserved, { timeout: 30_000 }).toBe(15);
  } finally {
    await leaving.close();
  }
  await setPutStall(mesquite, 0);
  // Another member sees them held: nothing left to send.
  await page.reload();
  await expect(page.getByText(/You have 0 remaining\. 15 of your ranch’s remaining images are held for an upload in progress\./)).toBeVisible();

  // 16 minutes later (the lifetime is 15), by the ledger's clock: the slots are back.
  await setLedgerClock(mesquite, new Date(Date.now() + 16 * 60_000).toISOString());
  await page.reload();
  await expect(page.getByText('You have uploaded 985 images of your monthly limit of 1,000 images. You have 15 remaining.')).toBeVisible();
  expect((await uploadMetrics(page, mesquite, yearmo)).reserved).toBe(0);
});

for (const [when, at] of [
  ['23:30 on Oct 31 in America/Chicago', '2026-11-01T04:30:00Z'],
  ['00:30 on Nov 1 UTC', '2026-11-01T00:30:00Z'],
] as const) {
  test(`the month boundary, ${when}: the page shows November, the month the server counts in`, async ({ browser, accounts, tenant }) => {
    const mesquite = tenant.ranches.mesquiteFlats.id;
    const context = await browser.newContext({ timezoneId: 'America/Chicago' });
    try {
      const page = await context.newPage();
      await page.clock.install();
      await startSignedIn(page, accounts.free);
      // October has nothing counted; November has the ranch's 985 (set at the ledger's November).
      await setLedgerClock(mesquite, at);
      await setRanchUsage(mesquite, 985);
      await page.clock.setSystemTime(new Date(at));
      await page.goto('/uploader');
      // The page's own calendar still says October (month 9) in Chicago.
      expect(await page.evaluate(() => new Date().getMonth())).toBe(9);
      await expect(page.getByText('You have uploaded 985 images of your monthly limit of 1,000 images. You have 15 remaining.')).toBeVisible();
      expect((await uploadMetrics(page, mesquite, '2026_11')).month).toBe('2026_11');
      expect((await uploadMetrics(page, mesquite, '2026_10')).total).toBe('');
    } finally {
      await context.close();
    }
  });
}

test('a crafted PUT without a reservation is refused: removed, and not counted', async ({ page, accounts, tenant }) => {
  const mesquite = tenant.ranches.mesquiteFlats.id;
  await openUploader(page, accounts.free);
  const yearmo = month(new Date());
  const before = bucketObjects(mesquite);
  await craftedPut(page, mesquite, 'crafted-0001.jpg', jpegBytes('crafted'));
  // The object-created function ran before S3 answered (the sandbox's order): it is gone already.
  expect(newObjects(mesquite, before)).toHaveLength(0);
  expect((await uploadMetrics(page, mesquite, yearmo)).total).toBe('985');
});

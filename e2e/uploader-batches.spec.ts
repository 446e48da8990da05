/**
 * Batches a hunter can start at night and trust in the morning, in real Chromium
 * against the production builds and the sandbox: a reload mid-batch and Resume, the same card
 * picked again, a session revoked mid-batch, offline, a stalled request, two tabs, a usage fetch
 * that fails, the uploads API's firewall, and camera names beyond ASCII. The sandbox's switches (sandbox/README.md) hold
 * PUTs, fail them as AWS would, or fail the product API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import { decodeMetadataValue } from '../uploader-remote/src/features/upload/model/metadata-encoding';
import { watchTexts } from './support/page-texts';
import { signOutEverywhereFromElsewhere, startSignedIn } from './support/session';
import {
  bucketObjects,
  heldPuts,
  newObjects,
  setApiFault,
  setFirewall,
  setPutFault,
  setPutStall,
  tempDir,
  writeJpegs,
  dropReservations,
} from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const count = (text: string) => Number(text.replace(/,/g, ''));
const progress = (page: Page) => page.getByText(/^Overall Progress: /);
const notice = (page: Page) => page.getByTestId('uploader-notice');
const shortDate = (date: Date) => new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' }).format(date);

async function openUploader(page: Page, account: { email: string; password: string }, query = '') {
  await startSignedIn(page, account);
  await page.goto(`/uploader${query}`);
  await expect(page.getByText(QUOTA)).toBeVisible();
}

async function usedThisMonth(page: Page): Promise<number> {
  const m = QUOTA.exec((await page.getByText(QUOTA).textContent()) ?? '')!;
  return count(m[1]!);
}

const uploadButton = (page: Page) => page.getByRole('button', { name: 'Upload', exact: true });

/** The uploader's journal as the page's IndexedDB holds it. */
function journalEntries(page: Page): Promise<{ name: string; key: string; status: string }[]> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('trailsense-uploads');
        open.onerror = () => reject(open.error ?? new Error('indexedDB.open failed'));
        open.onsuccess = () => {
          const all = open.result.transaction('files').objectStore('files').getAll();
          all.onsuccess = () => resolve(all.result.map((e: { name: string; key: string; status: string }) => ({ name: e.name, key: e.key, status: e.status })));
          all.onerror = () => reject(all.error ?? new Error('getAll failed'));
        };
      }),
  );
}

let dir: string;
test.beforeEach(() => {
  dir = tempDir('uploader-batches-');
});
test.afterEach(async ({ tenant }) => {
  for (const ranch of tenant.ranchIds) {
    await setPutFault(ranch, '0');
    await setPutStall(ranch, 0);
    await setApiFault(ranch, '0');
    await setFirewall(ranch, 'off');
    // Slots a test left held (a stalled upload, a page gone mid-batch) must not count in the next one's allowance.
    await dropReservations(ranch);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a reload mid-batch: Resume and the same card finish it, with the same keys, exactly N objects and N counted', async ({ page, accounts, tenant }) => {
  test.setTimeout(120_000);
  const cedar = tenant.ranches.cedarCreek.id;
  // Six at once, so that the others go on while two hang.
  await openUploader(page, accounts.subscriber, '?concurrency=6');
  const usedBefore = await usedThisMonth(page);
  const before = bucketObjects(cedar);
  const card = writeJpegs(path.join(dir, 'card'), 8, { prefix: 'RESUME_', padding: 20_000 });
  // Two uploads hang mid-way (the sandbox holds them), so the batch is still running at the reload.
  await setPutStall(cedar, 2);
  await chooseFiles(page, card);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 8 = 0%');
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 6 of 8 = 75%', { timeout: 30_000 });
  const interrupted = (await journalEntries(page)).filter((e) => e.status === 'waiting');
  expect(interrupted).toHaveLength(2);

  page.on('dialog', (dialog) => void dialog.accept());
  await page.reload();
  await expect(page.getByText(`6 of 8 uploaded on ${shortDate(new Date())} — pick the same card to finish.`)).toBeVisible();
  await chooseFiles(page, card, 'Resume');
  await expect(notice(page)).toHaveText('6 files skipped: 6 already uploaded.');
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 2 = 0%');
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 2 = 100%', { timeout: 30_000 });

  const stored = newObjects(cedar, before);
  expect(stored).toHaveLength(8);
  // The two cut off went up under the keys they had before the reload.
  expect(stored.map((o) => o.key)).toEqual(expect.arrayContaining(interrupted.map((e) => `public/${cedar}/${e.key}`)));
  await expect.poll(() => usedThisMonth(page)).toBe(usedBefore + 8);
  await expect(page.getByText(/pick the same card to finish/)).toHaveCount(0);
});

test('the same card picked again, even after a reload, sends nothing: every photo is skipped as already uploaded', async ({ page, accounts, tenant }) => {
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const card = writeJpegs(path.join(dir, 'card'), 5, { prefix: 'AGAIN_' });
  await chooseFiles(page, card);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 5 of 5 = 100%', { timeout: 30_000 });
  const before = bucketObjects(cedar);

  await page.reload();
  await expect(page.getByText(QUOTA)).toBeVisible();
  // Renamed copies are the same photos: the names do not matter.
  const renamed = card.map((file, i) => {
    const copy = path.join(dir, `RENAMED_${i}.JPG`);
    fs.copyFileSync(file, copy);
    return copy;
  });
  await chooseFiles(page, [...card, ...renamed]);
  await expect(notice(page)).toHaveText('10 files skipped: 10 already uploaded.');
  await expect(page.getByText('No files in the list.')).toBeVisible();
  await expect(uploadButton(page)).toBeDisabled();
  expect(newObjects(cedar, before)).toHaveLength(0);
});

test('a session revoked mid-batch pauses it, says so on the sign-in page, and signing in again finishes it', async ({ page, accounts, tenant }) => {
  test.setTimeout(120_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber, '?stall=5');
  const before = bucketObjects(cedar);
  await setPutStall(cedar, 1);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 6, { prefix: 'SESSION_' }));
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 5 of 6 = 83%', { timeout: 30_000 });

  // Signed out everywhere from another device; the page's temporary S3 credentials then expire.
  await signOutEverywhereFromElsewhere(accounts.subscriber);
  await setPutFault(cedar, '1:400:ExpiredToken');
  // The held upload stalls out, is refused with ExpiredToken, and the refresh is refused too.
  await expect(page).toHaveURL(/\/login\?returnTo=%2Fuploader/, { timeout: 30_000 });
  await expect(page.getByRole('status').filter({ hasText: 'Your session ended' })).toHaveText(
    'Your session ended, so uploading is paused: 5 of 6 images went up and nothing is lost. Sign in again to continue.',
  );
  await setPutFault(cedar, '0');

  await page.getByRole('textbox', { name: 'Email' }).fill(accounts.subscriber.email);
  await page.getByLabel('Password', { exact: true }).fill(accounts.subscriber.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page).toHaveURL(/\/uploader/);
  await expect(progress(page)).toHaveText('Overall Progress: 6 of 6 = 100%', { timeout: 30_000 });
  const stored = newObjects(cedar, before);
  expect(stored).toHaveLength(6);
  await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
});

test('offline for 10 s pauses the batch without failing anything; it goes on when the network is back', async ({ page, context, accounts, tenant }) => {
  test.setTimeout(90_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber, '?concurrency=6');
  const before = bucketObjects(cedar);
  await setPutStall(cedar, 2);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 6, { prefix: 'OFFLINE_' }));
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 4 of 6 = 66%', { timeout: 30_000 });

  await context.setOffline(true);
  await expect(page.getByText('You are offline. Uploading is paused and continues by itself when the connection is back.')).toBeVisible();
  await page.waitForTimeout(10_000);
  await expect(progress(page)).toHaveText('Overall Progress: 4 of 6 = 66%');
  await context.setOffline(false);

  await expect(progress(page)).toHaveText('Overall Progress: 6 of 6 = 100%', { timeout: 30_000 });
  await expect(page.getByText(/You are offline/)).toHaveCount(0);
  await expect(page.getByText(/Failed/)).toHaveCount(0);
  expect(newObjects(cedar, before)).toHaveLength(6);
});

test('an upload held with no progress is aborted and sent again under the same key', async ({ page, accounts, tenant }) => {
  test.setTimeout(120_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber, '?stall=5');
  const before = bucketObjects(cedar);
  const heldBefore = await heldPuts(cedar);
  await setPutStall(cedar, 1);
  // The row says "Retrying after: …" only for the retry's backoff: watched in the page, not polled.
  const retries = await watchTexts(page, /Retrying after: No progress for \d+ s/);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 3, { prefix: 'STALL_' }));
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 90_000 });
  // Quiet while the other two went up (they deliver less than the drain rule asks), then nothing
  // else moving: given up at the silence bound (3 × 5 s after the link last moved), never sooner.
  const seen = await retries();
  expect(seen).toHaveLength(1);
  expect(Number(/(\d+) s/.exec(seen[0]!)![1])).toBeGreaterThanOrEqual(15);
  expect(await heldPuts(cedar)).toBe(heldBefore + 1);
  const stored = newObjects(cedar, before);
  expect(stored).toHaveLength(3);
  await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
});

test('two tabs of one user never send the same photos: the second waits, then skips what the first sent', async ({ page, context, accounts, tenant }) => {
  test.setTimeout(90_000);
  const cedar = tenant.ranches.cedarCreek.id;
  const second = await context.newPage();
  await openUploader(page, accounts.subscriber, '?stall=5');
  await openUploader(second, accounts.subscriber);
  const before = bucketObjects(cedar);
  const card = writeJpegs(path.join(dir, 'card'), 6, { prefix: 'TABS_' });
  await chooseFiles(page, card);
  await chooseFiles(second, card);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 6 = 0%');
  await expect(progress(second)).toHaveText('Overall Progress: 0 of 6 = 0%');

  // The first tab's batch stays open a few seconds (one upload held until it stalls out).
  await setPutStall(cedar, 1);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 5 of 6 = 83%', { timeout: 30_000 });
  await uploadButton(second).click();
  await expect(second.getByText('Another tab is uploading for this ranch. This batch starts when that one ends, and skips what it sent.')).toBeVisible();

  await expect(progress(page)).toHaveText('Overall Progress: 6 of 6 = 100%', { timeout: 30_000 });
  await expect(notice(second)).toHaveText('6 files skipped: 6 already uploaded.', { timeout: 30_000 });
  await expect(second.getByText('No files in the list.')).toBeVisible();
  expect(newObjects(cedar, before)).toHaveLength(6);
});

test('while this month’s usage cannot be fetched, Upload is off with the reason; Try again brings it back', async ({ page, accounts, tenant }) => {
  const mesquite = tenant.ranches.mesquiteFlats.id;
  await setApiFault(mesquite, 'upload-metrics:500');
  await startSignedIn(page, accounts.free);
  await page.goto('/uploader');
  const problem = page.getByRole('alert').filter({ hasText: 'could not be checked' });
  await expect(problem).toContainText('Your monthly upload allowance could not be checked (Injected failure 500 (sandbox fault switch))');
  await expect(page.getByText(QUOTA)).toHaveCount(0);
  await expect(page.getByText(/1,000 remaining/)).toHaveCount(0);
  const before = bucketObjects(mesquite);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 2, { prefix: 'CLOSED_' }));
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 2 = 0%');
  await expect(uploadButton(page)).toBeDisabled();
  expect(newObjects(mesquite, before)).toHaveLength(0);

  await setApiFault(mesquite, '0');
  await problem.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByText(QUOTA)).toBeVisible();
  await expect(uploadButton(page)).toBeEnabled();
});

test('camera names beyond ASCII ("Hog pen 🐗", "Réservoir") upload, encoded as S3 requires', async ({ page, accounts, tenant }) => {
  const pine = tenant.ranches.pineHollow.id;
  await openUploader(page, accounts.lapsed);
  const before = bucketObjects(pine);
  const camera = page.getByRole('combobox', { name: 'Camera' });
  for (const [i, name] of ['Hog pen 🐗', 'Réservoir'].entries()) {
    await camera.selectOption({ label: name });
    await chooseFiles(page, writeJpegs(path.join(dir, `cam${i}`), 1, { prefix: `CAM${i}_` }));
    await uploadButton(page).click();
    await expect(progress(page)).toHaveText('Overall Progress: 1 of 1 = 100%', { timeout: 30_000 });
  }
  const stored = newObjects(pine, before);
  expect(stored).toHaveLength(2);
  const sent = stored.map((o) => o.metadata['x-amz-meta-camera_name']!);
  for (const value of sent) expect(value).toMatch(/^[\x20-\x7e]+$/);
  expect(sent.map(decodeMetadataValue).sort()).toEqual(['Hog pen 🐗', 'Réservoir']);
  await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
});

test("the uploads API's firewall: a 429 is waited out as its Retry-After says, in words, and the batch goes on by itself", async ({
  page,
  accounts,
  tenant,
}) => {
  test.setTimeout(60_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const before = bucketObjects(cedar);
  const said = await watchTexts(page, /The upload service asked to wait: [^.]+\. Uploading continues by itself in \d+ seconds?\./);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 3, { prefix: 'WALL_' }));
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 3 = 0%');
  await expect(page.getByText(/^Checking /)).toHaveCount(0);
  // Over the limit now: every call answered 429, Retry-After 3 (production says 60).
  await setFirewall(cedar, '429:3');
  await uploadButton(page).click();
  await expect
    .poll(said)
    .toEqual(['The upload service asked to wait: too many requests came from this network address. Uploading continues by itself in 3 seconds.']);
  expect(newObjects(cedar, before)).toHaveLength(0);
  await setFirewall(cedar, 'off');
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 30_000 });
  expect(newObjects(cedar, before)).toHaveLength(3);
  await expect(page.getByText(/The upload service asked to wait/)).toHaveCount(0);
});

test("the uploads API's firewall refusing this address (403): nothing is sent, and the list and the notice say the firewall refused it", async ({
  page,
  accounts,
  tenant,
}) => {
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const before = bucketObjects(cedar);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 2, { prefix: 'REFUSED_' }));
  await expect(page.getByText(/^Checking /)).toHaveCount(0);
  await setFirewall(cedar, '403');
  await uploadButton(page).click();
  await expect(notice(page)).toContainText(
    '2 photos were not sent: the upload service’s firewall refused requests from this network address. Try again later or from another connection.',
  );
  await expect(page.getByText('Not sent: refused by the upload service’s firewall')).toHaveCount(2);
  expect(newObjects(cedar, before)).toHaveLength(0);
});

/**
 * The bulk uploader in real Chromium against the production builds and the sandbox:
 * real Amplify uploadData to s3rver, the product API, the analytics sink, the S3 fault switch.
 */
import fs from 'node:fs';
import path from 'node:path';
import { axeScan } from './support/axe';
import { expect, test, type Page } from './support/test';
import { startSignedIn } from './support/session';
import type { TenantRanch } from './support/tenant';
import {
  analyticsEvents,
  bucketObjects,
  identityIdOf,
  injectedFaults,
  newObjects,
  setPutFault,
  tempDir,
  writeJpegs,
  dropReservations,
  setRanchUsage,
  type StoredObject,
} from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const formatCount = (n: number) => n.toLocaleString('en-US');

async function openUploader(page: Page, account: { email: string; password: string }) {
  await startSignedIn(page, account);
  await page.goto('/uploader');
  await expect(page.getByRole('heading', { level: 1, name: 'Upload Images' })).toBeVisible();
}

/**
 * The Cedar Creek copy's quota line as the server's data makes it: the seeded limit (the ranch's
 * own max, its member subscribed) and the month's count, the seeded baseline plus every object of
 * the ranch now in the bucket (the sandbox counts one per stored object) but the originals sent
 * after their copies, which are not counted again (docs/uploader.md#smaller-copies): those carry no
 * reservation.
 */
function cedarCreekQuota(ranch: TenantRanch): string {
  const counted = (o: StoredObject) =>
    o.metadata['x-amz-meta-ranchid'] === ranch.id &&
    !(o.metadata['x-amz-meta-photo_form'] === 'original' && o.metadata['x-amz-meta-reservation'] === undefined);
  const uploaded = ranch.countedThisMonth + bucketObjects(ranch.id).filter(counted).length;
  const limit = ranch.maxMonthlyUploads;
  return `You have uploaded ${formatCount(uploaded)} images of your monthly limit of ${formatCount(limit)} images. You have ${formatCount(limit - uploaded)} remaining.`;
}

const progress = (page: Page) => page.getByText(/^Overall Progress: /);

let dir: string;
test.beforeEach(() => {
  dir = tempDir();
});
test.afterEach(async ({ tenant }) => {
  await setPutFault(tenant.ranches.cedarCreek.id, '0');
  // Slots a test left held (a stalled upload, a page gone mid-batch) must not count in the next one's allowance.
  for (const ranch of tenant.ranchIds) await dropReservations(ranch);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a subscriber uploads 25 JPEGs with a camera; bad files are skipped with one grouped notice', async ({ page, accounts, tenant }) => {
  test.setTimeout(120_000);
  const cedar = tenant.ranches.cedarCreek;
  await openUploader(page, accounts.subscriber);
  await expect(page.getByText(`Hello ${accounts.subscriber.email}, ranch ID ${cedar.id}`)).toBeVisible();
  await expect(page.getByText(/^Your active subscription level is premium which expires on \w+ \d{1,2}, \d{4}$/)).toBeVisible();
  await expect(page.getByText(QUOTA)).toHaveText(cedarCreekQuota(cedar));
  await expect(page.getByText(/monthly limit of 10,000 images/)).toBeVisible();

  const camera = page.getByRole('combobox', { name: 'Camera' });
  await expect(camera.locator('option').first()).toHaveText('Indicate camera');
  await expect(camera.locator('option')).toHaveCount(5);
  const cameraName = (await camera.locator('option').nth(2).textContent())!;
  await camera.selectOption({ label: cameraName });

  const jpegs = writeJpegs(path.join(dir, 'card'), 25);
  const video = path.join(dir, 'card', 'IMG_0026.MP4');
  fs.writeFileSync(video, Buffer.from('\x00\x00\x00\x18ftypmp42 not a photo'));
  const empty = path.join(dir, 'card', 'empty.jpg');
  fs.writeFileSync(empty, '');
  // Named as a JPEG, but a PNG's first bytes: listed at once, dropped by the background check.
  const fake = path.join(dir, 'card', 'fake.jpg');
  fs.writeFileSync(fake, Buffer.from('\x89PNG\r\n\x1a\n not a photo', 'latin1'));
  // The same photo as IMG_0001.JPG (the same bytes), from another folder: a duplicate.
  fs.mkdirSync(path.join(dir, 'copy'));
  const duplicate = path.join(dir, 'copy', 'IMG_0001.JPG');
  fs.copyFileSync(jpegs[0]!, duplicate);
  // Whole seconds, so no sub-millisecond rounding can tell the two apart.
  const when = new Date('2026-10-01T06:30:00Z');
  fs.utimesSync(jpegs[0]!, when, when);
  fs.utimesSync(duplicate, when, when);

  await chooseFiles(page, [...jpegs, video, empty, duplicate, fake]);
  // One grouped notice: the instant skips, then the copy and fake.jpg join once their bytes are read
  // (in the order they are read: a file whose size the ranch's photos have is read after the others).
  await expect(page.getByRole('status').filter({ hasText: 'skipped' })).toHaveText(
    new RegExp(
      '^4 files skipped: 1 video, empty\\.jpg \\(empty file\\), (IMG_0001\\.JPG \\(already in the list\\), fake\\.jpg \\(not a JPEG image\\)|fake\\.jpg \\(not a JPEG image\\), IMG_0001\\.JPG \\(already in the list\\))\\.$',
    ),
  );
  await expect(page.getByRole('status').filter({ hasText: /^Checking/ })).toHaveCount(0);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 25 = 0%');
  await expect(page.getByRole('region', { name: /File list, 25 files/ })).toBeVisible();

  const objectsBefore = bucketObjects(cedar.id);
  const eventsBefore = (await analyticsEvents(cedar.id)).length;
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 25 of 25 = 100%', { timeout: 60_000 });
  await expect(page.getByText('No files in the list.')).toBeVisible();

  const stored = newObjects(cedar.id, objectsBefore);
  expect(stored).toHaveLength(25);
  for (const object of stored) {
    expect(object.key.startsWith(`public/${cedar.id}/`)).toBe(true);
    expect(object.key.slice(`public/${cedar.id}/`.length)).toMatch(/^[0-9a-f-]{36}\.jpg$/);
    expect(object.metadata).toMatchObject({
      'content-type': 'image/jpg',
      'cache-control': 'no-cache',
      'x-amz-meta-ranchid': cedar.id,
      'x-amz-meta-camera_name': cameraName,
    });
    expect(object.tagging).toMatch(new RegExp(`<Key>ranchid</Key>\\s*<Value>${cedar.id}</Value>`));
  }

  // The 25 just stored are counted: the line the server's data now implies.
  await expect(page.getByText(QUOTA)).toHaveText(cedarCreekQuota(cedar));

  const events = (await analyticsEvents(cedar.id)).slice(eventsBefore);
  expect(events).toHaveLength(25);
  expect(events.every((e) => e.name === 'imageUpload' && e.ranchid === cedar.id)).toBe(true);
  expect(new Set(events.map((e) => `public/${cedar.id}/${e.key}`))).toEqual(new Set(stored.map((o) => o.key)));
  expect(events.map((e) => e.uploadCount).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
});

test('training images go to the private level under private/{identityId}/, without a camera', async ({ page, accounts, tenant }) => {
  await openUploader(page, accounts.subscriber);
  await page.getByRole('checkbox', { name: 'Use these files for training the model' }).check();
  const cedar = tenant.ranches.cedarCreek.id;
  const before = bucketObjects(cedar);
  await chooseFiles(page, writeJpegs(dir, 3, { prefix: 'TRAIN_' }));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 30_000 });

  const identityId = await identityIdOf(page);
  expect(identityId).toMatch(/^us-east-2:/);
  const stored = newObjects(cedar, before);
  expect(stored).toHaveLength(3);
  for (const object of stored) {
    expect(object.key.startsWith(`private/${identityId}/${cedar}/`)).toBe(true);
    expect(object.metadata).toMatchObject({ 'x-amz-meta-ranchid': cedar, 'x-amz-meta-camera_name': '' });
  }
});

test('a free member over the allowance: Cancel uploads none, OK uploads exactly the 15 remaining', async ({ page, accounts, tenant }) => {
  test.setTimeout(90_000);
  const mesquite = tenant.ranches.mesquiteFlats.id;
  await setRanchUsage(mesquite, 985);
  await openUploader(page, accounts.free);
  await expect(
    page.getByText('You do not have an active subscription. You are limited to 1,000 images per month. Please subscribe to allow for more uploads.'),
  ).toBeVisible();
  await expect(page.getByText('You have uploaded 985 images of your monthly limit of 1,000 images. You have 15 remaining.')).toBeVisible();
  await chooseFiles(page, writeJpegs(dir, 20));
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 20 = 0%');
  const before = bucketObjects(mesquite);

  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Upload limit' });
  await expect(dialog).toContainText(
    'You cannot upload more images than your remaining limit of 15. You have 20 images in the list. Do you want to upload only the remaining 15 images?',
  );
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText('Nothing was uploaded. Remove some files from the list or upgrade your subscription to upload more images.')).toBeVisible();
  expect(newObjects(mesquite, before)).toHaveLength(0);

  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 15 of 20 = 75%', { timeout: 60_000 });
  await expect(page.getByText('You have uploaded 1,000 images of your monthly limit of 1,000 images. You have 0 remaining.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Upload', exact: true })).toBeDisabled();
  expect(newObjects(mesquite, before)).toHaveLength(15);
  await expect(page.getByRole('region', { name: /File list, 5 files/ })).toBeVisible();
});

test('with 30% of PUTs failing transiently, a 40-file batch ends with all 40 uploaded and no duplicates', async ({ page, accounts, tenant }) => {
  test.setTimeout(180_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const before = bucketObjects(cedar);
  const faultsBefore = await injectedFaults(cedar);
  await setPutFault(cedar, '0.3:503');
  await chooseFiles(page, writeJpegs(dir, 40, { padding: 20_000 }));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 40 of 40 = 100%', { timeout: 150_000 });
  expect(await injectedFaults(cedar)).toBeGreaterThan(faultsBefore);
  const stored = newObjects(cedar, before);
  expect(stored).toHaveLength(40);
  expect(new Set(stored.map((o) => o.key)).size).toBe(40);
  await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
});

test('permanent failures: the error text, the failure counter, uploadFailure events, then retry', async ({ page, accounts, tenant }) => {
  test.setTimeout(90_000);
  const cedar = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const eventsBefore = (await analyticsEvents(cedar)).length;
  await setPutFault(cedar, '1:403');
  await chooseFiles(page, writeJpegs(dir, 3, { prefix: 'DENIED_' }));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const errors = page.getByRole('alert').filter({ hasText: 'Problem with Storage.put operation:' });
  await expect(errors).toContainText('Problem with Storage.put operation: Access Denied', { timeout: 30_000 });
  await expect(errors).toContainText('Failed uploads: 3');
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 3 = 0%');
  await expect(page.getByText(/^[\d.,]+ (B|KB|MB) · Failed: Access Denied/)).toHaveCount(3);
  const failures = (await analyticsEvents(cedar)).slice(eventsBefore);
  // Concurrent uploads fail together, so their events may reach the sink in any order.
  expect(failures.map((e) => [e.name, e.failureCount]).sort()).toEqual([
    ['uploadFailure', 1],
    ['uploadFailure', 2],
    ['uploadFailure', 3],
  ]);

  await setPutFault(cedar, '0');
  const before = bucketObjects(cedar);
  await page.getByRole('button', { name: 'Retry DENIED_0001.JPG' }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 1 of 3 = 33%', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 30_000 });
  expect(newObjects(cedar, before)).toHaveLength(3);
});

test('a user without a ranch cannot add images and sees no upload buttons', async ({ page, accounts }) => {
  await openUploader(page, accounts.noRanch);
  await expect(page.getByText(/not linked to a ranch yet/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add Images' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Upload', exact: true })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Clear List' })).toHaveCount(0);
});

test('/uploader has no serious or critical axe violations, with files listed and a tooltip open, at 375 px too', async ({ page, accounts }) => {
  await openUploader(page, accounts.subscriber);
  await expect(page.getByText(QUOTA)).toBeVisible();
  await chooseFiles(page, writeJpegs(dir, 30));
  await page.getByRole('button', { name: 'About the camera choice' }).focus();
  await expect(page.getByRole('tooltip')).toBeVisible();
  const check = async () => {
    const results = await axeScan(page).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  };
  await check();
  await page.setViewportSize({ width: 375, height: 800 });
  await check();
  await page.screenshot({ path: 'test-results/uploader-375.png', fullPage: true });
});

test('tooltips are reachable by keyboard and announced; leaving during a batch asks first', async ({ page, accounts, tenant }) => {
  await openUploader(page, accounts.subscriber);
  await expect(page.getByRole('combobox', { name: 'Camera' })).toHaveAccessibleDescription(/cannot name itself/);
  await expect(page.getByRole('checkbox', { name: 'Use these files for training the model' })).toHaveAccessibleDescription(
    'Use this for only a few (under 10) perfect example images.',
  );
  await page.getByRole('checkbox', { name: 'Use these files for training the model' }).focus();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'About training images' })).toBeFocused();
  await expect(page.getByRole('tooltip')).toHaveText('Use this for only a few (under 10) perfect example images.');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('tooltip')).toHaveCount(0);

  // A slow batch: every PUT fails transiently, so it keeps retrying until stopped.
  await setPutFault(tenant.ranches.cedarCreek.id, '1:503');
  await chooseFiles(page, writeJpegs(dir, 5));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  page.once('dialog', (dialog) => {
    expect(dialog.message()).toContain('Images are still uploading');
    void dialog.dismiss();
  });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About Us' }).click();
  await expect(page).toHaveURL('/uploader');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByRole('region', { name: /File list, 5 files/ })).toBeVisible();
  await expect(page.getByText(/· Waiting$/)).toHaveCount(5);
});

test('at 412 px, the subscription and quota lines arriving move nothing below them, and the footer stays below the fold while the uploader loads', async ({
  page,
  accounts,
}) => {
  await page.setViewportSize({ width: 412, height: 823 });
  await startSignedIn(page, accounts.subscriber);
  // The two API answers are held until the screen has been measured without them.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/(subscriptions\/[^/]+|ranches\/[^/]+\/upload-metrics)(\?|$)/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/uploader');
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: 'Loading the uploader…' })
      .or(page.getByRole('heading', { name: 'Upload Images' })),
  ).toBeVisible();
  // Loading or loaded, the footer is below the fold.
  const footerTop = () => page.locator('footer').evaluate((footer) => footer.getBoundingClientRect().top);
  expect(await footerTop()).toBeGreaterThanOrEqual(823);
  await expect(page.getByText('Checking your upload quota…')).toBeVisible();
  const addImagesTop = () => page.getByRole('button', { name: 'Add Images' }).evaluate((button) => button.getBoundingClientRect().top);
  const before = await addImagesTop();
  release();
  await expect(page.getByText(/You have uploaded .* images of your monthly limit/)).toBeVisible();
  await expect(page.getByText(/Your active subscription level is/)).toBeVisible();
  expect(await addImagesTop()).toBe(before);
  expect(await footerTop()).toBeGreaterThanOrEqual(823);
});

test("a computer whose clock is 20 minutes ahead still uploads: Amplify sets its signing clock from S3's Date header", async ({ page, accounts, tenant }) => {
  test.setTimeout(90_000);
  // The sandbox's S3 refuses a signature more than 15 minutes off (RequestTimeTooSkewed), as S3 does.
  await page.clock.install({ time: Date.now() + 20 * 60_000 });
  await openUploader(page, accounts.subscriber);
  const cedar = tenant.ranches.cedarCreek.id;
  const before = bucketObjects(cedar);
  await chooseFiles(page, writeJpegs(dir, 3, { prefix: 'SKEW_' }));
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 3 = 0%');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 60_000 });
  expect(newObjects(cedar, before)).toHaveLength(3);
  await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
});

test("a shared computer: after Logout, the sign-in page offers to forget this computer's upload history, and forgetting empties it", async ({
  page,
  accounts,
}) => {
  test.setTimeout(60_000);
  /** Entries in this browser's upload journal (uploader-remote/src/features/upload/services/journal/upload-journal.ts). */
  const journalEntries = () =>
    page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const open = indexedDB.open('trailsense-uploads');
          open.onerror = () => reject(new Error(String(open.error)));
          open.onsuccess = () => {
            const db = open.result;
            const count = db.transaction('files').objectStore('files').count();
            count.onerror = () => reject(new Error(String(count.error)));
            count.onsuccess = () => {
              db.close();
              resolve(count.result);
            };
          };
        }),
    );
  await openUploader(page, accounts.subscriber);
  await chooseFiles(page, writeJpegs(dir, 2, { prefix: 'SHARED_' }));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 2 = 100%', { timeout: 30_000 });
  expect(await journalEntries()).toBe(2);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login/);
  await expect(
    page.getByText(`This browser keeps the names and folders of the photos ${accounts.subscriber.email} sent from it`, { exact: false }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Forget this computer’s upload history' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'no longer keeps' })).toHaveText(
    `This computer no longer keeps the upload history of ${accounts.subscriber.email}.`,
  );
  expect(await journalEntries()).toBe(0);
  // Answered: a reload makes no offer again.
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Forget this computer’s upload history' })).toHaveCount(0);
});

test('Upload speed: a set speed holds the uploads apart, a lower one chosen mid-batch holds from the next, and it is remembered', async ({
  page,
  accounts,
  tenant,
}) => {
  test.setTimeout(90_000);
  await openUploader(page, accounts.subscriber);
  const speed = page.getByRole('combobox', { name: 'Upload speed' });
  await speed.selectOption({ label: 'At most a set speed' });
  const mbit = page.getByRole('textbox', { name: 'Mbit/s' });
  // 0.4 Mbit/s is 50 KB/s: photos of 50 KB start a second apart.
  await mbit.fill('0.4');
  const starts: number[] = [];
  page.on('request', (request) => {
    if (request.method() === 'PUT' && /\/trailsense-local-uploads\/public\//.test(request.url())) starts.push(Date.now());
  });
  const cedar = tenant.ranches.cedarCreek.id;
  const before = bucketObjects(cedar);
  await chooseFiles(page, writeJpegs(path.join(dir, 'card'), 5, { prefix: 'CAPPED_', padding: 50_000 }));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 5 = 40%', { timeout: 30_000 });
  // Lower, mid-batch: 0.1 Mbit/s is 12.5 KB/s, four seconds a photo.
  await mbit.fill('0.1');
  await expect(progress(page)).toHaveText('Overall Progress: 5 of 5 = 100%', { timeout: 60_000 });
  expect(newObjects(cedar, before)).toHaveLength(5);
  const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
  expect(gaps).toHaveLength(4);
  // Lower bounds only (a busy machine only makes them longer). The cap holds when each attempt may
  // start; the browser's request follows a photo's own preparation (its checksum), which differs
  // by a few hundred ms from photo to photo, so one gap alone can be short: three photos span at
  // least two seconds, and the last gap (at 0.1 Mbit/s) at least three of its four.
  expect(starts[2]! - starts[0]!).toBeGreaterThanOrEqual(1_600);
  expect(gaps.at(-1)).toBeGreaterThanOrEqual(3_000);

  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Upload speed' })).toHaveValue('mbit');
  await expect(page.getByRole('textbox', { name: 'Mbit/s' })).toHaveValue('0.1');
});

/**
 * Camera clocks and turns (docs/uploader.md#camera-clocks) in real Chromium against the production
 * builds and the sandbox (which runs infra's object-created function): a card whose camera lost
 * its clock is found as one run, corrected in one step and undone; the stored objects carry the
 * corrected time beside the camera's own, a smaller copy's EXIF too; a refused correction says
 * why; a reload mid-batch keeps the correction; a camera strapped sideways is turned upright.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import { buildJpeg } from '../test-support/jpeg';
import { withExif } from '../uploader-remote/src/features/upload/model/exif-writer';
import { readExif } from '../uploader-remote/src/features/upload/services/files/exif';
import { startSignedIn } from './support/session';
import type { Account } from './support/tenant';
import { realisticPhotos } from './support/photos';
import { bucketDir, bucketObjects, dropReservations, newObjects, setPutStall, tempDir, type StoredObject } from './support/uploads';
import { chooseFiles } from './support/uploader-page';
import { axeScan } from './support/axe';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const progress = (page: Page) => page.getByText(/^Overall Progress: /);
const summary = (page: Page) => page.getByTestId('selection-summary');
const clocks = (page: Page) => page.getByTestId('camera-clocks');
const fileList = (page: Page) => page.getByRole('region', { name: /^File list/ });
const uploadButton = (page: Page) => page.getByRole('button', { name: 'Upload', exact: true });

async function openUploader(page: Page, account: Account, query = '') {
  await startSignedIn(page, account);
  await page.goto(`/uploader${query}`);
  await expect(page.getByText(QUOTA)).toBeVisible();
}

const BROWNING = { make: 'Browning', model: 'BTC-8E', serial: 'BR-9' };

/** A card of one Browning: three photos with its clock right, then batteries changed and four from 1 January 2000 on. */
const CARD: readonly [string, string][] = [
  ['IMG_0001.JPG', '2026:11:10 06:00:00'],
  ['IMG_0002.JPG', '2026:11:11 06:00:00'],
  ['IMG_0003.JPG', '2026:11:12 06:00:00'],
  ['IMG_0004.JPG', '2000:01:01 00:00:12'],
  ['IMG_0005.JPG', '2000:01:01 06:10:00'],
  ['IMG_0006.JPG', '2000:01:02 05:00:00'],
  ['IMG_0007.JPG', '2000:01:02 19:30:00'],
];

/** The card's photos, each its own (a random comment), so the ranch has never seen them. */
function writeCard(dir: string): string[] {
  const folder = path.join(dir, 'DCIM', '100MEDIA');
  fs.mkdirSync(folder, { recursive: true });
  return CARD.map(([name, taken], i) => {
    const file = path.join(folder, name);
    fs.writeFileSync(file, buildJpeg({ cameraExif: { ...BROWNING, dateTimeOriginal: taken }, comment: crypto.randomUUID(), padTo: 4096 + i * 17 }));
    return file;
  });
}

/** Seconds from the camera's 2000-01-01 00:00:12 to 2026-11-13 07:00:00 (the time the member enters). */
const OFFSET = (Date.UTC(2026, 10, 13, 7, 0, 0) - Date.UTC(2000, 0, 1, 0, 0, 12)) / 1000;
/** A camera time ("2000-01-02T19:30:00") moved by OFFSET, as the stored capture_time must read. */
const moved = (camera: string) => new Date(Date.parse(`${camera}Z`) + OFFSET * 1000).toISOString().slice(0, 19);
const RUN_NOTICE =
  'Browning BTC-8E #BR-9: 4 photos, IMG_0004.JPG (January 1, 2000, 12:00 AM) to IMG_0007.JPG (January 2, 2000, 7:30 PM), were taken after its clock was reset.';

async function setRunTime(page: Page, value: string) {
  await page.getByLabel('When was IMG_0004.JPG really taken?').fill(value);
  await page.getByRole('button', { name: 'Set this time' }).click();
}

const meta = (o: StoredObject, key: string) => o.metadata[`x-amz-meta-${key}`];

let dir: string;
test.beforeEach(() => {
  dir = tempDir('uploader-clock-');
});
test.afterEach(async ({ tenant }) => {
  for (const ranch of tenant.ranchIds) {
    await setPutStall(ranch, 0);
    await dropReservations(ranch);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a reset camera’s run is found and corrected in one step, undone and redone; the stored objects carry the corrected times beside the camera’s own', async ({
  page,
  accounts,
  tenant,
}) => {
  const ranch = tenant.ranches.cedarCreek.id;
  await openUploader(page, accounts.subscriber);
  const card = writeCard(dir);
  await chooseFiles(page, card);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 7 = 0%', { timeout: 30_000 });
  await expect(clocks(page)).toContainText(RUN_NOTICE);
  // The wrong dates stay out of the span until they are corrected.
  await expect(summary(page)).toContainText('Nov 10 – Nov 12');
  expect((await axeScan(page).analyze()).violations).toEqual([]);

  await setRunTime(page, '2026-11-13T07:00');
  const correction = clocks(page).getByRole('list', { name: 'Corrections' });
  await expect(correction).toContainText(/Browning BTC-8E #BR-9: 4 photos moved 9,813 days 6 hours 59 minutes 48 seconds later\./);
  await expect(clocks(page)).not.toContainText('after its clock was reset');
  // Before anything is sent: the list and the summary show the corrected times.
  await expect(summary(page)).toContainText('Nov 10 – Nov 15');
  await expect(fileList(page)).toContainText('Nov 13, 07:00 (corrected)');

  // Undo brings the run back; the same step sets it right again.
  await correction.getByRole('button', { name: /^Undo/ }).click();
  await expect(clocks(page)).toContainText(RUN_NOTICE);
  await expect(summary(page)).toContainText('Nov 10 – Nov 12');
  await setRunTime(page, '2026-11-13T07:00');
  await expect(fileList(page)).toContainText('Nov 13, 07:00 (corrected)');

  const before = bucketObjects(ranch);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 7 of 7 = 100%', { timeout: 60_000 });
  const stored = newObjects(ranch, before);
  expect(stored).toHaveLength(7);
  const times = stored.map((o) => [meta(o, 'capture_time'), meta(o, 'camera_capture_time') ?? null, meta(o, 'capture_correction') ?? null]);
  expect(times).toEqual(
    expect.arrayContaining([
      ['2026-11-12T06:00:00', null, null],
      ['2026-11-13T07:00:00', '2000-01-01T00:00:12', `+${OFFSET}`],
      [moved('2000-01-01T06:10:00'), '2000-01-01T06:10:00', `+${OFFSET}`],
      ['2026-11-15T02:29:48', '2000-01-02T19:30:00', `+${OFFSET}`],
    ]),
  );
  // Counted and kept (tagged) by the object-created function: the server took the new metadata.
  await expect.poll(() => newObjects(ranch, before).filter((o) => o.tagging?.includes(ranch)).length).toBe(7);
  // The originals themselves are sent unchanged.
  const bodies = new Set(stored.map((o) => fs.readFileSync(path.join(bucketDir(), `${o.key}._S3rver_object`)).toString('base64')));
  for (const file of card) expect(bodies.has(fs.readFileSync(file).toString('base64'))).toBe(true);
});

test('a correction that would date photos after today, or before the camera’s earlier photos, is refused with words saying why', async ({ page, accounts }) => {
  await openUploader(page, accounts.subscriber);
  await chooseFiles(page, writeCard(dir));
  await expect(clocks(page)).toContainText(RUN_NOTICE, { timeout: 30_000 });
  const run = clocks(page).getByRole('group', { name: RUN_NOTICE });

  const ahead = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 16);
  await setRunTime(page, ahead);
  await expect(run.getByRole('alert')).toContainText('after today');
  await expect(run.getByRole('alert')).toContainText('Check the time you entered for Browning BTC-8E #BR-9.');

  await setRunTime(page, '2026-11-09T07:00');
  await expect(run.getByRole('alert')).toHaveText(
    'This would put IMG_0004.JPG before IMG_0003.JPG, which Browning BTC-8E #BR-9 took earlier (November 12, 2026, 6:00 AM). A camera’s photos must stay in the order it took them.'.replace(
      '’',
      "'",
    ),
  );
  // Nothing was changed: the run is still offered, and Leave as it is keeps it as the camera wrote it.
  await expect(clocks(page).getByRole('list', { name: 'Corrections' })).toHaveCount(0);
  await run.getByLabel('Or move its clock by').fill('2');
  await run.getByRole('button', { name: 'Move', exact: true }).click();
  await expect(run.getByRole('alert')).toContainText('before 2010');
  await run.getByRole('button', { name: 'Leave as it is' }).click();
  await expect(clocks(page)).not.toContainText('after its clock was reset');
});

test('a reload mid-batch keeps the correction: the same card finishes with the corrected times', async ({ page, accounts, tenant }) => {
  const ranch = tenant.ranches.cedarCreek.id;
  // Four at once, so the others finish while two hang.
  await openUploader(page, accounts.subscriber, '?concurrency=4');
  const card = writeCard(dir);
  await chooseFiles(page, card);
  await expect(clocks(page)).toContainText(RUN_NOTICE, { timeout: 30_000 });
  await setRunTime(page, '2026-11-13T07:00');
  await expect(fileList(page)).toContainText('Nov 13, 07:00 (corrected)');
  const before = bucketObjects(ranch);
  // Two uploads hang, so the batch is still running at the reload.
  await setPutStall(ranch, 2);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText(/Overall Progress: [1-5] of 7/, { timeout: 60_000 });

  page.on('dialog', (dialog) => void dialog.accept());
  await page.reload();
  await setPutStall(ranch, 0);
  await expect(page.getByText(/of 7 uploaded on .* — pick the same card to finish\./)).toBeVisible();
  await chooseFiles(page, card, 'Resume');
  // The correction came back with the batch: the photos not sent yet show their corrected times.
  await expect(clocks(page).getByRole('list', { name: 'Corrections' })).toContainText('Browning BTC-8E #BR-9: ', { timeout: 30_000 });
  await expect(clocks(page)).not.toContainText('after its clock was reset');
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText(/Overall Progress: (\d) of \1 = 100%/, { timeout: 60_000 });
  const stored = newObjects(ranch, before);
  expect(new Set(stored.map((o) => meta(o, 'fingerprint'))).size).toBe(7);
  const corrected = stored.filter((o) => meta(o, 'camera_capture_time'));
  expect(corrected.map((o) => meta(o, 'capture_time')).sort()).toEqual(
    ['2000-01-01T00:00:12', '2000-01-01T06:10:00', '2000-01-02T05:00:00', '2000-01-02T19:30:00'].map(moved),
  );
});

test('a camera strapped sideways: its photos turned a quarter with a preview; copies are made upright with the corrected time in their EXIF, originals carry the turn', async ({
  page,
  browser,
  accounts,
  tenant,
}) => {
  test.setTimeout(180_000);
  const ranch = tenant.ranches.cedarCreek.id;
  // Two several-MB landscape photos of a camera on its side (no EXIF orientation), its clock reset.
  const sources = await realisticPhotos(2, { firstSeed: 221, browser });
  const folder = path.join(dir, 'DCIM', '100MEDIA');
  fs.mkdirSync(folder, { recursive: true });
  // One camera, its own serial so no other test's corrections or turns meet it.
  const serial = `SIDE-${crypto.randomUUID().slice(0, 8)}`;
  const card = sources.map((source, i) => {
    const file = path.join(folder, `SIDE_000${i + 1}.JPG`);
    const exif = { ...BROWNING, serial, captureTime: `2020-01-01T0${i}:00:00` };
    fs.writeFileSync(file, withExif(new Uint8Array(fs.readFileSync(source)), exif));
    return file;
  });
  await openUploader(page, accounts.subscriber);
  await page.getByRole('checkbox', { name: 'Send smaller copies' }).check();
  await chooseFiles(page, card);
  await expect(clocks(page)).toContainText('2 photos, SIDE_0001.JPG (January 1, 2020, 12:00 AM)', { timeout: 30_000 });
  await clocks(page).getByLabel('When was SIDE_0001.JPG really taken?').fill('2026-11-20T05:30');
  await clocks(page).getByRole('button', { name: 'Set this time' }).click();

  await clocks(page).getByText("Adjust a camera's clock or turn its photos").click();
  await clocks(page).getByRole('radio', { name: 'A quarter turn clockwise' }).check();
  await expect(clocks(page).getByTestId('turn-preview')).toHaveAttribute('data-turn', '90');
  expect((await axeScan(page).analyze()).violations).toEqual([]);

  const before = bucketObjects(ranch);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 2 = 100%', { timeout: 90_000 });
  const copies = newObjects(ranch, before);
  expect(copies).toHaveLength(2);
  for (const object of copies) {
    expect(meta(object, 'photo_form')).toBe('copy');
    expect(meta(object, 'photo_turn')).toBeUndefined();
    const body = fs.readFileSync(path.join(bucketDir(), `${object.key}._S3rver_object`));
    const exif = await readExif(new Uint8Array(body.subarray(0, 64 * 1024)));
    expect(exif?.captureTime).toBe(meta(object, 'capture_time'));
    expect(['2026-11-20T05:30:00', '2026-11-20T06:30:00']).toContain(exif?.captureTime);
    expect(meta(object, 'camera_capture_time')).toMatch(/^2020-01-01T0[01]:00:00$/);
    // Upright: the landscape pixels were turned a quarter, so the copy stands.
    const sof = body.indexOf(Buffer.from([0xff, 0xc0]));
    const height = body.readUInt16BE(sof + 5);
    const width = body.readUInt16BE(sof + 7);
    expect(height).toBeGreaterThan(width);
  }

  // Without copies the originals go as they are, the turn in their metadata.
  await page.getByRole('checkbox', { name: 'Send smaller copies' }).uncheck();
  const again = card.map((file, i) => {
    const copy = path.join(dir, 'again', `SIDE_000${i + 1}.JPG`);
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(copy, Buffer.concat([bytes, Buffer.from(crypto.randomUUID())]));
    return copy;
  });
  await chooseFiles(page, again);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 2 = 0%', { timeout: 30_000 });
  await clocks(page).getByText("Adjust a camera's clock or turn its photos").click();
  await clocks(page).getByRole('radio', { name: 'A quarter turn clockwise' }).check();
  const middle = bucketObjects(ranch);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 2 = 100%', { timeout: 90_000 });
  for (const object of newObjects(ranch, middle)) {
    expect(meta(object, 'photo_form')).toBe('original');
    expect(meta(object, 'photo_turn')).toBe('90');
  }
});

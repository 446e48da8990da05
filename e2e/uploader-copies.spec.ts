/**
 * "Send smaller copies" (docs/uploader.md#smaller-copies) in real Chromium against the production
 * builds and the sandbox, which runs the object-created function and the uploads API from infra/:
 * 3–5 MB photographic JPEGs (e2e/support/photos.ts) arrive as copies of at most 2,048 px carrying
 * their capture time, counted once; the same card with the choice off sends the originals, which
 * the server checks against the copies and does not count again; a reload mid-batch resumes the
 * copies without a duplicate.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import { startSignedIn } from './support/session';
import type { Account } from './support/tenant';
import { photoExif, realisticPhotos } from './support/photos';
import { sizeOfFingerprint } from '@trailsense/shared/uploads-wire';
import { readExif } from '../uploader-remote/src/features/upload/services/files/exif';
import { bucketDir, bucketObjects, newObjects, setPutStall, tempDir, uploadMetrics, type StoredObject } from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const progress = (page: Page) => page.getByText(/^Overall Progress: /);
const notice = (page: Page) => page.getByTestId('uploader-notice');
const uploadButton = (page: Page) => page.getByRole('button', { name: 'Upload', exact: true });
const copiesChoice = (page: Page) => page.getByRole('checkbox', { name: 'Send smaller copies' });
const month = (date: Date) => `${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, '0')}`;

async function openUploader(page: Page, account: Account, query = '') {
  await startSignedIn(page, account);
  await page.goto(`/uploader${query}`);
  await expect(page.getByText(QUOTA)).toBeVisible();
}

const counted = async (page: Page, ranch: string) => Number((await uploadMetrics(page, ranch, month(new Date()))).total || 0);

/**
 * The cached photos made this run's own: a COM segment with a random id after SOI changes their
 * fingerprints (and nothing else), so the ranch has never seen them, whatever ran before.
 */
function ownPhotos(sources: string[], dir: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return sources.map((source, i) => {
    const bytes = fs.readFileSync(source);
    const text = Buffer.from(`trailsense e2e ${crypto.randomUUID()}`, 'ascii');
    const com = Buffer.alloc(4);
    com.writeUInt16BE(0xfffe, 0);
    com.writeUInt16BE(text.length + 2, 2);
    const file = path.join(dir, `IMG_${String(i + 1).padStart(4, '0')}.JPG`);
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, 2), com, text, bytes.subarray(2)]));
    return file;
  });
}

/** A baseline JPEG's or a progressive one's size, from its first SOF segment. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  for (let at = 2; at + 9 < bytes.length;) {
    if (bytes[at] !== 0xff) throw new Error(`No JPEG marker at ${at}`);
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  throw new Error('No SOF segment');
}

const bodyOf = (object: StoredObject) => fs.readFileSync(path.join(bucketDir(), `${object.key}._S3rver_object`));

let dir: string;
test.beforeEach(() => {
  dir = tempDir('uploader-copies-');
});
test.afterEach(async ({ tenant }) => {
  await setPutStall(tenant.ranches.cedarCreek.id, 0);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('copies of several-MB photos arrive as upright JPEGs of at most 2,048 px with their capture time, counted once; the same card with copies off sends the originals, counted no more', async ({
  page,
  browser,
  accounts,
  tenant,
}) => {
  test.setTimeout(180_000);
  const ranch = tenant.ranches.cedarCreek.id;
  const seeds = [201, 202, 203, 204];
  // The fourth was taken with the camera on its side: its EXIF says Orientation 6 (rotate 90°).
  const upright = await realisticPhotos(3, { firstSeed: 201, browser });
  const [sideways] = await realisticPhotos(1, { firstSeed: 204, orientation: 6, browser });
  const card = ownPhotos([...upright, sideways!], path.join(dir, 'card'));
  const sidewaysSize = fs.statSync(card[3]!).size;
  await openUploader(page, accounts.subscriber);
  await expect(copiesChoice(page)).not.toBeChecked();
  await copiesChoice(page).check();
  await expect(page.getByText('About 10× faster. Photos are resized to 2,048 px; the originals stay on your card.')).toBeVisible();
  // Remembered on this browser.
  await page.reload();
  await expect(copiesChoice(page)).toBeChecked();
  const before = bucketObjects(ranch);
  const countedBefore = await counted(page, ranch);

  await chooseFiles(page, card);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 4 = 0%', { timeout: 30_000 });
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 4 of 4 = 100%', { timeout: 60_000 });
  const copies = newObjects(ranch, before);
  expect(copies).toHaveLength(4);
  for (const object of copies) {
    expect(object.key).toMatch(new RegExp(`^public/${ranch}/[0-9a-f-]+-copy\\.jpg$`));
    expect(object.metadata).toMatchObject({ 'x-amz-meta-photo_form': 'copy', 'x-amz-meta-camera_make': expect.any(String) });
    const body = bodyOf(object);
    // The fingerprint names the original's size: which photo of the card this is a copy of.
    const original = sizeOfFingerprint(object.metadata['x-amz-meta-fingerprint']!);
    expect([body[0], body[1], body[2]]).toEqual([0xff, 0xd8, 0xff]);
    const { width, height } = jpegSize(body);
    expect(Math.max(width, height)).toBe(2048);
    // Upright: the sideways photo's copy stands (its pixels turned, its EXIF Orientation 1), the others lie.
    if (original === sidewaysSize) expect(height).toBeGreaterThan(width);
    else expect(width).toBeGreaterThan(height);
    expect(body.length).toBeLessThan(original / 3);
    // The copy's own EXIF (read as the uploader reads a photo's) carries the original's capture time and camera.
    const exif = await readExif(new Uint8Array(body.subarray(0, 64 * 1024)));
    const captured = object.metadata['x-amz-meta-capture_time']!;
    expect(exif?.captureTime).toBe(captured.slice(0, 19));
    expect(seeds.map((s) => photoExif(s).captureTime)).toContain(exif?.captureTime);
    expect(exif?.make).toBe(object.metadata['x-amz-meta-camera_make']);
  }
  // Counted once per photo, and each copy tagged by the object-created function.
  await expect.poll(() => counted(page, ranch)).toBe(countedBefore + 4);
  await expect.poll(() => newObjects(ranch, before).filter((o) => o.tagging?.includes(ranch)).length).toBe(4);

  // The same card with copies off: the originals go, checked against the copies, not counted again.
  await copiesChoice(page).uncheck();
  await chooseFiles(page, card);
  await expect(notice(page)).toHaveText('4 photos the ranch has as smaller copies: sent as originals, already counted.', { timeout: 30_000 });
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 4 of 4 = 100%', { timeout: 60_000 });
  const all = newObjects(ranch, before);
  const originals = all.filter((o) => !o.key.endsWith('-copy.jpg'));
  expect(originals).toHaveLength(4);
  for (const object of originals) {
    expect(object.metadata['x-amz-meta-photo_form']).toBe('original');
    expect(object.metadata['x-amz-meta-reservation']).toBeUndefined();
    const copy = all.find((o) => o.key === object.key.replace(/\.jpg$/i, '-copy.jpg'));
    expect(copy).toBeDefined();
    expect(bodyOf(object).length).toBeGreaterThan(3_000_000);
  }
  // Kept (tagged), and the month did not move.
  await expect.poll(() => newObjects(ranch, before).filter((o) => o.tagging?.includes(ranch)).length).toBe(8);
  expect(await counted(page, ranch)).toBe(countedBefore + 4);

  // Once more: the ranch has the originals now.
  await chooseFiles(page, card);
  await expect(notice(page)).toHaveText('4 files skipped: 4 already uploaded.', { timeout: 30_000 });
});

test('a reload mid-batch with copies: the same card finishes it, each photo one copy, counted once', async ({ page, browser, accounts, tenant }) => {
  test.setTimeout(180_000);
  const ranch = tenant.ranches.cedarCreek.id;
  const card = ownPhotos(await realisticPhotos(4, { firstSeed: 211, browser }), path.join(dir, 'card'));
  // Four at once, so that the others go on while two hang.
  await openUploader(page, accounts.subscriber, '?concurrency=4');
  await copiesChoice(page).check();
  const before = bucketObjects(ranch);
  const countedBefore = await counted(page, ranch);
  // Two uploads hang mid-way (the sandbox holds them), so the batch is still running at the reload.
  await setPutStall(ranch, 2);
  await chooseFiles(page, card);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 4 = 0%', { timeout: 30_000 });
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 4 = 50%', { timeout: 60_000 });

  page.on('dialog', (dialog) => void dialog.accept());
  await page.reload();
  await setPutStall(ranch, 0);
  await expect(page.getByText(/2 of 4 uploaded on .* — pick the same card to finish\./)).toBeVisible();
  await chooseFiles(page, card, 'Resume');
  await expect(notice(page)).toHaveText('2 files skipped: 2 already uploaded.', { timeout: 30_000 });
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 2 = 100%', { timeout: 60_000 });

  const stored = newObjects(ranch, before);
  expect(stored.map((o) => o.key).every((key) => key.endsWith('-copy.jpg'))).toBe(true);
  expect(stored).toHaveLength(4);
  expect(new Set(stored.map((o) => o.metadata['x-amz-meta-fingerprint'])).size).toBe(4);
  await expect.poll(() => counted(page, ranch)).toBe(countedBefore + 4);
});

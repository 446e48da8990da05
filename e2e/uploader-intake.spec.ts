// Taking a whole card: a folder through the directory input and through the File System
// Access API (kept for Resume), a drop of files and a folder, EXIF on the stored objects, the
// summary and notices before Upload, and thumbnails. Real Chromium against the local stack.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from './support/test';
import { decodeMetadataValue } from '../uploader-remote/src/features/upload/model/metadata-encoding';
import { jpegWithExif } from '../test-support/jpeg';
import { startSignedIn } from './support/session';
import { bucketObjects, jpegBytes, newObjects, setPutStall, tempDir, writeJpegs, dropReservations } from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const progress = (page: Page) => page.getByText(/^Overall Progress: /);
const notice = (page: Page) => page.getByTestId('uploader-notice');
const summary = (page: Page) => page.getByTestId('selection-summary');
const fileList = (page: Page) => page.getByRole('region', { name: /^File list/ });
const uploadButton = (page: Page) => page.getByRole('button', { name: 'Upload', exact: true });

async function openUploader(page: Page, account: { email: string; password: string }, query = '') {
  await startSignedIn(page, account);
  await page.goto(`/uploader${query}`);
  await expect(page.getByText(QUOTA)).toBeVisible();
}

/** A trail-camera photo: a JPEG whose APP1 segment holds the EXIF a camera writes. */
function cameraPhoto(file: string, exif: { make: string; model: string; taken: string; serial?: string }, padTo = 4096) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bytes = jpegWithExif({ make: exif.make, model: exif.model, dateTimeOriginal: exif.taken, ...(exif.serial ? { serial: exif.serial } : {}), padTo });
  fs.writeFileSync(file, bytes);
  return file;
}

let dir: string;
test.beforeEach(() => {
  dir = tempDir('uploader-intake-');
});
test.afterEach(async ({ tenant }) => {
  // Slots a test left held (a stalled upload, a page gone mid-batch) must not count in the next one's allowance.
  for (const ranch of tenant.ranchIds) {
    await setPutStall(ranch, 0);
    await dropReservations(ranch);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a folder chosen through the directory input lists its JPEGs, subfolders too, and skips the rest in one notice', async ({ page, accounts }) => {
  // A browser without the File System Access API: Add Folder opens the directory input.
  await page.addInitScript(() => delete (window as { showDirectoryPicker?: unknown }).showDirectoryPicker);
  await openUploader(page, accounts.subscriber);
  const card = path.join(dir, 'DCIM');
  writeJpegs(path.join(card, '100MEDIA'), 3);
  writeJpegs(path.join(card, '101MEDIA'), 2, { prefix: 'PICT' });
  fs.writeFileSync(path.join(card, '.DS_Store'), 'mac');
  fs.writeFileSync(path.join(card, '100MEDIA', '._IMG_0001.JPG'), 'appledouble');
  fs.writeFileSync(path.join(card, '100MEDIA', 'Thumbs.db'), 'windows');
  fs.writeFileSync(path.join(card, '101MEDIA', 'CLIP0001.AVI'), 'video');
  fs.writeFileSync(path.join(card, 'notes.txt'), 'notes');

  await chooseFiles(page, card, 'Add Folder');

  await expect(notice(page)).toHaveText('5 files skipped: 1 video, 3 hidden or system files, notes.txt (not a JPEG image).');
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 5 = 0%');
  await expect(fileList(page)).toHaveAccessibleName('File list, 5 files');
  for (const name of ['IMG_0001.JPG', 'IMG_0003.JPG', 'PICT0002.JPG']) await expect(fileList(page).getByText(name, { exact: true })).toBeVisible();
});

test('a drop of photos and a folder of 150 lists them all; a drop anywhere on the page adds too, with an overlay; a dropped link is ignored', async ({
  page,
  accounts,
}) => {
  await openUploader(page, accounts.subscriber);
  const loose = writeJpegs(path.join(dir, 'loose'), 2, { prefix: 'LOOSE_' });
  const folder = path.join(dir, 'DCIM');
  writeJpegs(path.join(folder, '100MEDIA'), 150);

  // Chromium's own drag and drop, from the disk, through the DevTools protocol: the page gets
  // real FileSystemEntry objects, and the 150-file folder needs more than one readEntries call.
  const cdp = await page.context().newCDPSession(page);
  const drag = async (type: 'dragEnter' | 'dragOver' | 'drop', x: number, y: number, files: string[], items: { mimeType: string; data: string }[] = []) =>
    cdp.send('Input.dispatchDragEvent', { type, x, y, data: { items, files, dragOperationsMask: 1 } });
  const zone = (await page.getByTestId('drop-zone').boundingBox())!;
  let x = zone.x + zone.width / 2;
  let y = zone.y + 10;
  await drag('dragEnter', x, y, [...loose, folder]);
  await drag('dragOver', x, y, [...loose, folder]);
  await drag('drop', x, y, [...loose, folder]);

  await expect(progress(page)).toHaveText('Overall Progress: 0 of 152 = 0%', { timeout: 20_000 });
  await expect(fileList(page)).toHaveAccessibleName('File list, 152 files');

  // Anywhere on the page (here the footer, far from the zone), as in Drive: an overlay while
  // dragging, then the photo is listed, and the uploader is still there.
  const url = page.url();
  const stray = writeJpegs(path.join(dir, 'stray'), 1, { prefix: 'STRAY_' });
  // In view (it sits below the fold): the drag's coordinates are the viewport's.
  await page.locator('footer').scrollIntoViewIfNeeded();
  const footer = (await page.locator('footer').boundingBox())!;
  await drag('dragEnter', footer.x + 20, footer.y + 10, stray);
  await drag('dragOver', footer.x + 20, footer.y + 10, stray);
  await expect(page.getByTestId('drop-overlay')).toHaveText('Drop photos or a folder to add them');
  await drag('drop', footer.x + 20, footer.y + 10, stray);
  await expect(page.getByTestId('drop-overlay')).toHaveCount(0);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 153 = 0%', { timeout: 20_000 });
  expect(page.url()).toBe(url);

  // A link or text dropped on the page: ignored, no navigation, no overlay.
  await page.getByTestId('drop-zone').scrollIntoViewIfNeeded();
  const zoneNow = (await page.getByTestId('drop-zone').boundingBox())!;
  [x, y] = [zoneNow.x + zoneNow.width / 2, zoneNow.y + 10];
  const link = [
    { mimeType: 'text/uri-list', data: 'https://example.com/elsewhere' },
    { mimeType: 'text/plain', data: 'https://example.com/elsewhere' },
  ];
  await drag('dragEnter', x, y, [], link);
  await drag('dragOver', x, y, [], link);
  await expect(page.getByTestId('drop-overlay')).toHaveCount(0);
  await drag('drop', x, y, [], link);
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 153 = 0%');
  expect(page.url()).toBe(url);
});

test('EXIF capture time, make and model arrive on the stored objects; the summary and notices say what the card holds', async ({ page, accounts, tenant }) => {
  const pine = tenant.ranches.pineHollow.id;
  await openUploader(page, accounts.lapsed);
  const card = path.join(dir, 'card');
  const files = [
    cameraPhoto(path.join(card, 'IMG_0001.JPG'), { make: 'Browning', model: 'BTC-8E', taken: '2026:10:03 05:12:44', serial: 'BR-77' }),
    cameraPhoto(path.join(card, 'IMG_0002.JPG'), { make: 'Browning', model: 'BTC-8E', taken: '2026:11:19 21:40:02', serial: 'BR-77' }),
    cameraPhoto(path.join(card, 'PICT0001.JPG'), { make: 'Stealth Cam', model: 'G42NG', taken: '2013:01:01 00:00:07' }),
  ];
  await chooseFiles(page, files);

  await expect(summary(page)).toHaveText('3 photos · 12 KB · Oct 3 – Nov 19 · 2 cameras');
  await expect(notice(page)).toContainText('This selection holds photos from 2 cameras: Browning BTC-8E #BR-77 (2 photos), Stealth Cam G42NG (1 photo).');
  // The reset camera's photo is named with its camera (e2e/uploader-clock.spec.ts corrects one); left as it is, it goes up as dated.
  await expect(page.getByTestId('camera-clocks')).toContainText(
    'Stealth Cam G42NG: 1 photo, PICT0001.JPG (January 1, 2013, 12:00 AM), was taken after its clock was reset.',
  );
  // Mixed: no camera is chosen for the user.
  await expect(page.getByRole('combobox', { name: 'Camera' })).toHaveValue('');

  const before = bucketObjects(pine);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 30_000 });
  const stored = newObjects(pine, before);
  expect(stored).toHaveLength(3);
  const meta = stored.map((o) =>
    Object.fromEntries(['capture_time', 'camera_make', 'camera_model', 'camera_serial'].map((k) => [k, o.metadata[`x-amz-meta-${k}`]])),
  );
  expect(meta).toEqual(
    expect.arrayContaining([
      { capture_time: '2026-10-03T05:12:44', camera_make: 'Browning', camera_model: 'BTC-8E', camera_serial: 'BR-77' },
      { capture_time: '2026-11-19T21:40:02', camera_make: 'Browning', camera_model: 'BTC-8E', camera_serial: 'BR-77' },
      { capture_time: '2013-01-01T00:00:07', camera_make: 'Stealth Cam', camera_model: 'G42NG', camera_serial: undefined },
    ]),
  );
  for (const o of stored) expect(decodeMetadataValue(o.metadata['x-amz-meta-camera_name'] ?? '')).toBe('');
});

test('a camera’s next card preselects the camera its photos were sent as; the summary gives the time at the recent speed', async ({ page, accounts }) => {
  await openUploader(page, accounts.lapsed);
  const camera = page.getByRole('combobox', { name: 'Camera' });
  const first = Array.from({ length: 3 }, (_, i) =>
    cameraPhoto(
      path.join(dir, 'one', `IMG_000${i + 1}.JPG`),
      { make: 'Spypoint', model: 'FLEX-M', taken: `2026:11:0${i + 1} 06:00:00`, serial: 'SP-1' },
      300_000,
    ),
  );
  await camera.selectOption({ label: 'Hollow Trail' });
  await chooseFiles(page, first);
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 3 of 3 = 100%', { timeout: 30_000 });

  // Another visit, the same camera's next card; the recent speed as a slow uplink left it (a
  // loopback batch is over before the meter's 5 s warm-up, so it measures none).
  await page.evaluate(() => localStorage.setItem('trailsense:upload-speed', String(256 * 1024)));
  await page.reload();
  await expect(page.getByText(QUOTA)).toBeVisible();
  await expect(camera).toHaveValue('');
  const next = Array.from({ length: 2 }, (_, i) =>
    cameraPhoto(path.join(dir, 'two', `IMG_010${i + 1}.JPG`), { make: 'Spypoint', model: 'FLEX-M', taken: `2026:11:1${i + 1} 06:00:00`, serial: 'SP-1' }),
  );
  await chooseFiles(page, next);
  await expect(camera).toHaveValue('Hollow Trail');
  await expect(summary(page)).toHaveText('2 photos · 8 KB · Nov 11 – Nov 12 · 1 camera · less than a minute at your recent speed');
});

test('Add Folder keeps the folder: after a reload mid-batch, Resume reads it again and sends only the rest', async ({ page, accounts, tenant }) => {
  test.setTimeout(120_000);
  const cedar = tenant.ranches.cedarCreek.id;
  // The File System Access API's picker, answered with a folder of the origin-private file system
  // (a real FileSystemDirectoryHandle: it is stored in IndexedDB and read again after the reload).
  await page.addInitScript(() => {
    (window as unknown as { showDirectoryPicker: () => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker = async () =>
      (await navigator.storage.getDirectory()).getDirectoryHandle('DCIM');
  });
  // Six at once, so that the others go on while two hang.
  await openUploader(page, accounts.subscriber, '?concurrency=6');
  const photos = Array.from({ length: 6 }, (_, i) => ({
    name: `IMG_${String(i + 1).padStart(4, '0')}.JPG`,
    bytes: [...jpegBytes(`opfs-${i}-${Date.now()}`, 20_000)],
  }));
  await page.evaluate(async (files) => {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry('DCIM', { recursive: true }).catch(() => undefined);
    const media = await (await root.getDirectoryHandle('DCIM', { create: true })).getDirectoryHandle('100MEDIA', { create: true });
    for (const f of files) {
      const writable = await (await media.getFileHandle(f.name, { create: true })).createWritable();
      await writable.write(new Uint8Array(f.bytes));
      await writable.close();
    }
  }, photos);

  const before = bucketObjects(cedar);
  await setPutStall(cedar, 2);
  await page.getByRole('button', { name: 'Add Folder' }).click();
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 6 = 0%');
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 4 of 6 = 66%', { timeout: 30_000 });

  page.on('dialog', (dialog) => void dialog.accept());
  await page.reload();
  await expect(page.getByText(/4 of 6 uploaded on .* — Resume reads the folder “DCIM” again to finish\./)).toBeVisible();
  await setPutStall(cedar, 0);
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(notice(page)).toHaveText('4 files skipped: 4 already uploaded.');
  await expect(progress(page)).toHaveText('Overall Progress: 0 of 2 = 0%');
  await uploadButton(page).click();
  await expect(progress(page)).toHaveText('Overall Progress: 2 of 2 = 100%', { timeout: 30_000 });
  expect(newObjects(cedar, before)).toHaveLength(6);
});

test('rows on screen show thumbnails made in the worker; sizes read in KB and MB', async ({ page, accounts }) => {
  await openUploader(page, accounts.subscriber);
  // A real photo (decodable): drawn and encoded by the browser itself.
  const bytes = await page.evaluate(async () => {
    const canvas = new OffscreenCanvas(640, 480);
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#3a6';
    g.fillRect(0, 0, 640, 480);
    g.fillStyle = '#a63';
    g.fillRect(100, 100, 200, 150);
    return [...new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 })).arrayBuffer())];
  });
  const file = path.join(dir, 'REAL0001.JPG');
  fs.writeFileSync(file, Buffer.from(bytes));
  const big = path.join(dir, 'BIG_0001.JPG');
  fs.writeFileSync(big, jpegBytes('big', 3 * 1024 * 1024));
  await chooseFiles(page, [file, big]);

  const row = page.getByRole('listitem').filter({ hasText: 'REAL0001.JPG' });
  await expect(row.locator('img')).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
  await expect(row).toContainText(/\d+ KB · Waiting/);
  await expect(page.getByRole('listitem').filter({ hasText: 'BIG_0001.JPG' })).toContainText('3.0 MB · Waiting');
});

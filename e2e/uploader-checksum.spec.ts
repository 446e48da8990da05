/**
 * Every byte stored is the byte read (infra/docs/server.md#checksums), in real Chromium against
 * the production builds and the sandbox: one byte of a photo's PUT body is changed on its way (the
 * browser's network route), after Amplify computed the file's CRC32. The sandbox's S3 refuses it
 * as S3 does (400 BadDigest), keeps nothing and counts nothing; the uploader sends the photo again
 * under the same key; it is stored byte for byte as the file, counted once, no failure shown, and
 * the ledger keeps its CRC32 beside its fingerprint.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DatabaseSync } from 'node:sqlite';
import localConfig from '../config/local.json';
import { expect, test, type Page } from './support/test';
import { startSignedIn } from './support/session';
import { bucketDir, E2E_DATA_DIR, newObjects, bucketObjects, tempDir, uploadMetrics, writeJpegs } from './support/uploads';
import { chooseFiles } from './support/uploader-page';

const QUOTA = /You have uploaded ([\d,]+) images of your monthly limit of ([\d,]+) images\. You have ([\d,]+) remaining\./;
const S3_ORIGIN = 'http://localhost:20005';
const month = (date: Date) => `${date.getUTCFullYear()}_${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
const counted = async (page: Page, ranch: string) => Number((await uploadMetrics(page, ranch, month(new Date()))).total || 0);

/** The base64 CRC32 S3 computes (big-endian), of the file's bytes. */
function crc32Of(bytes: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(zlib.crc32(bytes) >>> 0);
  return out.toString('base64');
}

/** The ledger's records of an object and of its photo, read from the sandbox's database as it is now. */
function ledgerOf(ranch: string, key: string, fingerprint: string): { object: string | null | undefined; photo: string | null | undefined } {
  const db = new DatabaseSync(path.join(E2E_DATA_DIR, 'sandbox.db'), { readOnly: true });
  try {
    const object = db.prepare('SELECT checksum FROM uploads WHERE key = ?').get(key) as { checksum: string | null } | undefined;
    const photo = db.prepare('SELECT checksum FROM photo_records WHERE ranch_id = ? AND fingerprint = ?').get(ranch, fingerprint) as
      { checksum: string | null } | undefined;
    return { object: object?.checksum, photo: photo?.checksum };
  } finally {
    db.close();
  }
}

let dir: string;
test.beforeEach(() => {
  dir = tempDir('uploader-checksum-');
});
test.afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a byte changed on the way: S3 refuses it (BadDigest), the uploader sends it again, and the photo is stored intact, counted once, its CRC32 in the ledger', async ({
  page,
  accounts,
  tenant,
}) => {
  const ranch = tenant.ranches.cedarCreek.id;
  const [file] = writeJpegs(path.join(dir, 'card'), 1, { padding: 40_000 });
  const original = fs.readFileSync(file!);
  await startSignedIn(page, accounts.subscriber);
  await page.goto('/uploader');
  await expect(page.getByText(QUOTA)).toBeVisible();

  // The first PUT of the photo goes on with one byte of its body changed, after Amplify computed
  // the file's CRC32; its answer is read on the way back (Chromium does not keep a PUT's answer
  // for the test to read later). Chromium does not hand the route a File body: the body of a
  // single PUT (the photo is under 5 MiB) is the file's bytes, so the route takes them from it.
  const puts: { status: number; key: string }[] = [];
  let refused: string | undefined;
  let changed = 0;
  await page.route(`${S3_ORIGIN}/**`, async (route) => {
    const request = route.request();
    if (request.method() !== 'PUT') return route.continue();
    // Any later PUT (the uploader's own retry) goes as the browser sends it.
    if (changed > 0) return route.continue();
    changed++;
    const body = Buffer.from(request.postDataBuffer() ?? original);
    const at = Math.floor(body.length / 2);
    body[at] = (body[at] as number) ^ 0x01;
    const response = await route.fetch({ postData: body });
    refused = /<Code>([^<]*)<\/Code>/.exec(await response.text())?.[1];
    return route.fulfill({ response });
  });
  page.on('response', (response) => {
    if (response.request().method() === 'PUT' && response.url().startsWith(S3_ORIGIN))
      puts.push({ status: response.status(), key: new URL(response.url()).pathname });
  });
  const before = bucketObjects(ranch);
  const countedBefore = await counted(page, ranch);

  await chooseFiles(page, [file!]);
  await expect(page.getByText(/^Overall Progress: /)).toHaveText('Overall Progress: 0 of 1 = 0%');
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByText(/^Overall Progress: /)).toHaveText('Overall Progress: 1 of 1 = 100%', { timeout: 30_000 });

  // Refused as S3 refuses it, then sent again under the same key and stored.
  expect(changed).toBe(1);
  expect(refused).toBe('BadDigest');
  expect(puts.map((p) => p.status)).toEqual([400, 200]);
  expect(puts[1]!.key).toBe(puts[0]!.key);
  const stored = newObjects(ranch, before);
  expect(stored).toHaveLength(1);
  const object = stored[0]!;
  const bytes = fs.readFileSync(path.join(bucketDir(), `${object.key}._S3rver_object`));
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(createHash('sha256').update(original).digest('hex'));
  expect(await counted(page, ranch)).toBe(countedBefore + 1);
  // No failure shown.
  await expect(page.getByText(/Problem with Storage\.put operation/)).toHaveCount(0);
  await expect(page.getByText(/Failed uploads/)).toHaveCount(0);
  // The ledger keeps the file's CRC32 (what S3 verified) with the object and beside its fingerprint.
  const checksum = `CRC32:FULL_OBJECT:${crc32Of(original)}`;
  expect(ledgerOf(ranch, object.key, object.metadata['x-amz-meta-fingerprint']!)).toEqual({ object: checksum, photo: checksum });
  expect(puts[0]!.key).toBe(`/${localConfig.storage.bucket}/${object.key}`);
});

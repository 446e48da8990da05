// Timing one batch on the uploader page from the Upload click to 100 %, as the upload benches
// drive it (the member's steps: e2e/support/uploader-page.ts). Shared by bench/upload.ts and
// bench/reservations.ts.
import type { Browser } from '@playwright/test';
import { accounts, startSignedIn } from '../e2e/support/session';
import { chooseFiles } from '../e2e/support/uploader-page';

/**
 * Uploads `files` in a fresh page signed in as the subscriber, at `/uploader<query>`; seconds from
 * the Upload click to 100 %. `afterChecks`: click only once every file's first bytes are read, so
 * two runs compare sending alone.
 */
export async function timeUpload(
  browser: Browser,
  shellUrl: string,
  files: string[],
  options: { query?: string; afterChecks?: boolean } = {},
): Promise<number> {
  const page = await browser.newPage();
  try {
    await startSignedIn(page, accounts.subscriber);
    await page.goto(`${shellUrl}/uploader${options.query ?? ''}`);
    await page.getByText(/You have uploaded/).waitFor();
    await chooseFiles(page, files);
    await page.getByText(`Overall Progress: 0 of ${files.length} = 0%`).waitFor();
    if (options.afterChecks) await page.getByText(/^Checking [\d,]+ files?…$/).waitFor({ state: 'hidden', timeout: 120_000 });
    const start = Date.now();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(`Overall Progress: ${files.length} of ${files.length} = 100%`).waitFor({ timeout: 3_600_000 });
    return (Date.now() - start) / 1000;
  } finally {
    await page.close();
  }
}

/**
 * The uploader page as the browser tests and the benches drive it (bench/upload-page.ts builds
 * its timings on it): the member's steps, named once.
 */
import type { Page } from '@playwright/test';

/** Chooses `files` (or a folder) through the file chooser the named button opens, as a member does. */
export async function chooseFiles(page: Page, files: string | string[], button = 'Add Images'): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: button }).click();
  await (await chooser).setFiles(files);
}

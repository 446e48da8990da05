import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * An axe scan of the page that keeps within the site's Content-Security-Policy: axe's CSSOM
 * preload copies cross-origin stylesheets (a remote's CSS) into inline <style> elements, which
 * the policy refuses (infra/docs/server.md#security-headers) and the browser tests count as
 * violations (e2e/support/test.ts). Without it, axe reads the page as it is; only its
 * orientation-lock rule, which needs the copies, cannot decide.
 */
export function axeScan(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).options({ preload: false });
}

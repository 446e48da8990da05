/**
 * The browser tests' `test`: Playwright's, with a browser context that records every
 * Content-Security-Policy violation of its pages, and fails the test if there was any
 * (infra/docs/server.md#security-headers). Even a test that breaks the site on purpose (a broken
 * config, a remote down) must not make the browser refuse anything. Specs import `test` and
 * `expect` from here instead of '@playwright/test'.
 *
 * Two witnesses, as neither sees everything: the `securitypolicyviolation` event (script in the
 * page, listened to on the document, capturing, before any of the page's scripts), and Chromium's
 * own console message, which also comes when the page's JavaScript is off ("Loading the image
 * '…' violates the following Content Security Policy directive …"; older versions said "Refused
 * to load …").
 *
 * Each worker also has a tenant of its own (`tenant`, worker-scoped: ./tenant.ts), whose accounts
 * a test signs in as (`accounts`, the same accounts) and whose ranches it switches, so that tests
 * in other workers never meet its accounts, counts or switches.
 */
import { test as base, type BrowserContext } from '@playwright/test';
import { createTenant, type Accounts, type Tenant } from './tenant';

export * from '@playwright/test';

/** What a `securitypolicyviolation` event says, for the failure message. */
export interface CspViolation {
  directive: string;
  blocked: string;
  source: string;
  sample: string;
  page: string;
}

const BINDING = '__e2eCspViolation';

/** Chromium's console message for a CSP violation, in its current wording and its older one. */
const CSP_MESSAGE = /^Refused to |violates the following Content Security Policy directive/;

/** Starts recording the context's violations into `violations`, and Chromium's messages about them into `refusals`. */
export async function recordCspViolations(context: BrowserContext, violations: CspViolation[], refusals: string[]): Promise<void> {
  await context.exposeBinding(BINDING, (_source, violation: CspViolation) => {
    violations.push(violation);
  });
  await context.addInitScript((binding: string) => {
    document.addEventListener(
      'securitypolicyviolation',
      (event) => {
        const report = (window as unknown as Record<string, (v: CspViolation) => Promise<void>>)[binding];
        void report?.({
          directive: event.effectiveDirective,
          blocked: event.blockedURI,
          source: `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
          sample: event.sample,
          page: event.documentURI,
        });
      },
      true,
    );
  }, BINDING);
  context.on('console', (message) => {
    if (CSP_MESSAGE.test(message.text())) refusals.push(`${message.text()} (${message.location().url})`);
  });
}

export const test = base.extend<{ accounts: Accounts }, { tenant: Tenant }>({
  // Playwright reads a fixture's dependencies from its first parameter's pattern: none here.
  // eslint-disable-next-line no-empty-pattern
  tenant: [async ({}, use, workerInfo) => use(await createTenant(`w${workerInfo.workerIndex}`)), { scope: 'worker' }],
  accounts: async ({ tenant }, use) => use(tenant.accounts),
  context: async ({ context }, use) => {
    const violations: CspViolation[] = [];
    const refusals: string[] = [];
    await recordCspViolations(context, violations, refusals);
    await use(context);
    // A violation's event may still be on its way from the page when the test ends: one round
    // trip to each page lets what it sent before arrive first (no timers: they do not run when a
    // test turns JavaScript off).
    for (const page of context.pages()) await page.evaluate(() => 0).catch(() => undefined);
    base.expect({ violations, refusals }, 'the Content-Security-Policy was violated').toEqual({ violations: [], refusals: [] });
  },
});

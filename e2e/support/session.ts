import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
// Before Amplify: it picks its SRP arithmetic by sniffing `navigator` (the file says why).
import '../../test-support/node-navigator';
import { Amplify } from 'aws-amplify';
import { confirmSignUp, signIn, signOut, signUp } from 'aws-amplify/auth';
import { cognitoUserPoolsTokenProvider } from 'aws-amplify/auth/cognito';
import { parseRuntimeConfig } from '../../shared/src/config/validate';
import { toAmplifyConfig } from '../../shared/src/amplify/amplify-config';
import localConfig from '../../config/local.json';
import { SEED_USERS } from '../../sandbox/src/seed';

function seedAccount(email: string): { email: string; password: string } {
  const user = SEED_USERS.find((u) => u.email === email);
  if (!user) throw new Error(`${email} is not a seeded sandbox account`);
  return { email: user.email, password: user.password };
}

/**
 * Seeded sandbox accounts (sandbox/src/seed.ts), for the benches' own sandboxes. Browser tests
 * sign in as their worker's tenant's copies instead (the `accounts` fixture, ./test.ts).
 */
export const accounts = {
  subscriber: seedAccount('subscriber@trailsense.example'),
  free: seedAccount('free@trailsense.example'),
  partner: seedAccount('partner@trailsense.example'),
  lapsed: seedAccount('lapsed@trailsense.example'),
  noRanch: seedAccount('noranch@trailsense.example'),
};

/** Captures what Amplify writes, so the browser gets exactly the keys Amplify itself would read. */
class RecordingStorage {
  readonly items = new Map<string, string>();
  async setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  async getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  async removeItem(key: string) {
    this.items.delete(key);
  }
  async clear() {
    this.items.clear();
  }
}

const storage = new RecordingStorage();
let configured = false;

/**
 * Signs in for real (SRP against the sandbox, with the real aws-amplify client in Node) and
 * returns the session's storage entries. Until the sign-in screen exists (auth-remote), this is
 * how browser tests start signed in; the tokens are the sandbox's own.
 */
function configure(): void {
  if (configured) return;
  const parsed = parseRuntimeConfig(localConfig);
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  Amplify.configure(toAmplifyConfig(parsed.config));
  cognitoUserPoolsTokenProvider.setKeyValueStorage(storage);
  configured = true;
}

async function sessionFor(email: string, password: string): Promise<Record<string, string>> {
  configure();
  await storage.clear();
  const result = await signIn({ username: email, password });
  if (!result.isSignedIn) throw new Error(`Sign-in for ${email} stopped at ${result.nextStep.signInStep}`);
  const entries = Object.fromEntries(storage.items);
  await storage.clear();
  return entries;
}

/** Starts the page signed in as `email`: the session is in localStorage before any script runs. */
export async function startSignedIn(page: Page, account: { email: string; password: string }): Promise<void> {
  const entries = await sessionFor(account.email, account.password);
  await page.addInitScript((items: Record<string, string>) => {
    // Only on the first load of this page: a sign-out in the test must stick.
    if (sessionStorage.getItem('e2e-session-seeded')) return;
    sessionStorage.setItem('e2e-session-seeded', '1');
    for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
  }, entries);
}

/** The sandbox's log of the browser-test run (playwright.config.ts), where codes are "delivered". */
const SANDBOX_LOG = path.resolve(__dirname, '../../.sandbox-data/e2e.log');

/**
 * The newest confirmation or reset code the sandbox printed for `email` after `since` lines of
 * its log (pass the value of `codeLogMark()` taken before the action that sends the code).
 */
export async function waitForCode(email: string, since: number, timeoutMs = 10_000): Promise<string> {
  const pattern = new RegExp(`\\[cognito\\] code for ${email.replace(/[.+]/g, '\\$&')} \\([^)]*\\): (\\d+)`, 'i');
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const lines = fs.readFileSync(SANDBOX_LOG, 'utf8').split('\n').slice(since);
    const match = lines
      .map((line) => pattern.exec(line))
      .filter(Boolean)
      .at(-1);
    if (match?.[1]) return match[1];
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`No code for ${email} appeared in the sandbox log`);
}

/** Ends the pending sign-ins begun as `email` as if their 3 minutes had passed (`POST /_sandbox/sign-in-sessions`). */
export async function expireSignIns(email: string): Promise<number> {
  const res = await fetch(`${new URL(localConfig.analytics.endpoint).origin}/_sandbox/sign-in-sessions`, { method: 'POST', body: JSON.stringify({ email }) });
  if (!res.ok) throw new Error(`the sandbox did not expire the sign-ins of ${email}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { expired: number }).expired;
}

/** How many lines the sandbox log has now. */
export function codeLogMark(): number {
  return fs.readFileSync(SANDBOX_LOG, 'utf8').split('\n').length - 1;
}

/** A fresh email for a test that creates an account (random: workers run side by side). */
export function uniqueEmail(label: string): string {
  return `${label}-${Date.now().toString(36)}-${crypto.randomBytes(4).toString('hex')}@trailsense.example`;
}

/** Creates and confirms an account through the real user-pool protocol (no ranch: sign-up cannot set one). */
export async function createAccount(email: string, password: string, name = 'Test Hunter'): Promise<void> {
  configure();
  const mark = codeLogMark();
  await signUp({
    username: email,
    password,
    options: { userAttributes: { email, name, phone_number: '+12345678900' } },
  });
  await confirmSignUp({ username: email, confirmationCode: await waitForCode(email, mark) });
}

/** Signs the account out of every device (as from another phone), with the real client in Node. */
export async function signOutEverywhereFromElsewhere(account: { email: string; password: string }): Promise<void> {
  configure();
  await storage.clear();
  await signIn({ username: account.email, password: account.password });
  await signOut({ global: true });
  await storage.clear();
}

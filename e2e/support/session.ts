import type { Page } from '@playwright/test';
import { Amplify } from 'aws-amplify';
import { signIn } from 'aws-amplify/auth';
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

/** Seeded sandbox accounts (sandbox/src/seed.ts). */
export const accounts = {
  subscriber: seedAccount('subscriber@trailsense.example'),
  free: seedAccount('free@trailsense.example'),
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
async function sessionFor(email: string, password: string): Promise<Record<string, string>> {
  if (!configured) {
    const parsed = parseRuntimeConfig(localConfig);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    Amplify.configure(toAmplifyConfig(parsed.config));
    cognitoUserPoolsTokenProvider.setKeyValueStorage(storage);
    configured = true;
  }
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

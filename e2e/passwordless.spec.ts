/**
 * Sign-in without a password (docs/product.md#sign-in-without-a-password) in real Chromium
 * against the sandbox's user pool, which verifies passkeys for real (sandbox/src/gateway/webauthn.ts):
 * a code by e-mail, read from the sandbox's output; a passkey added on /profile with Chromium's
 * virtual authenticator (the DevTools WebAuthn domain), used to sign in, removed, and then refused.
 */
import type { CDPSession, Page } from '@playwright/test';
import { expect, test } from './support/test';
import { axeScan } from './support/axe';
import { codeLogMark, createAccount, expireSignIns, startSignedIn, uniqueEmail, waitForCode } from './support/session';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const OFFER = 'Sign in faster next time';

/** Chromium's virtual platform authenticator on this page: it makes and signs with passkeys as a phone's would. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

/** From the password form to the other choices, for `email`. */
async function otherOptions(page: Page, email: string) {
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Other sign-in options' }).click();
}

/** On the choices screen: asks for a code by e-mail and reads it from the sandbox's output. */
async function askForCode(page: Page, email: string): Promise<string> {
  const mark = codeLogMark();
  await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
  return waitForCode(email, mark);
}

async function enterCode(page: Page, code: string): Promise<void> {
  await page.getByRole('textbox', { name: /Code/ }).fill(code);
  await page.getByRole('button', { name: 'Confirm', exact: true }).click();
}

async function signInWithCode(page: Page, email: string): Promise<void> {
  await otherOptions(page, email);
  await enterCode(page, await askForCode(page, email));
}

async function logout(page: Page) {
  await nav(page).getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL('/login');
}

test('a member signs in with the e-mailed code and lands on /uploader; a passkey is offered once, and Not now goes on', async ({ page, accounts }) => {
  const email = accounts.subscriber.email;
  await otherOptions(page, email);
  await expect(page.getByRole('button', { name: 'Email me a sign-in code' })).toBeVisible();
  expect((await axeScan(page).analyze()).violations).toEqual([]);

  await signInWithCode(page, email);
  await expect(page.getByRole('heading', { name: OFFER })).toBeVisible();
  expect((await axeScan(page).analyze()).violations).toEqual([]);
  await page.getByRole('button', { name: 'Not now' }).click();
  await expect(page).toHaveURL('/uploader');

  // Once: the next code sign-in goes straight on.
  await logout(page);
  await signInWithCode(page, email);
  await expect(page).toHaveURL('/uploader');
  await expect(page.getByRole('heading', { name: OFFER })).toHaveCount(0);
});

test('a wrong code says so and the right one still signs in; the password form is as it was', async ({ page }) => {
  const email = uniqueEmail('code');
  await createAccount(email, 'a long enough password');
  await otherOptions(page, email);
  const code = await askForCode(page, email);
  const wrong = code === '000000' ? '111111' : '000000';
  await enterCode(page, wrong);
  await expect(page.getByRole('alert')).toHaveText('The verification code you entered is incorrect. Please try again.');
  await enterCode(page, code);
  // A new account has no ranch: the profile (after the offer, dismissed).
  await page.getByRole('button', { name: 'Not now' }).click();
  await expect(page).toHaveURL('/profile');

  // The password kit is unchanged: its form and button, and a wrong password's words.
  await logout(page);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText('Incorrect username or password.');
});

test('a passkey added on /profile signs in; removed, it can no longer be used', async ({ page }) => {
  const email = uniqueEmail('passkey');
  const password = 'a long enough password';
  await createAccount(email, password);
  await virtualAuthenticator(page);
  await startSignedIn(page, { email, password });
  await page.goto('/profile');
  const section = page.getByRole('region', { name: 'Passkeys' });
  await expect(section).toContainText('You have no passkeys yet.');
  await section.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(section.getByRole('status')).toContainText('Passkey added.');
  const list = section.getByRole('list', { name: 'Your passkeys' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list).toContainText(/Added \w+ \d+, \d{4}/);
  expect((await axeScan(page).analyze()).violations).toEqual([]);

  await logout(page);
  await otherOptions(page, email);
  await page.getByRole('button', { name: 'Sign In with a Passkey' }).click();
  await expect(page).toHaveURL('/profile');

  const again = page.getByRole('region', { name: 'Passkeys' });
  await again.getByRole('button', { name: /^Remove passkey / }).click();
  await expect(again.getByRole('status')).toContainText('It can no longer sign you in.');
  await expect(again).toContainText('You have no passkeys yet.');

  // The device still holds it, but the pool has forgotten it: refused, with why and the way on.
  await logout(page);
  await otherOptions(page, email);
  await page.getByRole('button', { name: 'Sign In with a Passkey' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Your account has no passkey yet. Sign in with your password or an e-mailed code, then add a passkey on your profile.',
  );
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByRole('button', { name: 'Email me a sign-in code' })).toBeVisible();
});

test('a passkey of another site on the device does not sign in here: the sign-in says so, and the e-mailed code still works', async ({ page }) => {
  const email = uniqueEmail('othersite');
  const password = 'a long enough password';
  await createAccount(email, password);
  const { cdp, id } = await virtualAuthenticator(page);
  await startSignedIn(page, { email, password });
  await page.goto('/profile');
  await page.getByRole('region', { name: 'Passkeys' }).getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByRole('region', { name: 'Passkeys' }).getByRole('status')).toContainText('Passkey added.');
  await logout(page);

  // The device now holds only another relying party's passkey, as another site would have made it.
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId: id });
  for (const c of credentials) await cdp.send('WebAuthn.removeCredential', { authenticatorId: id, credentialId: c.credentialId });
  const key = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', key.privateKey)).toString('base64');
  await cdp.send('WebAuthn.addCredential', {
    authenticatorId: id,
    credential: {
      credentialId: Buffer.from('another-site-key').toString('base64'),
      isResidentCredential: true,
      rpId: 'other.example',
      privateKey: pkcs8,
      signCount: 0,
      userHandle: Buffer.from('someone').toString('base64'),
    },
  });
  await otherOptions(page, email);
  await page.getByRole('button', { name: 'Sign In with a Passkey' }).click();
  // The browser cannot tell a closed prompt from no passkey for this site (on purpose), nor can we.
  await expect(page.getByRole('alert')).toHaveText(
    'No passkey was used: the prompt was closed, or this device has no passkey for this site. Try again, or choose another way to sign in.',
  );
  await expect(page).toHaveURL(/\/login/);
  await enterCode(page, await askForCode(page, email));
  await expect(page).toHaveURL('/profile');
});

test('a code tried too many times can no longer be used: the kit says so, and a new code signs in', async ({ page }) => {
  const email = uniqueEmail('tries');
  await createAccount(email, 'a long enough password');
  await otherOptions(page, email);
  const code = await askForCode(page, email);
  const wrong = code === '000000' ? '111111' : '000000';
  const used = 'This code can no longer be used: it was tried too many times, or already used. Go back to sign in and ask for a new code.';
  // The pool's limit (sandbox/src/gateway/user-auth.ts MAX_OTP_ATTEMPTS): then even the right code is refused.
  for (let i = 0; i < 3; i++) {
    await enterCode(page, wrong);
    await expect(page.getByRole('alert')).toBeVisible();
  }
  await enterCode(page, code);
  await expect(page.getByRole('alert')).toHaveText(used);

  await page.getByRole('button', { name: 'Back to Sign In' }).click();
  await signInWithCode(page, email);
  await expect(page.getByRole('heading', { name: OFFER })).toBeVisible();
});

test('an expired code says so, and a new code signs in', async ({ page }) => {
  const email = uniqueEmail('expired');
  await createAccount(email, 'a long enough password');
  await otherOptions(page, email);
  const code = await askForCode(page, email);
  // Three minutes pass for this sign-in (the sandbox ends it as Cognito would).
  expect(await expireSignIns(email)).toBe(1);
  await enterCode(page, code);
  // The kit's own words for Cognito's expired session.
  await expect(page.getByRole('alert')).toHaveText('Your verification code has expired. Please request a new code.');

  await page.getByRole('button', { name: 'Back to Sign In' }).click();
  await signInWithCode(page, email);
  await expect(page.getByRole('heading', { name: OFFER })).toBeVisible();
});

test('a member who asked for a code can go back and sign in with the password instead: the pending code sign-in gives way', async ({ page }) => {
  const email = uniqueEmail('mind');
  const password = 'a long enough password';
  await createAccount(email, password);
  await otherOptions(page, email);
  await askForCode(page, email);
  await page.getByRole('button', { name: 'Back to Sign In' }).click();
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  // A password sign-in is not offered a passkey: straight on (no ranch: the profile).
  await expect(page).toHaveURL('/profile');
  await expect(page.getByRole('heading', { name: OFFER })).toHaveCount(0);
});

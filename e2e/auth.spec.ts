import { expect, test, type Page } from './support/test';
import { axeScan } from './support/axe';
import { codeLogMark, createAccount, signOutEverywhereFromElsewhere, startSignedIn, uniqueEmail, waitForCode } from './support/session';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

async function signInWithForm(page: Page, email: string, password: string) {
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

/** A new account (no ranch), signed in through the form, on its profile page. */
async function signInNewAccount(page: Page, label: string, password: string): Promise<string> {
  const email = uniqueEmail(label);
  await createAccount(email, password);
  await page.goto('/login?returnTo=%2Fprofile');
  await signInWithForm(page, email, password);
  await expect(page).toHaveURL('/profile');
  return email;
}

async function expectNoSeriousAxeViolations(page: Page) {
  const result = await axeScan(page).analyze();
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test.describe('sign-in', () => {
  test('the seeded subscriber signs in and lands on /uploader; the header shows Upload, Profile and Logout', async ({ page, accounts }) => {
    await page.goto('/login');
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome to TrailSense' })).toBeVisible();
    await signInWithForm(page, accounts.subscriber.email, accounts.subscriber.password);
    await expect(page).toHaveURL('/uploader');
    await expect(nav(page).getByRole('link', { name: 'Upload' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Profile' })).toBeVisible();
    await expect(nav(page).getByRole('button', { name: 'Logout' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Login' })).toHaveCount(0);

    // Reload keeps the session.
    await page.reload();
    await expect(page).toHaveURL('/uploader');
    await expect(nav(page).getByRole('button', { name: 'Logout' })).toBeVisible();

    // Logout goes to /login and the header offers Login again.
    await nav(page).getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL('/login');
    await expect(nav(page).getByRole('link', { name: 'Login' })).toBeVisible();
    await page.goto('/uploader');
    await expect(page).toHaveURL('/login?returnTo=%2Fuploader');
  });

  test('a user without a ranch goes to /profile and is told why they cannot upload', async ({ page, accounts }) => {
    await page.goto('/login');
    await signInWithForm(page, accounts.noRanch.email, accounts.noRanch.password);
    await expect(page).toHaveURL('/profile');
    await expect(page.getByRole('note')).toContainText('Uploading needs a ranch');
    await expect(page.getByRole('main').getByRole('link', { name: /uploader/i })).toHaveCount(0);
  });

  test('a wrong password says "Incorrect username or password."', async ({ page, accounts }) => {
    await page.goto('/login');
    await signInWithForm(page, accounts.subscriber.email, 'not-the-password');
    await expect(page.getByText('Incorrect username or password.')).toBeVisible();
    await expect(page).toHaveURL('/login');
  });

  test('the guard sends a visitor to /login, and signing in returns them to the page they wanted', async ({ page, accounts }) => {
    await page.goto('/profile');
    await expect(page).toHaveURL('/login?returnTo=%2Fprofile');
    await signInWithForm(page, accounts.subscriber.email, accounts.subscriber.password);
    await expect(page).toHaveURL('/profile');
    await expect(page.getByRole('heading', { level: 1, name: 'Your profile' })).toBeVisible();
  });

  test('a network failure says "Network Error"', async ({ page, accounts }) => {
    await page.goto('/login');
    await page.route('http://localhost:4100/**', (route) => route.abort('internetdisconnected'));
    await signInWithForm(page, accounts.subscriber.email, accounts.subscriber.password);
    await expect(page.getByText('Network Error', { exact: true })).toBeVisible({ timeout: 30_000 });
  });

  test('a signed-in user opening /login or / goes on to the uploader', async ({ page, accounts }) => {
    await page.goto('/login');
    await signInWithForm(page, accounts.subscriber.email, accounts.subscriber.password);
    await expect(page).toHaveURL('/uploader');
    await page.goto('/login');
    await expect(page).toHaveURL('/uploader');
    await page.goto('/');
    await expect(page).toHaveURL('/uploader');
    // Other pages stay reachable for a signed-in user.
    await page.goto('/support');
    await expect(page.getByRole('heading', { level: 1, name: 'Support' })).toBeVisible();
  });
});

test.describe('sessions', () => {
  /** Makes Amplify see the stored tokens as expired (as if an hour had passed). */
  async function ageTheSession(page: Page) {
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage)) {
        if (key.endsWith('.clockDrift')) localStorage.setItem(key, String(2 * 60 * 60 * 1000));
      }
    });
  }

  test('an expired session refreshes silently on reload', async ({ page }) => {
    const email = await signInNewAccount(page, 'refresh', 'refresh-me-please');
    await ageTheSession(page);
    const refresh = page.waitForRequest(
      (r) => r.url().startsWith('http://localhost:4100') && /GetTokensFromRefreshToken|InitiateAuth/.test(r.headers()['x-amz-target'] ?? ''),
    );
    await page.reload();
    await refresh;
    await expect(page).toHaveURL('/profile');
    await expect(page.getByText(email).first()).toBeVisible();
  });

  test('a session revoked elsewhere signs out and clears the cached tokens', async ({ page }) => {
    const email = uniqueEmail('revoked');
    const account = { email, password: 'revoke-me-please' };
    await createAccount(email, account.password);
    await page.goto('/login?returnTo=%2Fprofile');
    await signInWithForm(page, email, account.password);
    await expect(page).toHaveURL('/profile');
    await signOutEverywhereFromElsewhere(account);
    await ageTheSession(page);
    await page.reload();
    await expect(page).toHaveURL('/login?returnTo=%2Fprofile');
    await expect(nav(page).getByRole('link', { name: 'Login' })).toBeVisible();
    const cached = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.endsWith('.idToken')));
    expect(cached).toEqual([]);
  });

  test('"Sign out of all devices": a failure says so and signs nothing out; then every session ends, another device\'s too', async ({ page, browser }) => {
    const password = 'sign-out-everywhere';
    const email = await signInNewAccount(page, 'everywhere', password);
    const phone = await browser.newContext();
    try {
      const phonePage = await phone.newPage();
      await startSignedIn(phonePage, { email, password });
      await phonePage.goto('/profile');
      await expect(phonePage).toHaveURL('/profile');

      // The sign-in service cannot be reached: GlobalSignOut fails, and the page says so.
      const isGlobalSignOut = (headers: Record<string, string>) => headers['x-amz-target'] === 'AWSCognitoIdentityProviderService.GlobalSignOut';
      await page.route('**/*', (route) => (isGlobalSignOut(route.request().headers()) ? route.abort('internetdisconnected') : route.fallback()));
      await page.getByRole('button', { name: 'Sign out of all devices' }).click();
      await expect(page.getByRole('alert')).toHaveText('Your devices were not signed out: Network Error');
      await expect(page).toHaveURL('/profile');
      await expect(nav(page).getByRole('button', { name: 'Logout' })).toBeVisible();

      // Again, with the service reachable: this page goes to /login, and the phone's session is over.
      await page.unrouteAll();
      await page.getByRole('button', { name: 'Sign out of all devices' }).click();
      await expect(page).toHaveURL(/\/login/);
      await ageTheSession(phonePage);
      await phonePage.reload();
      await expect(phonePage).toHaveURL('/login?returnTo=%2Fprofile');
    } finally {
      await phone.close();
    }
  });
});

test.describe('the account kit screens', () => {
  test('create account: the terms are required, then the code from the sandbox confirms and signs in', async ({ page }) => {
    const email = uniqueEmail('signup');
    await page.goto('/login');
    await page.getByRole('tab', { name: 'Create Account' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Name' }).fill('New Hunter');
    await expect(page.getByRole('combobox', { name: /Country Code/i })).toHaveValue('+1');
    await page.getByRole('textbox', { name: 'Phone Number' }).fill('(234) 567-8900');
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByLabel('Confirm Password', { exact: true }).fill('a long enough password');
    // Without the terms the form says why and cannot be sent.
    const create = page.getByRole('button', { name: 'Create Account' });
    const terms = page.getByRole('checkbox', { name: 'I agree with the Terms & Conditions' });
    await expect(page.getByText('You must agree to the Terms & Conditions')).toBeVisible();
    await expect(create).toBeDisabled();

    const mark = codeLogMark();
    // The kit draws its own box over the input: click the label, as a person does.
    await page.getByText('I agree with the Terms & Conditions', { exact: true }).click();
    await expect(terms).toBeChecked();
    await expect(page.getByText('You must agree to the Terms & Conditions')).toBeHidden();
    await page.getByRole('button', { name: 'Create Account' }).click();
    const code = await waitForCode(email, mark);
    await page.getByRole('textbox', { name: 'Confirmation Code' }).fill(code);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    // Auto sign-in after confirmation; a new account has no ranch, so: the profile.
    await expect(page).toHaveURL('/profile');
    await expect(page.getByText(email).first()).toBeVisible();
    await expect(page.getByText('+12345678900')).toBeVisible();
  });

  test('forgot password: a code, a new password, then sign-in with it', async ({ page }) => {
    const email = uniqueEmail('forgot');
    await createAccount(email, 'the-old-password');
    await page.goto('/login');
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    const mark = codeLogMark();
    await page.getByRole('button', { name: 'Send code' }).click();
    const code = await waitForCode(email, mark);
    await page.getByRole('textbox', { name: 'Code' }).fill(code);
    await page.getByLabel('New Password', { exact: true }).fill('the-new-password');
    await page.getByLabel('Confirm Password', { exact: true }).fill('the-new-password');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByRole('button', { name: 'Sign In', exact: true })).toBeVisible();
    await signInWithForm(page, email, 'the-new-password');
    await expect(page).toHaveURL('/profile');
  });

  test('the help dialog opens, keeps focus inside, and closes with Escape and with Close', async ({ page }) => {
    await page.goto('/login');
    const opener = page.getByRole('button', { name: 'How do I create an account?' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'How do I create an account?' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('listitem')).toHaveText([/Download the TrailSense app/, /follow the account creation steps/, /high-performance uploads/]);
    // The native modal dialog keeps focus off the inert page: Tab goes through the dialog and out to
    // the browser's own UI (the page then has no focused element, only its body), never behind it.
    const focusOffThePage = () => dialog.evaluate((d) => d.contains(document.activeElement) || document.activeElement === document.body);
    let inDialog = 0;
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      expect(await focusOffThePage()).toBe(true);
      if (await dialog.evaluate((d) => d.contains(document.activeElement))) inDialog++;
    }
    expect(inDialog).toBeGreaterThan(0);
    await page.keyboard.press('Shift+Tab');
    expect(await focusOffThePage()).toBe(true);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();
    await opener.click();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
  });
});

test.describe('profile and account', () => {
  test('profile edits persist after reload', async ({ page }) => {
    await signInNewAccount(page, 'profile', 'profile-password');
    await page.getByRole('textbox', { name: 'Name' }).fill('Renamed Hunter');
    await page.getByRole('textbox', { name: 'Number' }).fill('(555) 010-9999');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'saved' })).toHaveText('Your name and phone number are saved.');
    await page.reload();
    await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue('Renamed Hunter');
    await expect(page.getByText('+15550109999')).toBeVisible();
  });

  test('change password works, and the old one stops working', async ({ page }) => {
    const email = await signInNewAccount(page, 'password', 'first-password');
    await page.getByLabel('Current password').fill('first-password');
    await page.getByLabel('New password', { exact: true }).fill('second-password');
    await page.getByLabel('Confirm new password').fill('second-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('Your password has been changed.')).toBeVisible();

    await nav(page).getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL('/login');
    await signInWithForm(page, email, 'first-password');
    await expect(page.getByText('Incorrect username or password.')).toBeVisible();
    await signInWithForm(page, email, 'second-password');
    await expect(page).toHaveURL('/profile');
  });

  test('delete account: a visitor is shown how; a signed-in user confirms, and the email can no longer sign in', async ({ page }) => {
    const email = uniqueEmail('delete');
    await createAccount(email, 'delete-password');
    await page.goto('/delete');
    await expect(page.getByText(/cannot be undone/)).toBeVisible();
    await page.getByRole('link', { name: 'Sign in here' }).click();
    await expect(page).toHaveURL('/login?returnTo=%2Fdelete');
    await signInWithForm(page, email, 'delete-password');
    await expect(page).toHaveURL('/delete');

    const button = page.getByRole('button', { name: 'Delete my account permanently' });
    await expect(button).toBeDisabled();
    await page.getByRole('textbox', { name: /Type your email address/ }).fill(email);
    await button.click();
    await expect(page.getByRole('heading', { level: 1, name: 'Your account has been deleted' })).toBeVisible();
    await expect(page).toHaveURL('/delete');
    await expect(nav(page).getByRole('link', { name: 'Login' })).toBeVisible();

    await page.goto('/login');
    await signInWithForm(page, email, 'delete-password');
    await expect(page.getByText('Incorrect username or password.')).toBeVisible();
  });
});

test.describe('accessibility', () => {
  test('/login has no serious accessibility violations, with sign-up shown', async ({ page }) => {
    await page.goto('/login');
    await expect(page.getByRole('tab', { name: 'Create Account' })).toBeVisible();
    await expectNoSeriousAxeViolations(page);
    await page.getByRole('tab', { name: 'Create Account' }).click();
    await expectNoSeriousAxeViolations(page);
  });

  test('/profile and /delete have no serious accessibility violations', async ({ page, accounts }) => {
    await page.goto('/delete');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectNoSeriousAxeViolations(page);
    await page.goto('/login?returnTo=%2Fprofile');
    await signInWithForm(page, accounts.subscriber.email, accounts.subscriber.password);
    await expect(page).toHaveURL('/profile');
    await expectNoSeriousAxeViolations(page);
    await page.goto('/delete');
    await expect(page.getByRole('button', { name: 'Delete my account permanently' })).toBeVisible();
    await expectNoSeriousAxeViolations(page);
  });
});

import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { BrandProvider, defaultBrand, UserProvider } from '@trailsense/shared';
import { ProfileScreen } from '../src/features/profile/profile-screen';
import { DeleteAccountScreen } from '../src/features/delete-account/delete-account-screen';
import type { AccountService } from '../src/services/account-service';
import { FakeSessionSource, subscriberUser } from '../../test-support/fake-session-source';

class FakeAccountService implements AccountService {
  updates: Record<string, string>[] = [];
  passwordChanges: [string, string][] = [];
  failWith: Error | null = null;
  async updateAttributes(attributes: Record<string, string>) {
    if (this.failWith) throw this.failWith;
    this.updates.push(attributes);
  }
  async changePassword(oldPassword: string, newPassword: string) {
    if (this.failWith) throw this.failWith;
    this.passwordChanges.push([oldPassword, newPassword]);
  }
}

const withPhone = { ...subscriberUser, phoneNumber: '+12345678900' };

function renderProfile(source: FakeSessionSource, service = new FakeAccountService()) {
  render(
    <UserProvider source={source}>
      <ProfileScreen service={service} showPasskeys={false} />
    </UserProvider>,
  );
  return service;
}

describe('ProfileScreen', () => {
  it('shows email, name, phone number and ranch id', async () => {
    renderProfile(new FakeSessionSource(withPhone));
    expect(await screen.findByText('subscriber@trailsense.example')).toBeInTheDocument();
    expect(screen.getByText('+12345678900')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the uploader' })).toHaveAttribute('href', '/uploader');
  });

  it('explains to a user without a ranch that uploading needs one, with no upload link', async () => {
    const { ranchId: _r, ...noRanch } = withPhone;
    renderProfile(new FakeSessionSource(noRanch));
    const note = await screen.findByRole('note');
    expect(note).toHaveTextContent('Uploading needs a ranch');
    expect(note).toHaveTextContent('set up in the mobile app');
    expect(screen.queryByRole('link', { name: /uploader/i })).not.toBeInTheDocument();
  });

  it('saves a changed phone number, normalised, and nothing else', async () => {
    const service = renderProfile(new FakeSessionSource(withPhone));
    const number = await screen.findByRole('textbox', { name: 'Number' });
    await userEvent.clear(number);
    await userEvent.type(number, '(234) 567-8911');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Your name and phone number are saved.');
    expect(service.updates).toEqual([{ phone_number: '+12345678911' }]);
  });

  it('refuses a blank name and a short number without calling the service', async () => {
    const service = renderProfile(new FakeSessionSource(withPhone));
    const name = await screen.findByRole('textbox', { name: 'Name' });
    await userEvent.clear(name);
    await userEvent.clear(screen.getByRole('textbox', { name: 'Number' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Number' }), '12');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please correct the highlighted fields.');
    expect(screen.getByText('This field is required')).toBeInTheDocument();
    expect(screen.getByText(/country code/)).toBeInTheDocument();
    expect(service.updates).toEqual([]);
  });

  it('says why a save failed', async () => {
    const service = new FakeAccountService();
    service.failWith = Object.assign(new Error('A network error has occurred.'), { name: 'NetworkError' });
    renderProfile(new FakeSessionSource(withPhone), service);
    const name = await screen.findByRole('textbox', { name: 'Name' });
    await userEvent.type(name, ' Jr.');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your changes were not saved: Network Error');
  });

  it('changes the password only when the new one follows the rules and is confirmed', async () => {
    const service = renderProfile(new FakeSessionSource(withPhone));
    const form = (await screen.findByRole('heading', { name: 'Change password' })).closest('section')!;
    const current = within(form).getByLabelText('Current password');
    const next = within(form).getByLabelText('New password');
    const confirm = within(form).getByLabelText('Confirm new password');
    await userEvent.type(current, 'CedarCreek2025');
    await userEvent.type(next, 'short');
    await userEvent.type(confirm, 'shorter');
    await userEvent.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(within(form).getByText('Password must have at least 8 characters')).toBeInTheDocument();
    expect(within(form).getByText('Your passwords must match')).toBeInTheDocument();
    expect(service.passwordChanges).toEqual([]);

    await userEvent.clear(next);
    await userEvent.type(next, 'a new long password');
    await userEvent.clear(confirm);
    await userEvent.type(confirm, 'a new long password');
    await userEvent.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByRole('status')).toHaveTextContent('Your password has been changed.');
    expect(service.passwordChanges).toEqual([['CedarCreek2025', 'a new long password']]);
  });

  it('reports a wrong current password specifically', async () => {
    const service = new FakeAccountService();
    service.failWith = Object.assign(new Error('Incorrect username or password.'), { name: 'NotAuthorizedException' });
    renderProfile(new FakeSessionSource(withPhone), service);
    const form = (await screen.findByRole('heading', { name: 'Change password' })).closest('section')!;
    await userEvent.type(within(form).getByLabelText('Current password'), 'wrong password');
    await userEvent.type(within(form).getByLabelText('New password'), 'a new long password');
    await userEvent.type(within(form).getByLabelText('Confirm new password'), 'a new long password');
    await userEvent.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Your password was not changed: Your current password is incorrect.');
  });
});

function renderDelete(source: FakeSessionSource) {
  render(
    <UserProvider source={source}>
      <DeleteAccountScreen />
    </UserProvider>,
  );
}

describe('DeleteAccountScreen', () => {
  it('tells a visitor what deletion removes and how to do it, with a sign-in link back here', async () => {
    renderDelete(new FakeSessionSource(null));
    expect(screen.getByText(/cannot be undone/)).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Sign in here' })).toHaveAttribute('href', '/login?returnTo=%2Fdelete');
    expect(screen.queryByRole('button', { name: /Delete my account/ })).not.toBeInTheDocument();
  });

  it("links the privacy policy the brand names: the site's own page unless configured otherwise", async () => {
    renderDelete(new FakeSessionSource(null));
    expect(await screen.findByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacypolicy.html');
  });

  it('takes the privacy policy address from a brand that carries one', async () => {
    const brand = { ...defaultBrand, privacyPolicyUrl: 'https://ranch.example/privacy' };
    render(
      <BrandProvider value={brand}>
        <UserProvider source={new FakeSessionSource(null)}>
          <DeleteAccountScreen />
        </UserProvider>
      </BrandProvider>,
    );
    expect(await screen.findByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', 'https://ranch.example/privacy');
  });

  it('deletes only after the user types their email, then confirms it', async () => {
    const source = new FakeSessionSource(subscriberUser);
    renderDelete(source);
    const button = await screen.findByRole('button', { name: 'Delete my account permanently' });
    expect(button).toBeDisabled();
    await userEvent.type(screen.getByRole('textbox', { name: /Type your email address/ }), 'subscriber@trailsense.exampl');
    expect(button).toBeDisabled();
    await userEvent.type(screen.getByRole('textbox', { name: /Type your email address/ }), 'e');
    await userEvent.click(button);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your account has been deleted' })).toBeInTheDocument();
    expect(source.deleteCalls).toBe(1);
  });

  it('says why a deletion failed and deletes nothing', async () => {
    const source = new FakeSessionSource(subscriberUser);
    source.deleteError = Object.assign(new Error('A network error has occurred.'), { name: 'NetworkError' });
    renderDelete(source);
    await userEvent.type(await screen.findByRole('textbox', { name: /Type your email address/ }), subscriberUser.email);
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account permanently' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your account was not deleted: Network Error');
    expect(source.deleteCalls).toBe(0);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Delete your TrailSense account');
  });
});

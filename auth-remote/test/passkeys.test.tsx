import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { addedText, PASSKEY_TEXT, passkeyErrorText, shouldOfferPasskey, toPasskeys, type Passkey } from '../src/model/passkeys';
import { PasskeysSection } from '../src/features/profile/passkeys-section';
import type { PasskeyService } from '../src/services/passkey-service';

const named = (name: string, error: string) => Object.assign(new Error(name), { name: error });

describe('toPasskeys', () => {
  it('lists the records with an id, oldest first, naming the unnamed "Passkey"', () => {
    const listed = toPasskeys([
      { credentialId: 'b', friendlyCredentialName: 'Chrome on Mac', createdAt: new Date('2026-11-20T10:00:00Z') },
      { credentialId: undefined, friendlyCredentialName: 'no id' },
      { credentialId: 'a', friendlyCredentialName: '  ', createdAt: new Date('2026-10-01T10:00:00Z') },
      { credentialId: 'c', createdAt: new Date('not a date') },
    ]);
    expect(listed.map((p) => [p.id, p.name])).toEqual([
      ['c', 'Passkey'],
      ['a', 'Passkey'],
      ['b', 'Chrome on Mac'],
    ]);
    expect(addedText(listed[2]!)).toBe('Added November 20, 2026');
    expect(addedText(listed[0]!)).toBe('Added on an unknown day');
  });
});

describe('passkeyErrorText', () => {
  it('says a closed prompt, an unsupported browser and another site’s passkey in words', () => {
    expect(passkeyErrorText(named('x', 'PasskeyRegistrationCanceled'))).toMatch(/prompt was closed/);
    expect(passkeyErrorText(named('x', 'PasskeyNotSupported'))).toBe(PASSKEY_TEXT.unsupported);
    expect(passkeyErrorText(named('x', 'WebAuthnRelyingPartyMismatchException'))).toMatch(/not for this site/);
    expect(passkeyErrorText(new Error('TypeError at line 3'))).not.toMatch(/line 3/);
  });
});

describe('shouldOfferPasskey', () => {
  const base = { method: 'EMAIL_OTP' as const, passkeysEnabled: true, supported: true, hasPasskeys: false, offeredBefore: false };
  it('offers after a code sign-in only, once, to a member without one, where passkeys work', () => {
    expect(shouldOfferPasskey(base)).toBe(true);
    expect(shouldOfferPasskey({ ...base, method: 'PASSWORD' })).toBe(false);
    expect(shouldOfferPasskey({ ...base, method: 'WEB_AUTHN' })).toBe(false);
    expect(shouldOfferPasskey({ ...base, offeredBefore: true })).toBe(false);
    expect(shouldOfferPasskey({ ...base, hasPasskeys: true })).toBe(false);
    expect(shouldOfferPasskey({ ...base, supported: false })).toBe(false);
    expect(shouldOfferPasskey({ ...base, passkeysEnabled: false })).toBe(false);
  });
});

class FakePasskeys implements PasskeyService {
  passkeys: Passkey[] = [];
  canUse = true;
  failAdd: Error | null = null;
  supported() {
    return this.canUse;
  }
  async list() {
    return [...this.passkeys];
  }
  async add() {
    if (this.failAdd) throw this.failAdd;
    this.passkeys.push({ id: `id-${this.passkeys.length}`, name: 'Chrome on Linux', addedAt: new Date('2026-12-02T12:00:00Z') });
  }
  async remove(id: string) {
    this.passkeys = this.passkeys.filter((p) => p.id !== id);
  }
}

describe('PasskeysSection', () => {
  it('adds a passkey, lists it with its name and date, and removes it', async () => {
    const service = new FakePasskeys();
    render(<PasskeysSection service={service} />);
    expect(await screen.findByText(PASSKEY_TEXT.none)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('status')).toHaveTextContent(PASSKEY_TEXT.added);
    const list = await screen.findByRole('list', { name: 'Your passkeys' });
    expect(within(list).getByText('Chrome on Linux')).toBeInTheDocument();
    expect(within(list).getByText('Added December 2, 2026')).toBeInTheDocument();
    await userEvent.click(within(list).getByRole('button', { name: 'Remove passkey Chrome on Linux' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Passkey removed: Chrome on Linux. It can no longer sign you in.');
    expect(await screen.findByText(PASSKEY_TEXT.none)).toBeInTheDocument();
  });

  it('says why a passkey was not added, and keeps the list as it was', async () => {
    const service = new FakePasskeys();
    service.failAdd = named('closed', 'PasskeyRegistrationCanceled');
    render(<PasskeysSection service={service} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The passkey prompt was closed before it finished.');
    expect(screen.getByText(PASSKEY_TEXT.none)).toBeInTheDocument();
  });

  it('in a browser without WebAuthn, says so instead of offering the button', async () => {
    const service = new FakePasskeys();
    service.canUse = false;
    render(<PasskeysSection service={service} />);
    expect(await screen.findByRole('note')).toHaveTextContent(PASSKEY_TEXT.unsupported);
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).not.toBeInTheDocument();
  });
});

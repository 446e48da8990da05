/**
 * Passkeys on the profile and the offer after a code sign-in (docs/product.md#sign-in-without-a-password): what a
 * listed passkey shows, the words for what can go wrong, and when the offer is made. Pure: the
 * calls are services/passkey-service.ts's.
 */

/** A passkey of the member's, as the profile lists it. */
export interface Passkey {
  id: string;
  /** The name the authenticator gave it (e.g. "Chrome on Mac"), or "Passkey". */
  name: string;
  addedAt: Date | null;
}

/** What the pool says of a credential (Amplify's AuthWebAuthnCredential, fields all optional there). */
export interface PasskeyRecord {
  credentialId?: string;
  friendlyCredentialName?: string;
  createdAt?: Date;
}

/** The records as listed: those without an id (which cannot be removed) left out, oldest first. */
export function toPasskeys(records: readonly PasskeyRecord[]): Passkey[] {
  const listed: Passkey[] = [];
  for (const record of records) {
    if (!record.credentialId) continue;
    const name = record.friendlyCredentialName?.trim() || PASSKEY_TEXT.unnamed;
    const addedAt = record.createdAt instanceof Date && !Number.isNaN(record.createdAt.getTime()) ? record.createdAt : null;
    listed.push({ id: record.credentialId, name, addedAt });
  }
  return listed.sort((a, b) => (a.addedAt?.getTime() ?? 0) - (b.addedAt?.getTime() ?? 0));
}

const ADDED = new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', year: 'numeric' });

/** "Added November 20, 2026", or "Added on an unknown day". */
export function addedText(passkey: Passkey): string {
  return passkey.addedAt ? `Added ${ADDED.format(passkey.addedAt)}` : 'Added on an unknown day';
}

/** The profile's and the offer's words (docs/product.md#profile-page cites them here). */
export const PASSKEY_TEXT = {
  unnamed: 'Passkey',
  none: 'You have no passkeys yet. A passkey signs you in with this device’s fingerprint, face or screen lock instead of a password.',
  add: 'Add a passkey',
  adding: 'Waiting for your device…',
  added: 'Passkey added. Next time, choose Other sign-in options, then Sign In with a Passkey.',
  removed: (name: string) => `Passkey removed: ${name}. It can no longer sign you in.`,
  remove: (name: string) => `Remove passkey ${name}`,
  unsupported: 'This browser cannot use passkeys. Sign in with your password or an e-mailed code instead.',
  offerHeading: 'Sign in faster next time',
  offerText: 'Add a passkey and sign in with this device’s fingerprint, face or screen lock: no password and no code to wait for.',
  offerLater: 'Not now',
} as const;

/** Amplify's passkey error names (PasskeyErrorCode) and the pool's, in the member's words. */
export function passkeyErrorText(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  switch (name) {
    case 'PasskeyRegistrationCanceled':
    case 'PasskeyAuthenticationCanceled':
    case 'PasskeyOperationAborted':
      return 'The passkey prompt was closed before it finished. Try again when you are ready.';
    case 'PasskeyNotSupported':
      return PASSKEY_TEXT.unsupported;
    case 'PasskeyAlreadyExists':
      return 'This device already holds a passkey for your account: use it to sign in, or remove it below first.';
    case 'RelyingPartyMismatch':
    case 'WebAuthnRelyingPartyMismatchException':
    case 'WebAuthnOriginNotAllowedException':
      return 'This passkey is not for this site. Add one here, on this site.';
    case 'WebAuthnNotEnabledException':
    case 'WebAuthnConfigurationMissingException':
      return 'Passkeys are not available for this account yet. Sign in with your password or an e-mailed code.';
    case 'WebAuthnChallengeNotFoundException':
      return 'That took too long. Try again.';
    case 'NetworkError':
      return 'Network Error';
    case 'NotAuthorizedException':
    case 'UserUnAuthenticatedException':
      return 'Your session has expired. Sign in again and retry.';
    case 'LimitExceededException':
    case 'TooManyRequestsException':
      return 'Too many attempts. Wait a few minutes, then try again.';
    default:
      return 'The passkey could not be saved or used. Try again, or sign in with your password or an e-mailed code.';
  }
}

/** How the member signed in, as the kit was asked (PASSWORD, EMAIL_OTP, WEB_AUTHN). */
export type SignInMethod = 'PASSWORD' | 'EMAIL_OTP' | 'WEB_AUTHN';

/** The offer after sign-in: only after a code, where passkeys are on and work, to a member without one, once. */
export function shouldOfferPasskey(input: {
  method: SignInMethod | null;
  passkeysEnabled: boolean;
  supported: boolean;
  hasPasskeys: boolean;
  offeredBefore: boolean;
}): boolean {
  return input.method === 'EMAIL_OTP' && input.passkeysEnabled && input.supported && !input.hasPasskeys && !input.offeredBefore;
}

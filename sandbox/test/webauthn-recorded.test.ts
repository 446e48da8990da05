/**
 * The gateway's passkey verification (src/gateway/webauthn.ts) against a registration and an
 * assertion recorded from real Chromium (test/fixtures/webauthn/chromium.json, made by
 * test/fixtures/webauthn/record-webauthn.mjs): it takes them as they are, and refuses each with another
 * origin, relying party id or challenge, a changed signature byte, or a sign counter that went back.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { verifyAssertion, verifyRegistration } from '../src/gateway/webauthn';
import type { RelyingParty, StoredPasskey } from '../src/gateway/webauthn';
import { CognitoFault } from '../src/gateway/errors';

interface Fixture {
  origin: string;
  rpId: string;
  registration: { challenge: string; credential: Record<string, unknown> & { id: string; response: Record<string, unknown> } };
  assertion: { challenge: string; credential: Record<string, unknown> & { response: Record<string, string> } };
}

const fixture = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'webauthn', 'chromium.json'), 'utf8')) as Fixture;
const rp: RelyingParty = { id: fixture.rpId, origins: [fixture.origin], userVerification: 'required' };
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

async function registered(): Promise<StoredPasskey> {
  const verified = await verifyRegistration({ credential: fixture.registration.credential, challenge: fixture.registration.challenge, rp });
  return { ...verified, FriendlyCredentialName: 'Passkey', CreatedAt: 0 };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof CognitoFault) return err.type;
    throw err;
  }
  throw new Error('verification unexpectedly succeeded');
}

/** The assertion with its clientDataJSON rewritten (and so no longer what was signed). */
function withClientData(change: (data: Record<string, unknown>) => void) {
  const credential = clone(fixture.assertion.credential);
  const data = JSON.parse(Buffer.from(credential.response['clientDataJSON']!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(data);
  credential.response['clientDataJSON'] = Buffer.from(JSON.stringify(data)).toString('base64url');
  return credential;
}

describe('a registration recorded from Chromium', () => {
  it('verifies, with the credential id, COSE key, counter and transports the browser gave', async () => {
    const stored = await registered();
    expect(stored).toMatchObject({
      CredentialId: fixture.registration.credential.id,
      RelyingPartyId: 'localhost',
      AuthenticatorAttachment: 'platform',
      AuthenticatorTransports: ['internal'],
    });
    expect(stored.Counter).toBeGreaterThanOrEqual(0);
  });

  it('is refused for another origin, relying party or challenge', async () => {
    const { credential, challenge } = fixture.registration;
    expect(await refusal(verifyRegistration({ credential, challenge, rp: { ...rp, origins: ['http://localhost:3000'] } }))).toBe(
      'WebAuthnOriginNotAllowedException',
    );
    expect(await refusal(verifyRegistration({ credential, challenge, rp: { ...rp, id: 'trailsense.example' } }))).toBe('WebAuthnRelyingPartyMismatchException');
    expect(await refusal(verifyRegistration({ credential, challenge: Buffer.from('another challenge').toString('base64url'), rp }))).toBe(
      'WebAuthnChallengeNotFoundException',
    );
  });

  it('is refused when its authenticator data names another relying party', async () => {
    // "none" attestation signs nothing: what the browser's authenticator scoped it to is all there is to check.
    const credential = clone(fixture.registration.credential);
    const bytes = Buffer.from(credential.response['attestationObject'] as string, 'base64url');
    const at = bytes.indexOf(createHash('sha256').update(fixture.rpId).digest());
    expect(at).toBeGreaterThan(0);
    bytes[at]! ^= 0x01;
    credential.response['attestationObject'] = bytes.toString('base64url');
    expect(await refusal(verifyRegistration({ credential, challenge: fixture.registration.challenge, rp }))).toBe('WebAuthnRelyingPartyMismatchException');
  });
});

describe('an assertion recorded from Chromium', () => {
  it('verifies against the recorded registration, moving the counter on', async () => {
    const stored = await registered();
    const counter = await verifyAssertion({ credential: fixture.assertion.credential, challenge: fixture.assertion.challenge, rp, stored });
    expect(counter).toBeGreaterThan(stored.Counter);
  });

  it('is refused for another origin, relying party id or challenge', async () => {
    const stored = await registered();
    const { credential, challenge } = fixture.assertion;
    expect(await refusal(verifyAssertion({ credential, challenge, rp: { ...rp, origins: ['http://localhost:3000'] }, stored }))).toBe('NotAuthorizedException');
    expect(
      await refusal(
        verifyAssertion({ credential, challenge, rp: { ...rp, id: 'trailsense.example' }, stored: { ...stored, RelyingPartyId: 'trailsense.example' } }),
      ),
    ).toBe('NotAuthorizedException');
    expect(await refusal(verifyAssertion({ credential, challenge: fixture.registration.challenge, rp, stored }))).toBe('NotAuthorizedException');
  });

  it('is refused when its client data was rewritten to another origin or challenge', async () => {
    const stored = await registered();
    const moved = withClientData((d) => (d['origin'] = 'http://localhost:3000'));
    expect(
      await refusal(verifyAssertion({ credential: moved, challenge: fixture.assertion.challenge, rp: { ...rp, origins: ['http://localhost:3000'] }, stored })),
    ).toBe('NotAuthorizedException');
    const other = Buffer.from('a challenge of my own').toString('base64url');
    expect(await refusal(verifyAssertion({ credential: withClientData((d) => (d['challenge'] = other)), challenge: other, rp, stored }))).toBe(
      'NotAuthorizedException',
    );
  });

  it('is refused with a changed signature byte or authenticator data byte', async () => {
    const stored = await registered();
    for (const field of ['signature', 'authenticatorData']) {
      const credential = clone(fixture.assertion.credential);
      const bytes = Buffer.from(credential.response[field]!, 'base64url');
      bytes[bytes.length - 1]! ^= 0x01;
      credential.response[field] = bytes.toString('base64url');
      expect([field, await refusal(verifyAssertion({ credential, challenge: fixture.assertion.challenge, rp, stored }))]).toEqual([
        field,
        'NotAuthorizedException',
      ]);
    }
  });

  it('is refused when the stored counter is already at or past its counter (a cloned authenticator or a replay)', async () => {
    const stored = await registered();
    const { credential, challenge } = fixture.assertion;
    const counter = await verifyAssertion({ credential, challenge, rp, stored });
    expect(await refusal(verifyAssertion({ credential, challenge, rp, stored: { ...stored, Counter: counter } }))).toBe('NotAuthorizedException');
    expect(await refusal(verifyAssertion({ credential, challenge, rp, stored: { ...stored, Counter: counter + 10 } }))).toBe('NotAuthorizedException');
  });

  it('is refused with another credential’s key', async () => {
    const stored = await registered();
    const otherKey = 'pQECAyYgASFYIH45w89T414bq53eR5-NBGAfAy4LyWELqZvMCerlBxNtIlggm0X1xWgW3mWqo6Vjoem62MXx-yoohnL1jjJtIde8NZo';
    const wrong = { ...stored, PublicKey: otherKey === stored.PublicKey ? otherKey.replace('pQEC', 'pQED') : otherKey };
    expect(await refusal(verifyAssertion({ credential: fixture.assertion.credential, challenge: fixture.assertion.challenge, rp, stored: wrong }))).toBe(
      'NotAuthorizedException',
    );
  });
});

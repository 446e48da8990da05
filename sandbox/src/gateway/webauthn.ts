/**
 * The WebAuthn ceremonies as Cognito checks them, verified by @simplewebauthn/server: a
 * registration (CompleteWebAuthnRegistration) and an assertion (a WEB_AUTHN challenge's
 * CREDENTIAL). Each check that Cognito answers with an exception of its own is made here first,
 * so the refusal names it: the challenge, the origin, the relying party id; the library then
 * verifies everything (again), the signature and the sign counter included.
 *
 * Pure but for the library: the relying party, its origins and the stored credential are passed
 * in; passkeys.ts keeps the credentials, user-auth.ts the sign-in challenges.
 */
import { createHash } from 'node:crypto';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { decodeAttestationObject, isoBase64URL, parseAuthenticatorData } from '@simplewebauthn/server/helpers';
import { SITE_ORIGINS } from '../http-util';
import { CognitoFault } from './errors';

/**
 * The relying party: the site's host. Cognito's is the pool's WebAuthnRelyingPartyId (production's:
 * infra/src/stacks/identity-stack.ts); here the site runs on localhost (src/http-util.ts SITE_ORIGINS).
 */
export const PASSKEY_RP_ID = 'localhost';

/**
 * The origins a passkey may be made or used on: the site's (src/http-util.ts), those of them whose
 * host is the relying party id (a browser refuses rpId "localhost" on 127.0.0.1).
 */
export const PASSKEY_ORIGINS: readonly string[] = SITE_ORIGINS.filter((o) => new URL(o).hostname === PASSKEY_RP_ID);

export interface RelyingParty {
  id: string;
  origins: readonly string[];
  /**
   * The pool's WebAuthnUserVerification: production's is "required" (infra/src/stacks/identity-stack.ts
   * SIGN_IN), so a passkey used or made without a PIN or biometric is refused there, and here.
   */
  userVerification: 'required' | 'preferred';
}

export const SITE_RELYING_PARTY: RelyingParty = { id: PASSKEY_RP_ID, origins: PASSKEY_ORIGINS, userVerification: 'required' };

/** A registered passkey, as the sandbox keeps it on the user (passkeys.ts). */
export interface StoredPasskey {
  CredentialId: string;
  /** The COSE public key, base64url. */
  PublicKey: string;
  Counter: number;
  RelyingPartyId: string;
  FriendlyCredentialName: string;
  AuthenticatorAttachment?: string;
  AuthenticatorTransports: string[];
  /** Seconds since the epoch (a `*Date` name would have to hold a Date: json-store.ts). */
  CreatedAt: number;
}

/** Cognito's refusal of a sign-in whose passkey answer does not verify (RespondToAuthChallenge lists no WebAuthn exception). */
export const PASSKEY_SIGN_IN_REFUSED = 'Failed to verify the WebAuthn credential.';

const notSupported = (why: string) => new CognitoFault('WebAuthnCredentialNotSupportedException', `The passkey credential is not supported: ${why}`);
const challengeNotFound = () => new CognitoFault('WebAuthnChallengeNotFoundException', 'The WebAuthn registration challenge was not found or has expired.');
const originNotAllowed = (origin: string) => new CognitoFault('WebAuthnOriginNotAllowedException', `The origin ${origin} is not allowed for this user pool.`);
const rpMismatch = () => new CognitoFault('WebAuthnRelyingPartyMismatchException', 'The passkey credential was made for another relying party.');

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

interface ClientData {
  type?: unknown;
  challenge?: unknown;
  origin?: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The credential's `response` fields as base64url strings, or InvalidParameterException. */
function responseField(credential: Record<string, unknown>, field: string): string {
  const response = credential['response'];
  const value = isObject(response) ? response[field] : undefined;
  if (typeof value !== 'string' || !isoBase64URL.isBase64URL(value)) {
    throw new CognitoFault('InvalidParameterException', `Credential.response.${field} must be a base64url string`);
  }
  return value;
}

function clientData(encoded: string): ClientData {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (isObject(parsed)) return parsed;
  } catch {
    // answered below
  }
  throw new CognitoFault('InvalidParameterException', 'Credential.response.clientDataJSON is not a JSON object');
}

function assertCredentialShape(credential: unknown): asserts credential is Record<string, unknown> {
  if (!isObject(credential)) throw new CognitoFault('InvalidParameterException', 'Credential must be a JSON object');
  const id = credential['id'];
  if (typeof id !== 'string' || id === '' || !isoBase64URL.isBase64URL(id))
    throw new CognitoFault('InvalidParameterException', 'Credential.id must be a base64url string');
  if (credential['type'] !== 'public-key') throw new CognitoFault('InvalidParameterException', 'Credential.type must be "public-key"');
}

/**
 * Verifies a registration (a PublicKeyCredential with its attestation, as Amplify's
 * passkey helpers send it) against the challenge Cognito gave. Attestation
 * statements are checked as far as the library checks them; no trust chain is asked for
 * (Cognito's options ask for no attestation).
 */
export async function verifyRegistration(opts: {
  credential: unknown;
  challenge: string;
  rp: RelyingParty;
}): Promise<Omit<StoredPasskey, 'FriendlyCredentialName' | 'CreatedAt'>> {
  const { credential, challenge, rp } = opts;
  assertCredentialShape(credential);
  const data = clientData(responseField(credential, 'clientDataJSON'));
  const attestation = responseField(credential, 'attestationObject');
  if (data.type !== 'webauthn.create') throw notSupported('clientDataJSON.type is not webauthn.create');
  if (data.challenge !== challenge) throw challengeNotFound();
  if (typeof data.origin !== 'string' || !rp.origins.includes(data.origin)) throw originNotAllowed(String(data.origin));
  let rpIdHash: Uint8Array | undefined;
  try {
    rpIdHash = parseAuthenticatorData(decodeAttestationObject(isoBase64URL.toBuffer(attestation)).get('authData')).rpIdHash;
  } catch (err) {
    throw notSupported(`attestationObject does not decode (${(err as Error).message})`);
  }
  if (!rpIdHash || !sha256(rp.id).equals(Buffer.from(rpIdHash))) throw rpMismatch();
  let result;
  try {
    result = await verifyRegistrationResponse({
      response: credential as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.id,
      requireUserVerification: rp.userVerification === 'required',
    });
  } catch (err) {
    throw notSupported((err as Error).message);
  }
  if (!result.verified) throw notSupported('the attestation does not verify');
  const info = result.registrationInfo;
  const attachment = credential['authenticatorAttachment'];
  const transports = (credential['response'] as Record<string, unknown>)['transports'];
  return {
    CredentialId: info.credential.id,
    PublicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
    Counter: info.credential.counter,
    RelyingPartyId: rp.id,
    ...(attachment === 'platform' || attachment === 'cross-platform' ? { AuthenticatorAttachment: attachment } : {}),
    AuthenticatorTransports: Array.isArray(transports) ? transports.filter((t): t is string => typeof t === 'string').slice(0, 10) : [],
  };
}

/** The credential id an assertion names, or InvalidParameterException when it is no credential. */
export function assertionCredentialId(credential: unknown): string {
  assertCredentialShape(credential);
  return credential['id'] as string;
}

/**
 * Verifies an assertion (a PublicKeyCredential with its assertion, as Amplify sends it) for the challenge of the
 * session it answers, made with `stored`: the new sign counter, or NotAuthorizedException for
 * anything that does not verify — another challenge, origin or relying party, a bad signature, a
 * counter that did not move on.
 */
export async function verifyAssertion(opts: { credential: unknown; challenge: string; rp: RelyingParty; stored: StoredPasskey }): Promise<number> {
  const { credential, challenge, rp, stored } = opts;
  assertCredentialShape(credential);
  responseField(credential, 'clientDataJSON');
  responseField(credential, 'authenticatorData');
  responseField(credential, 'signature');
  const refused = () => new CognitoFault('NotAuthorizedException', PASSKEY_SIGN_IN_REFUSED);
  if (stored.RelyingPartyId !== rp.id) throw refused();
  try {
    const result = await verifyAuthenticationResponse({
      response: credential as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.id,
      credential: { id: stored.CredentialId, publicKey: isoBase64URL.toBuffer(stored.PublicKey), counter: stored.Counter },
      requireUserVerification: rp.userVerification === 'required',
    });
    if (!result.verified) throw refused();
    return result.authenticationInfo.newCounter;
  } catch (err) {
    if (err instanceof CognitoFault) throw err;
    throw refused();
  }
}

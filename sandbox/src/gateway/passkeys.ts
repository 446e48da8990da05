/**
 * Passkey registration and management (StartWebAuthnRegistration, CompleteWebAuthnRegistration,
 * ListWebAuthnCredentials, DeleteWebAuthnCredential) for the signed-in user whose access token
 * user-pool.ts has checked. The credentials live on the user's record in cognito-local's pool
 * file (json-store.ts), so a restart keeps them and deleting the user drops them.
 *
 * A registration challenge is held in memory for one answer, for AUTH_SESSION_MS; a new Start
 * replaces it. Verification is webauthn.ts's.
 */
import { randomBytes } from 'node:crypto';
import { attributeValue } from 'cognito-local/lib/services/userPoolService';
import { ctx } from './cognito-local';
import type { CognitoLocal, User } from './cognito-local';
import { CognitoFault } from './errors';
import { required, verifiedSub } from './request-body';
import type { Body } from './request-body';
import { verifyRegistration } from './webauthn';
import type { RelyingParty, StoredPasskey } from './webauthn';

/** Cognito's authentication-session lifetime (an app client's AuthSessionValidity, 3 minutes by default). */
export const AUTH_SESSION_MS = 3 * 60 * 1000;
/** Passkeys a user may register. */
export const MAX_PASSKEYS_PER_USER = 20;
/** ListWebAuthnCredentials' page size, at most and by default. */
export const MAX_LIST_RESULTS = 20;

/** A user as the pool file holds it, with the passkeys the gateway adds. */
export type UserWithPasskeys = User & { WebAuthnCredentials?: StoredPasskey[] };

export function passkeysOf(user: UserWithPasskeys | null | undefined): StoredPasskey[] {
  const list = user?.WebAuthnCredentials;
  return Array.isArray(list) ? list : [];
}

export interface PasskeyDeps {
  cognito: CognitoLocal;
  findUser(username: string): Promise<User | null>;
  rp: RelyingParty;
  now: () => number;
}

export function createPasskeys(deps: PasskeyDeps) {
  /** Pending registration challenges by user (sub). */
  const pending = new Map<string, { challenge: string; expires: number }>();

  async function signedInUser(body: Body): Promise<UserWithPasskeys> {
    const user = await deps.findUser(verifiedSub(required(body, 'AccessToken')));
    if (!user) throw new CognitoFault('UserNotFoundException', 'User does not exist.');
    return user;
  }

  async function savePasskeys(user: User, list: StoredPasskey[]): Promise<void> {
    // Read again just before writing, so a concurrent change to the user is not lost.
    const current = (await deps.findUser(user.Username)) ?? user;
    await deps.cognito.pool.saveUser(ctx, { ...current, WebAuthnCredentials: list } as UserWithPasskeys);
  }

  async function start(body: Body): Promise<unknown> {
    const user = await signedInUser(body);
    const challenge = randomBytes(32).toString('base64url');
    for (const [sub, p] of pending) if (p.expires < deps.now()) pending.delete(sub);
    pending.set(user.Username, { challenge, expires: deps.now() + AUTH_SESSION_MS });
    const email = attributeValue('email', user.Attributes) ?? user.Username;
    return {
      CredentialCreationOptions: {
        challenge,
        rp: { id: deps.rp.id, name: deps.rp.id },
        user: { id: Buffer.from(user.Username).toString('base64url'), name: email, displayName: attributeValue('name', user.Attributes) ?? email },
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -257 },
        ],
        timeout: 60000,
        excludeCredentials: passkeysOf(user).map((p) => ({ type: 'public-key', id: p.CredentialId, transports: p.AuthenticatorTransports })),
        authenticatorSelection: { residentKey: 'required', userVerification: deps.rp.userVerification },
      },
    };
  }

  async function complete(body: Body): Promise<unknown> {
    const user = await signedInUser(body);
    const credential = body['Credential'];
    if (credential === undefined || credential === null) throw new CognitoFault('InvalidParameterException', 'Missing required parameter Credential');
    const held = pending.get(user.Username);
    // One answer per challenge, right or wrong: a replayed registration finds none.
    pending.delete(user.Username);
    if (!held || held.expires < deps.now())
      throw new CognitoFault('WebAuthnChallengeNotFoundException', 'The WebAuthn registration challenge was not found or has expired.');
    const verified = await verifyRegistration({ credential, challenge: held.challenge, rp: deps.rp });
    const list = passkeysOf(user);
    if (list.some((p) => p.CredentialId === verified.CredentialId)) throw new CognitoFault('InvalidParameterException', 'This passkey is already registered.');
    if (list.length >= MAX_PASSKEYS_PER_USER)
      throw new CognitoFault('LimitExceededException', `A user can register at most ${MAX_PASSKEYS_PER_USER} passkeys.`);
    const stored: StoredPasskey = { ...verified, FriendlyCredentialName: 'Passkey', CreatedAt: Math.floor(deps.now() / 1000) };
    await savePasskeys(user, [...list, stored]);
    return {};
  }

  async function list(body: Body): Promise<unknown> {
    const user = await signedInUser(body);
    const max = body['MaxResults'];
    if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_LIST_RESULTS)) {
      throw new CognitoFault('InvalidParameterException', `MaxResults must be an integer from 1 to ${MAX_LIST_RESULTS}`);
    }
    const size = max ?? MAX_LIST_RESULTS;
    const token = body['NextToken'];
    let offset = 0;
    if (token !== undefined) {
      const parsed = typeof token === 'string' ? /^(\d{1,4})\.([A-Za-z0-9_-]{1,200})$/.exec(Buffer.from(token, 'base64url').toString('utf8')) : null;
      if (!parsed || parsed[2] !== Buffer.from(user.Username).toString('base64url')) throw new CognitoFault('InvalidParameterException', 'Invalid NextToken');
      offset = Number(parsed[1]);
    }
    const all = passkeysOf(user);
    const page = all.slice(offset, offset + size);
    const next =
      offset + size < all.length ? Buffer.from(`${offset + size}.${Buffer.from(user.Username).toString('base64url')}`).toString('base64url') : undefined;
    return {
      Credentials: page.map((p) => ({
        CredentialId: p.CredentialId,
        FriendlyCredentialName: p.FriendlyCredentialName,
        RelyingPartyId: p.RelyingPartyId,
        ...(p.AuthenticatorAttachment ? { AuthenticatorAttachment: p.AuthenticatorAttachment } : {}),
        AuthenticatorTransports: p.AuthenticatorTransports,
        CreatedAt: p.CreatedAt,
      })),
      ...(next ? { NextToken: next } : {}),
    };
  }

  async function remove(body: Body): Promise<unknown> {
    const user = await signedInUser(body);
    const id = required(body, 'CredentialId');
    const all = passkeysOf(user);
    if (!all.some((p) => p.CredentialId === id)) throw new CognitoFault('ResourceNotFoundException', 'The WebAuthn credential was not found.');
    await savePasskeys(
      user,
      all.filter((p) => p.CredentialId !== id),
    );
    return {};
  }

  /** A sign-in used a passkey: its new sign counter is kept. */
  async function used(user: User, credentialId: string, counter: number): Promise<void> {
    const current = await deps.findUser(user.Username);
    if (!current) return;
    await savePasskeys(
      current,
      passkeysOf(current).map((p) => (p.CredentialId === credentialId ? { ...p, Counter: counter } : p)),
    );
  }

  return { start, complete, list, remove, used };
}

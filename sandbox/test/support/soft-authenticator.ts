/**
 * A software passkey authenticator for tests: a P-256 key per credential, "none" attestation,
 * answers shaped as Amplify's passkey helpers serialize a browser's PublicKeyCredential. The
 * browser's own answers are recorded in test/fixtures/webauthn/ (record-webauthn.mjs there); this
 * one can be pointed at any origin and relying party, which is what the refusals need. */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  cose: Uint8Array;
  counter: number;
}

export interface Ceremony {
  /** The page's origin the browser would put in clientDataJSON. */
  origin: string;
  /** The relying party id the authenticator scopes the credential to (default: the options'). */
  rpId?: string;
  /** Whether the member was verified (PIN, biometric): the authenticator data's UV flag; default true. */
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  private authData(rpId: string, flags: number, counter: number, attested?: SoftCredential): Buffer {
    const head = Buffer.alloc(37);
    sha256(rpId).copy(head, 0);
    head[32] = flags;
    head.writeUInt32BE(counter, 33);
    if (!attested) return head;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(attested.id.length);
    return Buffer.concat([head, Buffer.alloc(16), idLength, attested.id, Buffer.from(attested.cose)]);
  }

  /** navigator.credentials.create() for CredentialCreationOptions (JSON), serialized as Amplify does. */
  register(options: { challenge: string; rp: { id?: string } }, ceremony: Ceremony): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const credential: SoftCredential = { id: randomBytes(16), privateKey, cose, counter: 0 };
    const rpId = ceremony.rpId ?? options.rp.id ?? new URL(ceremony.origin).hostname;
    const authData = this.authData(rpId, ceremony.userVerified === false ? 0x41 : 0x45, 0, credential); // UP, UV, AT
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, never>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, never>()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: ceremony.origin, crossOrigin: false });
    this.credentials.push(credential);
    return {
      type: 'public-key',
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'],
        publicKeyAlgorithm: -7,
        authenticatorData: b64url(authData),
      },
    };
  }

  /** navigator.credentials.get() for CREDENTIAL_REQUEST_OPTIONS (parsed), with the newest credential unless told. */
  assert(options: { challenge: string; rpId?: string }, ceremony: Ceremony & { credential?: SoftCredential; counter?: number }): Record<string, unknown> {
    const credential = ceremony.credential ?? this.credentials.at(-1);
    if (!credential) throw new Error('no credential registered');
    credential.counter = ceremony.counter ?? credential.counter + 1;
    const rpId = ceremony.rpId ?? options.rpId ?? new URL(ceremony.origin).hostname;
    const authData = this.authData(rpId, ceremony.userVerified === false ? 0x01 : 0x05, credential.counter); // UP, UV
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: ceremony.origin, crossOrigin: false });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature) },
    };
  }
}

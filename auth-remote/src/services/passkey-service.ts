import { associateWebAuthnCredential, deleteWebAuthnCredential, listWebAuthnCredentials } from 'aws-amplify/auth';
import { toPasskeys, type Passkey, type PasskeyRecord } from '../model/passkeys';

/** The member's passkeys, through the page's one Amplify; injected so component tests run with fakes. */
export interface PasskeyService {
  /** Whether this browser can make and use passkeys at all. */
  supported(): boolean;
  list(): Promise<Passkey[]>;
  /** Asks the device for a new passkey and registers it with the pool. */
  add(): Promise<void>;
  remove(id: string): Promise<void>;
}

/** The pool lists at most 20 a page; a member has a handful. */
const PAGE = 20;

export const amplifyPasskeyService: PasskeyService = {
  supported() {
    return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && typeof navigator.credentials?.create === 'function';
  },
  async list() {
    const records: PasskeyRecord[] = [];
    let nextToken: string | undefined;
    do {
      const page = await listWebAuthnCredentials({ pageSize: PAGE, ...(nextToken ? { nextToken } : {}) });
      for (const c of page.credentials)
        records.push({ credentialId: c.credentialId, friendlyCredentialName: c.friendlyCredentialName, createdAt: c.createdAt });
      nextToken = page.nextToken;
    } while (nextToken);
    return toPasskeys(records);
  },
  async add() {
    await associateWebAuthnCredential();
  },
  async remove(id) {
    await deleteWebAuthnCredential({ credentialId: id });
  },
};

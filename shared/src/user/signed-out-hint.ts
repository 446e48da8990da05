/**
 * Who signed out last in this tab, kept in sessionStorage so the sign-in page (another remote)
 * can offer to forget what this computer keeps of their uploads: file names, folders, batches
 * (docs/product.md#shared-computers). Only an explicit sign-out sets it; the next sign-in, or the
 * offer answered, clears it. Never throws: storage may be unavailable.
 */
export interface SignedOutUser {
  sub: string;
  email: string;
}

const KEY = 'trailsense.signed-out';

type HintStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The tab's sessionStorage, or null where there is none (or it refuses). */
export function tabStorage(): HintStore | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

export function rememberSignedOut(storage: HintStore | null, user: SignedOutUser): void {
  try {
    storage?.setItem(KEY, JSON.stringify({ sub: user.sub, email: user.email }));
  } catch {
    // A full or disabled storage: the offer is not made, nothing else changes.
  }
}

export function signedOutUser(storage: HintStore | null): SignedOutUser | null {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as { sub?: unknown; email?: unknown };
    return typeof value.sub === 'string' && value.sub && typeof value.email === 'string' ? { sub: value.sub, email: value.email } : null;
  } catch {
    return null;
  }
}

export function clearSignedOut(storage: HintStore | null): void {
  try {
    storage?.removeItem(KEY);
  } catch {
    // Nothing to clear where there is no storage.
  }
}

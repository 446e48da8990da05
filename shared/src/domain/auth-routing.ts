import type { AuthStatus } from '../user/user-state';

/** The sign-in route, where the guard sends visitors. */
export const LOGIN_PATH = '/login';
/** The query parameter that carries where a visitor was going when the guard stopped them. */
export const RETURN_TO_PARAM = 'returnTo';

/** What a route guard does for a given auth status. */
export type GuardDecision = { kind: 'render' } | { kind: 'wait' } | { kind: 'redirect'; to: string };

/**
 * Decides whether a route renders, waits for the session to be read, or sends the visitor to
 * /login remembering where they were going.
 */
export function guardDecision(status: AuthStatus, requiresAuth: boolean, currentPath: string): GuardDecision {
  if (!requiresAuth) return { kind: 'render' };
  switch (status) {
    case 'authenticated':
      return { kind: 'render' };
    case 'configuring':
      return { kind: 'wait' };
    case 'unauthenticated':
    case 'no-provider':
      return { kind: 'redirect', to: loginPathFor(currentPath) };
  }
}

/** Where sign-in leads when the visitor was going nowhere in particular. */
export const UPLOADER_PATH = '/uploader';
/** Where a user without a ranch lands: they cannot upload. */
export const PROFILE_PATH = '/profile';

/**
 * Where to go after a sign-in (docs/product.md#after-sign-in-and-sign-out): back to the page the guard stopped the user at, or
 * the uploader; a user without a ranch id cannot upload, so the profile instead of the uploader.
 */
export function afterSignInPath(user: { ranchId?: string }, returnTo: string | null | undefined): string {
  const wanted = safeReturnPath(returnTo);
  const wantedPath = wanted?.split(/[?#]/)[0];
  if (!user.ranchId) return wanted && wantedPath !== UPLOADER_PATH ? wanted : PROFILE_PATH;
  return wanted ?? UPLOADER_PATH;
}

/** `/login?returnTo=…` for a path the visitor wanted; a plain /login when there is nothing safe to return to. */
export function loginPathFor(returnTo: string): string {
  const safe = safeReturnPath(returnTo);
  return safe ? `${LOGIN_PATH}?${RETURN_TO_PARAM}=${encodeURIComponent(safe)}` : LOGIN_PATH;
}

/**
 * Accepts only a path on this site (so a crafted link cannot send a user elsewhere after
 * sign-in) and never /login itself.
 */
export function safeReturnPath(raw: string | null | undefined): string | null {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return null;
  let url: URL;
  try {
    url = new URL(raw, 'https://site.invalid');
  } catch {
    return null;
  }
  if (url.origin !== 'https://site.invalid' || url.pathname === LOGIN_PATH) return null;
  // Dot segments are resolved above: `/.//evil.example` becomes `//evil.example`, which a browser
  // reads as another host. What comes out must pass this check again (the function is idempotent).
  if (url.pathname.startsWith('//')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

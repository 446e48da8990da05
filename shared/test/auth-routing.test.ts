import { afterSignInPath, guardDecision, loginPathFor, safeReturnPath } from '../src/domain/auth-routing';

describe('guardDecision', () => {
  it('renders a public route whatever the status', () => {
    for (const status of ['configuring', 'authenticated', 'unauthenticated', 'no-provider'] as const) {
      expect(guardDecision(status, false, '/support')).toEqual({ kind: 'render' });
    }
  });

  it('renders a protected route for a signed-in user', () => {
    expect(guardDecision('authenticated', true, '/uploader')).toEqual({ kind: 'render' });
  });

  it('waits while the session is still being read, rather than redirecting a signed-in user', () => {
    expect(guardDecision('configuring', true, '/uploader')).toEqual({ kind: 'wait' });
  });

  it('sends a visitor to /login, remembering the page and its query', () => {
    expect(guardDecision('unauthenticated', true, '/profile?tab=password')).toEqual({
      kind: 'redirect',
      to: '/login?returnTo=%2Fprofile%3Ftab%3Dpassword',
    });
  });
});

describe('safeReturnPath', () => {
  it('keeps a same-site path with its query and hash', () => {
    expect(safeReturnPath('/uploader?camera=2#list')).toBe('/uploader?camera=2#list');
  });

  it.each([
    ['an absolute URL', 'https://evil.example/phish'],
    ['a protocol-relative URL', '//evil.example/phish'],
    ['a backslash trick', '/\\evil.example'],
    ['a relative path', 'uploader'],
    ['the login page itself', '/login'],
    ['nothing', null],
    ['a dot segment before a protocol-relative URL', '/.//evil.example'],
    ['dot segments that climb to a protocol-relative URL', '/a/..//evil.example/x'],
    ['an encoded dot segment', '/%2e//evil.example'],
  ])('refuses %s', (_label, raw) => {
    expect(safeReturnPath(raw)).toBeNull();
  });

  it.each([
    '/uploader?camera=2#list',
    '/a/../profile',
    '/./uploader',
    '/.//evil.example',
    '/%2e//evil.example',
    '/x/%2e%2e/delete',
    '/about/',
    '/a//b',
    '/.///evil.example',
    '/..//..//evil',
  ])('is idempotent: what it returns for %s it returns again for its own answer', (raw) => {
    const once = safeReturnPath(raw);
    if (once !== null) expect(safeReturnPath(once)).toBe(once);
  });
});

describe('loginPathFor', () => {
  it('encodes the return path', () => {
    expect(loginPathFor('/uploader')).toBe('/login?returnTo=%2Fuploader');
  });

  it('gives plain /login when the path is not safe', () => {
    expect(loginPathFor('https://evil.example')).toBe('/login');
  });
});

describe('afterSignInPath', () => {
  const ranch = { ranchId: 'cedar-creek' };
  const noRanch = {};

  it.each([
    ['a ranch member going nowhere in particular', ranch, null, '/uploader'],
    ['a ranch member the guard stopped at /profile', ranch, '/profile', '/profile'],
    ['a ranch member coming back to /delete', ranch, '/delete', '/delete'],
    ['a user without a ranch', noRanch, null, '/profile'],
    ['a user without a ranch who wanted the uploader', noRanch, '/uploader', '/profile'],
    ['a user without a ranch coming back to /delete', noRanch, '/delete', '/delete'],
    ['anyone with an unsafe return path', ranch, 'https://evil.example', '/uploader'],
  ])('sends %s to the right page', (_label, user, returnTo, expected) => {
    expect(afterSignInPath(user, returnTo)).toBe(expected);
  });
});

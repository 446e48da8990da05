import { hasStoredSession, readSessionHint, type HintStorage } from '../src/user/session-hint';

const CLIENT = 'client123';

/** A Storage over a plain map, as localStorage would hold Amplify's keys. */
function storage(entries: Record<string, string>): HintStorage {
  const keys = Object.keys(entries);
  return { length: keys.length, key: (i) => keys[i] ?? null, getItem: (k) => entries[k] ?? null };
}

function jwt(claims: unknown): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part(claims)}.signature`;
}

const base = `CognitoIdentityServiceProvider.${CLIENT}`;
const claims = { sub: 'u-1', email: 'ranch@example.com', 'custom:ranchid': 'cedar-creek', name: 'Sam Ñandú' };

function amplifySession(extra: Record<string, string> = {}, idClaims: Record<string, unknown> = claims) {
  return storage({
    [`${base}.LastAuthUser`]: 'u-1',
    [`${base}.u-1.idToken`]: jwt({ ...idClaims, exp: Math.floor(Date.now() / 1000) + 3600 }),
    [`${base}.u-1.accessToken`]: 'access',
    [`${base}.u-1.refreshToken`]: 'refresh',
    ...extra,
  });
}

describe('readSessionHint', () => {
  it('reads the signed-in user from the stored id token, without Amplify', () => {
    expect(readSessionHint(amplifySession(), CLIENT)).toEqual({
      kind: 'signed-in',
      user: { sub: 'u-1', email: 'ranch@example.com', ranchId: 'cedar-creek', name: 'Sam Ñandú' },
    });
  });

  it('says signed out when nothing is stored, or only another app client has a session', () => {
    expect(readSessionHint(storage({}), CLIENT)).toEqual({ kind: 'signed-out' });
    expect(readSessionHint(amplifySession(), 'other-client')).toEqual({ kind: 'signed-out' });
    expect(readSessionHint(null, CLIENT)).toEqual({ kind: 'signed-out' });
  });

  it('says signed out when the last user has no tokens left (after a sign-out)', () => {
    expect(readSessionHint(storage({ [`${base}.LastAuthUser`]: 'u-1' }), CLIENT)).toEqual({ kind: 'signed-out' });
  });

  it('leaves an expired id token with a refresh token to Amplify (the refresh may be refused)', () => {
    const expired = amplifySession({ [`${base}.u-1.idToken`]: jwt({ ...claims, exp: 1 }) });
    expect(readSessionHint(expired, CLIENT)).toEqual({ kind: 'unknown' });
  });

  it('judges expiry with the clock drift Amplify stored, as Amplify does', () => {
    const drifted = amplifySession({ [`${base}.u-1.clockDrift`]: String(2 * 60 * 60 * 1000) });
    expect(readSessionHint(drifted, CLIENT)).toEqual({ kind: 'unknown' });
  });

  it('says signed out for an expired id token with no refresh token', () => {
    const entries = { [`${base}.LastAuthUser`]: 'u-1', [`${base}.u-1.idToken`]: jwt({ ...claims, exp: 1 }) };
    expect(readSessionHint(storage(entries), CLIENT)).toEqual({ kind: 'signed-out' });
  });

  it('leaves it to Amplify when the stored id token cannot be read', () => {
    expect(readSessionHint(amplifySession({ [`${base}.u-1.idToken`]: 'not-a-jwt' }), CLIENT)).toEqual({ kind: 'unknown' });
    const notJson = `header.${Buffer.from('{"sub": ').toString('base64url')}.signature`;
    for (const idToken of ['header..signature', 'header.***.signature', notJson, jwt(null), jwt(42)]) {
      expect(readSessionHint(amplifySession({ [`${base}.u-1.idToken`]: idToken }), CLIENT)).toEqual({ kind: 'unknown' });
    }
    expect(readSessionHint(amplifySession({}, { email: 'no-sub@example.com' }), CLIENT)).toEqual({ kind: 'unknown' });
  });

  it('never throws when storage does', () => {
    const throwing: HintStorage = {
      length: 1,
      key: () => {
        throw new Error('denied');
      },
      getItem: () => {
        throw new Error('denied');
      },
    };
    expect(readSessionHint(throwing, CLIENT)).toEqual({ kind: 'unknown' });
    expect(hasStoredSession(throwing)).toBe(false);
  });
});

describe('hasStoredSession', () => {
  it('finds a stored session of any app client', () => {
    expect(hasStoredSession(amplifySession())).toBe(true);
    expect(hasStoredSession(storage({}))).toBe(false);
    expect(hasStoredSession(storage({ [`${base}.LastAuthUser`]: 'u-1', unrelated: 'x' }))).toBe(false);
  });

  it('works as the inlined page script: its source runs without the module around it', () => {
    // The prerender inlines hasStoredSession.toString(); a reference to a module-level name would
    // throw (and the header would show the wrong links) only in the page.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating the source text is the test
    const standalone = new Function(`return (${hasStoredSession.toString()})`)() as typeof hasStoredSession;
    expect(standalone(amplifySession())).toBe(true);
    expect(standalone(storage({}))).toBe(false);
  });
});

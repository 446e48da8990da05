import { globalSignOut, GlobalSignOutError, userPoolEndpointOf } from '../src/user/global-sign-out';

/** A fetch at the HTTP boundary that records the request and answers as told. */
function fakeFetch(answer: () => Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fn = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return answer();
  }) as unknown as typeof fetch;
  return { fn, calls };
}

/** The part of a Response the function reads (jsdom has no Response). */
const answer = (status: number, text: string) =>
  ({ ok: status >= 200 && status < 300, status, json: async () => JSON.parse(text) as unknown }) as unknown as Response;
const json = (status: number, body: unknown) => answer(status, JSON.stringify(body));

describe('globalSignOut', () => {
  it("sends Cognito's GlobalSignOut with the access token, and resolves on 200", async () => {
    const f = fakeFetch(async () => json(200, {}));
    await globalSignOut('http://localhost:4101', 'access-token', f.fn);
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0]!.url).toBe('http://localhost:4101');
    expect(f.calls[0]!.init.headers).toMatchObject({ 'X-Amz-Target': 'AWSCognitoIdentityProviderService.GlobalSignOut' });
    expect(JSON.parse(f.calls[0]!.init.body as string)).toEqual({ AccessToken: 'access-token' });
  });

  it("throws Cognito's error type and message when it refuses", async () => {
    const f = fakeFetch(async () => json(400, { __type: 'NotAuthorizedException', message: 'Access Token has been revoked' }));
    const error = await globalSignOut('http://localhost:4101', 't', f.fn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GlobalSignOutError);
    expect(error).toMatchObject({ name: 'NotAuthorizedException', message: 'Access Token has been revoked' });
  });

  it('throws NetworkError when the service cannot be reached', async () => {
    const f = fakeFetch(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(globalSignOut('http://localhost:4101', 't', f.fn)).rejects.toMatchObject({ name: 'NetworkError', message: 'Network Error' });
  });

  it('throws with the status when the answer is not Cognito JSON', async () => {
    const f = fakeFetch(async () => answer(502, '<html>Bad gateway</html>'));
    await expect(globalSignOut('http://localhost:4101', 't', f.fn)).rejects.toMatchObject({ name: 'HTTP502', message: 'The sign-in service answered 502.' });
  });
});

describe('userPoolEndpointOf', () => {
  it('uses the configured endpoint (the sandbox), else the region of the pool id', () => {
    expect(userPoolEndpointOf({ userPoolId: 'us-east-2_abc', userPoolEndpoint: 'http://localhost:4101' })).toBe('http://localhost:4101');
    expect(userPoolEndpointOf({ userPoolId: 'us-east-2_abc' })).toBe('https://cognito-idp.us-east-2.amazonaws.com/');
  });
});

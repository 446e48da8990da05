/**
 * @jest-environment node
 */
// Node has fetch, Request and Response, which ky needs and jsdom lacks; no DOM is used here.
import { ApiRequestError, createProductApi } from '../src/aws';

type Call = { url: string; auth: string | null };

/** A fetch that answers from a table and fails the test on any request it does not know. */
function fakeFetch(routes: Record<string, { status: number; body: unknown }>, calls: Call[]): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    calls.push({ url: request.url, auth: request.headers.get('Authorization') });
    const route = routes[request.url];
    if (!route) throw new Error(`unhandled request ${request.url}`);
    return new Response(JSON.stringify(route.body), { status: route.status, headers: { 'Content-Type': 'application/json' } });
  };
}

const base = 'http://api.test';

describe('createProductApi', () => {
  it('sends the id token as a bearer token to the paths of docs/product.md#product-api and returns the bodies', async () => {
    const calls: Call[] = [];
    const api = createProductApi({
      baseUrl: base,
      getIdToken: async () => 'id-token-1',
      fetch: fakeFetch(
        {
          [`${base}/subscriptions/a%2Bb%40x.example`]: { status: 200, body: { subscriber: { entitlements: {} } } },
          [`${base}/ranches/cedar-creek/upload-metrics?yearmo=2026_11`]: { status: 200, body: { total: '' } },
          [`${base}/ranches/cedar-creek`]: { status: 200, body: { max_monthly_uploads: 10000 } },
          [`${base}/ranches/cedar-creek/cameras`]: { status: 200, body: { Cameras: [{ id: 'c1', name: 'North' }] } },
        },
        calls,
      ),
    });
    await expect(api.getSubscription('a+b@x.example')).resolves.toEqual({ subscriber: { entitlements: {} } });
    await expect(api.getUploadMetrics('cedar-creek', '2026_11')).resolves.toEqual({ total: '' });
    await expect(api.getRanch('cedar-creek')).resolves.toEqual({ max_monthly_uploads: 10000 });
    await expect(api.getCameras('cedar-creek')).resolves.toEqual({ Cameras: [{ id: 'c1', name: 'North' }] });
    expect(calls.every((c) => c.auth === 'Bearer id-token-1')).toBe(true);
  });

  it('normalises an HTTP error to its status and the server message', async () => {
    const api = createProductApi({
      baseUrl: base,
      getIdToken: async () => 't',
      fetch: fakeFetch({ [`${base}/ranches/other`]: { status: 403, body: { message: 'Not your ranch' } } }, []),
    });
    const error = await api.getRanch('other').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect((error as ApiRequestError).error).toEqual({ kind: 'http', status: 403, message: 'Not your ranch' });
    expect((error as ApiRequestError).message).toBe('Not your ranch');
  });

  it('refuses to call without a token', async () => {
    const calls: Call[] = [];
    const api = createProductApi({ baseUrl: base, getIdToken: async () => undefined, fetch: fakeFetch({}, calls) });
    const error = (await api.getRanch('x').catch((e: unknown) => e)) as ApiRequestError;
    expect(error.error.kind).toBe('unauthenticated');
    expect(calls).toHaveLength(0);
  });

  it('reports a network failure as kind network', async () => {
    const api = createProductApi({
      baseUrl: base,
      getIdToken: async () => 't',
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      },
    });
    // ky retries network errors twice (with backoff) before giving up.
    const error = (await api.getCameras('x').catch((e: unknown) => e)) as ApiRequestError;
    expect(error.error).toEqual({ kind: 'network', message: 'Network Error' });
  }, 15_000);
});

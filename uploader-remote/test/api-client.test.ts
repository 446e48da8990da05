/**
 * @jest-environment node
 */
// Node has fetch, Request and Response, which ky needs and jsdom lacks; no DOM is used here.
import { UPLOADS_EDGE_ANSWER_HEADERS, UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import { ApiRequestError, createProductApi, createUploadsApi } from '../src/features/upload/services/api/api-client';

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
          [`${base}/ranches/cedar-creek`]: { status: 200, body: { max_monthly_uploads: 10000 } },
          [`${base}/ranches/cedar-creek/cameras`]: { status: 200, body: { Cameras: [{ id: 'c1', name: 'North' }] } },
        },
        calls,
      ),
    });
    await expect(api.getSubscription('a+b@x.example')).resolves.toEqual({ subscriber: { entitlements: {} } });
    await expect(api.getRanch('cedar-creek')).resolves.toEqual({ max_monthly_uploads: 10000 });
    await expect(api.getCameras('cedar-creek')).resolves.toEqual({ Cameras: [{ id: 'c1', name: 'North' }] });
    expect(calls.every((c) => c.auth === 'Bearer id-token-1')).toBe(true);
  });

  it('has no upload-metrics call: the uploads API answers it (createUploadsApi)', () => {
    const api = createProductApi({ baseUrl: base, getIdToken: async () => 't', fetch: fakeFetch({}, []) });
    expect('getUploadMetrics' in api).toBe(false);
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

describe('createUploadsApi', () => {
  /** A fetch recording method, URL, token and JSON body, answering from a table keyed by "METHOD url". */
  function recordingFetch(
    routes: Record<string, { status: number; body: unknown }>,
    calls: { method: string; url: string; auth: string | null; body: unknown }[],
  ) {
    return async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const text = request.method === 'GET' ? '' : await request.text();
      calls.push({ method: request.method, url: request.url, auth: request.headers.get('Authorization'), body: text ? (JSON.parse(text) as unknown) : null });
      const route = routes[`${request.method} ${request.url}`];
      if (!route) throw new Error(`unhandled request ${request.method} ${request.url}`);
      return new Response(JSON.stringify(route.body), { status: route.status, headers: { 'Content-Type': 'application/json' } });
    };
  }
  const fp = `v1-12-${'a'.repeat(32)}`;

  it('calls the uploads API paths with the id token: metrics, lookups, reservations, renew, release', async () => {
    const calls: { method: string; url: string; auth: string | null; body: unknown }[] = [];
    const reservation = {
      reservation: 'r-2026_11-abcdefghijklmnop',
      yearmo: '2026_11',
      known: [],
      granted: [fp],
      expiresAt: '2026-11-26T04:00:00.000Z',
      lifetimeSeconds: 900,
    };
    const api = createUploadsApi({
      baseUrl: 'http://uploads.test',
      getIdToken: async () => 'id-token-2',
      fetch: recordingFetch(
        {
          'GET http://uploads.test/ranches/mesquite-flats/upload-metrics?yearmo=2026_11': {
            status: 200,
            body: { total: '985', month: '2026_11', reserved: 0 },
          },
          'POST http://uploads.test/ranches/mesquite-flats/photo-lookups': { status: 200, body: { known: [fp] } },
          'POST http://uploads.test/ranches/mesquite-flats/reservations': { status: 200, body: reservation },
          'POST http://uploads.test/ranches/mesquite-flats/reservations/r-2026_11-abcdefghijklmnop/renew': {
            status: 200,
            body: { reservation: 'x', expiresAt: 'y' },
          },
          'DELETE http://uploads.test/ranches/mesquite-flats/reservations/r-2026_11-abcdefghijklmnop': { status: 200, body: { reservation: 'x', released: 3 } },
        },
        calls,
      ),
    });
    await expect(api.getUploadMetrics('mesquite-flats', '2026_11')).resolves.toMatchObject({ total: '985', month: '2026_11' });
    await expect(api.lookupPhotos('mesquite-flats', [fp])).resolves.toEqual({ known: [fp] });
    await expect(api.reserve('mesquite-flats', [fp])).resolves.toEqual(reservation);
    await api.renew('mesquite-flats', 'r-2026_11-abcdefghijklmnop');
    await expect(api.release('mesquite-flats', 'r-2026_11-abcdefghijklmnop')).resolves.toMatchObject({ released: 3 });
    expect(calls.map((c) => c.method)).toEqual(['GET', 'POST', 'POST', 'POST', 'DELETE']);
    expect(calls[1]!.body).toEqual({ fingerprints: [fp] });
    expect(calls[2]!.body).toEqual({ fingerprints: [fp] });
    expect(calls.every((c) => c.auth === 'Bearer id-token-2')).toBe(true);
  });

  it("reads the firewall's Retry-After (seconds or a date) into the error, so the uploader can wait as told", async () => {
    const edge = UPLOADS_EDGE_ANSWERS.rateLimited;
    const answering =
      (retryAfter: string): typeof fetch =>
      async () =>
        new Response(JSON.stringify({ message: edge.message }), {
          status: edge.status,
          headers: { ...UPLOADS_EDGE_ANSWER_HEADERS, 'Retry-After': retryAfter },
        });
    const api = (retryAfter: string) => createUploadsApi({ baseUrl: 'http://uploads.test', getIdToken: async () => 't', fetch: answering(retryAfter) });
    const error = (await api(String(edge.retryAfterSeconds))
      .reserve('r', [fp])
      .catch((e: unknown) => e)) as ApiRequestError;
    expect(error.error).toEqual({ kind: 'http', status: 429, message: edge.message, retryAfterMs: 60_000 });
    const dated = (await api(new Date(Date.now() + 120_000).toUTCString())
      .reserve('r', [fp])
      .catch((e: unknown) => e)) as ApiRequestError;
    expect(dated.error.kind === 'http' && dated.error.retryAfterMs).toBeGreaterThan(115_000);
    const junk = (await api('soon')
      .reserve('r', [fp])
      .catch((e: unknown) => e)) as ApiRequestError;
    expect(junk.error).toEqual({ kind: 'http', status: 429, message: edge.message });
  });

  it('does not repeat a reservation that failed (a POST): one call, the server’s message', async () => {
    const calls: { method: string; url: string; auth: string | null; body: unknown }[] = [];
    const api = createUploadsApi({
      baseUrl: 'http://uploads.test',
      getIdToken: async () => 't',
      fetch: recordingFetch({ 'POST http://uploads.test/ranches/r/reservations': { status: 503, body: { message: 'Slow down' } } }, calls),
    });
    const error = (await api.reserve('r', [fp]).catch((e: unknown) => e)) as ApiRequestError;
    expect(error.error).toEqual({ kind: 'http', status: 503, message: 'Slow down' });
    expect(calls).toHaveLength(1);
  });
});

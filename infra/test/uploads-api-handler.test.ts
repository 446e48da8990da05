/**
 * The uploads API's core (src/uploads-api/handler.ts) over the production ledger (src/ledger/dynamo.ts)
 * on the fake DynamoDB engine (its items read by support/ledger-records.ts), a fake ranch table and
 * a fake clock: every refusal, the reservation and metrics answers; and the Lambda entry's
 * mapping of a REST API proxy event (payload 1.0, Cognito user pool authorizer) that keeps the API
 * to the web client's id tokens (src/uploads-api/lambda.ts), and the answers' CORS headers.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { countUnder, MAX_FINGERPRINTS_PER_CALL, RESERVATION_LIFETIME_MS, reservationId, reservationMonth } from '../src/ledger/rules';
import { handleUploadsApi, MAX_BODY_BYTES } from '../src/uploads-api/handler';
import type { MetricsAnswer, ReservationAnswer, UploadsApiDeps, UploadsApiResponse } from '../src/uploads-api/handler';
import type { PhotoForm } from '../src/ledger/port';
import { requestOf } from '../src/uploads-api/lambda';
import type { UploadsApiEvent } from '../src/uploads-api/lambda';
import { bodyOf, corsHeaders, headerOf, jsonAnswer } from '../src/uploads-api/proxy-event';
import { onTheFake, setTotal } from './support/ledger-records';

/** A well-formed photo fingerprint, distinct per `i`. */
const fp = (i: number) => `v1-${1000 + i}-${i.toString(16).padStart(32, '0')}`;

class World {
  /** The DynamoDB adapter on a fresh table of the fake engine, and what its items say. */
  private readonly table = onTheFake();
  ledger = this.table.ledger;
  records = this.table.records;
  ranches = new Map<string, number>([
    ['cedar-creek', 5],
    ['mesquite-flats', 0],
  ]);
  now = new Date('2026-11-10T12:00:00Z');
  ids = 0;
  errors: unknown[] = [];
  ranchFailure: Error | null = null;

  deps(): UploadsApiDeps {
    return {
      ledger: this.ledger,
      ranches: {
        maxMonthlyUploads: async (id) => {
          if (this.ranchFailure) throw this.ranchFailure;
          return this.ranches.get(id) ?? null;
        },
      },
      clock: { now: () => this.now },
      newId: () => `random${String(++this.ids).padStart(10, '0')}`,
    };
  }

  advance(ms: number) {
    this.now = new Date(this.now.getTime() + ms);
  }

  /** Counts an object under a reservation, as the object-created function does. */
  async countPhoto(
    ranchId: string,
    reservation: string,
    fingerprint: string | null,
    key = `public/${ranchId}/${Math.random()}.jpg`,
    form: PhotoForm = 'original',
  ) {
    const yearmo = reservationMonth(reservation)!;
    return this.ledger.countObject(
      { bucket: 'uploads', key, ranchId, yearmo, reservation, fingerprint, form, checksum: null, at: this.now.toISOString() },
      (state) => {
        const { next, outcome } = countUnder(state, { id: reservation, ceiling: 1000, now: this.now.getTime() });
        return { next, result: outcome };
      },
    );
  }
}

let world: World;
beforeEach(() => {
  world = new World();
});

interface CallOptions {
  body?: unknown;
  query?: Record<string, string>;
  /** The caller's `custom:ranchid` (default cedar-creek); null: no caller at all. */
  caller?: string | null;
}

function call(method: string, path: string, options: CallOptions = {}): Promise<UploadsApiResponse> {
  const body = options.body === undefined ? null : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const caller = options.caller === undefined ? { ranchId: 'cedar-creek' } : options.caller === null ? null : { ranchId: options.caller };
  return handleUploadsApi({ method, path, query: options.query ?? {}, body, caller }, world.deps(), (error) => world.errors.push(error));
}

const reserve = (fingerprints: unknown, extra: Record<string, unknown> = {}, ranch = 'cedar-creek') =>
  call('POST', `/ranches/${ranch}/reservations`, { body: { fingerprints, ...extra }, caller: ranch });
const metrics = (yearmo: string, ranch = 'cedar-creek') => call('GET', `/ranches/${ranch}/upload-metrics`, { query: { yearmo }, caller: ranch });

function expectError(response: UploadsApiResponse, status: number, message?: RegExp | string) {
  expect(response.status).toBe(status);
  const body = response.body as { message: string };
  expect(Object.keys(body)).toEqual(['message']);
  if (message !== undefined) expect(body.message).toMatch(message);
}

describe('refusals', () => {
  it('401 without a caller', async () => {
    expectError(await call('GET', '/ranches/cedar-creek/upload-metrics', { query: { yearmo: '2026_11' }, caller: null }), 401);
    expectError(await call('POST', '/ranches/cedar-creek/reservations', { body: { fingerprints: [fp(1)] }, caller: null }), 401);
  });

  it("403 for another ranch's routes, and for a caller without a ranch", async () => {
    expectError(await call('GET', '/ranches/mesquite-flats/upload-metrics', { query: { yearmo: '2026_11' } }), 403);
    expectError(await call('POST', '/ranches/mesquite-flats/reservations', { body: { fingerprints: [fp(1)] } }), 403);
    expectError(await call('GET', '/ranches/cedar-creek/upload-metrics', { query: { yearmo: '2026_11' }, caller: '' }), 403);
    expect(await world.records.months()).toEqual([]);
  });

  it('400 for a malformed ranch id or path encoding', async () => {
    expectError(await call('GET', '/ranches/cedar.creek/upload-metrics', { query: { yearmo: '2026_11' }, caller: 'cedar.creek' }), 400, /ranch id/);
    expectError(await call('GET', `/ranches/${'a'.repeat(65)}/upload-metrics`, { query: { yearmo: '2026_11' } }), 400, /ranch id/);
    expectError(await call('GET', '/ranches/cedar%E0%A4%A/upload-metrics', { query: { yearmo: '2026_11' } }), 400, /encoding/);
  });

  it.each([
    ['not JSON', '{"fingerprints": ['],
    ['empty', ''],
    ['an array', '[]'],
    ['a string', '"v1-1-00000000000000000000000000000000"'],
    ['null', 'null'],
  ])('400 for a body that is %s', async (_, body) => {
    expectError(await call('POST', '/ranches/cedar-creek/reservations', { body }), 400, /JSON/);
  });

  it('400 for a body without a fingerprint array, and for no body at all', async () => {
    expectError(await reserve(fp(1)), 400, /"fingerprints" must be an array/);
    expectError(await call('POST', '/ranches/cedar-creek/reservations', { body: {} }), 400, /"fingerprints" must be an array/);
    expectError(await call('POST', '/ranches/cedar-creek/reservations'), 400, /JSON/);
  });

  it('400 for a malformed fingerprint, naming its index', async () => {
    expectError(await reserve([fp(1), 'v1-12-ABCDEF']), 400, /\[1\]/);
    expectError(await reserve([fp(1), fp(2), 42]), 400, /\[2\]/);
    expectError(await reserve([`${fp(1)} `]), 400, /\[0\]/);
    expectError(await reserve([fp(1).toUpperCase()]), 400, /\[0\]/);
  });

  it('400 for no fingerprints', async () => {
    expectError(await reserve([]), 400, /must not be empty/);
  });

  it('400 for a malformed yearmo', async () => {
    for (const yearmo of ['2026-11', '2026_13', '26_11', 202611, null]) expectError(await reserve([fp(1)], { yearmo }), 400, /Malformed yearmo/);
    expectError(await metrics('2026-11'), 400, /Malformed yearmo/);
    expectError(await call('GET', '/ranches/cedar-creek/upload-metrics'), 400, /Malformed yearmo/);
  });

  it('400 for a reservation in a month that is over or has not begun, naming both months', async () => {
    const past = await reserve([fp(1)], { yearmo: '2026_10' });
    expectError(past, 400);
    expect((past.body as { message: string }).message).toMatch(/2026_10.*2026_11/);
    const future = await reserve([fp(1)], { yearmo: '2026_12' });
    expectError(future, 400);
    expect((future.body as { message: string }).message).toMatch(/2026_12.*2026_11/);
    expect(await world.records.months()).toEqual([]);
    // The current month is accepted.
    expect((await reserve([fp(1)], { yearmo: '2026_11' })).status).toBe(200);
  });

  it('413 beyond 500 fingerprints, naming the limit', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => fp(i));
    expect(MAX_FINGERPRINTS_PER_CALL).toBe(500);
    expectError(await reserve(many(501)), 413, /500/);
    expect((await reserve(many(500))).status).toBe(200);
  });

  it('413 for a body over MAX_BODY_BYTES, counted in bytes', async () => {
    expectError(await reserve([fp(1)], { pad: 'x'.repeat(MAX_BODY_BYTES) }), 413, String(MAX_BODY_BYTES));
    // Fewer characters than the limit, more bytes (é is two bytes of UTF-8).
    expectError(await reserve([fp(1)], { pad: 'é'.repeat(MAX_BODY_BYTES / 2) }), 413);
    expect((await reserve([fp(1)], { pad: 'x'.repeat(MAX_BODY_BYTES - 200) })).status).toBe(200);
  });

  it.each([
    ['GET', '/'],
    ['GET', '/ranches'],
    ['GET', '/ranches/cedar-creek'],
    ['GET', '/ranches/cedar-creek/photos'],
    ['GET', '/ranches/cedar-creek/upload-metrics/2026_11'],
    ['POST', `/ranches/cedar-creek/reservations/${reservationId('2026_11', 'a'.repeat(16))}/extend`],
    ['POST', `/ranches/cedar-creek/reservations/${reservationId('2026_11', 'a'.repeat(16))}/renew/again`],
    ['GET', '/uploads/cedar-creek/upload-metrics'],
  ])('404 for an unknown route: %s %s', async (method, path) => {
    expectError(await call(method, path, { query: { yearmo: '2026_11' } }), 404, /No such resource/);
  });

  it('404 for a ranch that does not exist', async () => {
    expectError(await metrics('2026_11', 'ghost-ranch'), 404, /ghost-ranch/);
    expectError(await reserve([fp(1)], {}, 'ghost-ranch'), 404, /ghost-ranch/);
  });

  it('404 for a reservation never granted to the ranch, 400 for a malformed one', async () => {
    const unknown = reservationId('2026_11', 'never-granted-000');
    expectError(await call('POST', `/ranches/cedar-creek/reservations/${unknown}/renew`), 404, unknown);
    expectError(await call('DELETE', `/ranches/cedar-creek/reservations/${unknown}`), 404, unknown);
    // Granted to another ranch: not this ranch's.
    const theirs = (await reserve([fp(1)], {}, 'mesquite-flats')).body as ReservationAnswer;
    expectError(await call('POST', `/ranches/cedar-creek/reservations/${theirs.reservation}/renew`), 404);
    expectError(await call('DELETE', `/ranches/cedar-creek/reservations/${theirs.reservation}`), 404);
    expectError(await call('POST', '/ranches/cedar-creek/reservations/not-a-reservation/renew'), 400, /Malformed reservation id/);
    expectError(await call('DELETE', '/ranches/cedar-creek/reservations/r-2026_11-short'), 400, /Malformed reservation id/);
  });

  it('405 for a wrong method', async () => {
    const id = reservationId('2026_11', 'a'.repeat(16));
    expectError(await call('POST', '/ranches/cedar-creek/upload-metrics', { query: { yearmo: '2026_11' } }), 405, /POST/);
    expectError(await call('GET', '/ranches/cedar-creek/reservations'), 405, /GET/);
    expectError(await call('DELETE', '/ranches/cedar-creek/reservations'), 405);
    expectError(await call('GET', `/ranches/cedar-creek/reservations/${id}/renew`), 405);
    expectError(await call('POST', `/ranches/cedar-creek/reservations/${id}`), 405);
    expectError(await call('PUT', `/ranches/cedar-creek/reservations/${id}`), 405);
  });

  it('410 when renewing a reservation that expired', async () => {
    const { reservation } = (await reserve([fp(1)])).body as ReservationAnswer;
    world.advance(RESERVATION_LIFETIME_MS);
    expectError(await call('POST', `/ranches/cedar-creek/reservations/${reservation}/renew`), 410, /expired/);
  });

  it('500 with a plain message when a port fails, the error logged', async () => {
    world.ranchFailure = new Error('ProvisionedThroughputExceededException: ranch table');
    const response = await metrics('2026_11');
    expect(response).toEqual({ status: 500, body: { message: 'Internal error' } });
    expect(world.errors).toEqual([world.ranchFailure]);

    world.ranchFailure = null;
    world.ledger.photoForms = async () => {
      throw new Error('ledger down');
    };
    expect(await reserve([fp(1)])).toEqual({ status: 500, body: { message: 'Internal error' } });
    expect(String(world.errors[1])).toMatch(/ledger down/);
  });

  it('logs a failure as one JSON line on the console by default', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      world.ranchFailure = new Error('boom');
      const response = await handleUploadsApi(
        { method: 'GET', path: '/ranches/cedar-creek/upload-metrics', query: { yearmo: '2026_11' }, body: null, caller: { ranchId: 'cedar-creek' } },
        world.deps(),
      );
      expect(response.status).toBe(500);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(JSON.parse(logged.mock.calls[0]![0] as string)).toEqual({ source: 'uploads-api', error: 'Error: boom' });
    } finally {
      logged.mockRestore();
    }
  });
});

describe('reservations', () => {
  it('grants slots in the order asked, for the current month, for one lifetime', async () => {
    const response = await reserve([fp(1), fp(2), fp(3)]);
    expect(response.status).toBe(200);
    const answer = response.body as ReservationAnswer;
    expect(answer).toEqual({
      reservation: 'r-2026_11-random0000000001',
      yearmo: '2026_11',
      known: [],
      copies: [],
      granted: [fp(1), fp(2), fp(3)],
      expiresAt: '2026-11-10T12:15:00.000Z',
      lifetimeSeconds: 900,
    });
    expect(reservationMonth(answer.reservation!)).toBe('2026_11');
    expect((await world.records.month('cedar-creek', '2026_11')).holds[answer.reservation!]).toEqual({
      slots: 3,
      expiresAt: Date.parse('2026-11-10T12:15:00.000Z'),
      grantedAt: Date.parse('2026-11-10T12:00:00.000Z'),
    });
  });

  it('grants only what the ceiling allows, then none: no reservation', async () => {
    const first = (await reserve([fp(1), fp(2), fp(3), fp(4), fp(5), fp(6), fp(7)])).body as ReservationAnswer;
    expect(first.granted).toEqual([fp(1), fp(2), fp(3), fp(4), fp(5)]);
    const second = (await reserve([fp(6), fp(7)])).body as ReservationAnswer;
    expect(second).toEqual({ reservation: null, yearmo: '2026_11', known: [], copies: [], granted: [], expiresAt: null, lifetimeSeconds: 900 });
    // The expired hold's slots go back.
    world.advance(RESERVATION_LIFETIME_MS);
    expect(((await reserve([fp(6), fp(7)])).body as ReservationAnswer).granted).toEqual([fp(6), fp(7)]);
  });

  it('asks once for a fingerprint sent twice in one request', async () => {
    const answer = (await reserve([fp(1), fp(2), fp(1), fp(3), fp(2)])).body as ReservationAnswer;
    expect(answer.granted).toEqual([fp(1), fp(2), fp(3)]);
    expect((await world.records.month('cedar-creek', '2026_11')).holds[answer.reservation!]?.slots).toBe(3);
  });

  it('answers the photos the ranch already has, from any earlier month and device, and grants only the others', async () => {
    const earlier = (await reserve([fp(1), fp(2)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', earlier.reservation!, fp(2));
    // Another ranch's photo is not this ranch's.
    const theirs = (await reserve([fp(3)], {}, 'mesquite-flats')).body as ReservationAnswer;
    await world.countPhoto('mesquite-flats', theirs.reservation!, fp(3));
    world.now = new Date('2026-12-02T08:00:00Z');

    const answer = (await reserve([fp(3), fp(2), fp(4), fp(2)])).body as ReservationAnswer;
    expect(answer.yearmo).toBe('2026_12');
    expect(answer.known).toEqual([fp(2)]);
    expect(answer.granted).toEqual([fp(3), fp(4)]);
  });

  it('grants nothing and writes nothing when every photo is known', async () => {
    const first = (await reserve([fp(1)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', first.reservation!, fp(1));
    const before = await world.records.month('cedar-creek', '2026_11');
    const answer = (await reserve([fp(1), fp(1)])).body as ReservationAnswer;
    expect(answer).toEqual({ reservation: null, yearmo: '2026_11', known: [fp(1)], copies: [], granted: [], expiresAt: null, lifetimeSeconds: 900 });
    // As stored, its version too: nothing was written.
    expect(await world.records.month('cedar-creek', '2026_11')).toEqual(before);
  });

  it('answers which known photos the ranch has only as copies, and grants no slot for a photo known either way', async () => {
    const first = (await reserve([fp(1), fp(2), fp(3)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', first.reservation!, fp(1), 'public/cedar-creek/1-copy.jpg', 'copy');
    await world.countPhoto('cedar-creek', first.reservation!, fp(2), 'public/cedar-creek/2.jpg', 'original');
    // A copy of a photo the ranch has as an original leaves it an original.
    await world.countPhoto('cedar-creek', first.reservation!, fp(2), 'public/cedar-creek/2-copy.jpg', 'copy');
    const answer = (await reserve([fp(4), fp(1), fp(2)])).body as ReservationAnswer;
    expect(answer).toMatchObject({ known: [fp(1), fp(2)], copies: [fp(1)], granted: [fp(4)] });
    // An old client reads `known` alone and skips both.
    expect(answer.granted).not.toContain(fp(1));
    // An original upgrades the copy: from then on the photo is no copy.
    await expect(
      world.ledger.upgradePhoto({
        bucket: 'uploads',
        key: 'public/cedar-creek/1.jpg',
        ranchId: 'cedar-creek',
        fingerprint: fp(1),
        yearmo: '2026_11',
        checksum: null,
        at: '',
      }),
    ).resolves.toBe('upgraded');
    expect(((await reserve([fp(1)])).body as ReservationAnswer).copies).toEqual([]);
  });

  it('renews a live reservation for a lifetime from now', async () => {
    const { reservation } = (await reserve([fp(1)])).body as ReservationAnswer;
    world.advance(14 * 60_000);
    const response = await call('POST', `/ranches/cedar-creek/reservations/${reservation}/renew`);
    expect(response).toEqual({ status: 200, body: { reservation, expiresAt: '2026-11-10T12:29:00.000Z' } });
    world.advance(10 * 60_000);
    expect(((await metrics('2026_11')).body as MetricsAnswer).reserved).toBe(1);
  });

  it('releases the unused slots at once', async () => {
    const { reservation } = (await reserve([fp(1), fp(2), fp(3)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', reservation!, fp(1));
    expect(await call('DELETE', `/ranches/cedar-creek/reservations/${reservation}`)).toEqual({ status: 200, body: { reservation, released: 2 } });
    expect(((await metrics('2026_11')).body as MetricsAnswer).reserved).toBe(0);
    // Releasing again gives nothing more back.
    expect(await call('DELETE', `/ranches/cedar-creek/reservations/${reservation}`)).toEqual({ status: 200, body: { reservation, released: 0 } });
  });

  it('takes the method in any case and path segments URL-encoded', async () => {
    expect((await call('post', '/ranches/cedar%2Dcreek/reservations', { body: { fingerprints: [fp(1)] } })).status).toBe(200);
  });
});

describe('upload-metrics', () => {
  it('answers "" for a month never written', async () => {
    expect(await metrics('2026_11')).toEqual({ status: 200, body: { total: '', yearmo: '2026_11', month: '2026_11', reserved: 0, ceiling: 5 } });
  });

  it('answers the count as a string and the live slots as reserved', async () => {
    const { reservation } = (await reserve([fp(1), fp(2), fp(3), fp(4)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', reservation!, fp(1));
    await world.countPhoto('cedar-creek', reservation!, fp(2));
    await world.countPhoto('cedar-creek', reservation!, null);
    expect((await metrics('2026_11')).body).toEqual({ total: '3', yearmo: '2026_11', month: '2026_11', reserved: 1, ceiling: 5 });
    world.advance(RESERVATION_LIFETIME_MS);
    expect((await metrics('2026_11')).body).toMatchObject({ total: '3', reserved: 0 });
  });

  it("names the clock's UTC month, whatever month is asked", async () => {
    await setTotal(world.ledger, 'cedar-creek', '2026_10', 4);
    // 23:30 on October 31 in Chicago is November in UTC.
    world.now = new Date('2026-11-01T04:30:00Z');
    expect((await metrics('2026_10')).body).toEqual({ total: '4', yearmo: '2026_10', month: '2026_11', reserved: 0, ceiling: 5 });
  });

  it("answers the ranch's ceiling: its max, or the default 1,000 for a max of 0", async () => {
    expect(((await metrics('2026_11', 'mesquite-flats')).body as MetricsAnswer).ceiling).toBe(1000);
    world.ranches.set('cedar-creek', 2500);
    expect(((await metrics('2026_11')).body as MetricsAnswer).ceiling).toBe(2500);
  });
});

describe('requestOf (the Lambda entry, a REST API proxy event)', () => {
  const WEB_CLIENT = '3n4b5urk1ft4fl3mg5e62d1o0g';
  /** An id token's claims as a Cognito user pool authorizer passes them (strings). */
  const claims: Record<string, string> = {
    sub: '7d8f3e2a-51c4-4b0e-9f3a-2f6a0c1b9e55',
    email_verified: 'true',
    iss: 'https://cognito-idp.us-east-2.amazonaws.com/us-east-2_AbCdEfGhI',
    'cognito:username': '7d8f3e2a-51c4-4b0e-9f3a-2f6a0c1b9e55',
    'custom:ranchid': 'cedar-creek',
    aud: WEB_CLIENT,
    token_use: 'id',
    auth_time: '1794139100',
    exp: '1794142700',
    iat: '1794139100',
    email: 'ana@cedar-creek.example',
  };

  /**
   * A POST through the custom domain, whose root the stage `api` is mapped at: `path` is the
   * request's path, no stage in it (the execute-api endpoint strips the stage from `path` too;
   * only `requestContext.path` keeps it there).
   */
  function event(overrides: Partial<UploadsApiEvent> = {}, claimsOf: Record<string, string> | null = claims): UploadsApiEvent {
    const body = JSON.stringify({ fingerprints: [fp(1), fp(2)], yearmo: '2026_11' });
    const e: APIGatewayProxyEvent = {
      resource: '/ranches/{ranchid}/reservations',
      path: '/ranches/cedar-creek/reservations',
      httpMethod: 'POST',
      headers: {
        Accept: 'application/json',
        Authorization: 'Bearer eyJraWQiOiJ0ZXN0In0.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJl',
        'Content-Type': 'application/json',
        Host: 'uploads-api.trailsense.example',
        Origin: 'https://trailsense.example',
      },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: { ranchid: 'cedar-creek' },
      stageVariables: null,
      requestContext: {
        accountId: '123456789012',
        apiId: 'a1b2c3d4e5',
        authorizer: claimsOf === null ? null : { claims: claimsOf },
        domainName: 'uploads-api.trailsense.example',
        domainPrefix: 'uploads-api',
        httpMethod: 'POST',
        identity: { sourceIp: '203.0.113.7', userAgent: 'Mozilla/5.0' } as APIGatewayProxyEvent['requestContext']['identity'],
        path: '/ranches/cedar-creek/reservations',
        protocol: 'HTTP/1.1',
        requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
        requestTimeEpoch: 1794139200000,
        resourceId: 'abc123',
        resourcePath: '/ranches/{ranchid}/reservations',
        stage: 'api',
      },
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
    };
    return { ...e, ...overrides };
  }

  it('maps an authorized POST with a base64 body', async () => {
    const request = requestOf(event(), WEB_CLIENT);
    expect(request).toEqual({
      method: 'POST',
      path: '/ranches/cedar-creek/reservations',
      query: {},
      body: JSON.stringify({ fingerprints: [fp(1), fp(2)], yearmo: '2026_11' }),
      caller: { ranchId: 'cedar-creek', sub: claims['sub'] },
    });
    const response = await handleUploadsApi(request, world.deps());
    expect(response.status).toBe(200);
    expect((response.body as ReservationAnswer).granted).toEqual([fp(1), fp(2)]);
  });

  it('maps a GET with a query and no body, and a plain-text body', () => {
    const get = requestOf(
      event({
        httpMethod: 'GET',
        path: '/ranches/cedar-creek/upload-metrics',
        queryStringParameters: { yearmo: '2026_11' },
        body: null,
        isBase64Encoded: false,
      }),
      WEB_CLIENT,
    );
    expect(get).toEqual({
      method: 'GET',
      path: '/ranches/cedar-creek/upload-metrics',
      query: { yearmo: '2026_11' },
      body: null,
      caller: { ranchId: 'cedar-creek', sub: claims['sub'] },
    });
    expect(requestOf(event({ body: '{"fingerprints":[]}', isBase64Encoded: false }), WEB_CLIENT).body).toBe('{"fingerprints":[]}');
  });

  it('has no caller without claims, and a caller without a ranch when custom:ranchid is empty or absent', () => {
    expect(requestOf(event({}, null), WEB_CLIENT).caller).toBeNull();
    expect(requestOf(event({}, { ...claims, 'custom:ranchid': '' }), WEB_CLIENT).caller).toEqual({ ranchId: null, sub: claims['sub'] });
    const { ['custom:ranchid']: _, ...withoutRanch } = claims;
    expect(requestOf(event({}, withoutRanch), WEB_CLIENT).caller).toEqual({ ranchId: null, sub: claims['sub'] });
  });

  it("refuses an id token of another app client of the pool (the mobile apps'): no caller, 401", async () => {
    // The same event with the web client's token has its caller.
    expect(requestOf(event(), WEB_CLIENT).caller).toEqual({ ranchId: 'cedar-creek', sub: claims['sub'] });
    const mobile = requestOf(event({}, { ...claims, aud: '7mobileappclient0000000000' }), WEB_CLIENT);
    expect(mobile.caller).toBeNull();
    expect(await handleUploadsApi(mobile, world.deps())).toEqual({ status: 401, body: { message: 'Missing or invalid bearer token' } });
    // An access token has no aud (its client is client_id): refused as well.
    const { aud: _, ...accessLike } = claims;
    expect(requestOf(event({}, { ...accessLike, client_id: WEB_CLIENT, token_use: 'access' }), WEB_CLIENT).caller).toBeNull();
  });
});

describe('the entries’ answers (src/uploads-api/proxy-event.ts)', () => {
  const SITE = ['https://trailsense.example', 'https://uploader.trailsense.example'];

  it("names the request's origin when it is one of the site's, and no origin otherwise; varies by Origin", () => {
    expect(corsHeaders('https://uploader.trailsense.example', SITE)).toEqual({
      'access-control-allow-origin': 'https://uploader.trailsense.example',
      vary: 'Origin',
    });
    expect(corsHeaders('https://elsewhere.example', SITE)).toEqual({ vary: 'Origin' });
    expect(corsHeaders(undefined, SITE)).toEqual({ vary: 'Origin' });
  });

  it('answers JSON, never cached, reading Origin whatever its case', () => {
    expect(jsonAnswer({ status: 403, body: { message: 'no' } }, { headers: { ORIGIN: 'https://trailsense.example' } }, SITE)).toEqual({
      statusCode: 403,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'access-control-allow-origin': 'https://trailsense.example', vary: 'Origin' },
      body: '{"message":"no"}',
    });
    expect(headerOf({ headers: { origin: 'x' } }, 'Origin')).toBe('x');
    expect(headerOf({ headers: {} }, 'Origin')).toBeUndefined();
  });

  it('decodes a base64 body, and has none for a null one', () => {
    expect(bodyOf({ body: Buffer.from('{"a":1}').toString('base64'), isBase64Encoded: true })).toBe('{"a":1}');
    expect(bodyOf({ body: 'plain', isBase64Encoded: false })).toBe('plain');
    expect(bodyOf({ body: null, isBase64Encoded: false })).toBeNull();
  });
});

describe('photo lookups', () => {
  const lookup = (body: unknown, ranch = 'cedar-creek') => call('POST', `/ranches/${ranch}/photo-lookups`, { body, caller: ranch });

  it('answers which photos and which file sizes the ranch has, from any earlier count, reserving nothing', async () => {
    const granted = (await reserve([fp(1), fp(2)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', granted.reservation!, fp(1));
    const before = await world.records.month('cedar-creek', '2026_11');
    const answer = await lookup({ fingerprints: [fp(1), fp(2)], sizes: [1001, 1002, 7] });
    expect(answer).toEqual({ status: 200, body: { known: [fp(1)], copies: [], knownSizes: [1001] } });
    // As stored, its version too: nothing was written.
    expect(await world.records.month('cedar-creek', '2026_11')).toEqual(before);
    // Another ranch has none of them.
    expect((await lookup({ sizes: [1001] }, 'mesquite-flats')).body).toEqual({ known: [], copies: [], knownSizes: [] });
  });

  it('answers which of the known photos the ranch has only as copies', async () => {
    const granted = (await reserve([fp(1), fp(2), fp(3)])).body as ReservationAnswer;
    await world.countPhoto('cedar-creek', granted.reservation!, fp(1), 'public/cedar-creek/1.jpg', 'copy');
    await world.countPhoto('cedar-creek', granted.reservation!, fp(2), 'public/cedar-creek/2.jpg', 'original');
    // A photo item of before forms: an original.
    await world.records.seedPhotoOfBefore('cedar-creek', fp(3), 'uploads/public/cedar-creek/3.jpg', '2026-10-01T00:00:00.000Z');
    const answer = await lookup({ fingerprints: [fp(3), fp(2), fp(1), fp(4)] });
    expect(answer).toEqual({ status: 200, body: { known: [fp(3), fp(2), fp(1)], copies: [fp(1)], knownSizes: [] } });
  });

  it('refuses a body with neither, sizes that are not whole byte counts, and more than 1,000 sizes (413, the limit named)', async () => {
    expectError(await lookup({}), 400, /"fingerprints" or "sizes"/);
    expectError(await lookup({ sizes: [1, -2] }), 400, /"sizes"\[1\]/);
    expectError(await lookup({ sizes: [1.5] }), 400, /"sizes"\[0\]/);
    expectError(await lookup({ sizes: '12' }), 400, /"sizes" must be an array/);
    expectError(await lookup({ sizes: Array.from({ length: 1001 }, (_, i) => i) }), 413, /at most 1000/);
    expect((await lookup({ sizes: Array.from({ length: 1000 }, (_, i) => i) })).status).toBe(200);
  });
});

describe('upload-metrics: slots held for others', () => {
  it('counts another member’s live slots as reserved, never the caller’s own', async () => {
    const ask = (sub: string) =>
      handleUploadsApi(
        {
          method: 'POST',
          path: '/ranches/mesquite-flats/reservations',
          query: {},
          body: JSON.stringify({ fingerprints: [fp(1), fp(2), fp(3)] }),
          caller: { ranchId: 'mesquite-flats', sub },
        },
        world.deps(),
      );
    const read = (sub: string) =>
      handleUploadsApi(
        { method: 'GET', path: '/ranches/mesquite-flats/upload-metrics', query: { yearmo: '2026_11' }, body: null, caller: { ranchId: 'mesquite-flats', sub } },
        world.deps(),
      );
    expect(((await ask('member-a')).body as ReservationAnswer).granted).toHaveLength(3);
    expect(((await read('member-a')).body as MetricsAnswer).reserved).toBe(0);
    expect(((await read('member-b')).body as MetricsAnswer).reserved).toBe(3);
    world.advance(RESERVATION_LIFETIME_MS);
    expect(((await read('member-b')).body as MetricsAnswer).reserved).toBe(0);
  });
});

/**
 * The product API (auth, shapes, 401/403/400) and the analytics sink, over HTTP.
 */
import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { rawRequest } from './support/raw-http';
import { apiGet, passwordTokens, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';

const subscriber = seedUser('subscriber@trailsense.example');
const free = seedUser('free@trailsense.example');
const lapsed = seedUser('lapsed@trailsense.example');
const noRanch = seedUser('noranch@trailsense.example');
let sandbox: Sandbox;
let subscriberTokens: { IdToken: string; AccessToken: string };
const month = countingMonth(new Date());

/** A token signed with cognito-local's own key: valid signature, claims of our choosing. */
function signedToken(claims: Record<string, unknown>): string {
  const pem = (JSON.parse(readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.private.json'), 'utf8')) as { pem: string }).pem;
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', kid: 'CognitoLocal', typ: 'JWT' })}.${part(claims)}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(pem, 'base64url')}`;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  subscriberTokens = await passwordTokens(sandbox.config, subscriber.email, subscriber.password);
});
afterAll(() => stopTestSandbox(sandbox));

describe('product API', () => {
  it('answers the subscriber with the shapes of docs/product.md#product-api-responses', async () => {
    const t = subscriberTokens.IdToken;
    const sub = await apiGet(sandbox.config, `/subscriptions/${encodeURIComponent(subscriber.email)}`, t);
    expect(sub.status).toBe(200);
    const premium = (sub.json as { subscriber: { entitlements: Record<string, { expires_date: string }> } }).subscriber.entitlements['premium']!;
    expect(new Date(premium.expires_date).getTime()).toBeGreaterThan(Date.now());
    expect(await apiGet(sandbox.config, '/ranches/cedar-creek', t)).toEqual({ status: 200, json: { max_monthly_uploads: 10000 } });
    const cams = await apiGet(sandbox.config, '/ranches/cedar-creek/cameras', t);
    expect((cams.json['Cameras'] as { id: string; name: string }[]).map((c) => c.name)).toEqual([
      'North Feeder',
      'Creek Crossing',
      'Oak Ridge Stand',
      'South Food Plot',
    ]);
    // upload-metrics is the uploads API's now (infra/src/uploads-api/handler.ts), on the same base in
    // the sandbox: `total` keeps the product API's contract (a string, "" for a month with nothing
    // counted), beside the month photos count in, the slots reserved and the ranch's ceiling.
    expect(await apiGet(sandbox.config, `/ranches/cedar-creek/upload-metrics?yearmo=${month}`, t)).toEqual({
      status: 200,
      json: { total: '', yearmo: month, month, reserved: 0, ceiling: 10000 },
    });
  });

  it('gives the free member 985 of the 1,000 default and no entitlements', async () => {
    const t = (await passwordTokens(sandbox.config, free.email, free.password)).IdToken;
    expect((await apiGet(sandbox.config, `/ranches/mesquite-flats/upload-metrics?yearmo=${month}`, t)).json).toEqual({
      total: '985',
      yearmo: month,
      month,
      reserved: 0,
      ceiling: 1000,
    });
    expect((await apiGet(sandbox.config, '/ranches/mesquite-flats', t)).json).toEqual({ max_monthly_uploads: 0 });
    expect((await apiGet(sandbox.config, `/subscriptions/${free.email}`, t)).json).toEqual({ subscriber: { entitlements: {} } });
  });

  it('gives the lapsed member an entitlement that expired last month', async () => {
    const t = (await passwordTokens(sandbox.config, lapsed.email, lapsed.password)).IdToken;
    const { json } = await apiGet(sandbox.config, `/subscriptions/${lapsed.email}`, t);
    const expires = new Date((json as { subscriber: { entitlements: { premium: { expires_date: string } } } }).subscriber.entitlements.premium.expires_date);
    expect(expires.getTime()).toBeLessThan(Date.now());
    expect(expires.getTime()).toBeGreaterThan(Date.now() - 62 * 24 * 3600 * 1000);
  });

  it('401s a missing, tampered, expired or access token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const issuer = `${sandbox.config.auth.userPoolEndpoint}/${sandbox.config.auth.userPoolId}`;
    const claims = {
      sub: subscriber.sub,
      email: subscriber.email,
      email_verified: true,
      'custom:ranchid': 'cedar-creek',
      token_use: 'id',
      aud: sandbox.config.auth.userPoolClientId,
      iss: issuer,
    };
    const [h, p, s] = subscriberTokens.IdToken.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), 'custom:ranchid': 'mesquite-flats' })).toString('base64url')}.${s}`;
    const cases: [string | undefined, string][] = [
      [undefined, 'Missing bearer token'],
      ['not-a-jwt', 'Invalid token'],
      [tampered, 'Invalid token'],
      [signedToken({ ...claims, iat: now - 7200, exp: now - 3600 }), 'Token expired'],
      [signedToken({ ...claims, iss: 'http://localhost:9229/us-east-2_TrailSenseLocal', iat: now, exp: now + 3600 }), 'Invalid token'],
      [subscriberTokens.AccessToken, 'Invalid token'],
    ];
    for (const [token, message] of cases) {
      const res = await apiGet(sandbox.config, '/ranches/cedar-creek', token);
      expect(res.status).toBe(401);
      expect(res.json['message']).toContain(message);
    }
    // The same forged claims, correctly signed and fresh, are accepted: the 401s above are not a fluke.
    expect((await apiGet(sandbox.config, '/ranches/cedar-creek', signedToken({ ...claims, iat: now, exp: now + 3600 }))).status).toBe(200);
  });

  it('403s a caller whose e-mail address is not verified: subscriptions are read by e-mail', async () => {
    const now = Math.floor(Date.now() / 1000);
    const issued = JSON.parse(Buffer.from(subscriberTokens.IdToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const claims: Record<string, unknown> = { ...issued, iat: now, exp: now + 3600 };
    expect(claims['email_verified']).toBe(true);
    const unverified = signedToken({ ...claims, email_verified: false });
    expect(await apiGet(sandbox.config, `/subscriptions/${subscriber.email}`, unverified)).toEqual({
      status: 403,
      json: { message: 'Your e-mail address is not verified: verify it, then try again' },
    });
    expect((await apiGet(sandbox.config, '/ranches/cedar-creek', signedToken({ ...claims, email_verified: undefined }))).status).toBe(403);
    expect((await apiGet(sandbox.config, `/subscriptions/${subscriber.email}`, signedToken(claims))).status).toBe(200);
  });

  it('403s another ranch, another email, and a caller with no ranch', async () => {
    const t = subscriberTokens.IdToken;
    expect((await apiGet(sandbox.config, '/ranches/mesquite-flats', t)).status).toBe(403);
    expect((await apiGet(sandbox.config, `/ranches/mesquite-flats/upload-metrics?yearmo=${month}`, t)).status).toBe(403);
    expect((await apiGet(sandbox.config, `/subscriptions/${free.email}`, t)).status).toBe(403);
    const none = (await passwordTokens(sandbox.config, noRanch.email, noRanch.password)).IdToken;
    const res = await apiGet(sandbox.config, '/ranches/cedar-creek/cameras', none);
    expect(res).toEqual({ status: 403, json: { message: 'That ranch is not yours' } });
  });

  it('400s a malformed yearmo, ranch id or email; 404s unknown paths', async () => {
    const t = subscriberTokens.IdToken;
    for (const q of ['', '?yearmo=2025-01', '?yearmo=2025_13', '?yearmo=25_01']) {
      const res = await apiGet(sandbox.config, `/ranches/cedar-creek/upload-metrics${q}`, t);
      expect(res.status).toBe(400);
      expect(res.json['message']).toMatch(/yearmo/);
    }
    expect((await apiGet(sandbox.config, `/ranches/${encodeURIComponent('cedar creek;drop')}`, t)).status).toBe(400);
    expect((await apiGet(sandbox.config, '/subscriptions/not-an-email', t)).status).toBe(400);
    expect((await apiGet(sandbox.config, '/ranches/cedar-creek/nothing', t)).status).toBe(404);
    expect((await apiGet(sandbox.config, '/nothing', t)).status).toBe(404);
  });

  it('answers a CORS preflight from the site with the Authorization header allowed', async () => {
    const res = await fetch(`${sandbox.config.api.baseUrl}/ranches/cedar-creek`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:3002', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3002');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
    const foreign = await fetch(`${sandbox.config.api.baseUrl}/ranches/cedar-creek`, { method: 'OPTIONS', headers: { Origin: 'http://evil.example' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('analytics sink', () => {
  const endpoint = () => (sandbox.config.analytics as { endpoint: string }).endpoint;
  const post = (body: unknown) =>
    fetch(endpoint(), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('stores valid events and lists them, by ranch if asked', async () => {
    expect((await post({ name: 'imageUpload', ranchid: 'cedar-creek', key: 'public/a.jpg', uploadCount: 1 })).status).toBe(201);
    expect((await post({ name: 'uploadFailure', ranchid: 'mesquite-flats', failureCount: 2 })).status).toBe(201);
    const all = (await (await fetch(endpoint())).json()) as { events: unknown[] };
    expect(all.events).toHaveLength(2);
    const one = (await (await fetch(`${endpoint()}?ranchid=mesquite-flats`)).json()) as { events: unknown[] };
    expect(one.events).toEqual([expect.objectContaining({ name: 'uploadFailure', ranchid: 'mesquite-flats', failureCount: 2 })]);
    expect(sandbox.analyticsEvents('cedar-creek')).toEqual([expect.objectContaining({ name: 'imageUpload', key: 'public/a.jpg', uploadCount: 1 })]);
  });

  it('400s anything else', async () => {
    for (const bad of [
      '{',
      '[]',
      { name: 'pageView', ranchid: 'x' },
      { name: 'imageUpload', ranchid: 'x', uploadCount: 1 },
      { name: 'uploadFailure', ranchid: '', failureCount: 1 },
      { name: 'uploadFailure', ranchid: 'x', failureCount: -1 },
    ]) {
      const res = await post(bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBeTruthy();
    }
    expect(sandbox.analyticsEvents()).toHaveLength(2);
  });

  it('415s an event that is not sent as JSON, which a page could post cross-site without a preflight', async () => {
    const event = JSON.stringify({ name: 'uploadFailure', ranchid: 'cedar-creek', failureCount: 99 });
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const res = await fetch(endpoint(), { method: 'POST', headers: contentType ? { 'Content-Type': contentType } : {}, body: event });
      expect([contentType, res.status]).toEqual([contentType, 415]);
      expect(((await res.json()) as { message: string }).message).toBe('Content-Type must be application/json');
    }
    expect(sandbox.analyticsEvents()).toHaveLength(2);
  });
});

describe('every loopback server', () => {
  const endpoints = () => [
    `${sandbox.config.api.baseUrl}/ranches/cedar-creek`,
    (sandbox.config.analytics as { endpoint: string }).endpoint,
    `${sandbox.config.auth.userPoolEndpoint ?? ''}/`,
    `http://127.0.0.1:${sandbox.ports.s3}/`,
  ];

  it('refuses a request for another host name (DNS rebinding), before the piece sees it', async () => {
    for (const url of endpoints()) {
      const port = new URL(url).port;
      for (const host of [`rebound.evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
        const answer = await rawRequest(url, { method: 'GET', headers: { Host: host } });
        expect(answer).not.toBe('no answer');
        if (answer === 'no answer') continue;
        expect([url, host, answer.status]).toEqual([url, host, 403]);
        expect(answer.body).toContain('answers only requests for localhost, 127.0.0.1 or [::1]');
      }
    }
  });

  it('answers requests for localhost, 127.0.0.1 and [::1]', async () => {
    for (const url of endpoints()) {
      const port = new URL(url).port;
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
        const answer = await rawRequest(url, { method: 'GET', headers: { Host: host } });
        if (answer === 'no answer') throw new Error(`${url} gave no answer for Host ${host}`);
        expect([url, host, answer.body.includes('answers only requests for localhost')]).toEqual([url, host, false]);
      }
    }
  });
});

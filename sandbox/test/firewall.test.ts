/**
 * The uploads API's firewall as the sandbox plays it (src/firewall.ts): production's rate per
 * address and answers (shared/src/uploads/wire.ts UPLOADS_EDGE_ANSWERS), readable by a page
 * (CORS for any origin, `Retry-After` exposed), in front of the uploads API's paths and the
 * collection route only; switched at run time through `/_sandbox/firewall`.
 */
import { UPLOADS_EDGE_ANSWER_HEADERS, UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import type { Sandbox } from '../src/index';
import { createFirewall, DEFAULT_FIREWALL, formatFirewall, parseFirewall } from '../src/firewall';
import { startTestSandbox, stopTestSandbox } from './support/sandbox';

describe('parseFirewall', () => {
  it('reads a rate, 429 with or without its wait, 403 and off, and says what is wrong with anything else', () => {
    expect(parseFirewall(DEFAULT_FIREWALL)).toEqual({ kind: 'rate', limit: 600, windowMs: 300_000 });
    expect(parseFirewall('429')).toEqual({ kind: 'limited', retryAfterSeconds: UPLOADS_EDGE_ANSWERS.rateLimited.retryAfterSeconds });
    expect(parseFirewall('429:2')).toEqual({ kind: 'limited', retryAfterSeconds: 2 });
    expect(parseFirewall('403')).toEqual({ kind: 'refuse' });
    expect(parseFirewall(' off ')).toEqual({ kind: 'off' });
    for (const bad of ['', '600', '0/300', '600/0', '429:', '404', 'x'.repeat(10_000)]) {
      const error = parseFirewall(bad);
      expect(typeof error).toBe('string');
      expect((error as string).length).toBeLessThan(200);
    }
    for (const spec of ['600/300', '429:2', '403', 'off']) expect(formatFirewall(parseFirewall(spec) as never)).toBe(spec);
  });
});

describe('createFirewall', () => {
  it('refuses an address past its limit in the trailing window, counting the refused asks, and lets it through once the window has moved on', () => {
    const firewall = createFirewall({ kind: 'rate', limit: 3, windowMs: 60_000 });
    const at = (s: number, address = '10.0.0.1') => firewall.check(address, s * 1000)?.status ?? 200;
    expect([at(0), at(1), at(2), at(3)]).toEqual([200, 200, 200, 429]);
    // Another address has its own count.
    expect(at(3, '10.0.0.2')).toBe(200);
    // Still over at 60.5 s: the asks at 1, 2 and 3 s (the refused one too) are in the window.
    expect(at(60.5)).toBe(429);
    expect(at(125)).toBe(200);
    expect(firewall.refused()).toBe(2);
  });
});

describe('the firewall in front of the uploads API', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ firewall: '3/60' });
  });
  afterAll(() => stopTestSandbox(sandbox));

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${sandbox.ports.api}${path}`, { ...init, headers: { Origin: 'http://localhost:3000', ...(init.headers ?? {}) } });
  const setFirewall = (spec: string) => fetch(`http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/firewall`, { method: 'PUT', body: spec });

  it("answers an address over the limit with the firewall's 429, which a page can read; preflights and the product API are not counted", async () => {
    const metrics = '/ranches/cedar-creek/upload-metrics?yearmo=2026_11';
    for (let i = 0; i < 3; i++) expect((await api(metrics)).status).toBe(401);
    expect((await api(metrics, { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': 'GET' } })).status).toBe(204);
    expect((await api('/ranches/cedar-creek')).status).toBe(401);
    const refused = await api('/ranches/cedar-creek/reservations', { method: 'POST', body: '{}' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: UPLOADS_EDGE_ANSWERS.rateLimited.message });
    expect(refused.headers.get('Retry-After')).toBe(String(UPLOADS_EDGE_ANSWERS.rateLimited.retryAfterSeconds));
    for (const [name, value] of Object.entries(UPLOADS_EDGE_ANSWER_HEADERS)) expect(refused.headers.get(name)).toBe(value);
    // The collection route is behind it too.
    expect((await api('/events', { method: 'POST', body: '{}' })).status).toBe(429);
  });

  it('is switched at run time: every request refused (403), answered 429 with a chosen wait, or off', async () => {
    expect((await setFirewall('403')).status).toBe(200);
    const refused = await api('/ranches/cedar-creek/upload-metrics?yearmo=2026_11');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: UPLOADS_EDGE_ANSWERS.refused.message });
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('*');

    expect((await setFirewall('429:2')).status).toBe(200);
    expect((await api('/ranches/cedar-creek/upload-metrics?yearmo=2026_11')).headers.get('Retry-After')).toBe('2');

    expect((await setFirewall('off')).status).toBe(200);
    expect((await api('/ranches/cedar-creek/upload-metrics?yearmo=2026_11')).status).toBe(401);
    const bad = await setFirewall('sometimes');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^bad firewall "sometimes": expected/);
  });
});

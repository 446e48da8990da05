/**
 * The uploads API's collection route of monitoring events on the sandbox's API port
 * (src/api.ts, infra/src/uploads-api/events.ts): no token, a `text/plain` batch as a page's beacon
 * sends it, CORS for the site's origins, and the events in the analytics sink's table, where
 * `GET /events` of the sink and `npm run report` read them.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApi } from '../src/api';
import { openDb } from '../src/db';
import { sqliteLedger, sqliteRanches } from '../src/ledger';

let dir: string;
let db: ReturnType<typeof openDb>;
let server: http.Server;
let url: string;
const logged: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-events-'));
  db = openDb(path.join(dir, 'sandbox.db'));
  const api = createApi({
    db,
    uploads: { ledger: sqliteLedger(db), ranches: sqliteRanches(db), clock: { now: () => new Date() }, newId: () => 'x'.repeat(16) },
    // No token is ever checked on this route: a key lookup would be a failure of the test.
    keys: () => Promise.reject(new Error('the collection route must not verify a token')),
    issuer: 'http://localhost:4100/us-east-2_TrailSenseLocal',
    clientId: 'client',
    log: (line) => logged.push(line),
  });
  server = http.createServer(api);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const SITE = 'http://localhost:3000';
const vital = { name: 'webVital', metric: 'CLS', value: 0.01, rating: 'good', route: '/', navigationType: 'navigate' };
const error = { name: 'clientError', kind: 'error', message: 'TypeError: x is undefined', route: '/login', release: '0.1.0', suppressed: 0 };
/** As a page's beacon sends it: text/plain, from the site's origin, no Authorization. */
const beacon = (body: string, origin = SITE) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'text/plain;charset=UTF-8', Origin: origin }, body });
const stored = () => db.events().filter((e) => e.name === 'webVital' || e.name === 'clientError');

it('stores a signed-out page’s text/plain batch in the sink, with CORS for the site’s origin', async () => {
  const res = await beacon(JSON.stringify({ events: [vital, error] }));
  expect(res.status).toBe(202);
  expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
  expect(await res.json()).toEqual({ accepted: 2 });
  expect(stored()).toEqual([expect.objectContaining(vital), expect.objectContaining(error)]);
  expect(logged.some((line) => line.startsWith('[analytics] webVital'))).toBe(true);
});

it('takes application/json too (a fetch may send it), and a request without an Origin', async () => {
  const before = stored().length;
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ events: [vital] }) });
  expect(res.status).toBe(202);
  expect(stored()).toHaveLength(before + 1);
});

it('refuses another site’s page, malformed JSON, an unknown field, personal data and too many events, storing nothing', async () => {
  const before = stored().length;
  expect((await beacon(JSON.stringify({ events: [vital] }), 'https://evil.example')).status).toBe(403);
  const bad = await beacon('{"events": [');
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { message: string }).message).toMatch(/^The body is not JSON/);
  const extra = await beacon(JSON.stringify({ events: [{ ...vital, email: 'subscriber@trailsense.example' }] }));
  expect(await extra.json()).toEqual({ message: 'events[0]: email is not a field of webVital' });
  expect((await beacon(JSON.stringify({ events: [{ ...error, message: 'no ranch for subscriber@trailsense.example' }] }))).status).toBe(400);
  const many = await beacon(JSON.stringify({ events: Array.from({ length: 21 }, () => vital) }));
  expect(many.status).toBe(413);
  expect(await many.json()).toEqual({ message: 'Too many events: 21 in one request, at most 20' });
  expect(stored()).toHaveLength(before);
});

it('refuses a body over 16 KiB with 413 without reading it all, and goes on working', async () => {
  const huge = await beacon(JSON.stringify({ events: [vital] }) + ' '.repeat(200_000));
  expect(huge.status).toBe(413);
  expect(((await huge.json()) as { message: string }).message).toMatch(/larger than 16384 bytes \(16 KiB\)/);
  expect((await beacon(JSON.stringify({ events: [vital] }))).status).toBe(202);
});

it('answers a GET with 405 and a preflight for the site with its CORS headers', async () => {
  expect((await fetch(url)).status).toBe(405);
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: { Origin: SITE, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(SITE);
  expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
});

it('refuses a batch with a lie in any text field (control character, line break, personal data), naming it; stores nothing, logs nothing of it, goes on working', async () => {
  const before = stored().length;
  const loggedBefore = logged.length;
  const lies: [Record<string, unknown>, string][] = [
    [{ ...vital, route: '/\n| forged | row |' }, 'events[1]: route holds a control character or line break (U+000A at character 2)'],
    [{ ...vital, metric: 'CLS\u001b[2J' }, 'events[1]: metric holds a control character or line break (U+001B at character 4)'],
    [{ ...error, message: 'boom\r\nforged' }, 'events[1]: message holds a control character or line break (U+000D at character 5)'],
    [{ ...error, source: '/static/js/a.js\u2029' }, 'events[1]: source holds a control character or line break (U+2029 at character 16)'],
    [{ ...error, module: 'auth/Login\u0085' }, 'events[1]: module holds a control character or line break (U+0085 at character 11)'],
    [{ ...error, release: '0.1.0\u0000' }, 'events[1]: release holds a control character or line break (U+0000 at character 6)'],
  ];
  for (const [event, message] of lies) {
    const res = await beacon(JSON.stringify({ events: [vital, event] }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: `${message}: text must be one line of printable characters` });
  }
  const release = await beacon(JSON.stringify({ events: [{ ...error, release: '0.1.0+build.20261128' }] }));
  expect(release.status).toBe(400);
  expect(await release.json()).toEqual({
    message:
      'events[0]: release holds a run of 6 or more digits, personal data: scrub it before sending (scrubText) — the route refuses it, it does not scrub it',
  });
  expect(stored()).toHaveLength(before);
  expect(logged.slice(loggedBefore)).toEqual([]);
  expect((await beacon(JSON.stringify({ events: [vital, error] }))).status).toBe(202);
  expect(stored()).toHaveLength(before + 2);
});

it('answers every malformed body with a 4xx and keeps serving', async () => {
  const bodies = ['\u0000', '{"events":[null]}', '{"events":"x"}', '{"events":[{"name":{"toString":1}}]}', '\ud800', '{"events":[' + '['.repeat(5000) + ']}'];
  for (const body of bodies) {
    const res = await beacon(body);
    expect([400, 413]).toContain(res.status);
  }
  expect((await beacon(JSON.stringify({ events: [vital] }))).status).toBe(202);
});

/**
 * The analytics sink over HTTP (src/analytics.ts): it stores the monitoring events of
 * docs/monitoring.md next to the upload events, and refuses a malformed one with a 400 that says
 * what is wrong, without falling over.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAnalytics } from '../src/analytics';
import { openDb } from '../src/db';

let dir: string;
let db: ReturnType<typeof openDb>;
let server: http.Server;
let url: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-sink-'));
  db = openDb(path.join(dir, 'sandbox.db'));
  server = http.createServer(createAnalytics({ db, log: () => undefined }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const post = (body: unknown) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const outcome = {
  name: 'batchOutcome',
  photos: 2,
  bytes: 2_000_000,
  durationMs: 4000,
  goodputBytesPerSecond: 500_000,
  retries: 0,
  failures: { upload: 0, stalled: 0, limit: 0, unavailable: 0, unreadable: 0 },
  hiddenMs: 0,
  skippedDuplicates: 1,
  stopped: false,
};
const vital = { name: 'webVital', metric: 'CLS', value: 0.01, rating: 'good', route: '/about', navigationType: 'navigate' };
const error = { name: 'clientError', kind: 'remote-load', message: 'RemoteLoadError', module: 'auth/Login', route: '/login', release: '0.1.0', suppressed: 0 };

it('stores the monitoring events and gives them back, by name too', async () => {
  for (const event of [vital, outcome, error]) expect((await post(event)).status).toBe(201);
  expect((await post({ name: 'imageUpload', ranchid: 'cedar-creek', key: 'public/cedar-creek/x.jpg', uploadCount: 1 })).status).toBe(201);
  const all = (await (await fetch(url)).json()) as { events: Record<string, unknown>[] };
  expect(all.events.map((e) => e['name'])).toEqual(['webVital', 'batchOutcome', 'clientError', 'imageUpload']);
  expect(all.events[1]).toMatchObject(outcome);
  const vitals = (await (await fetch(`${url}?name=webVital`)).json()) as { events: unknown[] };
  expect(vitals.events).toEqual([expect.objectContaining(vital)]);
});

it('refuses a malformed monitoring event with a 400 that names the problem, and goes on working', async () => {
  const cases: [unknown, RegExp][] = [
    [{ ...vital, value: -1 }, /value must be a non-negative number/],
    [{ ...outcome, failures: null }, /failures must be/],
    [{ ...error, email: 'subscriber@trailsense.example' }, /email is not a field of clientError/],
    [{ ...error, message: 'x'.repeat(301) }, /message must be/],
    [{ name: 'pageView', route: '/' }, /name must be one of/],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(message);
  }
  const broken = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":' });
  expect(broken.status).toBe(400);
  expect((await post(vital)).status).toBe(201);
});

it('refuses a control character or line break in any text of any event, the upload events’ ranch and key included, naming the field', async () => {
  const upload = { name: 'imageUpload', ranchid: 'cedar-creek', key: 'public/cedar-creek/x.jpg', uploadCount: 1 };
  const failure = { name: 'uploadFailure', ranchid: 'cedar-creek', failureCount: 1 };
  const cases: [unknown, string][] = [
    [{ ...upload, ranchid: 'cedar-creek\n' }, 'ranchid holds a control character or line break (U+000A at character 12)'],
    [{ ...upload, key: 'public/\u001b[2J/x.jpg' }, 'key holds a control character or line break (U+001B at character 8)'],
    [{ ...failure, ranchid: 'a\u2028b' }, 'ranchid holds a control character or line break (U+2028 at character 2)'],
    [{ ...upload, name: 'imageUpload\r' }, 'name holds a control character or line break (U+000D at character 12)'],
    [{ ...outcome, retries: '0\u0085' }, 'retries holds a control character or line break (U+0085 at character 2)'],
    [{ ...vital, route: '/about\u009b' }, 'route holds a control character or line break (U+009B at character 7)'],
    [{ ...error, release: '0.1.0\u007f' }, 'release holds a control character or line break (U+007F at character 6)'],
  ];
  for (const [body, message] of cases) {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: `${message}: text must be one line of printable characters` });
  }
  const personal = await post({ ...error, release: '0.1.0 subscriber@trailsense.example' });
  expect(personal.status).toBe(400);
  expect(((await personal.json()) as { message: string }).message).toMatch(/^release holds an e-mail address, personal data/);
  expect((await post({ ...upload, ranchid: '' })).status).toBe(400);
  expect((await post(upload)).status).toBe(201);
});

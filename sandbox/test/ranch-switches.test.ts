/**
 * The test switches kept per ranch (src/ranch-scope.ts): the browser tests' workers each switch
 * their own tenant's ranches (src/tenants.ts), so a ranch's switch must reach that ranch's
 * requests only — by its objects' keys, its API paths, its members' tokens — and the process-wide
 * switches must still work for callers that name no ranch.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { ranchOfApiPath, ranchOfBearer, ranchOfObjectPath, ranchScoped } from '../src/ranch-scope';
import { apiGet, passwordTokens, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorFetch } from './support/sign';
import { until } from './support/until';
import { putControl, uploadMetrics, uploadsApi } from './support/uploads';

const CEDAR = 'cedar-creek';
const MESQUITE = 'mesquite-flats';
const subscriber = seedUser('subscriber@trailsense.example');
const free = seedUser('free@trailsense.example');

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => stopTestSandbox(sandbox));

const controlUrl = (path: string) => `http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/${path}`;
const idToken = async (user: { email: string; password: string }) => (await passwordTokens(sandbox.config, user.email, user.password)).IdToken;
const objectUrl = (ranch: string) => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/public/${ranch}/${randomUUID()}.jpg`;
const objectPut = (ranch: string) => operatorFetch(objectUrl(ranch), { method: 'PUT', body: 'x' });

describe('switches per ranch', () => {
  it("a ranch's S3 PUT fault fails that ranch's objects only, and counts them apart", async () => {
    const [mine, theirs] = [CEDAR, MESQUITE];
    expect((await fetch(controlUrl(`s3-put-fault?ranch=${mine}`), { method: 'PUT', body: '1:503' })).status).toBe(200);
    expect((await objectPut(mine)).status).toBe(503);
    expect((await objectPut(theirs)).status).not.toBe(503);
    expect((await objectPut('pine-hollow')).status).not.toBe(503);
    expect(sandbox.injectedFaults(mine)).toBe(1);
    expect(((await (await fetch(controlUrl(`s3-put-fault?ranch=${theirs}`))).json()) as { injected: number }).injected).toBe(0);

    // The process-wide switch reaches every ranch without one of its own; a ranch's own "off" holds.
    sandbox.setPutFault('0', mine);
    sandbox.setPutFault('1:500');
    try {
      expect((await objectPut(theirs)).status).toBe(500);
      expect((await objectPut(mine)).status).not.toBe(500);
    } finally {
      sandbox.setPutFault('0');
    }
  });

  it("a ranch's stall holds that ranch's PUTs only", async () => {
    const [mine, theirs] = [CEDAR, MESQUITE];
    const put = await putControl(sandbox, `s3-put-stall?ranch=${mine}`, '1');
    expect(put).toEqual({ status: 200, json: { held: 0, pending: 1 } });
    expect((await objectPut(theirs)).status).toBe(200);
    expect(sandbox.heldPuts(theirs)).toBe(0);
    // Held before its signature is read; the client gives up once the rest has been checked.
    const held = http.request(objectUrl(mine), { method: 'PUT', agent: false }).on('error', () => undefined);
    held.end('x');
    await until(() => sandbox.heldPuts(mine) === 1);
    expect((await objectPut(theirs)).status).toBe(200);
    expect(sandbox.heldPuts()).toBe(0);
    held.destroy();
  });

  it("a ranch's API fault, firewall and ledger clock reach its requests (by path, or by its member's token) only", async () => {
    const [mine, theirs] = [CEDAR, MESQUITE];
    const [myToken, theirToken] = [await idToken(subscriber), await idToken(free)];
    const month = countingMonth(new Date());
    expect((await putControl(sandbox, `api-fault?ranch=${mine}`, 'upload-metrics:500,subscriptions:503')).status).toBe(200);
    expect((await uploadsApi(sandbox.config, 'GET', `/ranches/${mine}/upload-metrics?yearmo=${month}`, myToken)).status).toBe(500);
    expect((await uploadsApi(sandbox.config, 'GET', `/ranches/${theirs}/upload-metrics?yearmo=${month}`, theirToken)).status).toBe(200);
    // Subscriptions name an email, not a ranch: the caller's token's ranch decides.
    expect((await apiGet(sandbox.config, `/subscriptions/${encodeURIComponent(subscriber.email)}`, myToken)).status).toBe(503);
    expect((await apiGet(sandbox.config, `/subscriptions/${encodeURIComponent(free.email)}`, theirToken)).status).toBe(200);
    sandbox.setApiFault('0', mine);

    expect((await putControl(sandbox, `firewall?ranch=${mine}`, '403')).json).toEqual({ mode: '403', refused: 0 });
    expect((await uploadsApi(sandbox.config, 'GET', `/ranches/${mine}/upload-metrics?yearmo=${month}`, myToken)).status).toBe(403);
    expect((await uploadsApi(sandbox.config, 'GET', `/ranches/${theirs}/upload-metrics?yearmo=${month}`, theirToken)).status).toBe(200);
    expect((await putControl(sandbox, `firewall?ranch=${mine}`, 'off')).json).toEqual({ mode: 'off', refused: 1 });

    expect((await putControl(sandbox, `ledger-clock?ranch=${mine}`, '2026-11-01T04:30:00Z')).status).toBe(200);
    try {
      expect((await uploadMetrics(sandbox.config, myToken, mine, '2026_11')).month).toBe('2026_11');
      expect((await uploadMetrics(sandbox.config, theirToken, theirs, month)).month).toBe(month);
      // The ranch's count is set in its own month.
      const usage = await putControl(sandbox, 'ranch-usage', JSON.stringify({ ranchId: mine, total: 7 }));
      expect(usage.status).toBe(200);
      expect((await uploadMetrics(sandbox.config, myToken, mine, '2026_11')).total).toBe('7');
    } finally {
      await putControl(sandbox, `ledger-clock?ranch=${mine}`, '');
    }
    expect((await uploadMetrics(sandbox.config, myToken, mine, month)).month).toBe(month);
  });

  it('refuses a ranch the sandbox does not have, and ?ranch= where it means nothing', async () => {
    const bad = await putControl(sandbox, 'api-fault?ranch=nowhere', 'ranch:500');
    expect(bad.status).toBe(400);
    expect(bad.json['message']).toMatch(/no ranch "nowhere"/);
    expect((await fetch(controlUrl('s3-put-stall?ranch='))).status).toBe(400);
    expect((await putControl(sandbox, `ranch-usage?ranch=${CEDAR}`, '{}')).status).toBe(400);
  });
});

describe('which ranch a request is about', () => {
  it('reads it from an object path, an API path or a bearer token, and nothing from anything else', () => {
    expect(ranchOfObjectPath('/bucket/public/cedar-creek/a.jpg')).toBe('cedar-creek');
    expect(ranchOfObjectPath('/bucket/private/us-east-2%3Aabc/cedar-creek/a.jpg')).toBe('cedar-creek');
    for (const path of ['/bucket', '/bucket/public/a.jpg', '/bucket/other/x/y', '/bucket/public/%E0%A4%A/a.jpg', ''])
      expect(ranchOfObjectPath(path)).toBeUndefined();
    expect(ranchOfApiPath('/ranches/cedar-creek/upload-metrics')).toBe('cedar-creek');
    for (const path of ['/subscriptions/a%40b.example', '/ranches', '/ranches/%E0%A4%A']) expect(ranchOfApiPath(path)).toBeUndefined();
    const jwt = (claims: unknown) => `Bearer e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
    expect(ranchOfBearer(jwt({ 'custom:ranchid': 'pine-hollow' }))).toBe('pine-hollow');
    for (const header of [undefined, '', 'Bearer', 'Basic abc', jwt({}), jwt({ 'custom:ranchid': 7 }), jwt(null), 'Bearer a.!!!.c', 'Bearer a.bm90IGpzb24.c']) {
      expect(ranchOfBearer(header)).toBeUndefined();
    }
  });

  it("meets a ranch's own switch once set, else the process-wide one", () => {
    const scoped = ranchScoped(() => ({ on: false }), { on: true });
    expect(scoped.for('a').on).toBe(true);
    scoped.own('a').on = false;
    expect([scoped.for('a').on, scoped.for('b').on, scoped.for(undefined).on]).toEqual([false, true, true]);
    expect(scoped.own(undefined)).toBe(scoped.for(undefined));
  });
});

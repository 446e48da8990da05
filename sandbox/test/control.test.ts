/**
 * The sandbox control endpoints on the analytics port: browser tests run the sandbox as a separate
 * process and switch S3 PUT faults (`/_sandbox/s3-put-fault`), S3 PUT stalls
 * (`/_sandbox/s3-put-stall`) and product API faults (`/_sandbox/api-fault`) through them.
 */
import type { Sandbox } from '../src/index';
import { rawRequest } from './support/raw-http';
import { startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorFetch, operatorRawRequest } from './support/sign';
import { until } from './support/until';

let sandbox: Sandbox;
let control: string;
const lines: string[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ log: (line) => lines.push(line) });
  control = `http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/s3-put-fault`;
});
afterAll(() => stopTestSandbox(sandbox));

const controlUrl = (name: string) => `http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/${name}`;
const put = (body: string, headers: Record<string, string> = {}) => fetch(control, { method: 'PUT', body, headers });
const putTo = (name: string, body: string, headers: Record<string, string> = {}) => fetch(controlUrl(name), { method: 'PUT', body, headers });
const getJson = async (url: string) => (await (await fetch(url)).json()) as Record<string, unknown>;
const objectUrl = (name: string) => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/public/cedar-creek/${name}`;
// Signed with the operator's key (S3 refuses anonymous requests); a held PUT is held before that.
const rawS3Put = () =>
  operatorFetch(`http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/public/cedar-creek/control-test.jpg`, { method: 'PUT', body: 'x' });

/** Waits for a log line (the S3 front logs what it does with a held request); a busy machine may take seconds. */
async function logged(pattern: RegExp): Promise<string> {
  await until(() => lines.some((l) => pattern.test(l)));
  return lines.find((l) => pattern.test(l)) as string;
}

describe('PUT /_sandbox/s3-put-fault', () => {
  it('switches the fault on at run time, and off again', async () => {
    const on = await put('1:503');
    expect(on.status).toBe(200);
    expect((await rawS3Put()).status).toBe(503);
    expect(sandbox.injectedFaults()).toBe(1);
    const status = (await (await fetch(control)).json()) as { injected: number };
    expect(status.injected).toBe(1);

    expect((await put(JSON.stringify({ fault: '0' }), { 'Content-Type': 'application/json' })).status).toBe(200);
    expect((await rawS3Put()).status).not.toBe(503);
    expect(sandbox.injectedFaults()).toBe(1);
  });

  it('takes an S3 error code: 1:400:ExpiredToken answers as S3 does to expired credentials', async () => {
    const on = await put('1:400:ExpiredToken');
    expect(on.status).toBe(200);
    expect(await on.json()).toMatchObject({ fault: '1:400:ExpiredToken' });
    const res = await rawS3Put();
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>ExpiredToken</Code><Message>The provided token has expired.</Message>');
    expect((await put('0')).status).toBe(200);
  });

  it('refuses a malformed spec with the reason', async () => {
    const res = await put('lots');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/expected <fraction>/);
    const badCode = await put('1:400:Expired-Token');
    expect(badCode.status).toBe(400);
    expect(((await badCode.json()) as { message: string }).message).toMatch(/error code must be letters and digits/);
  });

  it('refuses requests from web pages (an Origin header)', async () => {
    const res = await put('1:503', { Origin: 'http://localhost:3000' });
    expect(res.status).toBe(403);
    expect((await rawS3Put()).status).not.toBe(503);
  });
});

describe('PUT /_sandbox/s3-put-stall', () => {
  afterEach(() => sandbox.stallPuts(0));

  it('holds the next N object PUTs unanswered while their clients wait, then lets PUTs through', async () => {
    const heldBefore = sandbox.heldPuts();
    const on = await putTo('s3-put-stall', '2');
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ held: heldBefore, pending: 2 });

    // One small body (arrives whole) and one large (the client stalls mid-upload): neither answered.
    const [small, large] = await Promise.all([
      rawRequest(objectUrl('held-small.jpg'), { method: 'PUT', body: 'x', timeoutMs: 300 }),
      rawRequest(objectUrl('held-large.jpg'), { method: 'PUT', body: Buffer.alloc(4 * 1024 * 1024, 1), timeoutMs: 300 }),
    ]);
    expect(small).toBe('no answer');
    expect(large).toBe('no answer');
    expect(sandbox.heldPuts()).toBe(heldBefore + 2);
    expect(await getJson(controlUrl('s3-put-stall'))).toEqual({ held: heldBefore + 2, pending: 0 });

    // The client gave up and closed: the held request is ended on the sandbox's side too.
    await logged(/stall switch: PUT \/[^ ]+\/public\/cedar-creek\/held-small\.jpg ended \(the connection closed\)/);

    const next = await operatorRawRequest(objectUrl('after-stall.jpg'), { method: 'PUT', body: 'y', timeoutMs: 10_000 });
    expect(next).toMatchObject({ status: 200 });
    expect(sandbox.heldPuts()).toBe(heldBefore + 2);
  });

  it('holds only that PUT: others (and the CORS preflight) are answered while it waits', async () => {
    sandbox.stallPuts(1);
    const held = rawRequest(objectUrl('held-long.jpg'), { method: 'PUT', body: 'x', timeoutMs: 3000 });
    await logged(/stall switch: holding PUT \/[^ ]+\/public\/cedar-creek\/held-long\.jpg/);
    sandbox.stallPuts(1);
    const preflight = await rawRequest(objectUrl('preflight.jpg'), {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:3002', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-amz-meta-ranchid' },
      timeoutMs: 10_000,
    });
    expect(preflight).toMatchObject({ status: 200, headers: { 'access-control-allow-methods': expect.stringContaining('PUT') } });
    expect(await getJson(controlUrl('s3-put-stall'))).toMatchObject({ pending: 1 });
    sandbox.stallPuts(0);
    expect((await rawS3Put()).status).toBe(200);
    await expect(held).resolves.toBe('no answer');
  });

  it('refuses a count that is not a whole number 0..1000, and web pages', async () => {
    for (const body of ['lots', '-1', '2.5', '1001']) {
      const res = await putTo('s3-put-stall', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/bad S3 PUT stall/);
    }
    expect((await putTo('s3-put-stall', '1', { Origin: 'http://localhost:3000' })).status).toBe(403);
    expect((await fetch(controlUrl('s3-put-stall'), { headers: { Origin: 'http://localhost:3000' } })).status).toBe(403);
    expect((await fetch(controlUrl('s3-put-stall'), { method: 'DELETE' })).status).toBe(405);
    expect(await getJson(controlUrl('s3-put-stall'))).toMatchObject({ pending: 0 });
    expect(() => sandbox.stallPuts(-1)).toThrow(/whole number/);
  });
});

describe('PUT /_sandbox/api-fault', () => {
  const api = (pathname: string, init: RequestInit = {}) => fetch(`${sandbox.config.api.baseUrl}${pathname}`, init);
  const site = { Origin: 'http://localhost:3002' };
  afterEach(() => sandbox.setApiFault('0'));

  it('fails the chosen routes before authentication, readable by the site, until switched off', async () => {
    const on = await putTo('api-fault', 'upload-metrics:500,ranch:503');
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ faults: { 'upload-metrics': 500, ranch: 503 } });
    expect(await getJson(controlUrl('api-fault'))).toEqual({ faults: { 'upload-metrics': 500, ranch: 503 } });

    const metrics = await api('/ranches/cedar-creek/upload-metrics?yearmo=2025_01', { headers: site });
    expect(metrics.status).toBe(500);
    expect(metrics.headers.get('access-control-allow-origin')).toBe('http://localhost:3002');
    expect(await metrics.json()).toEqual({ message: 'Injected failure 500 (sandbox fault switch)' });
    const ranch = await api('/ranches/cedar-creek', { headers: site });
    expect(ranch.status).toBe(503);
    expect(await ranch.json()).toEqual({ message: 'Injected failure 503 (sandbox fault switch)' });
    // Routes not named work as before (no token: 401); the preflight is still answered.
    expect((await api('/ranches/cedar-creek/cameras')).status).toBe(401);
    const preflight = await api('/ranches/cedar-creek/upload-metrics', {
      method: 'OPTIONS',
      headers: { ...site, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3002');

    expect(await (await putTo('api-fault', '0')).json()).toEqual({ faults: {} });
    expect((await api('/ranches/cedar-creek/upload-metrics?yearmo=2025_01')).status).toBe(401);
    expect((await putTo('api-fault', '')).status).toBe(200);
  });

  it('switches at run time through the Sandbox object too', async () => {
    sandbox.setApiFault('cameras:500,subscriptions:500');
    expect((await api('/ranches/cedar-creek/cameras')).status).toBe(500);
    expect((await api('/subscriptions/subscriber%40trailsense.example')).status).toBe(500);
    expect((await api('/ranches/cedar-creek')).status).toBe(401);
    expect(await getJson(controlUrl('api-fault'))).toEqual({ faults: { cameras: 500, subscriptions: 500 } });
    expect(() => sandbox.setApiFault('cameras:abc')).toThrow(/"cameras:abc" is not <route>:<status>/);
    sandbox.setApiFault('');
    expect((await api('/ranches/cedar-creek/cameras')).status).toBe(401);
  });

  it('refuses a malformed spec naming what is wrong, and web pages', async () => {
    const cases: [string, RegExp][] = [
      ['metrics:500', /unknown route "metrics"/],
      ['ranch', /"ranch" is not <route>:<status>/],
      ['ranch:200', /status for ranch must be 4xx or 5xx/],
      ['ranch:500,ranch:503', /named twice/],
    ];
    for (const [body, message] of cases) {
      const res = await putTo('api-fault', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
    expect((await putTo('api-fault', 'ranch:500', { Origin: 'http://localhost:3000' })).status).toBe(403);
    expect(await getJson(controlUrl('api-fault'))).toEqual({ faults: {} });
  });
});

describe('bad input to the control port', () => {
  it('answers 4xx and keeps running', async () => {
    expect((await putTo('s3-put-stall', 'x'.repeat(5000))).status).toBe(400);
    expect((await putTo('api-fault', Buffer.from([0xff, 0xfe, 0x00]).toString('latin1'))).status).toBe(400);
    const url = new URL(controlUrl('api-fault'));
    expect(await rawRequest(`${url.origin}//`, { method: 'GET', timeoutMs: 10_000 })).toMatchObject({ status: 400 });
    expect(await rawRequest(`${sandbox.config.api.baseUrl}//`, { method: 'GET', timeoutMs: 10_000 })).toMatchObject({ status: 400 });
    expect(await getJson(controlUrl('s3-put-stall'))).toMatchObject({ pending: 0 });
  });
});

/**
 * The sandbox control endpoint (`/_sandbox/s3-put-fault` on the analytics port): browser tests run
 * the sandbox as a separate process and switch S3 PUT faults through it.
 */
import type { Sandbox } from '../src/index';
import { startTestSandbox, stopTestSandbox } from './support/sandbox';

let sandbox: Sandbox;
let control: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  control = `http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/s3-put-fault`;
});
afterAll(() => stopTestSandbox(sandbox));

const put = (body: string, headers: Record<string, string> = {}) => fetch(control, { method: 'PUT', body, headers });
const rawS3Put = () =>
  fetch(`http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/public/control-test.jpg`, { method: 'PUT', body: 'x' });

describe('PUT /_sandbox/s3-put-fault', () => {
  it('switches the fault on at run time, and off again', async () => {
    const on = await put('1:503');
    expect(on.status).toBe(200);
    expect(((await rawS3Put()).status)).toBe(503);
    expect(sandbox.injectedFaults()).toBe(1);
    const status = (await (await fetch(control)).json()) as { injected: number };
    expect(status.injected).toBe(1);

    expect((await put(JSON.stringify({ fault: '0' }), { 'Content-Type': 'application/json' })).status).toBe(200);
    expect((await rawS3Put()).status).not.toBe(503);
    expect(sandbox.injectedFaults()).toBe(1);
  });

  it('refuses a malformed spec with the reason', async () => {
    const res = await put('lots');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/expected <fraction>/);
  });

  it('refuses requests from web pages (an Origin header)', async () => {
    const res = await put('1:503', { Origin: 'http://localhost:3000' });
    expect(res.status).toBe(403);
    expect((await rawS3Put()).status).not.toBe(503);
  });
});

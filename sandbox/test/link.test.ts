/**
 * The link emulator on the storage path, end to end through the sandbox's S3 port: one uplink
 * shared by every connection (two parallel uploads each get about half, one alone gets about all),
 * the round trip added per request, and a client abort that harms nothing.
 * Small transfers (1 MB per stream on an 8 Mbit/s link) keep it to a few seconds.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { Sandbox } from '../src/index';
import { bytesPerSecond } from '../src/link';
import { startTestSandbox, stopTestSandbox } from './support/sandbox';

const MBIT = 8;
const RTT = 100;
const BYTES = 1_000_000;
const capacity = bytesPerSecond(MBIT); // bytes per second

let sandbox: Sandbox;
let bucket: string;
beforeAll(async () => {
  sandbox = await startTestSandbox({ link: { mbit: MBIT, rttMs: RTT } });
  bucket = sandbox.config.storage.bucket;
});
afterAll(() => stopTestSandbox(sandbox));

/** One HTTP request on a connection of its own (`agent: false`); resolves with its status and ms taken. */
function request(method: string, key: string, body?: Buffer, agent: http.Agent | false = false): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(
      { host: '127.0.0.1', port: sandbox.ports.s3, method, path: `/${bucket}/${key}`, agent, headers: body ? { 'Content-Length': body.length, 'Content-Type': 'image/jpeg' } : {} },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - start }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The share of the link a transfer got: bytes / (capacity × time), minus the two round trips (handshake, request). */
const share = (ms: number) => BYTES / (capacity * ((ms - 2 * RTT) / 1000));

it('reports the link it emulates', () => {
  expect(sandbox.link).toEqual({ mbit: MBIT, rttMs: RTT });
});

it('gives one upload alone about the whole link', async () => {
  const alone = await request('PUT', 'link/alone.jpg', randomBytes(BYTES));
  expect(alone.status).toBe(200);
  expect(share(alone.ms)).toBeGreaterThan(0.75);
  expect(share(alone.ms)).toBeLessThan(1.25);
});

it('shares the link: two parallel uploads each get about half', async () => {
  const sentBefore = sandbox.linkBytesSent();
  const [a, b] = await Promise.all([request('PUT', 'link/a.jpg', randomBytes(BYTES)), request('PUT', 'link/b.jpg', randomBytes(BYTES))]);
  expect([a!.status, b!.status]).toEqual([200, 200]);
  for (const r of [a!, b!]) {
    expect(share(r.ms)).toBeGreaterThan(0.5 * 0.75);
    expect(share(r.ms)).toBeLessThan(0.5 * 1.25);
  }
  // Together they filled the link (not two links' worth).
  const together = (2 * BYTES) / (capacity * ((Math.max(a!.ms, b!.ms) - 2 * RTT) / 1000));
  expect(together).toBeGreaterThan(0.75);
  expect(together).toBeLessThan(1.25);
  expect(sandbox.linkBytesSent() - sentBefore).toBeGreaterThanOrEqual(2 * BYTES);
});

it('adds the round trip: one per request, one more for a new connection', async () => {
  const fresh = await request('HEAD', 'link/alone.jpg');
  expect(fresh.status).toBe(200);
  expect(fresh.ms).toBeGreaterThanOrEqual(2 * RTT - 5);
  expect(fresh.ms).toBeLessThan(2 * RTT + 250);

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await request('HEAD', 'link/alone.jpg', undefined, agent);
    const reused = await request('HEAD', 'link/alone.jpg', undefined, agent);
    expect(reused.status).toBe(200);
    expect(reused.ms).toBeGreaterThanOrEqual(RTT - 5);
    expect(reused.ms).toBeLessThan(RTT + 150);
  } finally {
    agent.destroy();
  }
});

it('survives clients that abort mid-upload', async () => {
  for (let i = 0; i < 5; i++) {
    const socket = net.connect(sandbox.ports.s3, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`PUT /${bucket}/link/aborted-${i}.jpg HTTP/1.1\r\nHost: localhost:${sandbox.ports.s3}\r\nContent-Length: ${BYTES}\r\n\r\n`);
    socket.write(randomBytes(100_000));
    await new Promise((r) => setTimeout(r, 20 * i));
    if (i % 2) socket.resetAndDestroy();
    else socket.destroy();
  }
  const after = await request('PUT', 'link/after-abort.jpg', randomBytes(10_000));
  expect(after.status).toBe(200);
  expect((await request('HEAD', 'link/after-abort.jpg')).status).toBe(200);
  const state = await Promise.race([sandbox.stopped, new Promise((r) => setTimeout(() => r('running'), 50))]);
  expect(state).toBe('running');
});

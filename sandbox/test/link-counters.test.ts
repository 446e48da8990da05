/**
 * What the sandbox counts for the link benches, over the wire (src/link-counters.ts through
 * s3.ts): the bytes object PUT bodies brought, stored or not; the PUTs whose client went away
 * mid-body; when each object was stored and its size. Then a profile behind the sandbox's S3
 * port: `sandbox.link` says which, its clock runs, and a second flow can share the same uplink.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { Sandbox } from '../src/index';
import { OPERATOR_CREDENTIALS } from '../src/s3';
import { passwordTokens, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { signRequest } from './support/sign';
import type { Credentials } from './support/sign';
import { ledgerHeaders, reservedMetadata } from './support/uploads';
import { until } from './support/until';

/** `size` bytes that start as a JPEG does (the object-created function keeps only those), then noise. */
const photoBytes = (size: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)]);

/**
 * Resolves once `condition` holds (the server side sees a closed socket a moment after the
 * client): checked after each turn of the event loop's I/O, with no budget of its own, so a busy
 * machine only makes it later; the test's timeout bounds it.
 */

describe('on plain loopback', () => {
  let sandbox: Sandbox;
  let idToken: string;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const subscriber = seedUser('subscriber@trailsense.example');
    idToken = (await passwordTokens(sandbox.config, subscriber.email, subscriber.password)).IdToken;
  });
  afterAll(() => stopTestSandbox(sandbox));

  /** A PUT of `body` signed with the operator's key, under a reserved slot; its status. */
  async function put(key: string, body: Buffer, credentials: Credentials = OPERATOR_CREDENTIALS): Promise<number> {
    const ledger = await reservedMetadata(sandbox.config, idToken, 'cedar-creek', body);
    const signed = await signRequest(credentials, {
      method: 'PUT',
      path: `/${sandbox.config.storage.bucket}/${key}`,
      headers: {
        'Content-Length': String(body.length),
        'Content-Type': 'image/jpeg',
        'x-amz-meta-ranchid': 'cedar-creek',
        ...ledgerHeaders(ledger.reservation, ledger.fingerprint),
      },
      host: `127.0.0.1:${sandbox.ports.s3}`,
    });
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: sandbox.ports.s3, method: 'PUT', path: signed.target, headers: signed.headers, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('counts a stored object: its body bytes, its key, when and its size', async () => {
    const before = { bytes: sandbox.putBodyBytes(), stored: sandbox.storedObjects().length, aborted: sandbox.abortedPuts() };
    const startedAt = Date.now();
    expect(await put('public/cedar-creek/counted.jpg', photoBytes(300_000))).toBe(200);
    expect(sandbox.putBodyBytes() - before.bytes).toBe(300_000);
    const stored = sandbox.storedObjects().slice(before.stored);
    expect(stored).toEqual([{ key: 'public/cedar-creek/counted.jpg', at: expect.any(Number), bytes: 300_000 }]);
    expect(stored[0]!.at).toBeGreaterThanOrEqual(startedAt);
    expect(sandbox.abortedPuts()).toBe(before.aborted);
  });

  it('counts the body of a refused PUT, and stores nothing', async () => {
    const before = { bytes: sandbox.putBodyBytes(), stored: sandbox.storedObjects().length };
    const wrongSecret = { ...OPERATOR_CREDENTIALS, secretAccessKey: 'not-the-secret' };
    expect(await put('public/cedar-creek/refused.jpg', photoBytes(50_000), wrongSecret)).toBe(403);
    expect(sandbox.putBodyBytes() - before.bytes).toBe(50_000);
    expect(sandbox.storedObjects()).toHaveLength(before.stored);
  });

  it('counts a PUT whose client went away mid-body as aborted, with the bytes that came', async () => {
    const before = { bytes: sandbox.putBodyBytes(), aborted: sandbox.abortedPuts(), stored: sandbox.storedObjects().length };
    const socket = net.connect(sandbox.ports.s3, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT /${sandbox.config.storage.bucket}/public/cedar-creek/gone.jpg HTTP/1.1\r\nHost: localhost:${sandbox.ports.s3}\r\nContent-Length: 1000000\r\n\r\n`,
    );
    await new Promise<void>((resolve) => socket.write(randomBytes(100_000), () => resolve()));
    await until(() => sandbox.putBodyBytes() - before.bytes === 100_000);
    socket.destroy();
    await until(() => sandbox.abortedPuts() === before.aborted + 1);
    expect(sandbox.storedObjects()).toHaveLength(before.stored);
  });
});

describe('behind a profile', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox({ link: 'geo' });
  });
  afterAll(() => stopTestSandbox(sandbox));

  it('says which link it is, and its clock runs', async () => {
    expect(sandbox.link).toEqual({ profile: 'geo', seed: 1 });
    const t = sandbox.linkTime();
    await new Promise((r) => setTimeout(r, 20));
    expect(sandbox.linkTime()).toBeGreaterThan(t);
  });

  it('carries a second flow through the same uplink: counted, and at least its round trip of 680 ms per exchange', async () => {
    const echo = net.createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const through = await sandbox.throughLink((echo.address() as net.AddressInfo).port);
    try {
      const sentBefore = sandbox.linkBytesSent();
      const started = performance.now();
      const socket = net.connect(through.port, '127.0.0.1');
      const echoed = new Promise<Buffer>((resolve) => socket.once('data', resolve));
      socket.write('ping');
      expect((await echoed).toString()).toBe('ping');
      // The handshake's round trip and the exchange's: a busy machine only adds time.
      expect(performance.now() - started).toBeGreaterThan(0.95 * 2 * 680);
      expect(sandbox.linkBytesSent() - sentBefore).toBe(4);
      socket.destroy();
    } finally {
      await through.close();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});

/**
 * The link emulator on the storage path, end to end through the sandbox's S3 port: one uplink
 * shared by every connection (two parallel uploads take about twice as long as one alone), the
 * round trip added per request and once more per new connection, and a client abort that harms
 * nothing. What the link adds is read from its decisions (Sandbox.watchLink: the handshakes it
 * charged, each piece's wait on the shared uplink, each chunk's due time), which a busy machine does
 * not change; times measured on the wall clock are held only to lower bounds, which a busy machine
 * (it only adds time) cannot break. The link's absolute pacing is tested on a fake clock
 * (link-pacing.test.ts, link-direction.test.ts).
 * Small transfers (1 MB per stream on an 8 Mbit/s link) keep it to a few seconds.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { LinkDecision, Sandbox } from '../src/index';
import { burstFor, bytesPerSecond } from '../src/link';
import { OPERATOR_CREDENTIALS } from '../src/s3';
import { passwordTokens, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { signRequest } from './support/sign';
import { ledgerHeaders, reservedMetadata } from './support/uploads';

const MBIT = 8;
const RTT = 100;
const BYTES = 1_000_000;
const capacity = bytesPerSecond(MBIT); // bytes per second

let sandbox: Sandbox;
let bucket: string;
/** The subscriber's id token: each PUT goes under a slot reserved for it (support/uploads.ts), else the object is removed. */
let idToken: string;
beforeAll(async () => {
  sandbox = await startTestSandbox({ link: { mbit: MBIT, rttMs: RTT } });
  bucket = sandbox.config.storage.bucket;
  const subscriber = seedUser('subscriber@trailsense.example');
  idToken = (await passwordTokens(sandbox.config, subscriber.email, subscriber.password)).IdToken;
});
afterAll(() => stopTestSandbox(sandbox));

interface Timed {
  status: number;
  ms: number;
  /** Whether it went on a connection an earlier request had opened. */
  reused: boolean;
  /** What the link decided while it ran (Sandbox.watchLink). */
  decisions: LinkDecision[];
}

/**
 * One HTTP request signed with the operator's key, on a connection of its own unless an agent is
 * given; resolves with its status, ms taken (from after signing) and whether it reused a connection.
 */
/** `size` bytes that start as a JPEG does (the object-created function keeps only those), then noise. */
const photoBytes = (size: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)]);

async function request(method: string, key: string, body?: Buffer, agent: http.Agent | false = false): Promise<Timed> {
  return (await prepared(method, key, body, agent))();
}

/**
 * The request signed and its slot reserved, ready to go: `send` starts the clock. Requests meant to
 * share the link are prepared first, so none starts alone while another's reservation is under way.
 */
async function prepared(method: string, key: string, body?: Buffer, agent: http.Agent | false = false): Promise<() => Promise<Timed>> {
  // The reservation goes to the API, not over the emulated link, and before the clock starts.
  const ledger = body ? await reservedMetadata(sandbox.config, idToken, 'cedar-creek', body) : undefined;
  const signed = await signRequest(OPERATOR_CREDENTIALS, {
    method,
    path: `/${bucket}/${key}`,
    headers:
      body && ledger
        ? {
            'Content-Length': String(body.length),
            'Content-Type': 'image/jpeg',
            'x-amz-meta-ranchid': 'cedar-creek',
            ...ledgerHeaders(ledger.reservation, ledger.fingerprint),
          }
        : {},
    host: `127.0.0.1:${sandbox.ports.s3}`,
  });
  return () =>
    new Promise((resolve, reject) => {
      const decisions: LinkDecision[] = [];
      const unwatch = sandbox.watchLink((d) => decisions.push(d));
      const start = performance.now();
      const req = http.request({ host: '127.0.0.1', port: sandbox.ports.s3, method, path: signed.target, agent, headers: signed.headers }, (res) => {
        res.resume();
        res.on('end', () => {
          unwatch();
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - start, reused: req.reusedSocket, decisions });
        });
      });
      req.on('error', (error) => {
        unwatch();
        reject(error);
      });
      req.end(body);
    });
}

/**
 * An agent that keeps its connection between requests. Node's own will not keep one whose server
 * announces a keep-alive timeout of 1 s (the sandbox's); these requests follow each other at once.
 */
class KeepingAgent extends http.Agent {
  override keepSocketAlive(socket: net.Socket): boolean {
    socket.setKeepAlive(true);
    socket.unref();
    return true;
  }
}

/** What a request costs on the emulated link alone (ms): its serialisation and round trips, nothing for s3rver. */
const linkMs = (bytes: number, roundTrips: number) => (bytes / capacity) * 1000 + roundTrips * RTT;

/** The fastest of `n` runs of `measure` (the least disturbed by the machine's other work), whether each reused a connection, and each run. */
async function fastest(n: number, measure: () => Promise<Timed>): Promise<{ ms: number; reused: boolean[]; runs: Timed[] }> {
  let ms = Infinity;
  const reused: boolean[] = [];
  const runs: Timed[] = [];
  for (let i = 0; i < n; i++) {
    const r = await measure();
    expect(r.status).toBe(200);
    ms = Math.min(ms, r.ms);
    reused.push(r.reused);
    runs.push(r);
  }
  return { ms, reused, runs };
}

type Of<K extends LinkDecision['kind']> = Extract<LinkDecision, { kind: K }>;
const ofKind = <K extends LinkDecision['kind']>(decisions: LinkDecision[], kind: K) => decisions.filter((d): d is Of<K> => d.kind === kind);

/** The connections whose pieces went onto the uplink, with the waits the link gave them, in order. */
function transmits(decisions: LinkDecision[]): Map<number, Of<'transmit'>[]> {
  const by = new Map<number, Of<'transmit'>[]>();
  for (const t of ofKind(decisions, 'transmit')) by.set(t.connection!, [...(by.get(t.connection!) ?? []), t]);
  return by;
}

/**
 * What the link charged one request (ms, its decisions): the handshake's round trip when it
 * opened a connection (from its opening to its handshake), half a round trip for the request
 * (from when its first bytes crossed the uplink, or the handshake was done if later, to when they
 * were due at s3rver) and half for the response (from when s3rver wrote it to when it was due at
 * the client).
 */
function charged(decisions: LinkDecision[]): { connections: number[]; handshake: number; request: number; response: number } {
  const opened = ofKind(decisions, 'connection');
  const delivered = ofKind(decisions, 'deliver');
  const request = delivered.find((d) => d.shaped)!;
  const response = delivered.find((d) => !d.shaped)!;
  const connection = opened[0];
  const handshakeAt = connection ? connection.handshakeAt : -Infinity;
  return {
    connections: [...new Set(delivered.map((d) => d.connection!))],
    handshake: connection ? connection.handshakeAt - connection.openedAt : 0,
    request: request.due - Math.max(request.at, handshakeAt),
    response: response.due - response.at,
  };
}

it('reports the link it emulates', () => {
  expect(sandbox.link).toEqual({ mbit: MBIT, rttMs: RTT });
});

it('shares one link: two parallel uploads each take about twice as long as one alone', async () => {
  const sentBefore = sandbox.linkBytesSent();
  let n = 0;
  const alone = await fastest(2, () => request('PUT', `public/cedar-creek/link-alone-${n++}.jpg`, photoBytes(BYTES)));
  const sendA = await prepared('PUT', 'public/cedar-creek/link-a.jpg', photoBytes(BYTES));
  const sendB = await prepared('PUT', 'public/cedar-creek/link-b.jpg', photoBytes(BYTES));
  const [a, b] = await Promise.all([sendA(), sendB()]);
  expect([a.status, b.status]).toEqual([200, 200]);
  // Bounds a busy machine cannot break (it only adds time; timers may fire a millisecond early,
  // hence the 0.95). Each of the pair waits for the other's bytes too: at least 2 MB's time on the
  // link (plus the same two round trips), where two links' worth (no sharing) or no shaping at all
  // would take 1 MB's.
  const twoMegabytes = linkMs(2 * BYTES, 2);
  for (const r of [a, b]) expect(r.ms).toBeGreaterThan(0.95 * twoMegabytes);
  // One alone is shaped (at least 1 MB's time) and has the link to itself: no other connection's
  // piece went onto it meanwhile. (That a lone sender gets the whole rate, and two each half, is
  // the bucket's pacing, timed on a fake clock in link-pacing.test.ts; here, that every
  // connection through the proxy goes through that one bucket.)
  expect(alone.ms).toBeGreaterThan(0.95 * linkMs(BYTES, 2));
  for (const run of alone.runs) {
    const [pieces, ...others] = [...transmits(run.decisions).values()];
    expect(others).toEqual([]);
    expect(pieces!.reduce((n, t) => n + t.bytes, 0)).toBeGreaterThanOrEqual(BYTES);
  }
  // One link for both, as the link decided it: together the pair's pieces never got onto it
  // faster than its rate (beyond the burst an idle link banks), however a busy machine fed it —
  // from the first piece's reservation to when the last one's wait ran out — where a link per
  // connection would have let twice that through. (Each watched the whole link while it ran: the
  // other's decisions too, the same ones.) Which of the two got ahead depends on how fast s3rver
  // reads each connection (backpressure), a busy machine's doing, so it is not held to a ratio.
  const pair = transmits([...new Set([...a.decisions, ...b.decisions])]);
  expect(pair.size).toBe(2);
  const pieces = [...pair.values()].flat();
  const from = Math.min(...pieces.map((t) => t.at));
  const to = Math.max(...pieces.map((t) => t.at + t.wait));
  const carried = pieces.reduce((n, t) => n + t.bytes, 0);
  expect(carried).toBeGreaterThanOrEqual(2 * BYTES);
  expect(carried).toBeLessThanOrEqual((capacity * (to - from)) / 1000 + burstFor(capacity) + 1);
  expect(sandbox.linkBytesSent() - sentBefore).toBeGreaterThanOrEqual(4 * BYTES);
});

it('adds the round trip: one per request, one more for a new connection', async () => {
  const fresh = await fastest(5, () => request('HEAD', 'public/cedar-creek/link-alone-0.jpg'));
  expect(fresh.reused).toEqual([false, false, false, false, false]);
  const agent = new KeepingAgent({ keepAlive: true, maxSockets: 1 });
  let reused: Awaited<ReturnType<typeof fastest>>;
  try {
    await request('HEAD', 'public/cedar-creek/link-alone-0.jpg', undefined, agent);
    reused = await fastest(5, () => request('HEAD', 'public/cedar-creek/link-alone-0.jpg', undefined, agent));
  } finally {
    agent.destroy();
  }
  expect(reused.reused).toEqual([true, true, true, true, true]);
  // At least one round trip per request, two on a new connection: bounds a busy machine, which
  // only adds time, cannot break (timers may fire a millisecond early, hence the 0.95).
  expect(reused.ms).toBeGreaterThan(0.95 * RTT);
  expect(fresh.ms).toBeGreaterThan(0.95 * 2 * RTT);
  // And exactly that much, as the link decided it (not timed: a busy machine adds its own time to
  // a measurement, never to a decision): each new connection its handshake's round trip, then
  // half a round trip each way; a reused one no handshake, and the same halves.
  const [oneRtt, half] = [expect.closeTo(RTT, 6), expect.closeTo(RTT / 2, 6)];
  for (const run of fresh.runs) expect(charged(run.decisions)).toEqual({ connections: [expect.any(Number)], handshake: oneRtt, request: half, response: half });
  const onReused = reused.runs.map((run) => charged(run.decisions));
  for (const c of onReused) expect(c).toEqual({ connections: [onReused[0]!.connections[0]], handshake: 0, request: half, response: half });
});

it('survives clients that abort mid-upload', async () => {
  for (let i = 0; i < 5; i++) {
    const socket = net.connect(sandbox.ports.s3, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`PUT /${bucket}/public/cedar-creek/link-aborted-${i}.jpg HTTP/1.1\r\nHost: localhost:${sandbox.ports.s3}\r\nContent-Length: ${BYTES}\r\n\r\n`);
    socket.write(randomBytes(100_000));
    await new Promise((r) => setTimeout(r, 20 * i));
    if (i % 2) socket.resetAndDestroy();
    else socket.destroy();
  }
  const after = await request('PUT', 'public/cedar-creek/link-after-abort.jpg', photoBytes(10_000));
  expect(after.status).toBe(200);
  expect((await request('HEAD', 'public/cedar-creek/link-after-abort.jpg')).status).toBe(200);
  const state = await Promise.race([sandbox.stopped, new Promise((r) => setTimeout(() => r('running'), 50))]);
  expect(state).toBe('running');
});

// The emulated link a link bench runs on (bench/links.ts): the packet emulator where the machine
// allows it (bench/netem/: the real kernel TCP of Chromium and s3rver over real delay, queues and
// loss), else the sandbox's TCP proxy (sandbox/README.md#link-emulator-srclinkts). Either way a
// fresh sandbox per link, the link's clock and the bytes its uplink carried, and the same
// timeline (sandbox/src/link-profile.ts) to divide by.
import path from 'node:path';
import net from 'node:net';
import { linkTimeline, S3_PORT, startSandbox } from '../sandbox/src/index';
import type { LinkSpec, LinkTimeline, Sandbox } from '../sandbox/src/index';
import { inBenchNamespace, packetSupport, runInNamespace, startPacketLink } from './netem/packet-link';

/** The port of a bench's own sink (the cap section's second flow), carried by the packet emulator too. */
export const SINK_PORT = 20105;

export type EmulatorKind = 'packets' | 'proxy';

/**
 * Which emulator this run uses (`BENCH_EMULATOR`: auto, packets or proxy), and why. With packets
 * possible and not yet in the bench's namespace, the bench runs again inside one
 * (`{ rerun: exit code }`): routes for S3 and the sink, nothing left behind.
 */
export async function chooseEmulator(
  script: string,
  wanted = process.env.BENCH_EMULATOR ?? 'auto',
): Promise<{ kind: EmulatorKind; why: string } | { rerun: number }> {
  if (!['auto', 'packets', 'proxy'].includes(wanted)) throw new Error(`BENCH_EMULATOR=${wanted}: expected auto, packets or proxy`);
  if (inBenchNamespace()) return { kind: 'packets', why: 'root and TUN: real kernel TCP through bench/netem/ in a private network namespace' };
  if (wanted === 'proxy') return { kind: 'proxy', why: 'BENCH_EMULATOR=proxy' };
  const support = packetSupport();
  if (support.ok) return { rerun: await runInNamespace(script, [S3_PORT, SINK_PORT]) };
  if (wanted === 'packets') throw new Error(`BENCH_EMULATOR=packets, but the packet emulator cannot run here: ${support.why}`);
  return { kind: 'proxy', why: `the packet emulator cannot run here (${support.why})` };
}

export interface BenchLink {
  link: LinkSpec;
  kind: EmulatorKind;
  sandbox: Sandbox;
  timeline: LinkTimeline;
  /** The link's clock: ms since it started. */
  time(): Promise<number>;
  /** Bytes its uplink has carried (the proxy: payload; the packet emulator: IP packets). */
  carried(): Promise<number>;
  /** A port that reaches the loopback `targetPort` through the link (the packet emulator carries SINK_PORT itself). */
  route(targetPort: number): Promise<{ port: number; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** A fresh sandbox (reseeded, in `dir`) behind `link`, on the chosen emulator. */
export async function openBenchLink(link: LinkSpec, kind: EmulatorKind, dir: string, horizonMs: number): Promise<BenchLink> {
  const timeline = linkTimeline(link);
  const dataDir = path.join(dir, 'sandbox');
  if (kind === 'proxy') {
    const sandbox = await startSandbox({ dataDir, reset: true, quiet: true, link });
    return {
      link,
      kind,
      sandbox,
      timeline,
      time: () => Promise.resolve(sandbox.linkTime()),
      carried: () => Promise.resolve(sandbox.linkBytesSent()),
      route: (targetPort) => sandbox.throughLink(targetPort),
      close: () => sandbox.stop(),
    };
  }
  // The kernel routes S3's port through the emulator: s3rver on it directly, no proxy.
  const sandbox = await startSandbox({ dataDir, reset: true, quiet: true, link: null });
  const emulator = await startPacketLink(link, { horizonMs, dir }).catch(async (error: unknown) => {
    await sandbox.stop();
    throw error;
  });
  return {
    link,
    kind,
    sandbox,
    timeline,
    time: async () => (await emulator.stats()).t,
    carried: async () => (await emulator.stats()).up.carried.bytes,
    route: (targetPort) => {
      if (targetPort !== SINK_PORT) throw new Error(`the packet emulator carries port ${SINK_PORT}, not ${targetPort}`);
      return Promise.resolve({ port: SINK_PORT, close: () => Promise.resolve() });
    },
    close: async () => {
      await emulator.stop();
      await sandbox.stop();
    },
  };
}

/** A TCP sink on `port` (0: any) counting the bytes it receives. */
export async function startSink(port: number): Promise<{ port: number; received(): number; close(): Promise<void> }> {
  let received = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => received,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A bulk TCP sender to `port`: writes as fast as the connection takes; `stop` ends it. */
export function startBulkSender(port: number): { stop(): void } {
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  const socket = net.connect(port, '127.0.0.1');
  let stopped = false;
  const pump = () => {
    while (!stopped && socket.write(chunk));
  };
  socket.on('connect', pump);
  socket.on('drain', pump);
  socket.on('error', () => undefined);
  return {
    stop: () => {
      stopped = true;
      socket.destroy();
    },
  };
}

/**
 * The link emulator: a TCP proxy on the S3 port in front of s3rver (which then listens on an
 * internal loopback port) that makes every connection to S3 cross ONE emulated uplink.
 *
 * - Upload direction (site → S3: request lines, headers, bodies): each connection's bytes are cut
 *   into pieces (link.ts PIECE_BYTES) and each piece reserves capacity in one token bucket shared by
 *   all connections, then travels half the RTT before s3rver sees it.
 * - Download direction (S3 → site: responses): not bandwidth-limited, only delayed by half the RTT.
 * - A new connection costs one extra RTT before its first byte arrives (the TCP handshake).
 *
 * Robustness: every socket has an error handler (a client abort or a reset destroys the pair and
 * nothing else); reading pauses while more than MAX_BUFFERED bytes of a direction are in the proxy
 * or the destination's socket is not draining, so memory per connection is bounded and backpressure
 * reaches the sender.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { burstFor, bytesPerSecond, deliveryTime, PIECE_BYTES, TokenBucket } from './link';
import type { LinkSpec } from './link';
import { PortInUseError } from './listen';

/** Bytes of one direction held by the proxy (shaping queue + delay line) before reading pauses. */
const MAX_BUFFERED = 256 * 1024;

/** Where the link's time comes from: the real clock, or a fake one in tests. */
export interface LinkClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: LinkClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const sleep = (clock: LinkClock, ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));

/** One uplink shared by every connection through the proxy. */
export class SharedLink {
  private readonly bucket: TokenBucket;
  /** Bytes that have crossed the uplink. */
  sent = 0;

  constructor(
    readonly spec: LinkSpec,
    private readonly clock: LinkClock = realClock,
  ) {
    const rate = bytesPerSecond(spec.mbit);
    this.bucket = new TokenBucket(rate, burstFor(rate), clock.now());
  }

  /** Resolves once `bytes` have been serialised onto the link (queued behind everyone else's). */
  transmit(bytes: number): Promise<void> {
    const wait = this.bucket.reserve(bytes, this.clock.now());
    this.sent += bytes;
    return wait >= 1 ? sleep(this.clock, wait) : Promise.resolve();
  }
}

interface Direction {
  /** Ends the destination once everything has been delivered. */
  srcEnded(): void;
  idle(): boolean;
  stop(): void;
}

/**
 * Copies src → dst through the link: `link` (if any) serialises, then the data waits until
 * `deliveryTime`. Order is kept; reading src pauses when too much is held or dst is full.
 */
function forward(
  src: net.Socket,
  dst: net.Socket,
  opts: { link?: SharedLink; rttMs: number; openedAt?: number; clock: LinkClock; onDone: () => void },
): Direction {
  const { clock } = opts;
  const toShape: Buffer[] = [];
  const line: { due: number; chunk: Buffer }[] = [];
  let held = 0;
  let shaping = false;
  let ended = false;
  let stopped = false;
  let dstFull = false;
  let timer: unknown;

  const maybeResume = () => {
    if (!stopped && !dstFull && held < MAX_BUFFERED / 2 && src.isPaused()) src.resume();
  };
  const finish = () => {
    if (!stopped && ended && !shaping && toShape.length === 0 && line.length === 0) {
      stopped = true;
      dst.end();
      opts.onDone();
    }
  };
  const pump = () => {
    timer = undefined;
    if (stopped) return;
    const now = clock.now();
    while (line.length > 0 && line[0]!.due <= now + 0.5) {
      const { chunk } = line.shift()!;
      held -= chunk.length;
      if (!dst.write(chunk)) dstFull = true;
    }
    if (line.length > 0) timer = clock.setTimeout(pump, Math.max(1, line[0]!.due - now));
    maybeResume();
    finish();
  };
  const enqueue = (chunk: Buffer) => {
    line.push({ due: deliveryTime(clock.now(), opts.rttMs, opts.openedAt), chunk });
    if (timer === undefined) pump();
  };
  const shape = async () => {
    if (shaping) return;
    shaping = true;
    // The sender cannot start before the connection's handshake (one round trip) has completed.
    const handshake = opts.openedAt === undefined ? 0 : opts.openedAt + opts.rttMs - clock.now();
    if (handshake >= 1) await sleep(clock, handshake);
    while (toShape.length > 0 && !stopped) {
      const chunk = toShape.shift()!;
      for (let at = 0; at < chunk.length && !stopped; at += PIECE_BYTES) {
        const piece = chunk.subarray(at, at + PIECE_BYTES);
        await opts.link!.transmit(piece.length);
        if (!stopped) enqueue(piece);
      }
    }
    shaping = false;
    finish();
  };

  src.on('data', (chunk: Buffer) => {
    if (stopped) return;
    held += chunk.length;
    if (held >= MAX_BUFFERED) src.pause();
    if (opts.link) {
      toShape.push(chunk);
      void shape();
    } else {
      enqueue(chunk);
    }
  });
  dst.on('drain', () => {
    dstFull = false;
    maybeResume();
  });
  return {
    srcEnded: () => {
      ended = true;
      finish();
    },
    idle: () => stopped,
    stop: () => {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      toShape.length = 0;
      line.length = 0;
    },
  };
}

export interface LinkProxy {
  port: number;
  servers: net.Server[];
  link: SharedLink;
  /** Connections currently open through the proxy. */
  connections(): number;
  close(): Promise<void>;
}

function listenNet(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Listens on 127.0.0.1:port (and ::1:port when the machine has it) and forwards every connection to
 * `target` (a loopback port) through one shared `SharedLink`.
 */
export async function startLinkProxy(opts: {
  piece: string;
  port: number;
  targetPort: number;
  link: LinkSpec;
  log?: (line: string) => void;
}): Promise<LinkProxy> {
  const clock = realClock;
  const link = new SharedLink(opts.link, clock);
  const sockets = new Set<net.Socket>();

  const onConnection = (client: net.Socket) => {
    const openedAt = clock.now();
    const upstream = net.connect({ host: '127.0.0.1', port: opts.targetPort, allowHalfOpen: true });
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    let closed = false;
    const destroyBoth = () => {
      if (closed) return;
      closed = true;
      up.stop();
      down.stop();
      client.destroy();
      upstream.destroy();
    };
    // A direction that ended cleanly has ended its destination; the sockets close once both have.
    const onDone = () => undefined;
    const up = forward(client, upstream, { link, rttMs: opts.link.rttMs, openedAt, clock, onDone });
    const down = forward(upstream, client, { rttMs: opts.link.rttMs, clock, onDone });
    let responseComplete = false;
    client.on('end', () => up.srcEnded());
    upstream.on('end', () => {
      responseComplete = true;
      down.srcEnded();
    });
    // A client abort, a reset or a refused upstream ends this pair only; never the proxy.
    client.on('error', destroyBoth);
    upstream.on('error', () => {
      if (!responseComplete) return destroyBoth();
      // s3rver answered and closed while the client was still sending (e.g. an early error
      // response): drop the rest of the upload but still deliver what is in the delay line.
      up.stop();
      upstream.destroy();
    });
    client.on('close', () => {
      sockets.delete(client);
      // The client is gone: nothing more can be delivered to it, and its request will never finish.
      if (!down.idle() || !up.idle()) destroyBoth();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!up.idle() && !responseComplete) destroyBoth();
      // Else: the response may still be in the delay line; `down` ends the client when it is out.
    });
  };

  const servers: net.Server[] = [];
  const make = () => {
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: false }, onConnection);
    server.on('error', (err) => opts.log?.(`[s3-link] ${err.message}`));
    return server;
  };
  const v4 = make();
  let port: number;
  try {
    port = await listenNet(v4, opts.port, '127.0.0.1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(opts.piece, opts.port);
    throw err;
  }
  servers.push(v4);
  const v6 = make();
  try {
    await listenNet(v6, port, '::1');
    servers.push(v6);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      await new Promise<void>((r) => v4.close(() => r()));
      throw new PortInUseError(opts.piece, port);
    }
    // No IPv6 loopback here: 127.0.0.1 alone is enough.
  }
  return {
    port,
    servers,
    link,
    connections: () => [...sockets].filter((s) => !s.destroyed).length,
    close: async () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await Promise.all(servers.map((s) => (s.listening ? new Promise<void>((r) => s.close(() => r())) : Promise.resolve())));
    },
  };
}

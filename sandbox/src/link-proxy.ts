/**
 * The link emulator: a TCP proxy on the S3 port in front of s3rver (which then listens on an
 * internal loopback port) that makes every connection to S3 cross ONE emulated uplink, following
 * its profile's timeline (link-profile.ts; a clean `<mbit>:<rtt>` link is a constant one).
 *
 * - Upload direction (site → S3: request lines, headers, bodies): each connection's bytes are cut
 *   into pieces (link.ts PIECE_BYTES) and each piece reserves capacity in one bucket shared by all
 *   connections, at the timeline's rate (none during an outage), then travels half the RTT of its
 *   moment before s3rver sees it. A loss or an outage holds the connection's data as TCP would
 *   hold the flow (link-flow.ts: a retransmission, an RTO, a backed-off retry after an outage).
 * - Download direction (S3 → site: responses): not bandwidth-limited, only delayed by half the
 *   RTT, and held while the link is down.
 * - A new connection costs one extra RTT before its first byte arrives (the TCP handshake), more
 *   when its SYN meets an outage or a loss.
 * The scheduling itself is link-direction.ts; this file wires sockets to it.
 *
 * Robustness: every socket has an error handler (a client abort or a reset destroys the pair and
 * nothing else); reading pauses while more than MAX_BUFFERED bytes of a direction are in the proxy
 * or the destination's socket is not draining, so memory per connection is bounded and backpressure
 * reaches the sender. An outage keeps connections open: their data waits.
 */
import net from 'node:net';
import { createLinkDirection, realClock, SharedLink } from './link-direction';
import type { LinkClock, LinkDirection } from './link-direction';
import type { LinkSpec } from './link-profile';
import { PortInUseError } from './listen';

export { SharedLink } from './link-direction';
export type { LinkClock, LinkDecision } from './link-direction';

/** Bytes of one direction held by the proxy (shaping queue + delay line) before reading pauses. */
const MAX_BUFFERED = 256 * 1024;

/**
 * Copies src → dst through `link` (`shaped`: serialised on the uplink). Order is kept; reading src
 * pauses when too much is held or dst is full; dst is ended once src has ended and all is delivered.
 */
function forward(src: net.Socket, dst: net.Socket, link: SharedLink, opts: { shaped: boolean; handshakeAt?: number; connection: number }): LinkDirection {
  let dstFull = false;
  const maybeResume = () => {
    if (!direction.done() && !dstFull && direction.held() < MAX_BUFFERED / 2 && src.isPaused()) src.resume();
  };
  const direction = createLinkDirection(link, opts, {
    deliver: (chunk) => {
      if (!dst.write(chunk)) dstFull = true;
    },
    finished: () => dst.end(),
    released: maybeResume,
  });
  src.on('data', (chunk: Buffer) => {
    if (direction.done()) return;
    direction.push(chunk);
    if (direction.held() >= MAX_BUFFERED) src.pause();
  });
  dst.on('drain', () => {
    dstFull = false;
    maybeResume();
  });
  return direction;
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
 * `target` (a loopback port) through one shared `SharedLink`: a new one for a spec, or one already
 * in use by another proxy (a bench's second flow on the same uplink, `sandbox.throughLink`).
 * `clock`: the link's time (tests); the real clock by default.
 */
export async function startLinkProxy(opts: {
  piece: string;
  port: number;
  targetPort: number;
  link: LinkSpec | SharedLink;
  log?: (line: string) => void;
  clock?: LinkClock;
}): Promise<LinkProxy> {
  const link = opts.link instanceof SharedLink ? opts.link : new SharedLink(opts.link, opts.clock ?? realClock);
  const sockets = new Set<net.Socket>();

  const onConnection = (client: net.Socket) => {
    const { connection, handshakeAt } = link.openConnection();
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
    const up = forward(client, upstream, link, { shaped: true, handshakeAt, connection });
    const down = forward(upstream, client, link, { shaped: false, connection });
    let responseComplete = false;
    client.on('end', () => up.end());
    upstream.on('end', () => {
      responseComplete = true;
      down.end();
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
      if (!down.done() || !up.done()) destroyBoth();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!up.done() && !responseComplete) destroyBoth();
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

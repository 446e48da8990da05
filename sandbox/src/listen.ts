/**
 * Loopback listeners. Every piece listens on 127.0.0.1 and, where the machine has it, on ::1 with
 * the same port: browsers and Node may resolve `localhost` to either, and the site's config says
 * `localhost`. Nothing listens on a public interface.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from './http-util';

export class PortInUseError extends Error {
  constructor(
    readonly piece: string,
    readonly port: number,
    consequence = '',
  ) {
    super(`${piece} cannot listen on port ${port}: the port is already in use (is another sandbox running?)${consequence}`);
    this.name = 'PortInUseError';
  }
}

export interface Listener {
  piece: string;
  port: number;
  servers: http.Server[];
  close(): Promise<void>;
}

function listenOne(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * `handler` behind the Host check every loopback server makes (http-util.ts `isLoopbackHost`): a
 * request for another host name is answered 403 and never reaches the piece.
 */
export function loopbackOnly(piece: string, handler: http.RequestListener): http.RequestListener {
  return (req, res) => {
    if (isLoopbackHost(req.headers.host)) return handler(req, res);
    req.resume();
    const body = `${piece} answers only requests for localhost, 127.0.0.1 or [::1], not ${JSON.stringify(req.headers.host ?? '')}.`;
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
}

/**
 * Starts `handler` on 127.0.0.1:port (and ::1:port when available); port 0 picks a free one.
 * Requests whose Host is not a loopback name are refused (`loopbackOnly`).
 */
export async function listenLoopback(piece: string, port: number, rawHandler: http.RequestListener): Promise<Listener> {
  const handler = loopbackOnly(piece, rawHandler);
  const v4 = http.createServer(handler);
  let actual: number;
  try {
    actual = await listenOne(v4, port, '127.0.0.1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(piece, port);
    throw err;
  }
  const servers = [v4];
  const v6 = http.createServer(handler);
  try {
    await listenOne(v6, actual, '::1');
    servers.push(v6);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      await closeServer(v4);
      throw new PortInUseError(piece, actual);
    }
    // No IPv6 loopback on this machine (EADDRNOTAVAIL / EAFNOSUPPORT): 127.0.0.1 alone is enough.
  }
  // Keep-alive sockets would otherwise hold close() open for the client's idle timeout.
  for (const s of servers) s.keepAliveTimeout = 1000;
  return {
    piece,
    port: actual,
    servers,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

/**
 * Throws PortInUseError (with `consequence` appended to its message) when `port` cannot be listened
 * on now; otherwise lets it go again at once.
 */
export async function assertPortFree(piece: string, port: number, consequence = ''): Promise<void> {
  let listener: Listener;
  try {
    listener = await listenLoopback(piece, port, (_req, res) => res.writeHead(503).end());
  } catch (err) {
    if (err instanceof PortInUseError) throw new PortInUseError(piece, port, consequence);
    throw err;
  }
  await listener.close();
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

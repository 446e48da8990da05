/**
 * Requests through node:http rather than fetch: it sends header values as latin1 bytes (fetch
 * refuses anything outside ASCII), any path (`//`), and can give up on a request that gets no answer.
 */
import http from 'node:http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Give up (destroy the request) when the socket is idle this long; resolves 'no answer'. */
  timeoutMs?: number;
}

export function rawRequest(url: string, options: RawOptions): Promise<RawAnswer | 'no answer'> {
  return new Promise((resolve, reject) => {
    // No keep-alive pool: each request its own connection, closed with it.
    const req = http.request(url, { method: options.method, headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // After a give-up the request reports "socket hang up"; the promise has settled by then.
    req.on('error', reject);
    if (options.timeoutMs !== undefined) {
      req.setTimeout(options.timeoutMs, () => {
        resolve('no answer');
        req.destroy();
      });
    }
    req.end(options.body);
  });
}

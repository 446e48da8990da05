/** Small HTTP helpers shared by the sandbox's servers: bounded body reading, JSON replies, CORS. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The site's local origins (shell 3000, auth-remote 3001, uploader-remote 3002), by name and by IP. */
export const SITE_ORIGINS: readonly string[] = [3000, 3001, 3002].flatMap((port) => [`http://localhost:${port}`, `http://127.0.0.1:${port}`]);

export class BodyTooLargeError extends Error {}

/** Reads a request body up to `limit` bytes; a larger body is refused rather than buffered. */
export function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError(`body larger than ${limit} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Whether a Content-Type header names JSON (`application/json`, any parameters, any case). */
export function isJsonContentType(value: string | undefined): boolean {
  return (value ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * Whether a request's Host header names this machine's loopback (`localhost`, `127.0.0.1`,
 * `[::1]`, any port). A web page that made its own host name resolve to 127.0.0.1 (DNS
 * rebinding) would send that name: such requests are refused, so no site can reach the sandbox
 * as if it were same-origin.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const match = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i.exec(host.trim());
  return match !== null;
}

/** Parses a JSON object body; anything else (invalid JSON, an array, a number) is `undefined`. */
export function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The request's URL, or undefined when it cannot be parsed (e.g. `//`): a 400, never a throw. */
export function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * CORS for the product API, the analytics sink and the Cognito gateway: the site's origins only,
 * credentials not needed (bearer tokens travel in a header). Returns true when the request was a
 * preflight and has been answered.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, methods: string): boolean {
  const origin = req.headers.origin;
  if (origin && SITE_ORIGINS.includes(origin)) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', 'x-amzn-requestid, x-amzn-errortype, x-amzn-errormessage, date');
  }
  if (req.method === 'OPTIONS') {
    if (origin && SITE_ORIGINS.includes(origin)) {
      res.setHeader('Access-Control-Allow-Methods', methods);
      const requested = req.headers['access-control-request-headers'];
      res.setHeader('Access-Control-Allow-Headers', requested ?? 'authorization, content-type');
      res.setHeader('Access-Control-Max-Age', '600');
    }
    res.writeHead(204);
    res.end();
    return true;
  }
  return false;
}

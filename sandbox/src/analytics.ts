/**
 * The analytics sink: the sandbox adapter of the site's analytics port posts SPEC.md §3's events
 * here (POST /events); tests and people read them back (GET /events?ranchid=...).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AnalyticsEvent, SandboxDb } from './db';
import { applyCors, BodyTooLargeError, parseJsonObject, readBody, sendJson } from './http-util';

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 1024;

/** Validates one event; the message names what is wrong. */
export function parseEvent(body: Record<string, unknown> | undefined): { ok: true; event: AnalyticsEvent } | { ok: false; message: string } {
  if (!body) return { ok: false, message: 'Body must be a JSON object' };
  const { name, ranchid } = body;
  if (!isText(ranchid)) return { ok: false, message: 'ranchid must be a non-empty string' };
  if (name === 'imageUpload') {
    if (!isText(body['key'])) return { ok: false, message: 'key must be a non-empty string' };
    if (!isCount(body['uploadCount'])) return { ok: false, message: 'uploadCount must be a non-negative integer' };
    return { ok: true, event: { name, ranchid, key: body['key'], uploadCount: body['uploadCount'] } };
  }
  if (name === 'uploadFailure') {
    if (!isCount(body['failureCount'])) return { ok: false, message: 'failureCount must be a non-negative integer' };
    return { ok: true, event: { name, ranchid, failureCount: body['failureCount'] } };
  }
  return { ok: false, message: 'name must be imageUpload or uploadFailure' };
}

/**
 * Test control of a running sandbox (browser tests run it as a separate process): the S3 PUT
 * fault switch. `PUT /_sandbox/s3-put-fault` with a body like `0.3:503` (or `0` to switch off);
 * `GET` the same path for how many PUTs it has failed. Loopback callers only, and never from a
 * web page (a request with an Origin header is refused), so a site cannot flip it.
 */
export interface SandboxControl {
  /** Applies a fault spec; returns an error message when it is malformed. */
  setPutFault(spec: string): string | undefined;
  injectedFaults(): number;
}

export const CONTROL_PATH = '/_sandbox/s3-put-fault';

const isLoopback = (address: string | undefined) => !!address && (address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1');

function handleControl(req: IncomingMessage, res: ServerResponse, control: SandboxControl | undefined, log: (line: string) => void): void {
  if (!control || !isLoopback(req.socket.remoteAddress) || req.headers.origin !== undefined) {
    req.resume();
    return sendJson(res, 403, { message: 'The sandbox control endpoint is for local test processes only' });
  }
  if (req.method === 'GET') {
    req.resume();
    return sendJson(res, 200, { injected: control.injectedFaults() });
  }
  if (req.method !== 'PUT') {
    req.resume();
    return sendJson(res, 405, { message: `Method ${req.method ?? ''} not allowed` });
  }
  readBody(req, 1024)
    .then((raw) => {
      const text = raw.toString('utf8').trim();
      const json = parseJsonObject(raw);
      const spec = typeof json?.['fault'] === 'string' ? json['fault'] : text;
      const problem = control.setPutFault(spec);
      if (problem) return sendJson(res, 400, { message: problem });
      log(`[sandbox] S3 PUT fault switch set to ${spec}`);
      sendJson(res, 200, { fault: spec, injected: control.injectedFaults() });
    })
    .catch(() => sendJson(res, 400, { message: 'Unreadable body' }));
}

export function createAnalytics(deps: { db: SandboxDb; log: (line: string) => void; control?: SandboxControl }): RequestListener {
  return (req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === CONTROL_PATH) return handleControl(req, res, deps.control, deps.log);
    if (applyCors(req, res, 'GET, POST, OPTIONS')) return;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/events') {
      req.resume();
      return sendJson(res, 404, { message: `No such resource: ${url.pathname}` });
    }
    if (req.method === 'GET') {
      req.resume();
      return sendJson(res, 200, { events: deps.db.events(url.searchParams.get('ranchid') ?? undefined) });
    }
    if (req.method !== 'POST') {
      req.resume();
      return sendJson(res, 405, { message: `Method ${req.method ?? ''} not allowed` });
    }
    readBody(req, 64 * 1024)
      .then((raw) => {
        const parsed = parseEvent(parseJsonObject(raw));
        if (!parsed.ok) return sendJson(res, 400, { message: parsed.message });
        const id = deps.db.addEvent(parsed.event, new Date().toISOString());
        deps.log(`[analytics] ${parsed.event.name} ${JSON.stringify(parsed.event)}`);
        sendJson(res, 201, { id });
      })
      .catch((err: unknown) => {
        if (err instanceof BodyTooLargeError) return sendJson(res, 413, { message: 'Body too large' });
        deps.log(`[analytics] internal error: ${String(err)}`);
        sendJson(res, 500, { message: 'Internal error' });
      });
  };
}

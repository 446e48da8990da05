/**
 * What a link bench counts at S3 (bench/links.ts), whatever uploader build sends: the bytes that
 * object PUT bodies brought (every attempt: stored, refused or aborted), the PUTs whose client
 * went away before its body was complete (an aborted upload: a stall bound that fired, a pause, a
 * stop), and when each object was stored and with how many bytes. s3.ts calls `watch` on each
 * object PUT and `answered` once S3 has answered a request.
 */
import type { IncomingMessage } from 'node:http';
import type { ObjectWrite } from '@trailsense/infra/upload-access';

/** An object S3 stored: its key, when (ms since the epoch) and its size. */
export interface StoredObject {
  key: string;
  at: number;
  bytes: number;
}

export interface PutCounters {
  /** Bytes received in object PUT bodies (PutObject and UploadPart), every attempt. */
  bodyBytes(): number;
  /** Object PUTs whose client went away before the body was complete. */
  abortedPuts(): number;
  /** Objects stored (a PutObject or a completed multipart upload answered 200), oldest first. */
  stored(): readonly StoredObject[];
  /** Counts this object PUT's body as Node parses it, and its abort; returns its body bytes so far. */
  watch(req: IncomingMessage): () => number;
  /** After S3 has answered: records a stored object (`bytes`: this request's body). */
  answered(request: { status: number; path: string; query: Readonly<Record<string, unknown>> }, write: ObjectWrite | undefined, bytes: number): void;
}

export function createPutCounters(now: () => number = Date.now): PutCounters {
  let bodyBytes = 0;
  let aborted = 0;
  const stored: StoredObject[] = [];
  /** A multipart upload's stored parts' bytes, by upload id, until it completes. */
  const parts = new Map<string, number>();
  return {
    bodyBytes: () => bodyBytes,
    abortedPuts: () => aborted,
    stored: () => stored,
    watch(req) {
      let bytes = 0;
      // The parser hands the body to the request's push(); counting there reads nothing itself, so
      // the stream's flow (s3rver's reading, backpressure) is untouched.
      const push = req.push.bind(req);
      req.push = (chunk: unknown, encoding?: BufferEncoding) => {
        if (Buffer.isBuffer(chunk)) {
          bytes += chunk.length;
          bodyBytes += chunk.length;
        }
        return push(chunk, encoding);
      };
      req.once('close', () => {
        if (!req.complete) aborted++;
      });
      return () => bytes;
    },
    answered(request, write, bytes) {
      if (request.status !== 200 || write === undefined) return;
      const uploadId = typeof request.query['uploadId'] === 'string' ? request.query['uploadId'] : undefined;
      const key = decodeURIComponent(request.path.split('/').slice(2).join('/'));
      if (write === 'PutObject') stored.push({ key, at: now(), bytes });
      if (write === 'UploadPart' && uploadId) parts.set(uploadId, (parts.get(uploadId) ?? 0) + bytes);
      if (write === 'CompleteMultipartUpload' && uploadId) {
        stored.push({ key, at: now(), bytes: parts.get(uploadId) ?? 0 });
        parts.delete(uploadId);
      }
    },
  };
}

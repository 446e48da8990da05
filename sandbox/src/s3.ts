/**
 * Object storage: s3rver on http://localhost:20005 (the fixed address Amplify's
 * `dangerouslyConnectToHttpEndpointForTesting` sends to), one bucket with CORS for the site, objects
 * on disk under the data directory, and in front of s3rver's own routes:
 * - the object-created hook (production: an S3 ObjectCreated function) that copies
 *   `x-amz-meta-ranchid` into the object's `ranchid` tag and counts the upload for upload-metrics;
 * - the PUT fault switch.
 * With a link (`link.ts`), s3rver listens on an internal loopback port instead and the link
 * emulator's proxy (`link-proxy.ts`) takes the S3 port; without one, nothing stands in between.
 */
import path from 'node:path';
import S3rver from 's3rver';
import type { KoaContext, KoaMiddleware } from 's3rver';
import { TaggingConfiguration } from 's3rver/lib/models/config';
import type { SandboxDb } from './db';
import { faultXml, NO_FAULT, shouldFail } from './fault';
import type { PutFault } from './fault';
import { SITE_ORIGINS } from './http-util';
import type { LinkSpec } from './link';
import { startLinkProxy } from './link-proxy';
import type { LinkProxy } from './link-proxy';
import { listenLoopback } from './listen';
import type { Listener } from './listen';
import { yearMonth } from './seed';

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);
}

/** Bucket CORS: what Amplify's uploadData needs from the site's origins (ETag for multipart). */
export function corsXml(origins: readonly string[]): string {
  return [
    '<CORSConfiguration><CORSRule>',
    ...origins.map((o) => `<AllowedOrigin>${o}</AllowedOrigin>`),
    ...['GET', 'PUT', 'POST', 'HEAD', 'DELETE'].map((m) => `<AllowedMethod>${m}</AllowedMethod>`),
    '<AllowedHeader>*</AllowedHeader>',
    ...['ETag', 'x-amz-request-id', 'x-amz-id-2', 'x-amz-version-id', 'x-amz-server-side-encryption'].map((h) => `<ExposeHeader>${h}</ExposeHeader>`),
    '<MaxAgeSeconds>3000</MaxAgeSeconds>',
    '</CORSRule></CORSConfiguration>',
  ].join('');
}

export function taggingXml(tags: Record<string, string>): string {
  const tagSet = Object.entries(tags)
    .map(([k, v]) => `<Tag><Key>${xmlEscape(k)}</Key><Value>${xmlEscape(v)}</Value></Tag>`)
    .join('');
  return `<Tagging><TagSet>${tagSet}</TagSet></Tagging>`;
}

/** PutObject and UploadPart: a PUT on an object key that is not a subresource call (?tagging, ?acl). */
function isObjectPut(ctx: KoaContext): boolean {
  if (ctx.method !== 'PUT') return false;
  const segments = ctx.path.split('/').filter(Boolean);
  if (segments.length < 2) return false;
  return !['tagging', 'acl', 'legal-hold', 'retention'].some((sub) => sub in ctx.query);
}

export interface S3Piece {
  /** s3rver's own listener (on the S3 port, or on an internal one behind the link). */
  listener: Listener;
  /** The link emulator in front of s3rver on the S3 port, when a link is on. */
  front?: LinkProxy;
  setPutFault(fault: PutFault): void;
  /** How many PUTs the switch has failed so far. */
  injectedFaults(): number;
  s3rver: S3rver;
  stop(): Promise<void>;
}

export async function startS3(opts: {
  dataDir: string;
  bucket: string;
  port: number;
  db: SandboxDb;
  fault: PutFault;
  log: (line: string) => void;
  /** Put s3rver behind an emulated shared uplink (default: none, s3rver on `port` itself). */
  link?: LinkSpec | null;
}): Promise<S3Piece> {
  const s3rver = new S3rver({
    directory: path.join(opts.dataDir, 's3'),
    silent: true,
    vhostBuckets: false,
    configureBuckets: [{ name: opts.bucket, configs: [corsXml(SITE_ORIGINS)] }],
  });
  await s3rver.configureBuckets();
  let fault = opts.fault ?? NO_FAULT;
  let injected = 0;
  const pending = new Set<Promise<void>>();

  async function onObjectCreated(bucket: string, key: string): Promise<void> {
    const metadata = await s3rver.store.getMetadata(bucket, key);
    const ranchId = metadata['x-amz-meta-ranchid'];
    if (!ranchId) return;
    await s3rver.store.putSubresource(bucket, key, TaggingConfiguration.validate(taggingXml({ ranchid: ranchId })));
    const now = new Date();
    opts.db.recordUpload({ bucket, key, ranchId, yearmo: yearMonth(now), createdAt: now.toISOString() });
  }

  s3rver.on('event', (event) => {
    for (const record of event.Records) {
      const { name: bucket } = record.s3.bucket;
      const { key } = record.s3.object;
      if (record.eventName.startsWith('ObjectCreated:')) {
        const work = onObjectCreated(bucket, key).catch((err: unknown) => opts.log(`[s3] object-created hook failed for ${key}: ${String(err)}`));
        pending.add(work);
        void work.finally(() => pending.delete(work));
      } else if (record.eventName.startsWith('ObjectRemoved:')) {
        opts.db.removeUpload(bucket, key);
      }
    }
  });
  s3rver.on('error', (err) => {
    if ((err.status ?? 500) >= 500) opts.log(`[s3] ${err.stack ?? err.message}`);
  });

  const front: KoaMiddleware = async (ctx, next) => {
    if (isObjectPut(ctx) && shouldFail(fault)) {
      injected++;
      // Read the body first: answering mid-upload makes some clients see a reset, not the status.
      await new Promise<void>((resolve) => {
        ctx.req.on('end', resolve).on('error', () => resolve());
        ctx.req.resume();
      });
      const origin = ctx.get('Origin');
      if (SITE_ORIGINS.includes(origin)) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Expose-Headers', 'ETag, x-amz-request-id');
      }
      ctx.status = fault.status;
      ctx.type = 'application/xml';
      ctx.body = faultXml(fault.status);
      opts.log(`[s3] fault switch: ${ctx.method} ${ctx.path} -> ${fault.status}`);
      return;
    }
    await next();
    // The hook runs before the client hears "200", so a caller that reads upload-metrics or the
    // tags right after its upload resolves sees them (production's function is asynchronous;
    // being sooner than AWS is harmless here).
    if (pending.size > 0) await Promise.allSettled([...pending]);
  };
  s3rver.middleware.unshift(front);

  let listener: Listener;
  let linkProxy: LinkProxy | undefined;
  if (opts.link) {
    listener = await listenLoopback('S3 emulator (s3rver, behind the link)', 0, s3rver.callback());
    try {
      linkProxy = await startLinkProxy({ piece: 'S3 emulator (s3rver)', port: opts.port, targetPort: listener.port, link: opts.link, log: opts.log });
    } catch (err) {
      await listener.close();
      s3rver.logger.close();
      throw err;
    }
  } else {
    listener = await listenLoopback('S3 emulator (s3rver)', opts.port, s3rver.callback());
  }
  return {
    listener,
    ...(linkProxy ? { front: linkProxy } : {}),
    s3rver,
    setPutFault: (next) => {
      fault = next;
    },
    injectedFaults: () => injected,
    stop: async () => {
      await linkProxy?.close();
      await listener.close();
      s3rver.logger.close();
    },
  };
}

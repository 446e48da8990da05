/**
 * Object storage: s3rver on the S3 port (by default http://localhost:20005, the fixed address
 * Amplify's `dangerouslyConnectToHttpEndpointForTesting` sends to; config.ts S3_PORT), one bucket
 * with CORS for the site, objects on disk under the data directory, and in front of s3rver's own
 * routes:
 * - authentication and IAM's decision: every request but a CORS preflight must carry a SigV4
 *   signature (sigv4.ts) by the operator's key pair (OPERATOR_CREDENTIALS: allowed everything) or
 *   an identity-pool session's (sessions.ts), then the authenticated role's policy decides for a
 *   session (s3-access.ts); refused as S3 refuses, and s3rver gets the request under its own key;
 * - the object-created function itself (infra/src/object-created/handler.ts) on s3rver's
 *   ObjectCreated events, with sandbox adapters (s3-object-created.ts): s3rver's store, the SQLite
 *   ledger (src/ledger.ts), the ranches; a deleted object stays counted, as in production;
 * - the PUT switches: stall (hold the next N PUTs unanswered) and fault (fail a share of them),
 *   the key's ranch's when it has its own (ranch-scope.ts), else the process-wide ones;
 * - S3's US-ASCII rule for user metadata (`x-amz-meta-*`).
 * With a link (`link.ts`), s3rver listens on an internal loopback port instead and the link
 * emulator's proxy (`link-proxy.ts`) takes the S3 port; without one, nothing stands in between.
 */
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';
import type { KoaContext, KoaMiddleware } from '@20minutes/s3rver';
import { bucketPolicyDenial, UPLOAD_EXPOSED_HEADERS } from '@trailsense/infra/upload-access';
import type { ObjectWrite } from '@trailsense/infra/upload-access';
import type { SandboxDb } from './db';
import { faultXml, NO_FAULT, s3ErrorXml, shouldFail } from './fault';
import type { PutFault } from './fault';
import { SITE_ORIGINS } from './http-util';
import type { LinkSpec } from './link';
import { createPutCounters } from './link-counters';
import type { PutCounters } from './link-counters';
import { startLinkProxy } from './link-proxy';
import type { LinkProxy } from './link-proxy';
import { listenLoopback } from './listen';
import type { Listener } from './listen';
import { ranchOfObjectPath, ranchScoped } from './ranch-scope';
import type { RanchScoped } from './ranch-scope';
import { actionOf, isAllowed, unsafeKeyReason } from './s3-access';
import type { Principal } from './s3-access';
import { runObjectCreated } from './s3-object-created';
import type { ObjectCreatedRuns } from './s3-object-created';
import type { SessionRegistry } from './sessions';
import { readLocalContract } from './config';
import { answerChecksums, checksumRefusal, withChecksums } from './s3-checksum-front';
import { verifyChecksumsOnStore } from './s3-checksum-store';
import { amzDateMs, parseSignedRequest, scopeRefusal, signatureMatches, unsignedAmzHeaders } from './sigv4';
import type { RawRequest } from './sigv4';
import { createPutStall, HOLD_LIMIT_MS, holdUntilClosed } from './stall';
import type { PutStall, PutStallState } from './stall';

/** Bucket CORS: what Amplify's uploadData needs from the site's origins (ETag for multipart). */
export function corsXml(origins: readonly string[]): string {
  return [
    '<CORSConfiguration><CORSRule>',
    ...origins.map((o) => `<AllowedOrigin>${o}</AllowedOrigin>`),
    ...['GET', 'PUT', 'POST', 'HEAD', 'DELETE'].map((m) => `<AllowedMethod>${m}</AllowedMethod>`),
    '<AllowedHeader>*</AllowedHeader>',
    ...UPLOAD_EXPOSED_HEADERS.map((h) => `<ExposeHeader>${h}</ExposeHeader>`),
    '<MaxAgeSeconds>3000</MaxAgeSeconds>',
    '</CORSRule></CORSConfiguration>',
  ].join('');
}

/** PutObject and UploadPart: a PUT on an object key that is not a subresource call (?tagging, ?acl). */
function isObjectPut(ctx: KoaContext): boolean {
  if (ctx.method !== 'PUT') return false;
  const segments = ctx.path.split('/').filter(Boolean);
  if (segments.length < 2) return false;
  return !['tagging', 'acl', 'legal-hold', 'retention'].some((sub) => sub in ctx.query);
}

/**
 * A browser-form upload (POST Object: `multipart/form-data` to the bucket, its signature and policy
 * inside the form). The product never sends one and the sandbox does not emulate it: s3rver's form
 * parsing can still be brought down by a truncated form (an 'error' busboy emits after s3rver has
 * stopped listening), so no such body reaches it.
 */
function isFormPost(ctx: KoaContext): boolean {
  return ctx.method === 'POST' && ctx.path.split('/').filter(Boolean).length <= 1 && !('delete' in ctx.query);
}

/**
 * Requests whose body s3rver parses as XML (S3's own XML APIs: DeleteObjects, CompleteMultipartUpload,
 * the tagging and bucket configurations). A body its parser throws on (fast-xml-parser refuses
 * names such as `__proto__`) is S3's MalformedXML, not an internal error.
 */
function hasXmlBody(ctx: KoaContext): boolean {
  if (ctx.method === 'POST') return 'delete' in ctx.query || 'uploadId' in ctx.query;
  return ctx.method === 'PUT' && ['tagging', 'cors', 'website', 'acl', 'lifecycle', 'policy'].some((name) => name in ctx.query);
}

/** Which object write a request is, as the bucket policy tells them apart (undefined: not one). */
function objectWriteOf(ctx: KoaContext): ObjectWrite | undefined {
  if (isObjectPut(ctx)) return 'uploadId' in ctx.query && 'partNumber' in ctx.query ? 'UploadPart' : 'PutObject';
  if (isCreateMultipartUpload(ctx)) return 'CreateMultipartUpload';
  if (ctx.method === 'POST' && ctx.path.split('/').filter(Boolean).length >= 2 && 'uploadId' in ctx.query) return 'CompleteMultipartUpload';
  return undefined;
}

/** Whether a (verified) request was signed by an identity-pool session rather than the operator. */
function bySession(ctx: KoaContext): boolean {
  const parsed = parseSignedRequest({ method: ctx.req.method ?? ctx.method, url: ctx.req.url ?? ctx.path, rawHeaders: ctx.req.rawHeaders });
  return parsed.kind === 'signed' && parsed.info.accessKeyId !== OPERATOR_CREDENTIALS.accessKeyId;
}

/** CreateMultipartUpload: a POST on an object key with ?uploads (it carries the object's metadata). */
function isCreateMultipartUpload(ctx: KoaContext): boolean {
  return ctx.method === 'POST' && ctx.path.split('/').filter(Boolean).length >= 2 && 'uploads' in ctx.query;
}

/**
 * The first `x-amz-meta-*` header whose value is not printable US-ASCII, or undefined. S3 wants
 * user metadata in US-ASCII: a browser sends "Réservoir" as Latin-1 bytes (Node gives bytes
 * ≥ 0x80 as latin1 characters) while SigV4 signed the UTF-8 text, so real S3 finds the signature
 * wrong. RFC 2047 words (`=?UTF-8?B?…?=`) are ASCII and pass.
 */
export function nonAsciiMetadata(headers: IncomingHttpHeaders): string | undefined {
  const bad = (value: string | string[] | undefined) => [value ?? ''].flat().some((v) => /[^\x20-\x7e]/.test(v));
  return Object.keys(headers).find((name) => name.startsWith('x-amz-meta-') && bad(headers[name]));
}

/**
 * The sandbox operator's long-term key pair (the seed, tests, the deploy command against the
 * sandbox): like an IAM user with AdministratorAccess, allowed everything. Printed in
 * sandbox/README.md; never valid anywhere but here.
 */
export const OPERATOR_CREDENTIALS = {
  accessKeyId: 'AKIASANDBOXOPERATOR0',
  secretAccessKey: 'trailsense-sandbox-operator-secret-local-only',
} as const;

/**
 * The access key id s3rver itself knows. The front (below) verifies every signature with the key's
 * real secret, then hands the request on under this id; s3rver, which would check the signature
 * again with its own secret, is told to let the now-mismatched signature pass.
 */
const S3RVER_ACCESS_KEY_ID = 'S3RVER';

/** A request as the front middleware sees it: Koa's parsed view and the raw request line and headers. */
export interface FrontRequest {
  method: string;
  /** Path-style `/<bucket>/<key>`, still URL-encoded. */
  path: string;
  query: Readonly<Record<string, unknown>>;
  headers: Readonly<Record<string, unknown>>;
  /** The raw request target and header lines (node's req.url, req.rawHeaders). */
  raw: RawRequest;
}

/** A refusal: S3's status and code, S3's message when not the code's usual one, and why (for the log). */
export type Refusal = { status: number; code: string; why: string; message?: string; details?: Record<string, string> };

/** How far a signed request's x-amz-date may be from the server's time (S3: 15 minutes). */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** The bucket's region, which a signature's credential scope must name. */
const BUCKET_REGION = readLocalContract().storage.region;

/**
 * Why S3 would refuse a request (undefined: it would not), in S3's order: authentication (a
 * SigV4 signature by a key S3 knows: the operator's, or an identity-pool session's, whose token
 * must come with it and must not have expired), then authorization (the authenticated role's
 * policy for a session, src/s3-access.ts; the operator may do anything). Anonymous requests are
 * refused: the bucket grants nothing to everyone.
 */
export function accessRefusal(
  request: FrontRequest,
  sessions: SessionRegistry | undefined,
  bucket: string,
  nowMs: number,
  region = BUCKET_REGION,
): Refusal | undefined {
  const parsed = parseSignedRequest(request.raw);
  if (parsed.kind === 'anonymous') return { status: 403, code: 'AccessDenied', why: 'an anonymous request (no signature)' };
  if (parsed.kind === 'malformed')
    return { status: 400, code: parsed.presigned ? 'AuthorizationQueryParametersError' : 'AuthorizationHeaderMalformed', why: parsed.why };
  const info = parsed.info;
  const scope = scopeRefusal(info, region);
  if (scope) return scope;
  let secret: string;
  let principal: Principal | undefined;
  if (info.accessKeyId === OPERATOR_CREDENTIALS.accessKeyId) {
    secret = OPERATOR_CREDENTIALS.secretAccessKey;
  } else {
    const session = sessions?.find(info.accessKeyId, Math.floor(nowMs / 1000)) ?? { kind: 'unknown' as const };
    if (session.kind === 'unknown') return { status: 403, code: 'InvalidAccessKeyId', why: `no credentials have the access key id ${info.accessKeyId}` };
    // S3 answers 400 to both: its error table gives InvalidToken and ExpiredToken 400 Bad Request.
    if (info.securityToken !== session.token)
      return { status: 400, code: 'InvalidToken', why: 'the session token is missing or not the one issued with the access key' };
    if (session.kind === 'expired') return { status: 400, code: 'ExpiredToken', why: 'the session has expired' };
    secret = session.secretAccessKey;
    principal = session.principal;
  }
  if (info.kind === 'header' && Number.isNaN(amzDateMs(info.amzDate))) {
    return {
      status: 403,
      code: 'AccessDenied',
      why: `x-amz-date ${JSON.stringify(info.amzDate)} is not a time`,
      message: 'AWS authentication requires a valid Date or x-amz-date header',
    };
  }
  if (!signatureMatches(request.raw, info, secret))
    return { status: 403, code: 'SignatureDoesNotMatch', why: `the SigV4 signature of ${info.accessKeyId} does not hold` };
  const unsigned = unsignedAmzHeaders(request.raw, info);
  if (unsigned.length > 0) {
    const message = 'There were headers present in the request which were not signed';
    return { status: 403, code: 'AccessDenied', message, why: `${unsigned.join(', ')} not signed`, details: { HeadersNotSigned: unsigned.join(', ') } };
  }
  // A presigned URL has its own validity (below); S3 holds a signed header's time to 15 minutes of its own.
  if (info.kind === 'header' && Math.abs(amzDateMs(info.amzDate) - nowMs) > MAX_CLOCK_SKEW_MS) {
    return { status: 403, code: 'RequestTimeTooSkewed', why: `signed at ${info.amzDate}, more than 15 minutes from the server's time` };
  }
  if (info.kind === 'query' && amzDateMs(info.amzDate) - nowMs > MAX_CLOCK_SKEW_MS) {
    return {
      status: 403,
      code: 'AccessDenied',
      message: 'Request is not yet valid',
      why: `presigned at ${info.amzDate}, more than 15 minutes ahead of the server's time`,
    };
  }
  // X-Amz-Expires=0: expired on arrival.
  if (info.kind === 'query' && (info.expiresSeconds === 0 || amzDateMs(info.amzDate) + (info.expiresSeconds ?? 0) * 1000 < nowMs)) {
    return { status: 403, code: 'AccessDenied', message: 'Request has expired', why: 'the presigned URL has expired' };
  }
  if (!principal) return undefined;
  const access = actionOf(request);
  if (isAllowed(access, principal, bucket)) return undefined;
  const tags =
    Object.entries(principal.tags)
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || 'none';
  return {
    status: 403,
    code: 'AccessDenied',
    why: `${access.action} on ${access.bucket ?? '*'}/${access.key ?? ''} is not allowed for ${principal.identityId} (tags: ${tags})`,
  };
}

/**
 * Hands a verified request to s3rver under the one access key id it accepts: the credential in the
 * Authorization header, or a presigned URL's X-Amz-Credential, names `S3RVER` instead.
 */
function asS3rverRequest(ctx: KoaContext): void {
  const authorization = ctx.req.headers.authorization;
  if (authorization !== undefined) {
    ctx.req.headers.authorization = authorization.replace(/Credential=[^/,\s]+\//, `Credential=${S3RVER_ACCESS_KEY_ID}/`);
    return;
  }
  const credential = ctx.query['X-Amz-Credential'];
  if (typeof credential === 'string') {
    ctx.query = { ...ctx.query, 'X-Amz-Credential': credential.replace(/^[^/]*\//, `${S3RVER_ACCESS_KEY_ID}/`) };
  }
}

/**
 * Answers an S3 error the browser can read: the body is drained first (answering mid-upload makes
 * some clients see a reset, not the status), and a site origin gets the CORS headers s3rver's own
 * CORS step (which this answer skips) would have added.
 */
async function answerS3Error(ctx: KoaContext, status: number, xml: string): Promise<void> {
  // Nothing to drain when a parser has read the body already.
  if (!ctx.req.readableEnded && !ctx.req.destroyed) {
    await new Promise<void>((resolve) => {
      // 'close' too: a client that aborts mid-body may bring neither 'end' nor 'error'.
      ctx.req
        .on('end', resolve)
        .on('error', () => resolve())
        .on('close', resolve);
      ctx.req.resume();
    });
  }
  const origin = ctx.get('Origin');
  if (SITE_ORIGINS.includes(origin)) {
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', UPLOAD_EXPOSED_HEADERS.join(', '));
  }
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = xml;
}

export interface S3Piece {
  /** The port S3 is reached on (the link emulator's when a link is on): the one bound, also for port 0. */
  port: number;
  /** s3rver's own listener (on the S3 port, or on an internal one behind the link). */
  listener: Listener;
  /** The link emulator in front of s3rver on the S3 port, when a link is on. */
  front?: LinkProxy;
  /** Sets the fault switch of `ranch`'s objects (undefined: the process-wide one). */
  setPutFault(fault: PutFault, ranch?: string): void;
  /** How many PUTs the switch `ranch`'s objects meet has failed so far. */
  injectedFaults(ranch?: string): number;
  /** Holds the next `count` object PUTs of `ranch` (undefined: of any ranch without a stall of its own) unanswered (0: hold no more). */
  stallPuts(count: number, ranch?: string): void;
  /** How many PUTs the stall switch `ranch`'s objects meet has held, and how many it is still to. */
  putStall(ranch?: string): PutStallState;
  /** What the link benches count: PUT body bytes, aborted PUTs, stored objects (link-counters.ts). */
  counters: PutCounters;
  s3rver: S3rver;
  stop(): Promise<void>;
}

/** The fault switch: what share of PUTs fail and how, and how many it has failed so far. */
interface FaultSwitch {
  fault: PutFault;
  injected: number;
}

/** The PUT switches the front applies, per ranch: stall (hold the next N PUTs unanswered) and fault (fail a share of them). */
interface PutSwitches {
  stall: RanchScoped<PutStall>;
  fault: RanchScoped<FaultSwitch>;
}

/**
 * The middleware in front of s3rver's own routes, in S3's order: a stalled connection never
 * reaches S3; then what the sandbox cannot store or does not emulate; the signature and the
 * role's policy (accessRefusal); the US-ASCII metadata; the bucket policy; the fault switch; then
 * s3rver, whose parser errors become MalformedXML, and the object-created function before the
 * answer.
 */
function createFront(opts: {
  switches: PutSwitches;
  counters: PutCounters;
  objectCreated: ObjectCreatedRuns;
  store: S3rver['store'];
  sessions: SessionRegistry | undefined;
  bucket: string;
  now: () => number;
  log: (line: string) => void;
}): KoaMiddleware {
  const { switches } = opts;
  return async (ctx, next) => {
    const objectPut = isObjectPut(ctx);
    const putBytes = objectPut ? opts.counters.watch(ctx.req) : () => 0;
    const ranch = ranchOfObjectPath(ctx.path);
    if (objectPut && switches.stall.for(ranch).take()) {
      opts.log(`[s3] stall switch: holding ${ctx.method} ${ctx.path} unanswered`);
      const end = await holdUntilClosed(ctx.req.socket);
      // No answer, ever: Koa must not write one either.
      ctx.respond = false;
      ctx.req.socket.destroy();
      opts.log(
        `[s3] stall switch: ${ctx.method} ${ctx.path} ended (${end === 'limit' ? `held for the limit, ${HOLD_LIMIT_MS / 60_000} minutes` : 'the connection closed'})`,
      );
      return;
    }
    if (isFormPost(ctx)) {
      await answerS3Error(ctx, 501, s3ErrorXml('NotImplemented', 'The sandbox does not emulate browser-form uploads (POST Object); put the object instead.'));
      opts.log(`[s3] ${ctx.method} ${ctx.path} -> 501 NotImplemented: a browser-form upload`);
      return;
    }
    // Before anything reaches s3rver's file store, whoever asks (src/s3-access.ts unsafeKeyReason).
    const unsafeKey = unsafeKeyReason(ctx.path);
    if (unsafeKey) {
      await answerS3Error(ctx, 400, s3ErrorXml('InvalidArgument', `The sandbox cannot store this object key: ${unsafeKey}.`));
      opts.log(`[s3] ${ctx.method} ${ctx.path} -> 400 InvalidArgument: ${unsafeKey}`);
      return;
    }
    // Every request but a CORS preflight is signed, verified, then authorized as IAM would.
    if (ctx.method !== 'OPTIONS') {
      const request = {
        method: ctx.method,
        path: ctx.path,
        query: ctx.query,
        headers: ctx.headers,
        raw: { method: ctx.req.method ?? ctx.method, url: ctx.req.url ?? ctx.path, rawHeaders: ctx.req.rawHeaders },
      };
      const refusal = accessRefusal(request, opts.sessions, opts.bucket, opts.now());
      if (refusal) {
        await answerS3Error(ctx, refusal.status, s3ErrorXml(refusal.code, refusal.message, refusal.details));
        opts.log(`[s3] ${ctx.method} ${ctx.path} -> ${refusal.status} ${refusal.code}: ${refusal.why}`);
        return;
      }
      asS3rverRequest(ctx);
    }
    // After authentication, as in S3, where it is the signature that fails: the browser sent the
    // value's Latin-1 bytes, the signer signed its UTF-8 text.
    if (objectPut || isCreateMultipartUpload(ctx)) {
      const header = nonAsciiMetadata(ctx.req.headers);
      if (header) {
        await answerS3Error(ctx, 403, s3ErrorXml('SignatureDoesNotMatch'));
        opts.log(`[s3] ${ctx.method} ${ctx.path} -> 403 SignatureDoesNotMatch: ${header} is not US-ASCII`);
        return;
      }
    }
    // The upload bucket's policy (infra/src/upload-access.ts bucketPolicyDenial) on a session's
    // writes. AWS applies it to every principal; the operator here stands for the sandbox itself.
    const write = objectWriteOf(ctx);
    if (write && bySession(ctx)) {
      const denial = bucketPolicyDenial(write, (name) => ctx.get(name) || undefined);
      if (denial) {
        await answerS3Error(ctx, 403, s3ErrorXml('AccessDenied'));
        opts.log(`[s3] ${ctx.method} ${ctx.path} -> 403 AccessDenied: the bucket policy: ${denial}`);
        return;
      }
    }
    // S3's checksum rules (src/s3-checksum-front.ts): what the headers alone make S3 refuse.
    const checksum = await checksumRefusal(ctx, opts.store);
    if (checksum) {
      await answerS3Error(ctx, checksum.status, s3ErrorXml(checksum.code, checksum.message, checksum.details));
      opts.log(`[s3] ${ctx.method} ${ctx.path} -> ${checksum.status} ${checksum.code}: ${checksum.why}`);
      return;
    }
    const faults = switches.fault.for(ranch);
    if (objectPut && shouldFail(faults.fault)) {
      const fault = faults.fault;
      faults.injected++;
      await answerS3Error(ctx, fault.status, faultXml(fault.status, fault.code));
      opts.log(`[s3] fault switch: ${ctx.method} ${ctx.path} -> ${fault.status}${fault.code ? ` ${fault.code}` : ''}`);
      return;
    }
    let checksums;
    try {
      // The store verifies the bytes against the checksums sent (src/s3-checksum-store.ts).
      checksums = await withChecksums(ctx, next);
    } catch (err) {
      // s3rver's own errors (S3Error: a code and a status) go on to its error handler.
      const s3Error = typeof (err as { code?: unknown }).code === 'string' && typeof (err as { status?: unknown }).status === 'number';
      if (s3Error || !hasXmlBody(ctx)) throw err;
      await answerS3Error(ctx, 400, s3ErrorXml('MalformedXML'));
      opts.log(`[s3] ${ctx.method} ${ctx.path} -> 400 MalformedXML: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    // The hook runs before the client hears "200", so a caller that reads upload-metrics or the
    // tags right after its upload resolves sees them (production's function is asynchronous;
    // being sooner than AWS is harmless here).
    const pending = opts.objectCreated.pending();
    if (pending.length > 0) await Promise.allSettled(pending);
    await answerChecksums(ctx, opts.store, checksums);
    opts.counters.answered(ctx, objectWriteOf(ctx), putBytes());
  };
}

/**
 * s3rver listening on the S3 port, or with a link on an internal loopback port behind the link
 * emulator's proxy on the S3 port (link-proxy.ts).
 */
async function listenS3(
  s3rver: S3rver,
  opts: { port: number; link?: LinkSpec | null; log: (line: string) => void },
): Promise<{ listener: Listener; linkProxy?: LinkProxy }> {
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
  // Node answers 408 to a request whose body has not all arrived after requestTimeout (5 min by
  // default): a held PUT with a large body would get that answer. The hold limit ends it instead.
  for (const server of listener.servers) server.requestTimeout = HOLD_LIMIT_MS + 60_000;
  return linkProxy ? { listener, linkProxy } : { listener };
}

export async function startS3(opts: {
  dataDir: string;
  bucket: string;
  /** The S3 port; 0 picks a free one (S3Piece.port says which). */
  port: number;
  db: SandboxDb;
  fault: PutFault;
  log: (line: string) => void;
  /** Put s3rver behind an emulated shared uplink (default: none, s3rver on `port` itself). */
  link?: LinkSpec | null;
  /** The identity pool's sessions; without it only the operator's key is known. */
  sessions?: SessionRegistry;
  /** Milliseconds since the epoch (default Date.now): credential expiry and signature times. */
  now?: () => number;
  /** The ledger's clock of a ranch (default `now`): the object-created function's month and reservation expiry (a test may set it apart). */
  ledgerNow?: (ranch: string | undefined) => number;
}): Promise<S3Piece> {
  const now = opts.now ?? (() => Date.now());
  const s3rver = new S3rver({
    directory: path.join(opts.dataDir, 's3'),
    silent: true,
    vhostBuckets: false,
    // Verified already, with the caller's real secret (accessRefusal above).
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: opts.bucket, configs: [corsXml(SITE_ORIGINS)] }],
  });
  await s3rver.configureBuckets();
  await verifyChecksumsOnStore(s3rver.store, path.join(opts.dataDir, 's3-incoming'));
  const switches: PutSwitches = {
    stall: ranchScoped(createPutStall),
    fault: ranchScoped(() => ({ fault: NO_FAULT, injected: 0 }), { fault: opts.fault ?? NO_FAULT, injected: 0 }),
  };
  const counters = createPutCounters();
  const objectCreated = runObjectCreated(s3rver, { db: opts.db, log: opts.log, ledgerNow: opts.ledgerNow ?? now });
  s3rver.on('error', (err) => {
    if ((err.status ?? 500) >= 500) opts.log(`[s3] ${err.stack ?? err.message}`);
  });
  s3rver.middleware.unshift(
    createFront({ switches, counters, objectCreated, store: s3rver.store, sessions: opts.sessions, bucket: opts.bucket, now, log: opts.log }),
  );
  const { listener, linkProxy } = await listenS3(s3rver, opts);
  return {
    port: linkProxy ? linkProxy.port : listener.port,
    listener,
    ...(linkProxy ? { front: linkProxy } : {}),
    s3rver,
    counters,
    setPutFault: (next, ranch) => {
      switches.fault.own(ranch).fault = next;
    },
    injectedFaults: (ranch) => switches.fault.for(ranch).injected,
    stallPuts: (count, ranch) => switches.stall.own(ranch).set(count),
    putStall: (ranch) => switches.stall.for(ranch).state(),
    stop: async () => {
      await linkProxy?.close();
      await listener.close();
      s3rver.logger.close();
    },
  };
}

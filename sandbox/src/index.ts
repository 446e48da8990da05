/**
 * The sandbox: every backend the website calls in production, on loopback, supervised by this one
 * Node process. `startSandbox()` is the whole of it; `cli.ts` is a thin command around it.
 *
 *   cognito   Cognito gateway (user pool + identity pool) in front of cognito-local  :4100
 *   api       product API on SQLite                                                  :4103
 *   analytics analytics sink                                                         :4104
 *   s3        s3rver (Amplify's test endpoint is http://localhost:20005)              :20005
 *             (with a link emulator on, its proxy takes that port and s3rver an internal one)
 *
 * Those are the defaults (config/local.json's, and S3_PORT for S3); a caller in Node (the tests)
 * can ask for any port, 0 for a free one.
 *
 * If any piece dies (its server closes or errors), the others are stopped too and `stopped`
 * resolves with the piece's name: never half a sandbox.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import type { Server } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet } from 'jose';
import type { UploadsApiDeps } from '@trailsense/infra/uploads-api';
import type { JWK } from 'jose';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import { createAnalytics } from './analytics';
import { createApi } from './api';
import { contractPorts, issuerFor, readLocalContract, REPO_ROOT, runtimeConfigFor } from './config';
import type { SandboxPorts } from './config';
import { createControl } from './control';
import { openDb } from './db';
import type { SandboxDb, StoredEvent, StoredRefusal } from './db';
import { formatApiFault, NO_FAULT, parseApiFault, parsePutFault } from './fault';
import { createRanchFirewalls, DEFAULT_FIREWALL, parseFirewall } from './firewall';
import type { FirewallMode } from './firewall';
import type { ApiFault, PutFault } from './fault';
import { ctx as cognitoCtx, poolUser, startCognitoLocal, writePoolFiles } from './gateway/cognito-local';
import type { DeliveredCode } from './gateway/cognito-local';
import { createGateway } from './gateway/gateway';
import { createIdentityPool, serverSideTokenCheck } from './gateway/identity-pool';
import { createUserPool } from './gateway/user-pool';
import { formatLink, linkName, parseLink } from './link';
import type { LinkSpec } from './link';
import type { StoredObject } from './link-counters';
import { startLinkProxy } from './link-proxy';
import type { LinkDecision } from './link-proxy';
import { sqliteLedger, sqliteRanches } from './ledger';
import { createLedgerClock } from './ledger-clock';
import { ranchScoped } from './ranch-scope';
import { assertPortFree, listenLoopback } from './listen';
import type { Listener } from './listen';
import { startS3 } from './s3';
import type { S3Piece } from './s3';
import { seedDatabase, SEED_USERS } from './seed';
import type { SeedUser } from './seed';
import { createSessionRegistry } from './sessions';
import type { SessionRegistry } from './sessions';
import { parseStallCount } from './stall';

export type { RuntimeConfig, SandboxPorts, PutFault, ApiFault, DeliveredCode, StoredEvent, StoredRefusal, LinkSpec, StoredObject };
export type { CleanLink, ProfileLink, ProfileName } from './link';
export type { LinkDecision } from './link-proxy';
export { parseLink, parseCleanLink, formatLink, linkName } from './link';
export { linkTimeline, timelineJson, PROFILE_NAMES } from './link-profile';
export type { LinkSegment, LinkTimeline } from './link-profile';
export { PortInUseError } from './listen';
export { SEED_USERS, SEED_RANCHES, countingMonth } from './seed';
export { S3_PORT } from './config';

export const DEFAULT_DATA_DIR = path.join(REPO_ROOT, '.sandbox-data');

export type PieceName = 'cognito' | 'api' | 'analytics' | 's3';

export interface SandboxOptions {
  /** Where state lives (users, objects, database). Default: `<repo>/.sandbox-data`. */
  dataDir?: string;
  /** Delete the state first and reseed. */
  reset?: boolean;
  /** Print nothing (codes are still recorded for `codes()`). */
  quiet?: boolean;
  /**
   * Ports for the gateway, API, analytics sink and S3; default config/local.json's and S3_PORT (the
   * only S3 port a browser's Amplify reaches); 0 = any free port.
   */
  ports?: Partial<SandboxPorts>;
  /** The S3 PUT fault switch, e.g. "0.3:503" or "1:400:ExpiredToken"; default `$SANDBOX_S3_PUT_FAULT` or off. */
  s3PutFault?: PutFault | string;
  /** Where log lines go (default console.log unless quiet). */
  log?: (line: string) => void;
  /**
   * The link emulator on the storage path: one shared uplink, e.g. `{ mbit: 20, rttMs: 80 }` or
   * "20:80", or a profile: `{ profile: 'starlink', seed: 1 }` or "starlink", "geo", "lte", "lte:7"
   * (sandbox/README.md#link-profiles); null / "off" for none. Default `$SANDBOX_LINK`, else off
   * (s3rver on the port itself).
   */
  link?: LinkSpec | string | null;
  /**
   * The user pool's clock for its password lockout and revocations (milliseconds since the epoch);
   * Date.now by default. Tests hold it still so a lockout cannot lapse on a slow machine.
   */
  authClock?: () => number;
  /**
   * The uploads API's firewall (src/firewall.ts): "600/300" (production's rate per address, the
   * default), "429[:<s>]", "403" or "off"; default `$SANDBOX_FIREWALL`, else production's.
   */
  firewall?: string;
}

export type StopReason = { kind: 'stopped' } | { kind: 'piece-died'; piece: PieceName; error?: Error };

export interface Sandbox {
  /** The RuntimeConfig (`/config.json` values) for this sandbox's ports; also written to `<dataDir>/config.json`. */
  config: RuntimeConfig;
  /** The ports bound (port 0 resolved). */
  ports: SandboxPorts;
  dataDir: string;
  /** Codes "sent" to an email (sign-up, resend, forgot password, sign-in by e-mail: source EmailOtp), oldest first. */
  codes(email: string): DeliveredCode[];
  /** The newest code sent to an email, or undefined. */
  lastCode(email: string): string | undefined;
  /** Analytics events received, optionally for one ranch. */
  analyticsEvents(ranchid?: string): StoredEvent[];
  /** Objects the object-created function removed, and why, oldest first. */
  refusals(): StoredRefusal[];
  /**
   * Changes the S3 PUT fault switch at run time ("0.3:503", "1:403", "1:400:ExpiredToken", "0" to
   * switch off). Each switch below is the process-wide one, or with `ranch` that ranch's own
   * (src/ranch-scope.ts).
   */
  setPutFault(fault: PutFault | string, ranch?: string): void;
  /** How many PUTs the fault switch has failed. */
  injectedFaults(ranch?: string): number;
  /** Holds the next `count` object PUTs (0..1000) unanswered until their clients give up; 0 holds no more. */
  stallPuts(count: number, ranch?: string): void;
  /** How many object PUTs the stall switch has held so far. */
  heldPuts(ranch?: string): number;
  /** Fails product API routes before authentication ("upload-metrics:500,ranch:503"; "0" or "" for none). */
  setApiFault(fault: ApiFault | string, ranch?: string): void;
  /** Changes the uploads API's firewall ("600/300", "429:2", "403", "off"). */
  setFirewall(spec: string, ranch?: string): void;
  /** The emulated link on the storage path, or null when S3 is plain loopback. */
  link: LinkSpec | null;
  /** Bytes that have crossed the emulated uplink so far (0 without a link). */
  linkBytesSent(): number;
  /** The emulated link's clock: ms since it started, the `t` of its timeline (0 without a link). */
  linkTime(): number;
  /**
   * Calls `listener` with each decision the emulated link makes (link-direction.ts LinkDecision:
   * connections and their handshakes, serialisation waits, delivery times) until the returned
   * function is called. Without a link it is never called.
   */
  watchLink(listener: (decision: LinkDecision) => void): () => void;
  /**
   * Carries another loopback port through the same emulated uplink (a bench's second flow
   * competing with the uploads): connect to the returned port to reach `targetPort`.
   */
  throughLink(targetPort: number): Promise<{ port: number; close(): Promise<void> }>;
  /** Bytes S3 received in object PUT bodies (PutObject, UploadPart), every attempt: stored, refused or aborted. */
  putBodyBytes(): number;
  /** Object PUTs whose client went away before the body was complete (aborted uploads). */
  abortedPuts(): number;
  /** Objects stored (PutObject or a completed multipart upload, answered 200): key, when (epoch ms), bytes; oldest first. */
  storedObjects(): readonly StoredObject[];
  /** Resolves when the sandbox has stopped, saying why. */
  stopped: Promise<StopReason>;
  /** Simulates a crash of one piece (tests of the supervisor). */
  crashPiece(piece: PieceName): void;
  /** Stops every piece and closes the database. */
  stop(): Promise<void>;
}

function toLink(value: LinkSpec | string | null | undefined): LinkSpec | null {
  if (value === undefined || value === null) return null;
  const parsed = parseLink(typeof value === 'string' ? value : linkName(value));
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.link;
}

function toApiFault(value: ApiFault | string): ApiFault {
  const parsed = parseApiFault(typeof value === 'string' ? value : formatApiFault(value));
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

function toFirewall(spec: string): FirewallMode {
  const parsed = parseFirewall(spec);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

function toFault(value: PutFault | string | undefined): PutFault {
  if (value === undefined || value === '') return NO_FAULT;
  if (typeof value !== 'string') return value;
  const parsed = parsePutFault(value);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

/** Empties `dir` for --reset, refusing anything that does not look like sandbox state. */
function resetDataDir(dir: string): void {
  if (!existsSync(dir)) return;
  const entries = readdirSync(dir);
  if (entries.length > 0 && !entries.includes('sandbox.db')) {
    throw new Error(`Refusing to reset ${dir}: it is not empty and holds no sandbox.db`);
  }
  rmSync(dir, { recursive: true, force: true });
}

function readPublicJwk(): JWK {
  const file = require.resolve('cognito-local/lib/keys/cognitoLocal.public.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { jwk: JWK }).jwk;
}

/** Deletes the state for --reset, after checking that no sandbox still runs on these ports (a `0` is not checked). */
async function resetState(dataDir: string, wanted: SandboxPorts): Promise<void> {
  // A sandbox still running on this state holds these ports: stop before deleting its state from under it.
  const held: [string, number][] = [
    ['Cognito gateway', wanted.gateway],
    ['product API', wanted.api],
    ['analytics sink', wanted.analytics],
    ['S3', wanted.s3],
  ];
  for (const [piece, port] of held) if (port !== 0) await assertPortFree(piece, port, '; nothing was reset');
  resetDataDir(dataDir);
}

/**
 * The pieces' listeners and their supervision: each listens before its handler is filled in (so a
 * busy port stops start-up before any work, and port 0 resolves to the real port the issuer must
 * name); once supervised, any piece that closes or fails stops them all, and `stopped` says why.
 */
function createSupervisor(db: SandboxDb, log: (line: string) => void) {
  const handlers = new Map<PieceName, RequestListener>();
  const listeners = new Map<PieceName, Listener>();
  let s3: S3Piece | undefined;
  let stopping = false;
  let resolveStopped!: (reason: StopReason) => void;
  const stopped = new Promise<StopReason>((resolve) => (resolveStopped = resolve));

  async function shutdown(reason: StopReason): Promise<void> {
    if (stopping) return;
    stopping = true;
    await Promise.allSettled([...[...listeners.values()].map((l) => l.close()), s3?.stop()]);
    db.close();
    resolveStopped(reason);
  }

  function supervise(piece: PieceName, listener: { servers: readonly Server[] }): void {
    for (const server of listener.servers) {
      server.on('close', () => {
        if (!stopping) {
          log(`[sandbox] ${piece} stopped unexpectedly; stopping the whole sandbox`);
          void shutdown({ kind: 'piece-died', piece });
        }
      });
      server.on('error', (error: Error) => {
        if (!stopping) {
          log(`[sandbox] ${piece} failed: ${error.message}; stopping the whole sandbox`);
          void shutdown({ kind: 'piece-died', piece, error });
        }
      });
    }
  }

  return {
    stopped,
    shutdown,
    /** Listens for an HTTP piece; its requests get 503 until `handle` gives it its handler. Returns the port bound. */
    async listen(piece: Exclude<PieceName, 's3'>, name: string, port: number): Promise<number> {
      const listener = await listenLoopback(name, port, (req, res) => {
        const h = handlers.get(piece);
        if (h) return h(req, res);
        res.writeHead(503).end();
      });
      listeners.set(piece, listener);
      return listener.port;
    },
    handle: (piece: Exclude<PieceName, 's3'>, handler: RequestListener) => void handlers.set(piece, handler),
    /** The S3 piece, stopped with the others. */
    addS3(piece: S3Piece): void {
      s3 = piece;
    },
    /** From now on a piece that dies stops the whole sandbox. */
    superviseAll(): void {
      for (const [piece, listener] of listeners) supervise(piece, listener);
      if (!s3) return;
      supervise('s3', s3.listener);
      if (s3.front) supervise('s3', s3.front);
    },
    crash(piece: PieceName): void {
      const listener = piece === 's3' ? s3?.listener : listeners.get(piece);
      for (const server of listener?.servers ?? []) server.close();
      if (piece === 's3') for (const server of s3?.front?.servers ?? []) server.close();
    },
  };
}

/**
 * The Cognito gateway's handler: cognito-local on `<dataDir>/cognito` with the user pool and the
 * identity pool in front (gateway/), their tokens issued by the gateway's own URL.
 */
async function startCognito(opts: {
  dataDir: string;
  ids: { userPoolId: string; clientId: string };
  identityPoolId: string;
  config: RuntimeConfig;
  db: SandboxDb;
  sessions: SessionRegistry;
  log: (line: string) => void;
  now?: (() => number) | undefined;
}): Promise<{
  codes: DeliveredCode[];
  handler: RequestListener;
  saveUsers: (users: readonly SeedUser[]) => Promise<void>;
  expireSignIns: (username: string) => number;
}> {
  const { ids, db, log } = opts;
  const issuer = issuerFor(opts.config);
  const onCode = (c: DeliveredCode) => log(`[cognito] code for ${c.destination} (${c.source}): ${c.code}`);
  const cognito = await startCognitoLocal({ dir: path.join(opts.dataDir, 'cognito'), ids, issuerDomain: opts.config.auth.userPoolEndpoint!, onCode });
  const publicJwk = readPublicJwk();
  const localKeys = createLocalJWKSet({ keys: [publicJwk] });
  const userPool = createUserPool({
    cognito,
    db,
    userPoolId: ids.userPoolId,
    clientId: ids.clientId,
    issuer,
    keys: localKeys,
    ...(opts.now ? { now: opts.now } : {}),
    onCode: (c) => {
      cognito.codes.push(c);
      onCode(c);
    },
  });
  const identityPool = createIdentityPool({
    identityPoolId: opts.identityPoolId,
    clientId: ids.clientId,
    issuer,
    keys: localKeys,
    sessions: opts.sessions,
    serverSideTokenCheck: serverSideTokenCheck({
      userActive: async (sub) => {
        const user = await cognito.pool.getUserByUsername(cognitoCtx, sub);
        return user !== null && user.Enabled !== false;
      },
      signedOutAt: (sub) => db.signedOutAt(sub),
      isTokenRevoked: (jti) => db.isTokenRevoked(jti),
    }),
  });
  return {
    codes: cognito.codes,
    handler: createGateway({ userPoolId: ids.userPoolId, issuer, publicJwk, userPool, identityPool, log }),
    saveUsers: async (users) => {
      for (const user of users) await cognito.pool.saveUser(cognitoCtx, poolUser(user, new Date()));
    },
    expireSignIns: userPool.expireSignIns,
  };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const dataDir = path.resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  const log = options.log ?? (options.quiet ? () => undefined : (line: string) => console.log(line));
  const contract = readLocalContract();
  const wanted: SandboxPorts = { ...contractPorts(contract), ...options.ports };
  const fault = toFault(options.s3PutFault ?? process.env['SANDBOX_S3_PUT_FAULT']);
  const apiFault = ranchScoped((): { faults: ApiFault } => ({ faults: {} }));
  const ledgerClock = createLedgerClock();
  const firewall = createRanchFirewalls(toFirewall(options.firewall ?? process.env['SANDBOX_FIREWALL'] ?? DEFAULT_FIREWALL));
  const link = toLink(options.link !== undefined ? options.link : process.env['SANDBOX_LINK']);

  if (options.reset) await resetState(dataDir, wanted);
  mkdirSync(dataDir, { recursive: true });
  const now = new Date();
  const db = openDb(path.join(dataDir, 'sandbox.db'));
  seedDatabase(db, now);
  // Identity-pool sessions: issued by the gateway, checked by the S3 piece (src/s3-access.ts).
  const sessions = createSessionRegistry(db);
  const ids = { userPoolId: contract.auth.userPoolId, clientId: contract.auth.userPoolClientId };
  writePoolFiles(path.join(dataDir, 'cognito'), ids, SEED_USERS, now);

  const supervisor = createSupervisor(db, log);
  let config: RuntimeConfig;
  let ports: SandboxPorts;
  let codes: DeliveredCode[];
  let s3: S3Piece;
  try {
    const gateway = await supervisor.listen('cognito', 'Cognito gateway', wanted.gateway);
    const api = await supervisor.listen('api', 'product API', wanted.api);
    const analytics = await supervisor.listen('analytics', 'analytics sink', wanted.analytics);
    s3 = await startS3({ dataDir, bucket: contract.storage.bucket, port: wanted.s3, db, fault, log, link, sessions, ledgerNow: ledgerClock.now });
    supervisor.addS3(s3);
    if (link) log(`[s3] link emulator on: ${formatLink(link)}, shared by every connection to :${s3.port}`);

    ports = { gateway, api, analytics, s3: s3.port };
    config = runtimeConfigFor(contract, ports);
    const cognito = await startCognito({ dataDir, ids, identityPoolId: contract.auth.identityPoolId, config, db, sessions, log, now: options.authClock });
    codes = cognito.codes;
    supervisor.handle('cognito', cognito.handler);
    const issuer = issuerFor(config);
    // The API trusts only what the pool publishes, like an API Gateway authorizer.
    const remoteKeys = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const uploads: UploadsApiDeps = {
      ledger: sqliteLedger(db),
      ranches: sqliteRanches(db),
      clock: { now: () => new Date(ledgerClock.now()) },
      newId: () => randomBytes(16).toString('base64url'),
    };
    const ledgerClockFor = (ranch: string) => ({ now: () => new Date(ledgerClock.now(ranch)) });
    const faults = (ranch: string | undefined) => apiFault.for(ranch).faults;
    supervisor.handle(
      'api',
      createApi({ db, uploads, keys: remoteKeys, issuer, clientId: ids.clientId, log, fault: faults, firewall, ledgerClock: ledgerClockFor }),
    );
    const control = createControl({ s3, db, ledgerClock, apiFault, firewall, saveUsers: cognito.saveUsers, expireSignIns: cognito.expireSignIns });
    supervisor.handle('analytics', createAnalytics({ db, log, control }));
    writeFileSync(path.join(dataDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  } catch (err) {
    await supervisor.shutdown({ kind: 'stopped' });
    throw err;
  }
  supervisor.superviseAll();

  const s3Piece = s3;
  const codesFor = (email: string) => codes.filter((c) => c.destination.toLowerCase() === email.toLowerCase());
  return {
    config,
    ports,
    dataDir,
    codes: codesFor,
    lastCode: (email) => codesFor(email).at(-1)?.code,
    analyticsEvents: (ranchid) => db.events(ranchid),
    refusals: () => db.refusals(),
    setPutFault: (next, ranch) => s3Piece.setPutFault(toFault(next), ranch),
    injectedFaults: (ranch) => s3Piece.injectedFaults(ranch),
    stallPuts: (count, ranch) => {
      const parsed = parseStallCount(String(count));
      if (typeof parsed === 'string') throw new Error(parsed);
      s3Piece.stallPuts(parsed, ranch);
    },
    heldPuts: (ranch) => s3Piece.putStall(ranch).held,
    setApiFault: (next, ranch) => void (apiFault.own(ranch).faults = toApiFault(next)),
    setFirewall: (spec, ranch) => firewall.set(toFirewall(spec), ranch),
    link,
    linkBytesSent: () => s3Piece.front?.link.sent ?? 0,
    linkTime: () => s3Piece.front?.link.elapsed() ?? 0,
    watchLink: (listener) => s3Piece.front?.link.watch(listener) ?? (() => undefined),
    throughLink: async (targetPort) => {
      const front = s3Piece.front;
      if (!front) throw new Error('throughLink needs a sandbox started with a link');
      const proxy = await startLinkProxy({ piece: 'second flow through the link', port: 0, targetPort, link: front.link, log });
      return { port: proxy.port, close: () => proxy.close() };
    },
    putBodyBytes: () => s3Piece.counters.bodyBytes(),
    abortedPuts: () => s3Piece.counters.abortedPuts(),
    storedObjects: () => s3Piece.counters.stored(),
    stopped: supervisor.stopped,
    crashPiece: (piece) => supervisor.crash(piece),
    stop: () => supervisor.shutdown({ kind: 'stopped' }),
  };
}

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
import { countingMonth } from '@trailsense/infra/ledger';
import type { UploadsApiDeps } from '@trailsense/infra/uploads-api';
import type { JWK } from 'jose';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import { createAnalytics } from './analytics';
import { createApi } from './api';
import { contractPorts, issuerFor, readLocalContract, REPO_ROOT, runtimeConfigFor } from './config';
import type { SandboxPorts } from './config';
import { openDb } from './db';
import type { StoredEvent, StoredRefusal } from './db';
import { formatApiFault, NO_FAULT, parseApiFault, parsePutFault } from './fault';
import type { ApiFault, PutFault } from './fault';
import { ctx as cognitoCtx, startCognitoLocal, writePoolFiles } from './gateway/cognito-local';
import type { DeliveredCode } from './gateway/cognito-local';
import { createGateway } from './gateway/gateway';
import { createIdentityPool, serverSideTokenCheck } from './gateway/identity-pool';
import { createUserPool } from './gateway/user-pool';
import { formatLink, parseLink } from './link';
import type { LinkSpec } from './link';
import { sqliteLedger, sqliteRanches } from './ledger';
import { assertPortFree, listenLoopback } from './listen';
import type { Listener } from './listen';
import { startS3 } from './s3';
import type { S3Piece } from './s3';
import { seedDatabase, SEED_USERS } from './seed';
import { createSessionRegistry } from './sessions';
import { parseStallCount } from './stall';

export type { RuntimeConfig, SandboxPorts, PutFault, ApiFault, DeliveredCode, StoredEvent, StoredRefusal, LinkSpec };
export { parseLink, formatLink } from './link';
export { PortInUseError } from './listen';
export { SEED_USERS, SEED_RANCHES, yearMonth } from './seed';
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
   * "20:80"; null / "off" for none. Default `$SANDBOX_LINK`, else off (s3rver on the port itself).
   */
  link?: LinkSpec | string | null;
}

export type StopReason = { kind: 'stopped' } | { kind: 'piece-died'; piece: PieceName; error?: Error };

export interface Sandbox {
  /** The RuntimeConfig (`/config.json` values) for this sandbox's ports; also written to `<dataDir>/config.json`. */
  config: RuntimeConfig;
  /** The ports bound (port 0 resolved). */
  ports: SandboxPorts;
  dataDir: string;
  /** Codes "sent" to an email (sign-up, resend, forgot password), oldest first. */
  codes(email: string): DeliveredCode[];
  /** The newest code sent to an email, or undefined. */
  lastCode(email: string): string | undefined;
  /** Analytics events received, optionally for one ranch. */
  analyticsEvents(ranchid?: string): StoredEvent[];
  /** Objects the object-created function removed, and why, oldest first. */
  refusals(): StoredRefusal[];
  /** Changes the S3 PUT fault switch at run time ("0.3:503", "1:403", "1:400:ExpiredToken", "0" to switch off). */
  setPutFault(fault: PutFault | string): void;
  /** How many PUTs the fault switch has failed. */
  injectedFaults(): number;
  /** Holds the next `count` object PUTs (0..1000) unanswered until their clients give up; 0 holds no more. */
  stallPuts(count: number): void;
  /** How many object PUTs the stall switch has held so far. */
  heldPuts(): number;
  /** Fails product API routes before authentication ("upload-metrics:500,ranch:503"; "0" or "" for none). */
  setApiFault(fault: ApiFault | string): void;
  /** The emulated link on the storage path, or null when S3 is plain loopback. */
  link: LinkSpec | null;
  /** Bytes that have crossed the emulated uplink so far (0 without a link). */
  linkBytesSent(): number;
  /** Resolves when the sandbox has stopped, saying why. */
  stopped: Promise<StopReason>;
  /** Simulates a crash of one piece (tests of the supervisor). */
  crashPiece(piece: PieceName): void;
  /** Stops every piece and closes the database. */
  stop(): Promise<void>;
}

function toLink(value: LinkSpec | string | null | undefined): LinkSpec | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    const parsed = parseLink(`${value.mbit}:${value.rttMs}`);
    if ('error' in parsed) throw new Error(parsed.error);
    return parsed.link;
  }
  const parsed = parseLink(value);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.link;
}

function toApiFault(value: ApiFault | string): ApiFault {
  const parsed = parseApiFault(typeof value === 'string' ? value : formatApiFault(value));
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

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const dataDir = path.resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  const log = options.log ?? (options.quiet ? () => undefined : (line: string) => console.log(line));
  const contract = readLocalContract();
  const wanted: SandboxPorts = { ...contractPorts(contract), ...options.ports };
  let fault = toFault(options.s3PutFault ?? process.env['SANDBOX_S3_PUT_FAULT']);
  let apiFault: ApiFault = {};
  // The upload ledger's clock: real time unless a test sets it (the ledger-clock control).
  let ledgerOffsetMs = 0;
  const ledgerNow = () => Date.now() + ledgerOffsetMs;
  const link = toLink(options.link !== undefined ? options.link : process.env['SANDBOX_LINK']);

  if (options.reset) {
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
  mkdirSync(dataDir, { recursive: true });
  const now = new Date();
  const db = openDb(path.join(dataDir, 'sandbox.db'));
  seedDatabase(db, now);
  // Identity-pool sessions: issued by the gateway, checked by the S3 piece (src/s3-access.ts).
  const sessions = createSessionRegistry(db);
  const ids = { userPoolId: contract.auth.userPoolId, clientId: contract.auth.userPoolClientId };
  writePoolFiles(path.join(dataDir, 'cognito'), ids, SEED_USERS, now);

  // Listen first (with handlers filled in below) so a busy port stops start-up before any work,
  // and so port 0 resolves to the real port the issuer must name.
  const handlers = new Map<PieceName, RequestListener>();
  const delegate =
    (piece: PieceName): RequestListener =>
    (req, res) => {
      const h = handlers.get(piece);
      if (h) return h(req, res);
      res.writeHead(503).end();
    };
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

  let config: RuntimeConfig;
  let ports: SandboxPorts;
  let cognito: Awaited<ReturnType<typeof startCognitoLocal>>;
  try {
    listeners.set('cognito', await listenLoopback('Cognito gateway', wanted.gateway, delegate('cognito')));
    listeners.set('api', await listenLoopback('product API', wanted.api, delegate('api')));
    listeners.set('analytics', await listenLoopback('analytics sink', wanted.analytics, delegate('analytics')));
    s3 = await startS3({ dataDir, bucket: contract.storage.bucket, port: wanted.s3, db, fault, log, link, sessions, ledgerNow });
    if (link) log(`[s3] link emulator on: ${formatLink(link)}, shared by every connection to :${s3.port}`);

    ports = { gateway: listeners.get('cognito')!.port, api: listeners.get('api')!.port, analytics: listeners.get('analytics')!.port, s3: s3.port };
    config = runtimeConfigFor(contract, ports);
    const issuer = issuerFor(config);
    const onCode = (c: DeliveredCode) => log(`[cognito] code for ${c.destination} (${c.source}): ${c.code}`);
    cognito = await startCognitoLocal({ dir: path.join(dataDir, 'cognito'), ids, issuerDomain: config.auth.userPoolEndpoint!, onCode });
    const publicJwk = readPublicJwk();
    const localKeys = createLocalJWKSet({ keys: [publicJwk] });
    const userPool = createUserPool({
      cognito,
      db,
      userPoolId: ids.userPoolId,
      clientId: ids.clientId,
      issuer,
      keys: localKeys,
      onCode: (c) => {
        cognito.codes.push(c);
        onCode(c);
      },
    });
    const cognitoUsers = cognito;
    const identityPool = createIdentityPool({
      identityPoolId: contract.auth.identityPoolId,
      clientId: ids.clientId,
      issuer,
      keys: localKeys,
      sessions,
      serverSideTokenCheck: serverSideTokenCheck({
        userActive: async (sub) => {
          const user = await cognitoUsers.pool.getUserByUsername(cognitoCtx, sub);
          return user !== null && user.Enabled !== false;
        },
        signedOutAt: (sub) => db.signedOutAt(sub),
        isTokenRevoked: (jti) => db.isTokenRevoked(jti),
      }),
    });
    handlers.set('cognito', createGateway({ userPoolId: ids.userPoolId, issuer, publicJwk, userPool, identityPool, log }));
    // The API trusts only what the pool publishes, like an API Gateway authorizer.
    const remoteKeys = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const uploads: UploadsApiDeps = {
      ledger: sqliteLedger(db),
      ranches: sqliteRanches(db),
      clock: { now: () => new Date(ledgerNow()) },
      newId: () => randomBytes(16).toString('base64url'),
    };
    handlers.set('api', createApi({ db, uploads, keys: remoteKeys, issuer, clientId: ids.clientId, log, fault: () => apiFault }));
    const s3ForControl = s3;
    handlers.set(
      'analytics',
      createAnalytics({
        db,
        log,
        control: {
          setPutFault: (spec) => {
            const parsed = parsePutFault(spec === '' ? '0' : spec);
            if (typeof parsed === 'string') return parsed;
            fault = parsed;
            s3ForControl.setPutFault(parsed);
            return undefined;
          },
          injectedFaults: () => s3ForControl.injectedFaults(),
          stallPuts: (spec) => {
            const count = parseStallCount(spec);
            if (typeof count === 'string') return count;
            s3ForControl.stallPuts(count);
            return undefined;
          },
          putStall: () => s3ForControl.putStall(),
          setApiFault: (spec) => {
            const parsed = parseApiFault(spec);
            if (typeof parsed === 'string') return parsed;
            apiFault = parsed;
            return undefined;
          },
          apiFault: () => apiFault,
          setLedgerClock: (spec) => {
            if (spec === '') {
              ledgerOffsetMs = 0;
              return undefined;
            }
            const at = Date.parse(spec);
            // A whole ISO 8601 time with its zone, on a real day (Date.parse would roll 02-30 over to March).
            const day = spec.slice(0, 10);
            const realDay = !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
            if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(spec) || !realDay || Number.isNaN(at)) {
              return `bad ledger clock "${spec}": expected an ISO 8601 time with its zone (2026-11-01T04:30:00Z), or nothing for the real time`;
            }
            ledgerOffsetMs = at - Date.now();
            return undefined;
          },
          ledgerClock: () => ({ now: new Date(ledgerNow()).toISOString(), offsetMs: ledgerOffsetMs }),
          setRanchUsage: (ranchId, total) => {
            if (typeof ranchId !== 'string' || !db.ranch(ranchId)) return `bad ranch usage: no ranch ${JSON.stringify(ranchId)}`;
            const month = countingMonth(new Date(ledgerNow()));
            if (total === undefined) {
              // Only the reservations go: the count stays.
              db.setMonthTotal(ranchId, month, db.month(ranchId, month).total);
              return undefined;
            }
            if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) return 'bad ranch usage: total must be a whole number ≥ 0';
            db.setMonthTotal(ranchId, month, total);
            return undefined;
          },
        },
      }),
    );
    writeFileSync(path.join(dataDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  } catch (err) {
    await shutdown({ kind: 'stopped' });
    throw err;
  }
  for (const [piece, listener] of listeners) supervise(piece, listener);
  supervise('s3', s3.listener);
  if (s3.front) supervise('s3', s3.front);

  const s3Piece = s3;
  return {
    config,
    ports,
    dataDir,
    codes: (email) => cognito.codes.filter((c) => c.destination.toLowerCase() === email.toLowerCase()),
    lastCode: (email) => cognito.codes.filter((c) => c.destination.toLowerCase() === email.toLowerCase()).at(-1)?.code,
    analyticsEvents: (ranchid) => db.events(ranchid),
    refusals: () => db.refusals(),
    setPutFault: (next) => {
      fault = toFault(next);
      s3Piece.setPutFault(fault);
    },
    injectedFaults: () => s3Piece.injectedFaults(),
    stallPuts: (count) => {
      const parsed = parseStallCount(String(count));
      if (typeof parsed === 'string') throw new Error(parsed);
      s3Piece.stallPuts(parsed);
    },
    heldPuts: () => s3Piece.putStall().held,
    setApiFault: (next) => {
      apiFault = toApiFault(next);
    },
    link,
    linkBytesSent: () => s3Piece.front?.link.sent ?? 0,
    stopped,
    crashPiece: (piece) => {
      const listener = piece === 's3' ? s3Piece.listener : listeners.get(piece);
      for (const server of listener?.servers ?? []) server.close();
      if (piece === 's3') for (const server of s3Piece.front?.servers ?? []) server.close();
    },
    stop: () => shutdown({ kind: 'stopped' }),
  };
}

/**
 * The sandbox's own database (Node's built-in `node:sqlite`, so nothing is compiled or downloaded
 * at install): the product API's ranches, cameras, subscriptions and upload counts, the
 * object-created function's ledger (counted uploads and refusals), the analytics events, and the
 * user pool's global sign-out times and revoked refresh tokens. Created and migrated on open;
 * `PRAGMA user_version` records the schema version.
 */
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { EMPTY_MONTH, type Hold, type MonthState } from '@trailsense/infra/ledger';
import type { MonitoringEvent, UploadAnalyticsEvent } from '@trailsense/shared/analytics-events';

/** Each entry moves the schema one version up; append, never edit, once released. */
const MIGRATIONS: readonly (string | ((db: Sqlite) => void))[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE ranches (id TEXT PRIMARY KEY, name TEXT NOT NULL, max_monthly_uploads INTEGER NOT NULL);
   CREATE TABLE cameras (id TEXT PRIMARY KEY, ranch_id TEXT NOT NULL REFERENCES ranches(id), name TEXT NOT NULL, position INTEGER NOT NULL);
   CREATE TABLE subscriptions (email TEXT NOT NULL COLLATE NOCASE, level TEXT NOT NULL, expires_date TEXT NOT NULL, PRIMARY KEY (email, level));
   -- Images counted before the sandbox existed (the free member's 985), per ranch and month.
   CREATE TABLE upload_baselines (ranch_id TEXT NOT NULL, yearmo TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (ranch_id, yearmo));
   -- One row per object stored in the bucket with a ranchid, written by the object-created hook.
   CREATE TABLE uploads (bucket TEXT NOT NULL, key TEXT NOT NULL, ranch_id TEXT NOT NULL, yearmo TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (bucket, key));
   CREATE INDEX uploads_by_ranch_month ON uploads (ranch_id, yearmo);
   CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, ranchid TEXT NOT NULL, key TEXT, upload_count INTEGER, failure_count INTEGER, received_at TEXT NOT NULL);
   CREATE TABLE sign_outs (sub TEXT PRIMARY KEY, at_seconds INTEGER NOT NULL);`,
  // Objects the object-created function removed, and why (infra/src/object-created/handler.ts).
  // and the identity pool's credential sessions, which S3 requests are checked against (src/sessions.ts).
  `CREATE TABLE refusals (id INTEGER PRIMARY KEY AUTOINCREMENT, bucket TEXT NOT NULL, key TEXT NOT NULL, ranch_id TEXT, claimed_ranch_id TEXT, yearmo TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL);
   CREATE TABLE sessions (token TEXT PRIMARY KEY, identity_id TEXT NOT NULL, tags TEXT NOT NULL, expires_at_seconds INTEGER NOT NULL);`,
  // Per-session credentials (gateway/identity-pool.ts): S3 looks a session up by its access key id
  // and verifies the request's signature with its secret (src/s3.ts). Sessions issued before had
  // the shared key `S3RVER` and cannot be verified: they are dropped (Amplify fetches new ones).
  `DROP TABLE sessions;
   CREATE TABLE sessions (access_key_id TEXT PRIMARY KEY, secret_access_key TEXT NOT NULL, token TEXT NOT NULL, identity_id TEXT NOT NULL, tags TEXT NOT NULL, expires_at_seconds INTEGER NOT NULL);`,
  // Refresh tokens revoked (RevokeToken, GlobalSignOut) by id, so a restart keeps refusing them
  // and the access tokens that name them (gateway/user-pool.ts).
  `CREATE TABLE revoked_tokens (jti TEXT PRIMARY KEY, at_seconds INTEGER NOT NULL);`,
  // The upload ledger of infra/src/ledger/ (port.ts, rules.ts): one row per ranch-month with its
  // count and reservations (the counts so far carried over), and the photos each ranch has. The
  // uploads table stays the counted objects; a deleted object stays counted, as in production.
  `CREATE TABLE months (ranch_id TEXT NOT NULL, yearmo TEXT NOT NULL, total INTEGER NOT NULL, holds TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (ranch_id, yearmo));
   INSERT INTO months (ranch_id, yearmo, total, holds, version)
     SELECT b.ranch_id, b.yearmo, b.count + (SELECT COUNT(*) FROM uploads u WHERE u.ranch_id = b.ranch_id AND u.yearmo = b.yearmo), '{}', 1 FROM upload_baselines b;
   INSERT OR IGNORE INTO months (ranch_id, yearmo, total, holds, version) SELECT ranch_id, yearmo, COUNT(*), '{}', 1 FROM uploads GROUP BY ranch_id, yearmo;
   CREATE TABLE photos (ranch_id TEXT NOT NULL, fingerprint TEXT NOT NULL, size INTEGER NOT NULL, key TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (ranch_id, fingerprint));
   CREATE INDEX photos_by_size ON photos (ranch_id, size);`,
  // The monitoring events (docs/monitoring.md) carry no ranch: ranchid may be null, and each
  // event's own fields are kept whole as JSON in `data` (the upload events keep their columns).
  `CREATE TABLE events_v6 (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, ranchid TEXT, key TEXT, upload_count INTEGER, failure_count INTEGER, data TEXT, received_at TEXT NOT NULL);
   INSERT INTO events_v6 (id, name, ranchid, key, upload_count, failure_count, data, received_at)
     SELECT id, name, ranchid, key, upload_count, failure_count, NULL, received_at FROM events;
   DROP TABLE events;
   ALTER TABLE events_v6 RENAME TO events;`,
  // The ledger's records (infra/src/ledger/port.ts): each retired reservation (a month row keeps
  // only its live ones; older rows' retired holds are recorded by their month's next write), and
  // each object the ledger refused, with the outcome.
  `CREATE TABLE reservations (ranch_id TEXT NOT NULL, id TEXT NOT NULL, hold TEXT NOT NULL, PRIMARY KEY (ranch_id, id));
   CREATE TABLE refused_objects (bucket TEXT NOT NULL, key TEXT NOT NULL, outcome TEXT NOT NULL, PRIMARY KEY (bucket, key));`,
  // Smaller copies (infra/src/ledger/port.ts): the form each photo is had in (a photo without a
  // record is an original), the keys of its first copy and first original, and the originals that
  // upgraded a copy without being counted. A database that made these tables before they were a
  // migration keeps them.
  `CREATE TABLE IF NOT EXISTS photo_records (ranch_id TEXT NOT NULL, fingerprint TEXT NOT NULL, form TEXT NOT NULL, key TEXT NOT NULL, at TEXT NOT NULL,
     copy_key TEXT, original_key TEXT, upgraded_at TEXT, PRIMARY KEY (ranch_id, fingerprint));
   CREATE TABLE IF NOT EXISTS upgraded_objects (bucket TEXT NOT NULL, key TEXT NOT NULL, ranch_id TEXT NOT NULL, fingerprint TEXT NOT NULL, yearmo TEXT NOT NULL,
     at TEXT NOT NULL, PRIMARY KEY (bucket, key));`,
  // Each object's full checksum as S3 keeps it (infra/src/ledger/port.ts ObjectChecksum, as its
  // checksumText: `CRC32:FULL_OBJECT:<base64>`), beside the counted object, the upgrade, and the
  // photo's record (that of the object it was last counted under). Rows of before have none (null).
  // SQLite has no ADD COLUMN IF NOT EXISTS: a table that has the column already keeps it.
  (db) => {
    for (const table of ['uploads', 'upgraded_objects', 'photo_records']) {
      const columns = db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all();
      if (!columns.some((c) => c.name === 'checksum')) db.exec(`ALTER TABLE ${table} ADD COLUMN checksum TEXT`);
    }
  },
];

/** How long a revoked token's id is kept: its refresh token's lifetime (30 days), after which it is dead anyway. */
const REVOKED_TOKEN_RETENTION_SECONDS = 30 * 24 * 3600;

export interface Ranch {
  id: string;
  name: string;
  maxMonthlyUploads: number;
}

export interface Camera {
  id: string;
  name: string;
}

export interface Entitlement {
  level: string;
  expiresDate: string;
}

/** An analytics event as docs/product.md#analytics-events and docs/monitoring.md name its fields. */
export type AnalyticsEvent = UploadAnalyticsEvent | MonitoringEvent;

export type StoredEvent = AnalyticsEvent & { id: number; receivedAt: string };

interface EventRow {
  id: number;
  name: string;
  ranchid: string | null;
  key: string | null;
  upload_count: number | null;
  failure_count: number | null;
  data: string | null;
  received_at: string;
}

/** An object the object-created function removed (infra/src/object-created/handler.ts's Refusal). */
export interface StoredRefusal {
  bucket: string;
  key: string;
  ranchId: string | null;
  claimedRanchId?: string;
  yearmo: string;
  reason: string;
  at: string;
}

/** Temporary credentials the identity pool issued: who they are for, with which principal tags, until when. */
export interface StoredSession {
  /** `ASIA…`, 20 characters, unique per session. */
  accessKeyId: string;
  secretAccessKey: string;
  token: string;
  identityId: string;
  tags: Record<string, string>;
  expiresAtSeconds: number;
}

export type SandboxDb = ReturnType<typeof openDb>;

/** A prepared statement typed by its parameters and its rows. */
interface Statement<P extends SQLInputValue[], R> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  run(...params: P): { changes: number | bigint; lastInsertRowid: number | bigint };
}

/**
 * A database opened with `node:sqlite`, with the two things better-sqlite3 gave us that it lacks:
 * typed statements and `transaction(fn)`, which runs `fn` between BEGIN and COMMIT (ROLLBACK if it
 * throws). A transaction inside another runs as part of the outer one.
 */
export function openSqlite(file: string) {
  const db = new DatabaseSync(file);
  let depth = 0;
  return {
    exec: (sql: string) => db.exec(sql),
    prepare: <P extends SQLInputValue[] = SQLInputValue[], R = Record<string, unknown>>(sql: string) => db.prepare(sql) as unknown as Statement<P, R>,
    transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
      return (...args: A): T => {
        if (depth > 0) return fn(...args);
        db.exec('BEGIN');
        depth++;
        try {
          const result = fn(...args);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        } finally {
          depth--;
        }
      };
    },
    close: () => db.close(),
  };
}

type Sqlite = ReturnType<typeof openSqlite>;

/** Brings the schema up to MIGRATIONS' last version, one transaction per version. */
function migrate(db: Sqlite): void {
  const version = db.prepare<[], { user_version: number }>('PRAGMA user_version').get()?.user_version ?? 0;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      const step = MIGRATIONS[v] as string | ((db: Sqlite) => void);
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    })();
  }
}

/** The database at `file`, created or migrated, and what each piece reads and writes in it. */
export function openDb(file: string) {
  const db = openSqlite(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db);
  return {
    raw: db,
    close: () => db.close(),
    ...productQueries(db),
    ...ledgerQueries(db),
    ...sessionQueries(db),
    ...eventQueries(db),
    ...userPoolQueries(db),
  };
}

/** The product API's reads (ranches, cameras, subscriptions) and the seed's markers. */
function productQueries(db: Sqlite) {
  const stmt = {
    getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    ranch: db.prepare<[string], { id: string; name: string; max_monthly_uploads: number }>('SELECT * FROM ranches WHERE id = ?'),
    cameras: db.prepare<[string], Camera>('SELECT id, name FROM cameras WHERE ranch_id = ? ORDER BY position'),
    entitlements: db.prepare<[string], { level: string; expires_date: string }>('SELECT level, expires_date FROM subscriptions WHERE email = ? ORDER BY level'),
  };
  return {
    getMeta: (key: string) => stmt.getMeta.get(key)?.value,
    setMeta: (key: string, value: string) => void stmt.setMeta.run(key, value),
    ranch(id: string): Ranch | undefined {
      const row = stmt.ranch.get(id);
      return row && { id: row.id, name: row.name, maxMonthlyUploads: row.max_monthly_uploads };
    },
    cameras: (ranchId: string): Camera[] => stmt.cameras.all(ranchId),
    entitlements: (email: string): Entitlement[] => stmt.entitlements.all(email).map((r) => ({ level: r.level, expiresDate: r.expires_date })),
  };
}

/** Parses a JSON column, or gives `fallback` when it does not parse. */
function parsedOr<T>(json: string, fallback: T): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
}

/** The upload ledger's records (src/ledger.ts) and the object-created function's refusals. */
function ledgerQueries(db: Sqlite) {
  const stmt = {
    month: db.prepare<[string, string], { total: number; holds: string; version: number }>(
      'SELECT total, holds, version FROM months WHERE ranch_id = ? AND yearmo = ?',
    ),
    writeMonth: db.prepare(
      'INSERT INTO months (ranch_id, yearmo, total, holds, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT (ranch_id, yearmo) DO UPDATE SET total = excluded.total, holds = excluded.holds, version = excluded.version',
    ),
    hasUpload: db.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM uploads WHERE bucket = ? AND key = ?'),
    reservation: db.prepare<[string, string], { hold: string }>('SELECT hold FROM reservations WHERE ranch_id = ? AND id = ?'),
    recordReservation: db.prepare(
      'INSERT INTO reservations (ranch_id, id, hold) VALUES (?, ?, ?) ON CONFLICT (ranch_id, id) DO UPDATE SET hold = excluded.hold',
    ),
    refusedObject: db.prepare<[string, string], { outcome: string }>('SELECT outcome FROM refused_objects WHERE bucket = ? AND key = ?'),
    recordRefusedObject: db.prepare('INSERT INTO refused_objects (bucket, key, outcome) VALUES (?, ?, ?)'),
    insertUpload: db.prepare('INSERT INTO uploads (bucket, key, ranch_id, yearmo, created_at, checksum) VALUES (?, ?, ?, ?, ?, ?)'),
    uploadChecksum: db.prepare<[string, string], { checksum: string | null }>('SELECT checksum FROM uploads WHERE bucket = ? AND key = ?'),
    insertPhoto: db.prepare('INSERT INTO photos (ranch_id, fingerprint, size, key, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (ranch_id, fingerprint) DO NOTHING'),
    hasPhotoSize: db.prepare<[string, number], { n: number }>('SELECT 1 AS n FROM photos WHERE ranch_id = ? AND size = ? LIMIT 1'),
    hasPhoto: db.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM photos WHERE ranch_id = ? AND fingerprint = ?'),
    insertRefusal: db.prepare('INSERT INTO refusals (bucket, key, ranch_id, claimed_ranch_id, yearmo, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    refusals: db.prepare<
      [],
      { bucket: string; key: string; ranch_id: string | null; claimed_ranch_id: string | null; yearmo: string; reason: string; at: string }
    >('SELECT * FROM refusals ORDER BY id'),
  };
  return {
    /** A ranch-month of the ledger (infra/src/ledger/rules.ts's MonthState); EMPTY_MONTH when it has no row. */
    month(ranchId: string, yearmo: string): MonthState {
      const row = stmt.month.get(ranchId, yearmo);
      if (!row) return EMPTY_MONTH;
      return { total: row.total, holds: parsedOr<MonthState['holds']>(row.holds, {}), version: row.version };
    },
    writeMonth: (ranchId: string, yearmo: string, state: MonthState) =>
      void stmt.writeMonth.run(ranchId, yearmo, state.total, JSON.stringify(state.holds), state.version),
    /** Sets a month's count and drops its reservations (the seed; a test's starting point). */
    setMonthTotal(ranchId: string, yearmo: string, total: number): void {
      const version = (stmt.month.get(ranchId, yearmo)?.version ?? 0) + 1;
      stmt.writeMonth.run(ranchId, yearmo, total, '{}', version);
    },
    hasUpload: (bucket: string, key: string) => stmt.hasUpload.get(bucket, key) !== undefined,
    /** A retired reservation's record (infra/src/ledger/port.ts), or null. */
    reservation(ranchId: string, id: string): Hold | null {
      const row = stmt.reservation.get(ranchId, id);
      return row ? parsedOr<Hold | null>(row.hold, null) : null;
    },
    recordReservation: (ranchId: string, id: string, hold: Hold) => void stmt.recordReservation.run(ranchId, id, JSON.stringify(hold)),
    /** How the ledger refused an object, or null when it did not. */
    refusedObject: (bucket: string, key: string): string | null => stmt.refusedObject.get(bucket, key)?.outcome ?? null,
    recordRefusedObject: (bucket: string, key: string, outcome: string) => void stmt.recordRefusedObject.run(bucket, key, outcome),
    /** Records a counted object; `checksum` as infra/src/ledger/port.ts checksumText writes it, or null. */
    insertUpload: (u: { bucket: string; key: string; ranchId: string; yearmo: string; createdAt: string; checksum: string | null }) =>
      void stmt.insertUpload.run(u.bucket, u.key, u.ranchId, u.yearmo, u.createdAt, u.checksum),
    /** A counted object's checksum text: null when it had none, undefined when it was not counted. */
    uploadChecksum: (bucket: string, key: string): string | null | undefined => stmt.uploadChecksum.get(bucket, key)?.checksum,
    insertPhoto: (ranchId: string, fingerprint: string, size: number, key: string, at: string) =>
      void stmt.insertPhoto.run(ranchId, fingerprint, size, key, at),
    hasPhotoSize: (ranchId: string, size: number) => stmt.hasPhotoSize.get(ranchId, size) !== undefined,
    hasPhoto: (ranchId: string, fingerprint: string) => stmt.hasPhoto.get(ranchId, fingerprint) !== undefined,
    recordRefusal: (r: StoredRefusal) => void stmt.insertRefusal.run(r.bucket, r.key, r.ranchId, r.claimedRanchId ?? null, r.yearmo, r.reason, r.at),
    refusals: (): StoredRefusal[] =>
      stmt.refusals.all().map((r) => ({
        bucket: r.bucket,
        key: r.key,
        ranchId: r.ranch_id,
        ...(r.claimed_ranch_id === null ? {} : { claimedRanchId: r.claimed_ranch_id }),
        yearmo: r.yearmo,
        reason: r.reason,
        at: r.at,
      })),
  };
}

/** The identity pool's credential sessions (src/sessions.ts), which S3 checks requests against. */
function sessionQueries(db: Sqlite) {
  const stmt = {
    addSession: db.prepare('INSERT INTO sessions (access_key_id, secret_access_key, token, identity_id, tags, expires_at_seconds) VALUES (?, ?, ?, ?, ?, ?)'),
    session: db.prepare<[string], { secret_access_key: string; token: string; identity_id: string; tags: string; expires_at_seconds: number }>(
      'SELECT * FROM sessions WHERE access_key_id = ?',
    ),
    pruneSessions: db.prepare('DELETE FROM sessions WHERE expires_at_seconds < ?'),
  };
  return {
    /** Records an identity-pool session; sessions expired a day before `nowSeconds` are dropped. */
    addSession(session: StoredSession, nowSeconds: number): void {
      stmt.pruneSessions.run(nowSeconds - 86_400);
      stmt.addSession.run(
        session.accessKeyId,
        session.secretAccessKey,
        session.token,
        session.identityId,
        JSON.stringify(session.tags),
        session.expiresAtSeconds,
      );
    },
    /** The session whose credentials have this access key id. */
    session(accessKeyId: string): StoredSession | undefined {
      const row = stmt.session.get(accessKeyId);
      return (
        row && {
          accessKeyId,
          secretAccessKey: row.secret_access_key,
          token: row.token,
          identityId: row.identity_id,
          tags: JSON.parse(row.tags) as Record<string, string>,
          expiresAtSeconds: row.expires_at_seconds,
        }
      );
    },
  };
}

/** A stored event row as the event it was. */
function toEvent(row: EventRow): StoredEvent {
  if (row.name === 'imageUpload') {
    return {
      id: row.id,
      receivedAt: row.received_at,
      name: 'imageUpload',
      ranchid: row.ranchid ?? '',
      key: row.key ?? '',
      uploadCount: row.upload_count ?? 0,
    };
  }
  if (row.name === 'uploadFailure') {
    return { id: row.id, receivedAt: row.received_at, name: 'uploadFailure', ranchid: row.ranchid ?? '', failureCount: row.failure_count ?? 0 };
  }
  // Stored by addEvent from an event the sink validated (src/analytics.ts).
  return { ...(JSON.parse(row.data ?? '{}') as MonitoringEvent), id: row.id, receivedAt: row.received_at };
}

/** The analytics sink's events (src/analytics.ts): the upload events in columns, the monitoring events whole. */
function eventQueries(db: Sqlite) {
  const stmt = {
    insertEvent: db.prepare('INSERT INTO events (name, ranchid, key, upload_count, failure_count, data, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    events: db.prepare<[], EventRow>('SELECT * FROM events ORDER BY id'),
    eventsByRanch: db.prepare<[string], EventRow>('SELECT * FROM events WHERE ranchid = ? ORDER BY id'),
  };
  return {
    addEvent(event: AnalyticsEvent, receivedAt: string): number {
      const info =
        event.name === 'imageUpload'
          ? stmt.insertEvent.run(event.name, event.ranchid, event.key, event.uploadCount, null, null, receivedAt)
          : event.name === 'uploadFailure'
            ? stmt.insertEvent.run(event.name, event.ranchid, null, null, event.failureCount, null, receivedAt)
            : stmt.insertEvent.run(event.name, null, null, null, null, JSON.stringify(event), receivedAt);
      return Number(info.lastInsertRowid);
    },
    events: (ranchid?: string): StoredEvent[] => (ranchid === undefined ? stmt.events.all() : stmt.eventsByRanch.all(ranchid)).map(toEvent),
  };
}

/** The user pool's global sign-outs and revoked refresh tokens (src/gateway/user-pool.ts). */
function userPoolQueries(db: Sqlite) {
  const stmt = {
    signOut: db.prepare('INSERT INTO sign_outs (sub, at_seconds) VALUES (?, ?) ON CONFLICT (sub) DO UPDATE SET at_seconds = excluded.at_seconds'),
    signedOutAt: db.prepare<[string], { at_seconds: number }>('SELECT at_seconds FROM sign_outs WHERE sub = ?'),
    revoke: db.prepare('INSERT INTO revoked_tokens (jti, at_seconds) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING'),
    pruneRevoked: db.prepare('DELETE FROM revoked_tokens WHERE at_seconds < ?'),
    isRevoked: db.prepare<[string], { n: number }>('SELECT 1 AS n FROM revoked_tokens WHERE jti = ?'),
  };
  return {
    recordSignOut: (sub: string, atSeconds: number) => void stmt.signOut.run(sub, atSeconds),
    signedOutAt: (sub: string): number | undefined => stmt.signedOutAt.get(sub)?.at_seconds,
    /** Records a refresh token's id as revoked (ids older than a refresh token lives are dropped). */
    revokeToken(jti: string, atSeconds: number): void {
      db.transaction(() => {
        stmt.pruneRevoked.run(atSeconds - REVOKED_TOKEN_RETENTION_SECONDS);
        stmt.revoke.run(jti, atSeconds);
      })();
    },
    isTokenRevoked: (jti: string): boolean => stmt.isRevoked.get(jti) !== undefined,
  };
}

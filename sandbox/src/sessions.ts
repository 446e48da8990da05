/**
 * The identity pool's credential sessions, shared by the identity pool (which records each
 * session it issues, with its own access key id and secret: gateway/identity-pool.ts) and the S3
 * piece (which looks up the access key id of every signed request and verifies its signature with
 * the session's secret: s3.ts). Kept in the database, so credentials a browser holds
 * stay valid across a sandbox restart, as they would on AWS.
 */
import type { SandboxDb, StoredSession } from './db';
import type { Principal } from './s3-access';

export type SessionLookup =
  | { kind: 'unknown' }
  | { kind: 'expired'; secretAccessKey: string; token: string }
  | { kind: 'valid'; secretAccessKey: string; token: string; principal: Principal };

export interface SessionRegistry {
  add(session: StoredSession): void;
  /** The session of an access key id at `nowSeconds`. */
  find(accessKeyId: string, nowSeconds: number): SessionLookup;
}

export function createSessionRegistry(db: SandboxDb, clock: () => number = () => Date.now()): SessionRegistry {
  return {
    add: (session) => db.addSession(session, Math.floor(clock() / 1000)),
    find(accessKeyId, nowSeconds) {
      const session = db.session(accessKeyId);
      if (!session) return { kind: 'unknown' };
      const { secretAccessKey, token } = session;
      if (session.expiresAtSeconds <= nowSeconds) return { kind: 'expired', secretAccessKey, token };
      return { kind: 'valid', secretAccessKey, token, principal: { identityId: session.identityId, tags: session.tags } };
    },
  };
}

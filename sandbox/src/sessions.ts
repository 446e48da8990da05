/**
 * The identity pool's credential sessions, shared by the identity pool (which records each
 * session it issues: gateway/identity-pool.ts) and the S3 piece (which looks up the session token
 * of every request: s3.ts, s3-access.ts). Kept in the database, so credentials a browser holds
 * stay valid across a sandbox restart, as they would on AWS.
 */
import type { SandboxDb, StoredSession } from './db';
import type { Principal } from './s3-access';

export type SessionLookup = { kind: 'unknown' } | { kind: 'expired' } | { kind: 'valid'; principal: Principal };

export interface SessionRegistry {
  add(session: StoredSession): void;
  /** The session of a token at `nowSeconds`. */
  find(token: string, nowSeconds: number): SessionLookup;
}

export function createSessionRegistry(db: SandboxDb, clock: () => number = () => Date.now()): SessionRegistry {
  return {
    add: (session) => db.addSession(session, Math.floor(clock() / 1000)),
    find(token, nowSeconds) {
      const session = db.session(token);
      if (!session) return { kind: 'unknown' };
      if (session.expiresAtSeconds <= nowSeconds) return { kind: 'expired' };
      return { kind: 'valid', principal: { identityId: session.identityId, tags: session.tags } };
    },
  };
}

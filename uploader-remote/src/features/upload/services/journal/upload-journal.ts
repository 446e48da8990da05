import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { JOURNAL_DB_NAME, journalOwners } from '@trailsense/shared/aws';
import type { BatchSummary, JournalBatch, JournalEntry, JournalScope } from '../../model/journal-records';

/**
 * The upload journal: what the uploader has sent, per signed-in user and ranch, in IndexedDB, so a
 * batch survives a reload, a tab crash and a browser restart, and a photo that went up is never
 * sent (and billed) twice. The uploader owns it; the shell (account deletion) and auth-remote
 * (forget this computer) only remove a member's record, through the contract in
 * shared/src/uploads/journal-owners.ts: the database's name, and an owner index (`byOwner`) on
 * every store that holds a member's data. A schema change keeps both.
 *
 * Writes are group-committed: every write asked for while a transaction is open joins the next
 * one, so a busy batch costs a few transactions a second, never one per file event (and progress
 * events are never written at all).
 */

export type { BatchSummary, JournalBatch, JournalEntry, JournalScope, JournalStatus, JournalTarget } from '../../model/journal-records';

/**
 * How long entries are kept after their last change: 180 days. A card that is not reformatted
 * after a pull still holds last season's photos months later, and skipping them is what keeps a
 * re-pick from billing them again; a season of scouting and hunting is about six months. An entry
 * is about 300 bytes: 10,000 photos a week for 26 weeks is under 80 MB, well inside what browsers
 * grant a site.
 */
export const JOURNAL_RETENTION_MS = 180 * 24 * 60 * 60 * 1000;

/**
 * How long another user's entries are kept on this browser after their last change: 30 days. On a
 * shared computer (a camp's laptop) each member's journal holds their file names and folders; one
 * who never comes back should not leave them for the next. A member who does come back within a
 * month keeps the skipping of photos already sent; later, the server still knows them (the uploads
 * API's photo lookups), so nothing is billed twice.
 */
export const OTHER_USERS_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export { JOURNAL_DB_NAME };

interface JournalDb extends DBSchema {
  files: {
    key: [string, string, string];
    value: JournalEntry;
    indexes: { bySize: [string, string, number]; byBatch: string; byOwner: string; byUpdated: number };
  };
  batches: {
    key: string;
    value: JournalBatch;
    indexes: { byScope: [string, string]; byOwner: string; byUpdated: number };
  };
}

export interface UploadJournal {
  /**
   * Which of `sizes` some committed entry of the scope has (a cheap pre-check before fingerprints
   * are known; writes still queued may be missed).
   */
  sizesKnown(scope: JournalScope, sizes: readonly number[]): Promise<Set<number>>;
  /** The entries of the scope with these fingerprints. */
  entries(scope: JournalScope, fingerprints: readonly string[]): Promise<Map<string, JournalEntry>>;
  /** The scope's batches with files still to send, newest first. */
  openBatches(scope: JournalScope): Promise<BatchSummary[]>;
  /**
   * Writes (insert or replace) entries; resolves once they are committed. An entry recorded as
   * uploaded stays so: a write of another status for it is dropped.
   */
  putEntries(entries: readonly JournalEntry[]): Promise<void>;
  /** Writes a batch record; resolves once committed. */
  putBatch(batch: JournalBatch): Promise<void>;
  /**
   * Ends a batch (Clear List, Discard, or all sent): its record goes, and so do its entries that
   * were never sent. Uploaded entries stay (they keep a re-pick from sending them again); entries
   * that were attempted but not confirmed stay detached with their key, because the object may
   * exist: picked again, such a file is sent under the same key and overwrites it.
   */
  endBatch(batchId: string): Promise<void>;
  /** Removes everything of one user (account deletion). */
  forgetOwner(owner: string): Promise<void>;
  /** Whether anything of this user is kept here (the sign-in page offers to forget it). */
  hasOwner(owner: string): Promise<boolean>;
  /** Removes entries and batches unchanged for longer than the retention. */
  prune(now: number, retentionMs?: number): Promise<void>;
  /** Removes other users' entries and batches unchanged for longer than `retentionMs` (OTHER_USERS_RETENTION_MS). */
  pruneOthers(owner: string, now: number, retentionMs?: number): Promise<void>;
  close(): void;
}

/**
 * Group commit: writes queue, and one transaction at a time takes everything queued so far, so a
 * busy batch costs a few transactions a second, never one per file event. `settle` waits for what
 * is queued, so that reads and deletions see it.
 */
function groupCommit(db: () => Promise<IDBPDatabase<JournalDb>>) {
  // Group commit: writes queue here; one transaction at a time takes everything queued so far.
  let queuedEntries = new Map<string, JournalEntry>();
  let queuedBatches = new Map<string, JournalBatch>();
  let waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  let draining: Promise<void> | null = null;
  const queued = () => queuedEntries.size > 0 || queuedBatches.size > 0;

  const entryId = (e: JournalEntry) => `${e.owner}\u0000${e.ranchId}\u0000${e.fingerprint}`;

  async function drainLoop(): Promise<void> {
    while (queued()) {
      const entries = [...queuedEntries.values()];
      const batches = [...queuedBatches.values()];
      const settled = waiters;
      queuedEntries = new Map();
      queuedBatches = new Map();
      waiters = [];
      try {
        const tx = (await db()).transaction(['files', 'batches'], 'readwrite');
        const files = tx.objectStore('files');
        await Promise.all(
          entries.map(async (e) => {
            // Uploaded is final: a late "waiting" (a background check, another tab) never undoes it.
            if (e.status !== 'uploaded' && (await files.get([e.owner, e.ranchId, e.fingerprint]))?.status === 'uploaded') return;
            await files.put(e);
          }),
        );
        for (const b of batches) void tx.objectStore('batches').put(b);
        await tx.done;
        for (const w of settled) w.resolve();
      } catch (error) {
        for (const w of settled) w.reject(error);
      }
    }
  }
  const drain = (): Promise<void> => {
    draining ??= drainLoop().finally(() => {
      draining = null;
    });
    return draining;
  };

  const enqueue = (entries: readonly JournalEntry[], batches: readonly JournalBatch[]): Promise<void> => {
    if (entries.length === 0 && batches.length === 0) return Promise.resolve();
    for (const e of entries) queuedEntries.set(entryId(e), e);
    for (const b of batches) queuedBatches.set(b.id, b);
    const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    // A microtask later, so that writes asked for in the same turn share one transaction.
    queueMicrotask(() => void drain());
    return done;
  };

  /** Waits for queued writes, so that reads and deletions see them. */
  const settle = async () => {
    while (draining || queued()) await drain();
  };

  return { enqueue, settle };
}

/** Opens (creating or upgrading) the journal database; tests pass their own `name`. */
export function openUploadJournal(options: { name?: string } = {}): UploadJournal {
  const name = options.name ?? JOURNAL_DB_NAME;
  const open = (): Promise<IDBPDatabase<JournalDb>> =>
    openDB<JournalDb>(name, 1, {
      upgrade(db) {
        const files = db.createObjectStore('files', { keyPath: ['owner', 'ranchId', 'fingerprint'] });
        files.createIndex('bySize', ['owner', 'ranchId', 'size']);
        files.createIndex('byBatch', 'batchId');
        files.createIndex('byOwner', 'owner');
        files.createIndex('byUpdated', 'updatedAt');
        const batches = db.createObjectStore('batches', { keyPath: 'id' });
        batches.createIndex('byScope', ['owner', 'ranchId']);
        batches.createIndex('byOwner', 'owner');
        batches.createIndex('byUpdated', 'updatedAt');
      },
      blocking(_current, _next, event) {
        // A newer page wants to upgrade: step aside rather than block it.
        (event.target as IDBDatabase).close();
      },
    });
  let dbPromise: Promise<IDBPDatabase<JournalDb>> | null = null;
  const db = () => {
    dbPromise ??= open().catch((error: unknown) => {
      dbPromise = null;
      throw error;
    });
    return dbPromise;
  };

  const { enqueue, settle } = groupCommit(db);

  /** Removes the entries and batches unchanged since `cutoff` (ms) that `remove` picks. */
  const removeUnchangedSince = async (cutoff: number, remove: (item: { owner: string }) => boolean) => {
    await settle();
    const tx = (await db()).transaction(['files', 'batches'], 'readwrite');
    for (const storeName of ['files', 'batches'] as const) {
      let cursor = await tx.objectStore(storeName).index('byUpdated').openCursor(IDBKeyRange.upperBound(cutoff));
      while (cursor) {
        if (remove(cursor.value)) void cursor.delete();
        cursor = await cursor.continue();
      }
    }
    await tx.done;
  };

  return {
    async sizesKnown(scope, sizes) {
      // Not waiting for queued writes: this is a quick first sort of a selection, and whatever
      // it misses is caught by the fingerprint check before each upload (`entries`, which waits).
      const distinct = [...new Set(sizes)];
      const index = (await db()).transaction('files').store.index('bySize');
      const found = await Promise.all(distinct.map((size) => index.getKey(IDBKeyRange.only([scope.owner, scope.ranchId, size]))));
      return new Set(distinct.filter((_, i) => found[i] !== undefined));
    },
    async entries(scope, fingerprints) {
      await settle();
      const store = (await db()).transaction('files').store;
      const found = await Promise.all(fingerprints.map((fp) => store.get([scope.owner, scope.ranchId, fp])));
      const map = new Map<string, JournalEntry>();
      found.forEach((entry) => entry && map.set(entry.fingerprint, entry));
      return map;
    },
    async openBatches(scope) {
      await settle();
      const tx = (await db()).transaction(['files', 'batches']);
      const batches = await tx
        .objectStore('batches')
        .index('byScope')
        .getAll(IDBKeyRange.only([scope.owner, scope.ranchId]));
      const summaries = await Promise.all(
        batches.map(async (batch): Promise<BatchSummary> => {
          const files = await tx.objectStore('files').index('byBatch').getAll(IDBKeyRange.only(batch.id));
          return { batch, uploaded: files.filter((f) => f.status === 'uploaded').length, total: files.length };
        }),
      );
      return summaries.filter((s) => s.uploaded < s.total).sort((a, b) => b.batch.updatedAt - a.batch.updatedAt);
    },
    putEntries: (entries) => enqueue(entries, []),
    putBatch: (batch) => enqueue([], [batch]),
    async endBatch(batchId) {
      await settle();
      const tx = (await db()).transaction(['files', 'batches'], 'readwrite');
      const files = tx.objectStore('files');
      let cursor = await files.index('byBatch').openCursor(IDBKeyRange.only(batchId));
      while (cursor) {
        const entry = cursor.value;
        if (entry.status !== 'uploaded') {
          if (entry.target) void cursor.update({ ...entry, batchId: null });
          else void cursor.delete();
        }
        cursor = await cursor.continue();
      }
      void tx.objectStore('batches').delete(batchId);
      await tx.done;
    },
    // The contract's own code, so the journal removes a member exactly as the other apps do.
    async forgetOwner(owner) {
      await settle();
      await journalOwners({ name }).forgetOwner(owner);
    },
    async hasOwner(owner) {
      await settle();
      return journalOwners({ name }).hasOwner(owner);
    },
    pruneOthers: (owner, now, retentionMs = OTHER_USERS_RETENTION_MS) => removeUnchangedSince(now - retentionMs, (item) => item.owner !== owner),
    prune: (now, retentionMs = JOURNAL_RETENTION_MS) => removeUnchangedSince(now - retentionMs, () => true),
    close() {
      void dbPromise?.then((d) => d.close());
      dbPromise = null;
    },
  };
}

import {
  JOURNAL_RETENTION_MS,
  OTHER_USERS_RETENTION_MS,
  type BatchSummary,
  type JournalBatch,
  type JournalEntry,
  type UploadJournal,
} from '../../src/features/upload/services/journal/upload-journal';

/**
 * The upload journal in memory, for tests that run on a fake clock (IndexedDB, even
 * fake-indexeddb, settles on the event loop, not on the clock). uploader-remote/test/upload-journal.test.ts
 * runs the same cases against this and the real journal, so the two cannot drift apart.
 */
export function memoryJournal(): UploadJournal & { entriesOf(owner: string): JournalEntry[] } {
  const files = new Map<string, JournalEntry>();
  const batches = new Map<string, JournalBatch>();
  const id = (owner: string, ranchId: string, fingerprint: string) => `${owner}\u0000${ranchId}\u0000${fingerprint}`;
  const clone = <T>(v: T): T => structuredClone(v);
  // A kept folder is a FileSystemDirectoryHandle: a platform object IndexedDB stores as it is
  // (serialisable), which structuredClone cannot copy outside a browser. It is kept by reference.
  const cloneBatch = (b: JournalBatch): JournalBatch => (b.folder === undefined ? clone(b) : { ...clone({ ...b, folder: undefined }), folder: b.folder });
  return {
    async sizesKnown(scope, sizes) {
      const known = new Set([...files.values()].filter((e) => e.owner === scope.owner && e.ranchId === scope.ranchId).map((e) => e.size));
      return new Set(sizes.filter((s) => known.has(s)));
    },
    async entries(scope, fingerprints) {
      const map = new Map<string, JournalEntry>();
      for (const fp of fingerprints) {
        const e = files.get(id(scope.owner, scope.ranchId, fp));
        if (e) map.set(fp, clone(e));
      }
      return map;
    },
    async openBatches(scope) {
      const out: BatchSummary[] = [];
      for (const batch of batches.values()) {
        if (batch.owner !== scope.owner || batch.ranchId !== scope.ranchId) continue;
        const mine = [...files.values()].filter((e) => e.batchId === batch.id);
        const uploaded = mine.filter((e) => e.status === 'uploaded').length;
        if (uploaded < mine.length) out.push({ batch: cloneBatch(batch), uploaded, total: mine.length });
      }
      return out.sort((a, b) => b.batch.updatedAt - a.batch.updatedAt);
    },
    async putEntries(entries) {
      for (const e of entries) {
        const key = id(e.owner, e.ranchId, e.fingerprint);
        if (e.status !== 'uploaded' && files.get(key)?.status === 'uploaded') continue;
        files.set(key, clone(e));
      }
    },
    async putBatch(batch) {
      batches.set(batch.id, cloneBatch(batch));
    },
    async endBatch(batchId) {
      for (const [key, e] of files) {
        if (e.batchId !== batchId || e.status === 'uploaded') continue;
        if (e.target) files.set(key, { ...e, batchId: null });
        else files.delete(key);
      }
      batches.delete(batchId);
    },
    async forgetOwner(owner) {
      for (const [key, e] of files) if (e.owner === owner) files.delete(key);
      for (const [key, b] of batches) if (b.owner === owner) batches.delete(key);
    },
    async hasOwner(owner) {
      return [...files.values(), ...batches.values()].some((x) => x.owner === owner);
    },
    async pruneOthers(owner, now, retentionMs = OTHER_USERS_RETENTION_MS) {
      for (const [key, e] of files) if (e.owner !== owner && e.updatedAt <= now - retentionMs) files.delete(key);
      for (const [key, b] of batches) if (b.owner !== owner && b.updatedAt <= now - retentionMs) batches.delete(key);
    },
    async prune(now, retentionMs = JOURNAL_RETENTION_MS) {
      for (const [key, e] of files) if (e.updatedAt <= now - retentionMs) files.delete(key);
      for (const [key, b] of batches) if (b.updatedAt <= now - retentionMs) batches.delete(key);
    },
    close: () => undefined,
    entriesOf: (owner) => [...files.values()].filter((e) => e.owner === owner).map(clone),
  };
}

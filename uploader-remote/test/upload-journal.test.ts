import 'fake-indexeddb/auto';
import {
  JOURNAL_RETENTION_MS,
  OTHER_USERS_RETENTION_MS,
  openUploadJournal,
  type JournalEntry,
  type UploadJournal,
} from '../src/features/upload/services/journal/upload-journal';
import { journalOwners } from '@trailsense/shared/aws';
import { memoryJournal } from './support/memory-journal';

const DAY = 24 * 60 * 60 * 1000;
const scope = { owner: 'sub-1', ranchId: 'cedar-creek' };
let journal: UploadJournal;
let n = 0;

const implementations: [string, () => UploadJournal][] = [
  ['openUploadJournal (IndexedDB)', () => openUploadJournal({ name: `journal-test-${++n}` })],
  // The in-memory journal other tests use on a fake clock must behave the same.
  ['memoryJournal (tests)', () => memoryJournal()],
];

const entry = (fingerprint: string, over: Partial<JournalEntry> = {}): JournalEntry => ({
  ...scope,
  fingerprint,
  batchId: 'b1',
  name: `${fingerprint}.JPG`,
  path: '',
  size: 1000 + fingerprint.length,
  lastModified: 1,
  key: `key-${fingerprint}.jpg`,
  status: 'waiting',
  updatedAt: 1_000,
  ...over,
});
const batch = (id: string, updatedAt = 1_000) => ({ id, ...scope, createdAt: 1_000, updatedAt, camera: 'North Feeder', training: false });

describe.each(implementations)('%s', (_name, make) => {
  beforeEach(() => {
    journal = make();
  });
  afterEach(() => journal.close());

  it('keeps entries per user and ranch, looked up by fingerprint', async () => {
    await journal.putEntries([entry('a'), entry('b', { status: 'uploaded' }), entry('a', { owner: 'sub-2' }), entry('a', { ranchId: 'other' })]);
    const found = await journal.entries(scope, ['a', 'b', 'c']);
    expect([...found.keys()].sort()).toEqual(['a', 'b']);
    expect(found.get('b')!.status).toBe('uploaded');
    expect(found.get('a')!.owner).toBe('sub-1');
    expect((await journal.entries({ owner: 'sub-3', ranchId: 'cedar-creek' }, ['a'])).size).toBe(0);
  });

  it('a later write of the same fingerprint replaces the earlier one, also within one transaction', async () => {
    void journal.putEntries([entry('a')]);
    await journal.putEntries([entry('a', { status: 'uploaded', uploadedAt: 5 })]);
    expect((await journal.entries(scope, ['a'])).get('a')).toMatchObject({ status: 'uploaded', uploadedAt: 5 });
  });

  it('uploaded is final: a later write of another status for the photo is dropped', async () => {
    await journal.putEntries([entry('a', { status: 'uploaded', uploadedAt: 5 })]);
    await journal.putEntries([entry('a', { status: 'waiting', batchId: 'late' }), entry('b', { status: 'waiting' })]);
    await journal.putEntries([entry('b', { status: 'failed', reason: 'x' })]);
    const found = await journal.entries(scope, ['a', 'b']);
    expect(found.get('a')).toMatchObject({ status: 'uploaded', batchId: 'b1', uploadedAt: 5 });
    expect(found.get('b')).toMatchObject({ status: 'failed' });
  });

  it('tells which sizes it has seen for the scope, before any fingerprint is known', async () => {
    await journal.putEntries([entry('a', { size: 2_000_000 }), entry('b', { size: 3_000_000, owner: 'someone-else' })]);
    expect(await journal.sizesKnown(scope, [2_000_000, 3_000_000, 2_000_000, 4])).toEqual(new Set([2_000_000]));
  });

  it('offers open batches with their counts, newest first, and not finished ones', async () => {
    await journal.putBatch(batch('old', 1_000));
    await journal.putBatch(batch('new', 2_000));
    await journal.putBatch(batch('done', 3_000));
    await journal.putEntries([
      entry('a', { batchId: 'old', status: 'uploaded' }),
      entry('b', { batchId: 'old' }),
      entry('c', { batchId: 'new', status: 'failed', reason: 'Access Denied' }),
      entry('d', { batchId: 'done', status: 'uploaded' }),
    ]);
    const open = await journal.openBatches(scope);
    expect(open.map((s) => [s.batch.id, s.uploaded, s.total])).toEqual([
      ['new', 0, 1],
      ['old', 1, 2],
    ]);
    expect(await journal.openBatches({ owner: 'sub-1', ranchId: 'elsewhere' })).toEqual([]);
  });

  it('ending a batch keeps what went up and the keys of files that were sent, and forgets the rest', async () => {
    await journal.putBatch(batch('b1'));
    await journal.putEntries([
      entry('up', { status: 'uploaded' }),
      entry('never'),
      entry('sent', { target: { level: 'public', cameraName: '' } }),
      entry('refused', { status: 'failed', reason: 'x' }),
    ]);
    await journal.endBatch('b1');
    const left = await journal.entries(scope, ['up', 'never', 'sent', 'refused']);
    expect([...left.keys()].sort()).toEqual(['sent', 'up']);
    expect(left.get('sent')).toMatchObject({ batchId: null, key: 'key-sent.jpg' });
    expect(await journal.openBatches(scope)).toEqual([]);
  });

  it('forgets everything of one user, and only theirs', async () => {
    await journal.putBatch(batch('b1'));
    await journal.putEntries([entry('a'), entry('b', { ranchId: 'other' }), entry('c', { owner: 'sub-2' })]);
    await journal.forgetOwner('sub-1');
    expect((await journal.entries(scope, ['a'])).size).toBe(0);
    expect((await journal.entries({ owner: 'sub-1', ranchId: 'other' }, ['b'])).size).toBe(0);
    expect((await journal.entries({ owner: 'sub-2', ranchId: 'cedar-creek' }, ['c'])).size).toBe(1);
    expect(await journal.openBatches(scope)).toEqual([]);
  });

  it("knows whether a user has anything kept here, and prunes other users' month-old entries, never the signed-in user's", async () => {
    const now = 400 * DAY;
    const month = OTHER_USERS_RETENTION_MS;
    await journal.putBatch({ ...batch('theirs', now - month - 1), owner: 'sub-2' });
    await journal.putEntries([
      entry('mine-old', { status: 'uploaded', updatedAt: now - month - 1 }),
      entry('theirs-old', { owner: 'sub-2', status: 'uploaded', updatedAt: now - month - 1 }),
      entry('theirs-recent', { owner: 'sub-3', status: 'uploaded', updatedAt: now - 7 * DAY }),
    ]);
    expect(await journal.hasOwner('sub-2')).toBe(true);
    expect(await journal.hasOwner('sub-9')).toBe(false);
    await journal.pruneOthers('sub-1', now);
    expect((await journal.entries(scope, ['mine-old'])).size).toBe(1);
    expect((await journal.entries({ owner: 'sub-2', ranchId: 'cedar-creek' }, ['theirs-old'])).size).toBe(0);
    expect((await journal.entries({ owner: 'sub-3', ranchId: 'cedar-creek' }, ['theirs-recent'])).size).toBe(1);
    expect(await journal.hasOwner('sub-2')).toBe(false);
    expect(OTHER_USERS_RETENTION_MS).toBeLessThan(JOURNAL_RETENTION_MS);
  });

  it('prunes what has not changed within the retention', async () => {
    const now = 400 * DAY;
    await journal.putBatch(batch('stale', now - JOURNAL_RETENTION_MS - 1));
    await journal.putEntries([
      entry('old', { status: 'uploaded', updatedAt: now - JOURNAL_RETENTION_MS - 1 }),
      entry('recent', { status: 'uploaded', updatedAt: now - 7 * DAY }),
    ]);
    await journal.prune(now);
    expect([...(await journal.entries(scope, ['old', 'recent'])).keys()]).toEqual(['recent']);
    expect(JOURNAL_RETENTION_MS).toBeGreaterThanOrEqual(7 * DAY);
  });
});

describe('openUploadJournal on IndexedDB', () => {
  beforeEach(() => {
    journal = openUploadJournal({ name: `journal-idb-${++n}` });
  });
  afterEach(() => journal.close());

  it('survives closing and opening the database again (a reload)', async () => {
    const name = `journal-reload-${n}`;
    const first = openUploadJournal({ name });
    await first.putEntries([entry('a', { status: 'uploaded' })]);
    first.close();
    const second = openUploadJournal({ name });
    expect((await second.entries(scope, ['a'])).get('a')!.status).toBe('uploaded');
    second.close();
  });

  it('writes asked for in one turn share a transaction', async () => {
    await journal.putEntries([entry('warm-up')]);
    const transactions = jest.spyOn(IDBDatabase.prototype, 'transaction');
    const writes = Array.from({ length: 500 }, (_, i) => journal.putEntries([entry(`f${i}`)]));
    await Promise.all(writes);
    expect(transactions.mock.calls.filter(([, mode]) => mode === 'readwrite')).toHaveLength(1);
    transactions.mockRestore();
    expect(
      (
        await journal.entries(
          scope,
          Array.from({ length: 500 }, (_, i) => `f${i}`),
        )
      ).size,
    ).toBe(500);
  });
});

describe("the journal's contract with the other apps (shared/src/uploads/journal-owners.ts)", () => {
  it('a member the uploader recorded is found and forgotten by the contract alone, in entries and batches', async () => {
    const name = `journal-test-${++n}`;
    const uploader = openUploadJournal({ name });
    await uploader.putEntries([entry('a'), entry('b', { owner: 'sub-2' })]);
    await uploader.putBatch(batch('b1'));
    const others = journalOwners({ name });
    expect(await others.hasOwner('sub-1')).toBe(true);
    await others.forgetOwner('sub-1');
    expect(await others.hasOwner('sub-1')).toBe(false);
    expect((await uploader.entries(scope, ['a'])).size).toBe(0);
    expect(await uploader.openBatches(scope)).toEqual([]);
    expect((await uploader.entries({ ...scope, owner: 'sub-2' }, ['b'])).size).toBe(1);
    uploader.close();
  });
});

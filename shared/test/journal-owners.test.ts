import 'fake-indexeddb/auto';
import { journalOwners, OWNER_INDEX } from '../src/uploads/journal-owners';

let databases = 0;
const fresh = () => `journal-owners-${(databases += 1)}`;

/** A journal as some uploader release may keep it: `stores` with the owner index or without. */
function journal(name: string, version: number, stores: Record<string, boolean>, rows: Record<string, { id: number; owner: string }[]>): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version);
    request.onupgradeneeded = () => {
      for (const [store, owned] of Object.entries(stores)) {
        const created = request.result.createObjectStore(store, { keyPath: 'id' });
        if (owned) created.createIndex(OWNER_INDEX, 'owner');
        for (const row of rows[store] ?? []) created.put(row);
      }
    };
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error ?? new Error('open failed'));
  });
}

const names = async () => (await indexedDB.databases()).map((d) => d.name);

describe('journalOwners (the upload journal as other apps see it)', () => {
  it('finds nothing in a browser that never uploaded, and creates no database there', async () => {
    const name = fresh();
    const owners = journalOwners({ name });
    expect(await owners.hasOwner('sub-1')).toBe(false);
    await owners.forgetOwner('sub-1');
    expect(await names()).not.toContain(name);
  });

  it("forgets one member in every store with the owner index, whatever the journal's version, and nobody else", async () => {
    const name = fresh();
    await journal(
      name,
      7,
      { files: true, batches: true, notes: false },
      {
        files: [
          { id: 1, owner: 'sub-1' },
          { id: 2, owner: 'sub-2' },
        ],
        batches: [{ id: 1, owner: 'sub-1' }],
        notes: [{ id: 1, owner: 'sub-1' }],
      },
    );
    const owners = journalOwners({ name });
    expect(await owners.hasOwner('sub-1')).toBe(true);
    await owners.forgetOwner('sub-1');
    expect(await owners.hasOwner('sub-1')).toBe(false);
    expect(await owners.hasOwner('sub-2')).toBe(true);
    // A store outside the contract (no owner index) is the uploader's business: untouched.
    const db = await new Promise<IDBDatabase>((resolve) => {
      const request = indexedDB.open(name);
      request.onsuccess = () => resolve(request.result);
    });
    const notes = await new Promise<number>((resolve) => {
      const count = db.transaction('notes').objectStore('notes').count();
      count.onsuccess = () => resolve(count.result);
    });
    db.close();
    expect(notes).toBe(1);
  });

  it('a journal whose stores keep no owner index holds nobody', async () => {
    const name = fresh();
    await journal(name, 1, { files: false }, { files: [{ id: 1, owner: 'sub-1' }] });
    expect(await journalOwners({ name }).hasOwner('sub-1')).toBe(false);
  });

  it('steps aside when the uploader upgrades its journal', async () => {
    const name = fresh();
    await journal(name, 1, { files: true }, { files: [{ id: 1, owner: 'sub-1' }] });
    const owners = journalOwners({ name });
    const checking = owners.hasOwner('sub-1');
    await journal(name, 2, { batches: true }, { batches: [{ id: 1, owner: 'sub-1' }] });
    expect(await checking).toBe(true);
    await owners.forgetOwner('sub-1');
    expect(await owners.hasOwner('sub-1')).toBe(false);
  });
});

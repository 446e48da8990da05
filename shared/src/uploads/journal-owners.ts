/**
 * The upload journal's contract with the apps that do not own it.
 *
 * The uploader owns the upload journal (uploader-remote/src/features/upload/services/journal/):
 * its schema, its upgrades, every read and write of a batch. Two other apps must still remove a
 * member's record from this browser: the shell when the account is deleted
 * (user/amplify-session-source.ts), and auth-remote when a member asks to forget this computer
 * after signing out. They do it through this module, which knows only what the uploader promises
 * to keep across releases (docs/federation.md#released-alone-or-together):
 *
 * - the database is named `trailsense-uploads`;
 * - every object store that holds a member's data has an index named `byOwner` on the member's
 *   `sub`.
 *
 * It never creates the database (a browser that never uploaded keeps none), never upgrades it,
 * and steps aside when the uploader upgrades it, so a newer uploader's schema is read as it is.
 */

export const JOURNAL_DB_NAME = 'trailsense-uploads';
/** The index every store holding a member's data keeps on the member's `sub`. */
export const OWNER_INDEX = 'byOwner';

/** What another app may do with the journal: ask whether a member has a record here, and remove it. */
export interface JournalOwners {
  hasOwner(owner: string): Promise<boolean>;
  forgetOwner(owner: string): Promise<void>;
  close(): void;
}

const done = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });

const committed = (tx: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });

/**
 * The journal database as it is, or null when this browser has none. Opening without a version
 * would create an empty database at version 1, which the uploader would then never fill (its
 * upgrade only runs from older versions): the creation is aborted instead.
 */
function openExisting(name: string): Promise<IDBDatabase | null> {
  return new Promise((resolve, reject) => {
    let creating = false;
    const request = indexedDB.open(name);
    request.onupgradeneeded = () => {
      creating = true;
      request.transaction?.abort();
    };
    request.onsuccess = () => {
      const db = request.result;
      // The uploader upgrading its schema must not wait for us.
      db.onversionchange = () => db.close();
      resolve(db);
    };
    request.onerror = (event) => {
      if (creating) {
        event.preventDefault();
        resolve(null);
      } else reject(request.error ?? new Error(`Could not open ${name}`));
    };
    request.onblocked = () => reject(new Error(`${name} is being upgraded in another tab; try again.`));
  });
}

/** The stores of `db` that hold members' data (those with the owner index). */
function ownedStores(db: IDBDatabase): string[] {
  const names = [...(db.objectStoreNames as unknown as Iterable<string>)];
  if (names.length === 0) return [];
  const tx = db.transaction(names, 'readonly');
  return names.filter((name) => tx.objectStore(name).indexNames.contains(OWNER_INDEX));
}

async function deleteOwner(db: IDBDatabase, stores: string[], owner: string): Promise<void> {
  const tx = db.transaction(stores, 'readwrite');
  for (const name of stores) {
    const request = tx.objectStore(name).index(OWNER_INDEX).openKeyCursor(IDBKeyRange.only(owner));
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) return;
      tx.objectStore(name).delete(cursor.primaryKey);
      cursor.continue();
    };
  }
  await committed(tx);
}

/**
 * The journal's owners on this browser (`name` for tests). Each call opens the database as it is
 * and closes it again, so nothing is held open between a sign-out and the next sign-in.
 */
export function journalOwners(options: { name?: string } = {}): JournalOwners {
  const name = options.name ?? JOURNAL_DB_NAME;
  const withDb = async <T>(fallback: T, work: (db: IDBDatabase, stores: string[]) => Promise<T>): Promise<T> => {
    const db = await openExisting(name);
    if (!db) return fallback;
    try {
      const stores = ownedStores(db);
      return stores.length === 0 ? fallback : await work(db, stores);
    } finally {
      db.close();
    }
  };
  return {
    hasOwner: (owner) =>
      withDb(false, async (db, stores) => {
        const tx = db.transaction(stores, 'readonly');
        const counts = await Promise.all(stores.map((store) => done(tx.objectStore(store).index(OWNER_INDEX).count(IDBKeyRange.only(owner)))));
        return counts.some((count) => count > 0);
      }),
    forgetOwner: (owner) => withDb(undefined, (db, stores) => deleteOwner(db, stores, owner)),
    close: () => undefined,
  };
}

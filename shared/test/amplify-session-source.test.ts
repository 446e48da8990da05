import 'fake-indexeddb/auto';
import { JOURNAL_DB_NAME, OWNER_INDEX, journalOwners } from '../src/uploads/journal-owners';

// Amplify is the boundary here (the user pool); the journal is a real database on fake-indexeddb,
// holding what its contract with other apps promises (shared/src/uploads/journal-owners.ts).
const deleteUser = jest.fn(async () => undefined);
jest.mock('aws-amplify', () => ({
  Amplify: {
    getTokens: async () => ({ idToken: { payload: { sub: 'sub-deleted' } } }),
    getConfig: () => ({ Auth: { Cognito: { userPoolClientId: 'client-1' } } }),
  },
}));
jest.mock('aws-amplify/auth', () => ({ deleteUser: () => deleteUser(), signOut: async () => undefined }));
jest.mock('aws-amplify/utils', () => ({ Hub: { listen: () => () => undefined } }));

import { amplifySessionSource } from '../src/user/amplify-session-source';

/** The journal database with one record of each owner in a store with the owner index, and one store without it. */
function journalWith(...owners: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(JOURNAL_DB_NAME, 1);
    request.onupgradeneeded = () => {
      const files = request.result.createObjectStore('files', { keyPath: 'id' });
      files.createIndex(OWNER_INDEX, 'owner');
      request.result.createObjectStore('settings', { keyPath: 'id' }).put({ id: 'kept', owner: owners[0] });
      owners.forEach((owner, i) => files.put({ id: i, owner }));
    };
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error ?? new Error('open failed'));
  });
}

describe('amplifySessionSource', () => {
  it("deleting the account forgets the user's upload journal on this device, and only theirs", async () => {
    await journalWith('sub-deleted', 'sub-other');
    await amplifySessionSource.deleteAccount();
    expect(deleteUser).toHaveBeenCalledTimes(1);
    const owners = journalOwners();
    expect(await owners.hasOwner('sub-deleted')).toBe(false);
    expect(await owners.hasOwner('sub-other')).toBe(true);
  });

  it('reports a sign-out in another tab as signedOut', () => {
    const events: string[] = [];
    const stop = amplifySessionSource.onAuthEvent((e) => events.push(e));
    window.dispatchEvent(
      new StorageEvent('storage', { key: 'CognitoIdentityServiceProvider.client-1.LastAuthUser', newValue: null, storageArea: window.localStorage }),
    );
    window.dispatchEvent(
      new StorageEvent('storage', { key: 'CognitoIdentityServiceProvider.client-1.sub.idToken', newValue: 'x', storageArea: window.localStorage }),
    );
    stop();
    window.dispatchEvent(
      new StorageEvent('storage', { key: 'CognitoIdentityServiceProvider.client-1.LastAuthUser', newValue: null, storageArea: window.localStorage }),
    );
    expect(events).toEqual(['signedOut']);
  });
});

import 'fake-indexeddb/auto';
import { openUploadJournal, type JournalEntry } from '../src/uploads/upload-journal';

// Amplify is the boundary here (the user pool); the journal is the real one on fake-indexeddb.
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

const entry = (owner: string, fingerprint: string): JournalEntry => ({
  owner,
  ranchId: 'cedar-creek',
  fingerprint,
  batchId: null,
  name: 'IMG_0001.JPG',
  path: '',
  size: 10,
  lastModified: 1,
  key: 'k.jpg',
  status: 'uploaded',
  updatedAt: Date.now(),
});

describe('amplifySessionSource', () => {
  it("deleting the account forgets the user's upload journal on this device, and only theirs", async () => {
    const journal = openUploadJournal();
    await journal.putEntries([entry('sub-deleted', 'a'), entry('sub-other', 'b')]);
    await amplifySessionSource.deleteAccount();
    expect(deleteUser).toHaveBeenCalledTimes(1);
    expect((await journal.entries({ owner: 'sub-deleted', ranchId: 'cedar-creek' }, ['a'])).size).toBe(0);
    expect((await journal.entries({ owner: 'sub-other', ranchId: 'cedar-creek' }, ['b'])).size).toBe(1);
    journal.close();
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

import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ForgetThisComputer, type ForgettableJournal } from '../src/features/login/forget-this-computer';
import 'fake-indexeddb/auto';
import { journalOwners, OWNER_INDEX } from '@trailsense/shared/aws';

const member = { sub: 'sub-1', email: 'subscriber@trailsense.example' };
const KEY = 'trailsense.signed-out';

let databases = 0;

/**
 * A journal database as the uploader keeps it (only what its contract with other apps promises:
 * stores with an owner index, shared/src/uploads/journal-owners.ts), with one photo of each owner,
 * and the contract's real code over it.
 */
async function journalWith(...owners: string[]) {
  const name = `journal-${(databases += 1)}`;
  await new Promise<void>((resolve, reject) => {
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => {
      const files = request.result.createObjectStore('files', { keyPath: ['owner', 'fingerprint'] });
      files.createIndex(OWNER_INDEX, 'owner');
      owners.forEach((owner, i) => files.put({ owner, fingerprint: `f${i}` }));
    };
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error ?? new Error('open failed'));
  });
  return journalOwners({ name });
}

beforeEach(() => sessionStorage.clear());

describe('ForgetThisComputer', () => {
  it('says nothing when nobody signed out here', async () => {
    const journal = await journalWith('sub-1');
    const open = jest.fn(async () => journal);
    const { container } = render(<ForgetThisComputer open={open} />);
    expect(container).toBeEmptyDOMElement();
    // Not even opened: the sign-in page needs no IndexedDB then.
    expect(open).not.toHaveBeenCalled();
  });

  it('after a sign-out, offers to forget that member’s upload history; forgetting removes it and says so', async () => {
    sessionStorage.setItem(KEY, JSON.stringify(member));
    const journal = await journalWith('sub-1', 'sub-2');
    render(<ForgetThisComputer open={async () => journal} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Forget this computer’s upload history' }));
    expect(await screen.findByRole('status')).toHaveTextContent('This computer no longer keeps the upload history of subscriber@trailsense.example.');
    expect(await journal.hasOwner('sub-1')).toBe(false);
    // Only theirs.
    expect(await journal.hasOwner('sub-2')).toBe(true);
    expect(sessionStorage.getItem(KEY)).toBeNull();
  });

  it('makes no offer when this computer keeps nothing of that member, and drops the hint', async () => {
    sessionStorage.setItem(KEY, JSON.stringify(member));
    const journal = await journalWith('sub-other');
    const { container } = render(<ForgetThisComputer open={async () => journal} />);
    await waitFor(() => expect(sessionStorage.getItem(KEY)).toBeNull());
    expect(container).toBeEmptyDOMElement();
  });

  it('a journal that cannot be cleared says so, and the offer stays', async () => {
    sessionStorage.setItem(KEY, JSON.stringify(member));
    const journal = await journalWith('sub-1');
    const failing: ForgettableJournal = { ...journal, forgetOwner: async () => Promise.reject(new Error('QuotaExceededError')) };
    render(<ForgetThisComputer open={async () => failing} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Forget this computer’s upload history' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The upload history was not forgotten: QuotaExceededError');
    expect(screen.getByRole('button', { name: 'Forget this computer’s upload history' })).toBeEnabled();
    expect(await journal.hasOwner('sub-1')).toBe(true);
  });
});

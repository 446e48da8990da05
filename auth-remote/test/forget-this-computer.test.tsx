import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ForgetThisComputer, type ForgettableJournal } from '../src/features/login/forget-this-computer';
import { memoryJournal } from '../../test-support/memory-journal';

const member = { sub: 'sub-1', email: 'subscriber@trailsense.example' };
const KEY = 'trailsense.signed-out';

/** A journal that keeps one uploaded photo of `owner`. */
async function journalWith(owner: string) {
  const journal = memoryJournal();
  await journal.putEntries([
    {
      owner,
      ranchId: 'cedar-creek',
      fingerprint: 'f1',
      batchId: null,
      name: 'IMG_0001.JPG',
      path: 'DCIM/100',
      size: 10,
      lastModified: 1,
      key: 'k.jpg',
      status: 'uploaded',
      updatedAt: 1,
    },
  ]);
  return journal;
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
    const journal = await journalWith('sub-1');
    await journal.putEntries([{ ...journal.entriesOf('sub-1')[0]!, owner: 'sub-2' }]);
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

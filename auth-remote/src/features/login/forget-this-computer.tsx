import { useEffect, useState } from 'react';
import { clearSignedOut, signedOutUser, tabStorage, type SignedOutUser } from '@trailsense/shared';
import { describeAuthError } from '../../model/auth-errors';
import page from '../../styles/auth.module.css';
import styles from './login.module.css';

/** The part of the upload journal the offer uses (its contract: shared/src/uploads/journal-owners.ts). */
export interface ForgettableJournal {
  hasOwner(owner: string): Promise<boolean>;
  forgetOwner(owner: string): Promise<void>;
  close(): void;
}

type Offer =
  | { kind: 'none' }
  | { kind: 'offer'; user: SignedOutUser }
  | { kind: 'forgetting'; user: SignedOutUser }
  | { kind: 'forgotten'; user: SignedOutUser }
  | { kind: 'failed'; user: SignedOutUser; reason: string };

/** The journal, loaded only when someone just signed out here (the sign-in page needs no IndexedDB otherwise). */
async function openJournal(): Promise<ForgettableJournal> {
  const { journalOwners } = await import('@trailsense/shared/aws');
  return journalOwners();
}

/**
 * After a sign-out, on a computer that keeps that member's upload history (file names, folders,
 * batches; uploader-remote/src/features/upload/services/journal/upload-journal.ts): an offer to forget it, for a shared computer
 * (docs/product.md#shared-computers). Shown below the sign-in form, so nothing above it moves.
 */
export function ForgetThisComputer({ open = openJournal }: { open?: () => Promise<ForgettableJournal> }) {
  const [offer, setOffer] = useState<Offer>({ kind: 'none' });

  useEffect(() => {
    const user = signedOutUser(tabStorage());
    if (!user) return;
    let live = true;
    void open()
      .then(async (journal) => {
        try {
          if ((await journal.hasOwner(user.sub)) && live) setOffer({ kind: 'offer', user });
          else clearSignedOut(tabStorage());
        } finally {
          journal.close();
        }
      })
      .catch((error: unknown) => console.warn('Could not read the upload journal', error));
    return () => {
      live = false;
    };
  }, [open]);

  if (offer.kind === 'none') return null;
  const forget = async (user: SignedOutUser) => {
    setOffer({ kind: 'forgetting', user });
    try {
      const journal = await open();
      try {
        await journal.forgetOwner(user.sub);
      } finally {
        journal.close();
      }
      clearSignedOut(tabStorage());
      setOffer({ kind: 'forgotten', user });
    } catch (error) {
      setOffer({ kind: 'failed', user, reason: describeAuthError(error) });
    }
  };
  if (offer.kind === 'forgotten') {
    return (
      <p className={styles.forget} role="status">
        This computer no longer keeps the upload history of {offer.user.email}.
      </p>
    );
  }
  return (
    <div className={styles.forget}>
      <p>On a shared computer? This browser keeps the names and folders of the photos {offer.user.email} sent from it, so a card picked again skips them.</p>
      <button type="button" className={`${page.button} ${page.secondary}`} disabled={offer.kind === 'forgetting'} onClick={() => void forget(offer.user)}>
        Forget this computer’s upload history
      </button>
      {offer.kind === 'failed' && (
        <p className={`${page.status} ${page.failure}`} role="alert">
          The upload history was not forgotten: {offer.reason}
        </p>
      )}
    </div>
  );
}

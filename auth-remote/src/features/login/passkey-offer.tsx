import { useEffect, useState } from 'react';
import { PASSKEY_TEXT, passkeyErrorText, shouldOfferPasskey } from '../../model/passkeys';
import { amplifyPasskeyService, type PasskeyService } from '../../services/passkey-service';
import { passkeysEnabled } from '../../services/sign-in-choices';
import { lastSignInMethod } from './authenticator-setup';
import styles from '../../styles/auth.module.css';

/** Members this browser has made the offer to (their opaque user ids), so it is made once. */
const OFFERED_KEY = 'trailsense.passkey-offered';

function offeredBefore(userId: string): boolean {
  try {
    const list = JSON.parse(localStorage.getItem(OFFERED_KEY) ?? '[]') as unknown;
    return Array.isArray(list) && list.includes(userId);
  } catch {
    return false;
  }
}

function markOffered(userId: string): void {
  try {
    const list = JSON.parse(localStorage.getItem(OFFERED_KEY) ?? '[]') as unknown;
    const ids = Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
    localStorage.setItem(OFFERED_KEY, JSON.stringify([...ids.filter((id) => id !== userId), userId].slice(-20)));
  } catch {
    // Storage full or blocked: the offer may be made again, which costs a click.
  }
}

type Offer = { kind: 'checking' } | { kind: 'offer' } | { kind: 'adding' } | { kind: 'failed'; message: string };

/**
 * After a sign-in with an e-mailed code: an offer to add a passkey, once per member on this
 * browser, dismissable (docs/product.md#sign-in-without-a-password). Says `onDone` at once when
 * there is nothing to offer (another way of signing in, passkeys off or unsupported, one there).
 */
export function PasskeyOffer({ userId, onDone, service = amplifyPasskeyService }: { userId: string; onDone: () => void; service?: PasskeyService }) {
  const [offer, setOffer] = useState<Offer>({ kind: 'checking' });
  useEffect(() => {
    let live = true;
    const base = { method: lastSignInMethod(), passkeysEnabled: passkeysEnabled(), supported: service.supported(), offeredBefore: offeredBefore(userId) };
    if (!shouldOfferPasskey({ ...base, hasPasskeys: false })) {
      onDone();
      return;
    }
    service
      .list()
      .then((passkeys) => {
        if (!live) return;
        if (!shouldOfferPasskey({ ...base, hasPasskeys: passkeys.length > 0 })) return onDone();
        markOffered(userId);
        setOffer({ kind: 'offer' });
      })
      .catch(() => live && onDone());
    return () => {
      live = false;
    };
    // Decided once, when the member is signed in.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [userId]);

  if (offer.kind === 'checking') return <p role="status">Signed in. Taking you on…</p>;
  const add = () => {
    setOffer({ kind: 'adding' });
    service.add().then(onDone, (error: unknown) => setOffer({ kind: 'failed', message: passkeyErrorText(error) }));
  };
  return (
    <section aria-labelledby="passkey-offer" className={styles.notice}>
      <h2 id="passkey-offer">{PASSKEY_TEXT.offerHeading}</h2>
      <p>{PASSKEY_TEXT.offerText}</p>
      {offer.kind === 'failed' && (
        <p className={`${styles.status} ${styles.failure}`} role="alert">
          {offer.message}
        </p>
      )}
      <button type="button" className={styles.button} disabled={offer.kind === 'adding'} onClick={add}>
        {offer.kind === 'adding' ? PASSKEY_TEXT.adding : PASSKEY_TEXT.add}
      </button>{' '}
      <button type="button" className={`${styles.button} ${styles.secondary}`} disabled={offer.kind === 'adding'} onClick={onDone}>
        {PASSKEY_TEXT.offerLater}
      </button>
    </section>
  );
}

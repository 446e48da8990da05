import { useEffect, useState } from 'react';
import { StatusMessage, type FormStatus } from '../../components/status-message';
import { addedText, PASSKEY_TEXT, passkeyErrorText, type Passkey } from '../../model/passkeys';
import type { PasskeyService } from '../../services/passkey-service';
import styles from '../../styles/auth.module.css';

type Listing = { kind: 'loading' } | { kind: 'listed'; passkeys: Passkey[] } | { kind: 'failed'; message: string };

/**
 * /profile's passkeys (docs/product.md#profile-page): each with its name and when it was added, a
 * way to add one on this device and to remove one. Thin: the words and rules are
 * model/passkeys.ts's, the calls services/passkey-service.ts's.
 */
export function PasskeysSection({ service }: { service: PasskeyService }) {
  const [listing, setListing] = useState<Listing>({ kind: 'loading' });
  const [status, setStatus] = useState<FormStatus>({ kind: 'idle' });
  const busy = status.kind === 'busy';
  const supported = service.supported();

  // Listed on open and after each change (`changes` counts them).
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    let live = true;
    service.list().then(
      (passkeys) => live && setListing({ kind: 'listed', passkeys }),
      (error: unknown) => live && setListing({ kind: 'failed', message: `Your passkeys could not be listed: ${passkeyErrorText(error)}` }),
    );
    return () => {
      live = false;
    };
  }, [service, changes]);

  async function act(action: () => Promise<void>, success: string) {
    setStatus({ kind: 'busy' });
    try {
      await action();
      setStatus({ kind: 'success', message: success });
    } catch (error) {
      setStatus({ kind: 'error', message: passkeyErrorText(error) });
    }
    setChanges((n) => n + 1);
  }

  return (
    <>
      {listing.kind === 'loading' && <p role="status">Loading your passkeys…</p>}
      {listing.kind === 'failed' && (
        <p className={`${styles.status} ${styles.failure}`} role="alert">
          {listing.message}
        </p>
      )}
      {listing.kind === 'listed' &&
        (listing.passkeys.length === 0 ? (
          <p>{PASSKEY_TEXT.none}</p>
        ) : (
          <ul className={styles.passkeys} aria-label="Your passkeys">
            {listing.passkeys.map((passkey) => (
              <li key={passkey.id}>
                <span>
                  <strong>{passkey.name}</strong> <span className={styles.hint}>{addedText(passkey)}</span>
                </span>
                <button
                  type="button"
                  className={`${styles.button} ${styles.secondary}`}
                  aria-label={PASSKEY_TEXT.remove(passkey.name)}
                  disabled={busy}
                  onClick={() => void act(() => service.remove(passkey.id), PASSKEY_TEXT.removed(passkey.name))}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        ))}
      {supported ? (
        <button type="button" className={styles.button} disabled={busy} onClick={() => void act(() => service.add(), PASSKEY_TEXT.added)}>
          {busy ? PASSKEY_TEXT.adding : PASSKEY_TEXT.add}
        </button>
      ) : (
        <p role="note">{PASSKEY_TEXT.unsupported}</p>
      )}
      <StatusMessage status={status} />
    </>
  );
}

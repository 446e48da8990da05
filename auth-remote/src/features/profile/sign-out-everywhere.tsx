import { useState } from 'react';
import { useUser } from '@trailsense/shared';
import styles from '../../styles/auth.module.css';

/** Ends every session of the account (phones included), then this one: the shell goes to /login. */
export function SignOutEverywhere() {
  const user = useUser();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <p>Lost a phone, or signed in on a shared computer? Sign out everywhere, including the app on every device.</p>
      <button
        type="button"
        className={`${styles.button} ${styles.secondary}`}
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void user.signOut({ global: true });
        }}
      >
        {busy ? 'Signing out…' : 'Sign out of all devices'}
      </button>
    </>
  );
}

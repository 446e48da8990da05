import { useState } from 'react';
import { useUser } from '@trailsense/shared';
import { runFormAction, StatusMessage, type FormStatus } from '../../components/status-message';
import styles from '../../styles/auth.module.css';

/**
 * Ends every session of the account (phones included), then this one: the shell goes to /login.
 * If the sign-in service could not be reached or refused, nothing was signed out, and the member
 * reads why and can try again.
 */
export function SignOutEverywhere() {
  const user = useUser();
  const [status, setStatus] = useState<FormStatus>({ kind: 'idle' });
  const busy = status.kind === 'busy';
  return (
    <>
      <p>Lost a phone, or signed in on a shared computer? Sign out everywhere, including the app on every device.</p>
      <button
        type="button"
        className={`${styles.button} ${styles.secondary}`}
        disabled={busy}
        onClick={() =>
          void runFormAction(setStatus, () => user.signOut({ global: true }), {
            success: null,
            failure: 'Your devices were not signed out',
            context: 'general',
          })
        }
      >
        {busy ? 'Signing out…' : 'Sign out of all devices'}
      </button>
      <StatusMessage status={status} />
    </>
  );
}

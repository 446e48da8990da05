import { useState } from 'react';
import { useUser } from '@trailsense/shared';

/** Ends every session of the account (phones included), then this one: the shell goes to /login. */
export function SignOutEverywhere() {
  const user = useUser();
  const [busy, setBusy] = useState(false);
  return (
    <>
      <p>Lost a phone, or signed in on a shared computer? Sign out everywhere, including the app on every device.</p>
      <button
        type="button"
        className="button button--secondary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          await user.signOut({ global: true });
        }}
      >
        {busy ? 'Signing out…' : 'Sign out of all devices'}
      </button>
    </>
  );
}

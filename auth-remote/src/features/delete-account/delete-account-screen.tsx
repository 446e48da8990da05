import { useState, type FormEvent } from 'react';
import { AppLink, loginPathFor, useBrand, useUser } from '@trailsense/shared';
import { runFormAction, StatusMessage, type FormStatus } from '../../components/status-message';
import { TextField } from '../../components/text-field';
import { confirmsDeletion } from '../../model/deletion-rules';
import styles from '../../styles/auth.module.css';

/**
 * /delete, reachable signed out as app stores require: what deletion removes, how to do it, and
 * for a signed-in user a deliberate confirmation (typing their email) before DeleteUser.
 */
export function DeleteAccountScreen() {
  const brand = useBrand();
  const user = useUser();
  const [deleted, setDeleted] = useState(false);

  if (deleted || (user.status === 'unauthenticated' && user.reason === 'account-deleted')) {
    return (
      <div className={styles.page}>
        <h1>Your account has been deleted</h1>
        <p role="status">
          Your {brand.productName} account is gone and you are signed out. We are sorry to see you go — you are welcome back any time with a new account from
          the app.
        </p>
        <AppLink to="/" className={styles.button}>
          Go to the home page
        </AppLink>
      </div>
    );
  }

  return (
    <div className={styles.page}>
      <h1>Delete your {brand.productName} account</h1>
      <section aria-labelledby="delete-what">
        <h2 id="delete-what">What deleting removes</h2>
        <ul>
          <li>Your sign-in: you can no longer sign in on this website or in the app.</li>
          <li>Your profile: email address, name and phone number.</li>
          <li>
            The photos you uploaded, with their details and analysis results, as our <a href={brand.privacyPolicyUrl}>Privacy Policy</a> describes.
          </li>
        </ul>
        <p>
          <strong>Deleting cannot be undone.</strong> Your ranch and other members’ accounts and photos are not affected.
        </p>
      </section>

      {user.status === 'authenticated' ? (
        <DeleteForm email={user.user.email} onDeleted={() => setDeleted(true)} deleteAccount={user.deleteAccount} />
      ) : user.status === 'configuring' ? (
        <p role="status">Checking your sign-in…</p>
      ) : (
        <section aria-labelledby="delete-how">
          <h2 id="delete-how">How to delete your account</h2>
          <p>Sign in first, so we know the account is yours. You can do it either way:</p>
          <ul>
            <li>
              <AppLink to={loginPathFor('/delete')}>Sign in here</AppLink> and you will come back to this page to confirm.
            </li>
            <li>In the {brand.productName} app: open your account settings and choose to delete your account.</li>
          </ul>
          <p>
            Can’t sign in? Email <a href={`mailto:${brand.supportEmail}`}>{brand.supportEmail}</a> from the address on the account and we will delete it for
            you.
          </p>
        </section>
      )}
    </div>
  );
}

interface DeleteFormProps {
  email: string;
  deleteAccount: () => Promise<void>;
  onDeleted: () => void;
}

function DeleteForm({ email, deleteAccount, onDeleted }: DeleteFormProps) {
  const [typed, setTyped] = useState('');
  const [status, setStatus] = useState<FormStatus>({ kind: 'idle' });
  const confirmed = confirmsDeletion(typed, email);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!confirmed) return;
    const deleted = await runFormAction(setStatus, deleteAccount, {
      success: null,
      failure: 'Your account was not deleted',
      context: 'delete',
    });
    if (deleted) onDeleted();
  }

  return (
    <section aria-labelledby="delete-confirm">
      <h2 id="delete-confirm">Confirm deletion</h2>
      <form className={styles.form} onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label={`Type your email address (${email}) to confirm`}
          type="email"
          autoComplete="off"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className={`${styles.button} ${styles.danger}`} disabled={!confirmed || status.kind === 'busy'}>
          {status.kind === 'busy' ? 'Deleting…' : 'Delete my account permanently'}
        </button>
        <StatusMessage status={status} />
      </form>
    </section>
  );
}

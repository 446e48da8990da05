import { useState, type FormEvent } from 'react';
import { runFormAction, StatusMessage, type FormStatus } from '../../components/status-message';
import { TextField } from '../../components/text-field';
import { confirmPasswordError, passwordError, requiredError } from '../../model/form-rules';
import type { AccountService } from '../../services/account-service';
import styles from '../../styles/auth.module.css';

/** Current, new and confirmed password, with the pool's rules checked before anything is sent. */
export function ChangePasswordForm({ service }: { service: AccountService }) {
  const [values, setValues] = useState({ currentPassword: '', newPassword: '', confirmPassword: '' });
  const [touched, setTouched] = useState({ newPassword: false, confirmPassword: false });
  const [submitted, setSubmitted] = useState(false);
  const [status, setStatus] = useState<FormStatus>({ kind: 'idle' });

  const errors = {
    currentPassword: submitted ? requiredError(values.currentPassword) : null,
    newPassword: submitted || touched.newPassword ? passwordError(values.newPassword) : null,
    confirmPassword: confirmPasswordError(values.newPassword, values.confirmPassword, {
      password: touched.newPassword || submitted,
      confirm: touched.confirmPassword || submitted,
    }),
  };

  const set = (key: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    const problems = [
      requiredError(values.currentPassword),
      passwordError(values.newPassword),
      confirmPasswordError(values.newPassword, values.confirmPassword, { password: true, confirm: true }),
    ];
    if (problems.some(Boolean)) {
      setStatus({ kind: 'error', message: 'Please correct the highlighted fields.' });
      return;
    }
    const changed = await runFormAction(setStatus, () => service.changePassword(values.currentPassword, values.newPassword), {
      success: 'Your password has been changed. Use the new one next time you sign in.',
      failure: 'Your password was not changed',
      context: 'password',
    });
    if (changed) {
      setValues({ currentPassword: '', newPassword: '', confirmPassword: '' });
      setTouched({ newPassword: false, confirmPassword: false });
      setSubmitted(false);
    }
  }

  return (
    <form className={styles.form} onSubmit={(event) => void submit(event)} noValidate>
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={values.currentPassword}
        onChange={set('currentPassword')}
        error={errors.currentPassword}
        required
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        hint="At least 8 characters."
        value={values.newPassword}
        onChange={set('newPassword')}
        onBlur={() => setTouched((t) => ({ ...t, newPassword: true }))}
        error={errors.newPassword}
        required
      />
      <TextField
        label="Confirm new password"
        type="password"
        autoComplete="new-password"
        value={values.confirmPassword}
        onChange={set('confirmPassword')}
        onBlur={() => setTouched((t) => ({ ...t, confirmPassword: true }))}
        error={errors.confirmPassword}
        required
      />
      <button type="submit" className={styles.button} disabled={status.kind === 'busy'}>
        {status.kind === 'busy' ? 'Changing…' : 'Change password'}
      </button>
      <StatusMessage status={status} />
    </form>
  );
}

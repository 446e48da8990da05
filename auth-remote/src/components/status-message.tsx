import { describeAuthError, type AuthErrorContext } from '../model/auth-errors';
import styles from '../styles/auth.module.css';

/** The outcome of a form: announced to screen readers, visible, and specific. */
export type FormStatus = { kind: 'idle' } | { kind: 'busy' } | { kind: 'success'; message: string } | { kind: 'error'; message: string };

export function StatusMessage({ status }: { status: FormStatus }) {
  if (status.kind === 'success') {
    return (
      <p className={`${styles.status} ${styles.success}`} role="status">
        {status.message}
      </p>
    );
  }
  if (status.kind === 'error') {
    return (
      <p className={`${styles.status} ${styles.failure}`} role="alert">
        {status.message}
      </p>
    );
  }
  return null;
}

/**
 * Runs a form's call: busy while it runs, then the success message or "<failure>: <reason>".
 * Resolves to whether the call succeeded.
 */
export async function runFormAction(
  setStatus: (status: FormStatus) => void,
  action: () => Promise<void>,
  messages: { success: string | null; failure: string; context: AuthErrorContext },
): Promise<boolean> {
  setStatus({ kind: 'busy' });
  try {
    await action();
    setStatus(messages.success ? { kind: 'success', message: messages.success } : { kind: 'idle' });
    return true;
  } catch (error) {
    setStatus({ kind: 'error', message: `${messages.failure}: ${describeAuthError(error, messages.context)}` });
    return false;
  }
}

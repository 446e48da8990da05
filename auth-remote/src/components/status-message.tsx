/** The outcome of a form: announced to screen readers, visible, and specific. */
export type FormStatus = { kind: 'idle' } | { kind: 'busy' } | { kind: 'success'; message: string } | { kind: 'error'; message: string };

export function StatusMessage({ status }: { status: FormStatus }) {
  if (status.kind === 'success') {
    return (
      <p className="form-status form-status--success" role="status">
        {status.message}
      </p>
    );
  }
  if (status.kind === 'error') {
    return (
      <p className="form-status form-status--error" role="alert">
        {status.message}
      </p>
    );
  }
  return null;
}

import type { ReactNode } from 'react';
import { ErrorBoundary } from 'react-error-boundary';

export interface RemoteBoundaryProps {
  /** What the failed part is called, in the message ("the uploader"). */
  label: string;
  onRetry: () => void;
  children: ReactNode;
}

/**
 * Keeps a failing remote (unreachable, or throwing while rendering) inside its own box: the
 * header, footer and the rest of the site keep working, and Retry loads it again in place.
 * Retry clears the error and calls `onRetry` (the caller loads the remote afresh); the caller
 * keys the boundary by remote, so another remote's route starts without the error.
 */
export function RemoteBoundary({ label, onRetry, children }: RemoteBoundaryProps) {
  return (
    <ErrorBoundary
      onError={(error, info) => console.error(`Could not show ${label}.`, error, info.componentStack)}
      onReset={() => onRetry()}
      fallbackRender={({ resetErrorBoundary }) => <RemoteError label={label} onRetry={resetErrorBoundary} />}
    >
      {children}
    </ErrorBoundary>
  );
}

function RemoteError({ label, onRetry }: { label: string; onRetry: () => void }) {
  return (
    <section className="remote-error" role="alert" aria-labelledby="remote-error-title">
      <h1 id="remote-error-title">We couldn’t load {label}</h1>
      <p>This part of the site didn’t load. Your connection may have dropped, or we may be updating it. The rest of the site still works.</p>
      <button type="button" className="button" onClick={onRetry}>
        Retry
      </button>
    </section>
  );
}

import type { ErrorInfo, ReactNode } from 'react';
import { ErrorBoundary } from 'react-error-boundary';
import { defaultBrand } from '@trailsense/shared';

function logRenderError(error: unknown, info: ErrorInfo): void {
  console.error('The page failed to render.', error, info.componentStack);
}

/**
 * The last line of defence: an error no route handled shows a readable page with a way on,
 * never a blank one. (Remote routes have their own boundary with Retry inside the layout.)
 * It does not reset by itself: Reload starts the page again.
 */
export function AppErrorBoundary({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary onError={logRenderError} fallbackRender={() => <PageError />}>
      {children}
    </ErrorBoundary>
  );
}

function PageError() {
  return (
    <main className="config-error" role="alert">
      <h1>Something went wrong on this page</h1>
      <p>Nothing you entered was sent. Reload the page to try again, or go back to the home page.</p>
      <p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload
        </button>{' '}
        <a href="/">Home page</a>
      </p>
      <p>
        If it keeps happening, email <a href={`mailto:${defaultBrand.supportEmail}`}>{defaultBrand.supportEmail}</a>.
      </p>
    </main>
  );
}

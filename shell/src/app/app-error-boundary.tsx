import { Component, type ErrorInfo, type ReactNode } from 'react';
import { defaultBrand } from '@trailsense/shared';

interface State {
  failed: boolean;
}

/**
 * The last line of defence: an error no route handled shows a readable page with a way on,
 * never a blank one. (Remote routes have their own boundary with Retry inside the layout.)
 */
export class AppErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('The page failed to render.', error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
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
}

import { Component, type ErrorInfo, type ReactNode } from 'react';

export interface RemoteBoundaryProps {
  /** What the failed part is called, in the message ("the uploader"). */
  label: string;
  onRetry: () => void;
  children: ReactNode;
}

interface State {
  failed: boolean;
}

/**
 * Keeps a failing remote (unreachable, or throwing while rendering) inside its own box: the
 * header, footer and the rest of the site keep working, and Retry loads it again in place.
 */
export class RemoteBoundary extends Component<RemoteBoundaryProps, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`Could not show ${this.props.label}.`, error, info.componentStack);
  }

  private retry = () => {
    this.setState({ failed: false });
    this.props.onRetry();
  };

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <section className="remote-error" role="alert" aria-labelledby="remote-error-title">
        <h1 id="remote-error-title">We couldn’t load {this.props.label}</h1>
        <p>
          This part of the site didn’t load. Your connection may have dropped, or we may be updating it. The rest of the
          site still works.
        </p>
        <button type="button" className="button" onClick={this.retry}>
          Retry
        </button>
      </section>
    );
  }
}

import { useState } from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RemoteBoundary } from '../src/remotes/remote-boundary';
import { AppErrorBoundary } from '../src/app/app-error-boundary';

let failing = true;
function FlakyRemote() {
  if (failing) throw new Error('remote unreachable');
  return <p>Uploader loaded</p>;
}

function Harness() {
  const [attempt, setAttempt] = useState(0);
  return (
    <RemoteBoundary label="the uploader" onRetry={() => setAttempt(attempt + 1)}>
      <FlakyRemote key={attempt} />
    </RemoteBoundary>
  );
}

describe('RemoteBoundary', () => {
  it('shows a friendly message with Retry, and Retry shows the remote once it works', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    failing = true;
    render(<Harness />);
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('We couldn’t load the uploader');
    expect(alert).not.toHaveTextContent('remote unreachable');
    failing = false;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByText('Uploader loaded')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    error.mockRestore();
  });
});

describe('AppErrorBoundary', () => {
  it('shows a readable page with Reload and a way home instead of a blank page', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    function Broken(): never {
      throw new Error('render bug');
    }
    render(
      <AppErrorBoundary>
        <Broken />
      </AppErrorBoundary>,
    );
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Something went wrong on this page');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Home page' })).toHaveAttribute('href', '/');
    expect(screen.queryByText('render bug')).not.toBeInTheDocument();
    error.mockRestore();
  });
});

import { useState } from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RemoteBoundary } from '../src/remotes/remote-boundary';
import { AppErrorBoundary } from '../src/app/app-error-boundary';

/**
 * A remote as RemoteRoute loads it: each attempt is a fresh load (a new lazy component in the
 * app), and the remote is reachable from attempt `worksFrom` on. Re-rendering the same attempt
 * fails again, as a rejected lazy component does.
 */
let worksFrom = 1;
function FlakyRemote({ attempt }: { attempt: number }) {
  if (attempt < worksFrom) throw new Error('remote unreachable');
  return <p>Uploader loaded</p>;
}

function Harness() {
  const [attempt, setAttempt] = useState(0);
  return (
    <RemoteBoundary label="the uploader" onRetry={() => setAttempt(attempt + 1)}>
      <FlakyRemote attempt={attempt} />
    </RemoteBoundary>
  );
}

describe('RemoteBoundary', () => {
  it('shows a friendly message with Retry, and Retry loads the remote again', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    worksFrom = 1;
    render(<Harness />);
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('We couldn’t load the uploader');
    expect(alert).not.toHaveTextContent('remote unreachable');
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByText('Uploader loaded')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    error.mockRestore();
  });

  it('logs what failed, and shows the message again when Retry fails too', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    worksFrom = 2;
    render(<Harness />);
    expect(error).toHaveBeenCalledWith('Could not show the uploader.', expect.objectContaining({ message: 'remote unreachable' }), expect.any(String));
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByRole('alert')).toHaveTextContent('We couldn’t load the uploader');
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByText('Uploader loaded')).toBeInTheDocument();
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
    expect(error).toHaveBeenCalledWith('The page failed to render.', expect.objectContaining({ message: 'render bug' }), expect.any(String));
    error.mockRestore();
  });
});

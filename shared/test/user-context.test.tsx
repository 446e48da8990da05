import { useState } from 'react';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { UserProvider, useUser } from '../src/user/user-context';
import { FakeSessionSource, subscriberUser } from '../../test-support/fake-session-source';

function Probe() {
  const user = useUser();
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <div>
      <p>status: {user.status}</p>
      {user.status === 'authenticated' && <p>email: {user.user.email}</p>}
      <button onClick={() => void user.signOut()}>Sign out</button>
      <button onClick={() => void user.signOut({ global: true }).catch((error: Error) => setFailure(error.message))}>Sign out everywhere</button>
      {failure && <p>failed: {failure}</p>}
    </div>
  );
}

describe('UserProvider', () => {
  it('starts configuring, then shows the signed-in user', async () => {
    render(
      <UserProvider source={new FakeSessionSource(subscriberUser)}>
        <Probe />
      </UserProvider>,
    );
    expect(screen.getByText('status: configuring')).toBeInTheDocument();
    expect(await screen.findByText('email: subscriber@trailsense.example')).toBeInTheDocument();
  });

  it('is unauthenticated when there is no session', async () => {
    render(
      <UserProvider source={new FakeSessionSource(null)}>
        <Probe />
      </UserProvider>,
    );
    expect(await screen.findByText('status: unauthenticated')).toBeInTheDocument();
  });

  it('follows sign-in and token-refresh-failure events', async () => {
    const source = new FakeSessionSource(null);
    render(
      <UserProvider source={source}>
        <Probe />
      </UserProvider>,
    );
    await screen.findByText('status: unauthenticated');
    source.user = subscriberUser;
    act(() => source.emit('signedIn'));
    expect(await screen.findByText('status: authenticated')).toBeInTheDocument();
    act(() => source.emit('tokenRefreshFailure'));
    expect(await screen.findByText('status: unauthenticated')).toBeInTheDocument();
  });

  it('treats an unreadable session as signed out', async () => {
    const source = new FakeSessionSource(null);
    source.currentUser = async () => {
      throw new Error('network down');
    };
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    render(
      <UserProvider source={source}>
        <Probe />
      </UserProvider>,
    );
    expect(await screen.findByText('status: unauthenticated')).toBeInTheDocument();
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });

  it('signs out through the source and clears the user', async () => {
    const source = new FakeSessionSource(subscriberUser);
    render(
      <UserProvider source={source}>
        <Probe />
      </UserProvider>,
    );
    await screen.findByText('status: authenticated');
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('status: unauthenticated')).toBeInTheDocument();
    expect(source.signOutCalls).toHaveLength(1);
    // Who signed out, for the sign-in page's offer to forget this computer's upload history.
    expect(JSON.parse(sessionStorage.getItem('trailsense.signed-out')!)).toEqual({ sub: subscriberUser.sub, email: subscriberUser.email });
  });

  it('a local sign-out that fails still ends the session here (only logged)', async () => {
    const source = new FakeSessionSource(subscriberUser);
    source.signOutError = new Error('network down');
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    render(
      <UserProvider source={source}>
        <Probe />
      </UserProvider>,
    );
    await screen.findByText('status: authenticated');
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('status: unauthenticated')).toBeInTheDocument();
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('a global sign-out that fails throws to the caller and leaves the session as it was', async () => {
    const source = new FakeSessionSource(subscriberUser);
    source.signOutError = Object.assign(new Error('Network Error'), { name: 'NetworkError' });
    render(
      <UserProvider source={source}>
        <Probe />
      </UserProvider>,
    );
    await screen.findByText('status: authenticated');
    await userEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
    expect(await screen.findByText('failed: Network Error')).toBeInTheDocument();
    expect(screen.getByText('status: authenticated')).toBeInTheDocument();
    expect(source.signOutCalls).toEqual([{ global: true }]);
  });

  it('shows the sentinel status when rendered outside any provider (a duplicated shared package)', () => {
    render(<Probe />);
    expect(screen.getByText('status: no-provider')).toBeInTheDocument();
  });
});

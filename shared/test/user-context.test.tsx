import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { UserProvider, useUser } from '../src/user/user-context';
import { FakeSessionSource, subscriberUser } from '../../test-support/fake-session-source';

function Probe() {
  const user = useUser();
  return (
    <div>
      <p>status: {user.status}</p>
      {user.status === 'authenticated' && <p>email: {user.user.email}</p>}
      <button onClick={() => void user.signOut()}>Sign out</button>
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
  });

  it('shows the sentinel status when rendered outside any provider (a duplicated shared package)', () => {
    render(<Probe />);
    expect(screen.getByText('status: no-provider')).toBeInTheDocument();
  });
});

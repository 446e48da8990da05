import { act, render, screen } from '@testing-library/react';
import { isStoredSessionRemoved } from '../src/user/session-end';
import { pausedWorkNotice, setPausedWorkNotice, usePausedWorkNotice } from '../src/navigation/paused-work';

describe('isStoredSessionRemoved', () => {
  const last = 'CognitoIdentityServiceProvider.client-1.LastAuthUser';
  it('is a sign-out in another tab when the last user key goes', () => expect(isStoredSessionRemoved({ key: last, newValue: null }, 'client-1')).toBe(true));
  it('is a sign-out when the storage is cleared', () => expect(isStoredSessionRemoved({ key: null, newValue: null }, 'client-1')).toBe(true));
  it('is not a token refresh, a new sign-in, or another app client', () => {
    expect(isStoredSessionRemoved({ key: 'CognitoIdentityServiceProvider.client-1.sub.idToken', newValue: 'eyJ…' }, 'client-1')).toBe(false);
    expect(isStoredSessionRemoved({ key: 'CognitoIdentityServiceProvider.client-1.sub.refreshToken', newValue: null }, 'client-1')).toBe(false);
    expect(isStoredSessionRemoved({ key: last, newValue: 'sub-2' }, 'client-1')).toBe(false);
    expect(isStoredSessionRemoved({ key: last, newValue: null }, 'client-2')).toBe(false);
  });
});

describe('the paused-work notice', () => {
  function Notice() {
    return <p>{usePausedWorkNotice() ?? 'none'}</p>;
  }
  afterEach(() => setPausedWorkNotice(null));
  it('reaches whoever shows it, and clears', () => {
    render(<Notice />);
    expect(screen.getByText('none')).toBeVisible();
    act(() => setPausedWorkNotice('Uploading is paused: 3 of 9 went up.'));
    expect(screen.getByText('Uploading is paused: 3 of 9 went up.')).toBeVisible();
    expect(pausedWorkNotice()).toBe('Uploading is paused: 3 of 9 went up.');
    act(() => setPausedWorkNotice(null));
    expect(screen.getByText('none')).toBeVisible();
  });
});

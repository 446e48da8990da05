import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { UserContextValue, UserState } from './user-state';
import type { SessionSource } from './session-source';
import { rememberSignedOut, tabStorage } from './signed-out-hint';

const noop = async () => {};

/** The sentinel default: only seen by a screen rendered outside the one UserProvider. */
const UserContext = createContext<UserContextValue>({
  status: 'no-provider',
  refresh: noop,
  signOut: noop,
  deleteAccount: noop,
});

export interface UserProviderProps {
  /** Where sessions come from: Amplify in the apps, a fake in component tests. */
  source: SessionSource;
  /**
   * The state before the source answers, e.g. from the stored-session hint, so the first render
   * is already right; the source is still read at start and has the last word.
   */
  initialState?: UserState;
  children: ReactNode;
}

/**
 * The one user context of the page. It reads the session once at start, then follows the
 * session source's auth events (sign-in, sign-out, token refresh and its failure).
 */
export function UserProvider({ source, initialState, children }: UserProviderProps) {
  const [state, setState] = useState<UserState>(initialState ?? { status: 'configuring' });
  // What signOut reads of the state (who is signing out), without being made anew on each change.
  const stateRef = useRef(state);
  useEffect(() => {
    stateRef.current = state;
  }, [state]);
  // Reads can overlap (an event during the first read); only the newest may set the state.
  const generation = useRef(0);
  // While an account is being deleted, its sign-out event must not read as a plain sign-out.
  const deleting = useRef(false);

  const read = useCallback(
    async (options?: { forceRefresh?: boolean }) => {
      const mine = ++generation.current;
      const user = await source.currentUser(options).catch((error: unknown) => {
        console.warn('Could not read the session; treating the visitor as signed out.', error);
        return null;
      });
      if (mine !== generation.current) return;
      setState(user ? { status: 'authenticated', user } : { status: 'unauthenticated' });
    },
    [source],
  );

  useEffect(() => {
    void read();
    return source.onAuthEvent((event) => {
      if (event === 'signedOut' || event === 'tokenRefreshFailure') {
        if (deleting.current) return;
        generation.current++;
        setState({ status: 'unauthenticated', reason: event === 'signedOut' ? 'signed-out' : 'session-ended' });
      } else {
        void read();
      }
    });
  }, [source, read]);

  const signOut = useCallback(
    async (options?: { global?: boolean }) => {
      const signedIn = stateRef.current.status === 'authenticated' ? stateRef.current.user : null;
      try {
        await source.signOut(options);
      } catch (error) {
        // A global sign-out that failed signed out no device, this one included: the caller says so,
        // and the member can try again (docs/product.md#profile-page).
        if (options?.global) throw error;
        // docs/product.md#auth-state: a failed logout is only logged; the local session is gone either way.
        console.error('Sign-out failed', error);
      }
      // For the sign-in page's offer to forget this computer's upload history (signed-out-hint.ts).
      if (signedIn) rememberSignedOut(tabStorage(), signedIn);
      generation.current++;
      setState({ status: 'unauthenticated', reason: 'signed-out' });
    },
    [source],
  );

  const deleteAccount = useCallback(async () => {
    deleting.current = true;
    try {
      await source.deleteAccount();
      generation.current++;
      setState({ status: 'unauthenticated', reason: 'account-deleted' });
    } finally {
      deleting.current = false;
    }
  }, [source]);

  const value = useMemo<UserContextValue>(() => ({ ...state, refresh: read, signOut, deleteAccount }), [state, read, signOut, deleteAccount]);
  return <UserContext.Provider value={value}>{children}</UserContext.Provider>;
}

/** The page's user: status (configuring / authenticated / unauthenticated) and attributes. */
export function useUser(): UserContextValue {
  return useContext(UserContext);
}

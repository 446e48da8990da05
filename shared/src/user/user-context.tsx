import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { UserContextValue, UserState } from './user-state';
import type { SessionSource } from './session-source';

const noop = async () => {};

/** The sentinel default: only seen by a screen rendered outside the one UserProvider. */
const UserContext = createContext<UserContextValue>({ status: 'no-provider', refresh: noop, signOut: noop });

export interface UserProviderProps {
  /** Where sessions come from: Amplify in the apps, a fake in component tests. */
  source: SessionSource;
  children: ReactNode;
}

/**
 * The one user context of the page. It reads the session once at start, then follows the
 * session source's auth events (sign-in, sign-out, token refresh and its failure).
 */
export function UserProvider({ source, children }: UserProviderProps) {
  const [state, setState] = useState<UserState>({ status: 'configuring' });
  // Reads can overlap (an event during the first read); only the newest may set the state.
  const generation = useRef(0);

  const read = useCallback(async () => {
    const mine = ++generation.current;
    const user = await source.currentUser().catch((error: unknown) => {
      console.warn('Could not read the session; treating the visitor as signed out.', error);
      return null;
    });
    if (mine !== generation.current) return;
    setState(user ? { status: 'authenticated', user } : { status: 'unauthenticated' });
  }, [source]);

  useEffect(() => {
    void read();
    return source.onAuthEvent((event) => {
      if (event === 'signedOut' || event === 'tokenRefreshFailure') {
        generation.current++;
        setState({ status: 'unauthenticated' });
      } else {
        void read();
      }
    });
  }, [source, read]);

  const signOut = useCallback(
    async (options?: { global?: boolean }) => {
      try {
        await source.signOut(options);
      } catch (error) {
        // SPEC.md §4: a failed logout is only logged; the local session is gone either way.
        console.error('Sign-out failed', error);
      }
      generation.current++;
      setState({ status: 'unauthenticated' });
    },
    [source],
  );

  const value = useMemo<UserContextValue>(() => ({ ...state, refresh: read, signOut }), [state, read, signOut]);
  return <UserContext.Provider value={value}>{children}</UserContext.Provider>;
}

/** The page's user: status (configuring / authenticated / unauthenticated) and attributes. */
export function useUser(): UserContextValue {
  return useContext(UserContext);
}

import type { AuthEvent, SessionSource } from './session-source';

/** A session source that downloads the real one (Amplify) only when it is needed. */
export interface LazySessionSource extends SessionSource {
  /** Loads the real source now (e.g. before a remote that uses Amplify renders). */
  load(): Promise<SessionSource>;
}

/**
 * Wraps a session source that is expensive to download. While nothing needs it and the browser
 * holds no stored session (`mayHaveSession` is false), `currentUser` answers "nobody" without
 * loading it: Amplify cannot have a session that storage does not hold. Auth-event listeners
 * registered early are attached when the real source arrives; a failed load is retried on the
 * next call.
 */
export function lazySessionSource(loadSource: () => Promise<SessionSource>, mayHaveSession: () => boolean): LazySessionSource {
  let real: SessionSource | null = null;
  let loading: Promise<SessionSource> | null = null;
  const listeners = new Map<(event: AuthEvent) => void, (() => void) | null>();

  const load = () => {
    if (real) return Promise.resolve(real);
    loading ??= loadSource().then(
      (source) => {
        real = source;
        for (const listener of listeners.keys()) listeners.set(listener, source.onAuthEvent(listener));
        return source;
      },
      (error: unknown) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  };

  return {
    load,
    async currentUser(options) {
      if (!real && !mayHaveSession()) return null;
      return (await load()).currentUser(options);
    },
    async signOut(options) {
      await (await load()).signOut(options);
    },
    async deleteAccount() {
      await (await load()).deleteAccount();
    },
    onAuthEvent(listener) {
      listeners.set(listener, real ? real.onAuthEvent(listener) : null);
      return () => {
        listeners.get(listener)?.();
        listeners.delete(listener);
      };
    },
  };
}

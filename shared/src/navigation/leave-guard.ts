import { useEffect } from 'react';

/**
 * The leave-guard registry: a screen with work that would be lost (an upload batch) registers a
 * message; whoever navigates within the app (the shell's header, Sign Out) asks `confirmLeave()`
 * first. A plain module (one per page, as the shared package is a singleton), so it works across
 * the shell and every remote without a provider.
 */
const guards = new Map<symbol, string>();

/** Registers a guard; returns its removal. */
export function addLeaveGuard(message: string): () => void {
  const id = Symbol('leave-guard');
  guards.set(id, message);
  return () => {
    guards.delete(id);
  };
}

/** The message of the most recent active guard, or undefined when leaving loses nothing. */
export function activeLeaveMessage(): string | undefined {
  let last: string | undefined;
  for (const message of guards.values()) last = message;
  return last;
}

/**
 * Whether the user may leave: true when no guard is active, otherwise the user's answer to the
 * guard's question. `ask` is injected for tests; the browser's `confirm` by default.
 */
export function confirmLeave(ask: (message: string) => boolean = (m) => window.confirm(m)): boolean {
  const message = activeLeaveMessage();
  return message === undefined || ask(message);
}

/**
 * While `active`, in-app navigation asks `message` first (`confirmLeave`), and a reload or a
 * closed tab gets the browser's own "leave site?" prompt (`beforeunload`; browsers show their own
 * text, not `message`).
 */
export function useLeaveGuard(active: boolean, message: string): void {
  useEffect(() => {
    if (!active) return undefined;
    const remove = addLeaveGuard(message);
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers need returnValue set to show the prompt.
      event.returnValue = message;
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      remove();
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [active, message]);
}

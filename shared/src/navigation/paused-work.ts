import { useSyncExternalStore } from 'react';

/**
 * Work paused by a lost session, told to the sign-in page: the uploader sets "uploading is
 * paused: 412 of 2,000 went up…" when the session ends mid-batch, the shell sends the user to
 * /login, and the sign-in screen (another remote) shows it, so the user knows why they are there
 * and that signing in continues the batch. A plain module, one per page (the shared package is a
 * singleton), like the leave guard.
 */
let notice: string | null = null;
const listeners = new Set<() => void>();

/** Sets (or, with null, clears) the paused-work notice. */
export function setPausedWorkNotice(text: string | null): void {
  if (text === notice) return;
  notice = text;
  for (const listener of listeners) listener();
}

export function pausedWorkNotice(): string | null {
  return notice;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The paused-work notice, re-rendering when it changes. */
export function usePausedWorkNotice(): string | null {
  return useSyncExternalStore(subscribe, pausedWorkNotice, () => null);
}

/**
 * Waits until `condition` holds, checking on each turn of the event loop: no real sleep and no
 * budget of its own, so a busy machine only makes it take longer (the test's jest timeout, 60 s in
 * support/timeout.ts, still ends a wait that never ends). For what a server does after answering
 * (a socket it sees close, a temporary file it removes, a line it logs).
 */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

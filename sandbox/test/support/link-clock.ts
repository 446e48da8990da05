/** The link emulator's clock on jest's fake timers (tests that call jest.useFakeTimers()). */
import type { LinkClock } from '../../src/link-proxy';

export const fakeLinkClock: LinkClock = {
  now: () => jest.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

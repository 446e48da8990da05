import { watchSessionEnd } from '@trailsense/shared/aws';
import type { LockPort, NetworkPort, SessionWatch, TabChannel, TabMessage } from '../uploader-services';

/** navigator.onLine and the window's online/offline events. */
export const browserNetwork: NetworkPort = {
  online: () => navigator.onLine !== false,
  subscribe(listener) {
    const on = () => listener(true);
    const off = () => listener(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
    };
  },
};

/**
 * Web Locks, held for as long as a batch runs. Where the browser has none (older Safari), the
 * lock is granted at once: the journal's check before each upload still skips what another tab
 * has sent, but two tabs could then send the same photo at the same moment.
 */
/** Web Locks: the lock (its release) when granted with `options`, null when `ifAvailable` found it taken. */
function requestLock(locks: LockManager, name: string, options: LockOptions): Promise<(() => void) | null> {
  return new Promise<(() => void) | null>((resolve, reject) => {
    locks
      .request(name, options, (lock) => {
        if (!lock) return resolve(null);
        // The lock is held until this promise settles: the batch settles it by releasing.
        return new Promise<void>((release) => resolve(release));
      })
      .catch(reject);
  });
}

const pageLocks = () => (typeof navigator !== 'undefined' ? navigator.locks : undefined);

export const browserLocks: LockPort = {
  async acquire(name, signal, onWait) {
    const locks = pageLocks();
    if (!locks) return () => undefined;
    const held = (options: LockOptions) => requestLock(locks, name, options);
    const now = await held({ ifAvailable: true });
    if (now) return now;
    onWait();
    const later = await held({ signal });
    return later ?? (() => undefined);
  },
  async tryAcquire(name) {
    const locks = pageLocks();
    // Without Web Locks there is no other tab to know of: as acquire, the lock is "held".
    if (!locks) return () => undefined;
    return requestLock(locks, name, { ifAvailable: true });
  },
};

const CHANNEL_NAME = 'trailsense-uploads';

/** BroadcastChannel between the tabs of this browser (a no-op where there is none). */
export function browserTabs(): TabChannel {
  if (typeof BroadcastChannel === 'undefined') return { post: () => undefined, subscribe: () => () => undefined };
  const channel = new BroadcastChannel(CHANNEL_NAME);
  return {
    post: (message) => channel.postMessage(message),
    subscribe(listener) {
      const onMessage = (event: MessageEvent<TabMessage>) => listener(event.data);
      channel.addEventListener('message', onMessage);
      return () => channel.removeEventListener('message', onMessage);
    },
  };
}

/** Sign-outs and refused refreshes, in this tab or another (shared/src/user/session-end.ts). */
export function browserSession(clientId: string): SessionWatch {
  return { subscribe: (listener) => watchSessionEnd(clientId, listener) };
}

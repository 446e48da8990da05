/**
 * Keeps the screen (and so the computer) awake while a batch is sending (Screen Wake Lock):
 * asked when sending starts, asked again when the tab becomes visible (the browser releases it
 * whenever the tab is hidden), given up when sending ends, pauses or fails, or the member turns
 * it off. Framework-free; the browser is behind a port so tests drive it without one.
 */

/** A held lock, as the browser's WakeLockSentinel. */
export interface WakeLockSentinelLike {
  readonly released: boolean;
  release(): Promise<void>;
  addEventListener(type: 'release', listener: () => void): void;
}

export interface WakeLockPort {
  /** Null: the browser has no Screen Wake Lock. */
  request: ((type: 'screen') => Promise<WakeLockSentinelLike>) | null;
  /** Whether the page is visible now (a lock can only be had then). */
  visible(): boolean;
  /** Calls back when the page becomes visible again. */
  onVisible(listener: () => void): () => void;
}

/** unsupported: no API; off: not wanted now; held: the screen stays on; waiting: wanted but not held (hidden, refused). */
export type WakeLockStatus = 'unsupported' | 'off' | 'held' | 'waiting';

export class WakeLockKeeper {
  private wanted = false;
  private sentinel: WakeLockSentinelLike | null = null;
  private asking = false;
  private status: WakeLockStatus;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly port: WakeLockPort,
    private readonly onStatus: (status: WakeLockStatus) => void = () => undefined,
  ) {
    this.status = port.request ? 'off' : 'unsupported';
    this.unsubscribe = port.onVisible(() => void this.acquire());
  }

  get current(): WakeLockStatus {
    return this.status;
  }

  /** Sending (and the member wants the computer kept awake) or not. */
  want(wanted: boolean): void {
    if (this.wanted === wanted) return;
    this.wanted = wanted;
    if (wanted) void this.acquire();
    else this.release();
  }

  dispose(): void {
    this.unsubscribe();
    this.wanted = false;
    this.release();
  }

  private set(status: WakeLockStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.onStatus(status);
  }

  private async acquire(): Promise<void> {
    const request = this.port.request;
    if (!request || !this.wanted || this.asking || (this.sentinel && !this.sentinel.released)) return;
    if (!this.port.visible()) return this.set('waiting');
    this.asking = true;
    try {
      const sentinel = await request('screen');
      if (!this.wanted) {
        void sentinel.release().catch(() => undefined);
        return;
      }
      this.sentinel = sentinel;
      // The browser lets go when the tab is hidden: wanted still, it is asked again on return.
      sentinel.addEventListener('release', () => {
        if (this.sentinel === sentinel) this.sentinel = null;
        this.set(this.wanted ? 'waiting' : 'off');
      });
      this.set('held');
    } catch {
      // Refused (no user activation, a power-saving mode): wanted still, asked again on return.
      this.set('waiting');
    } finally {
      this.asking = false;
    }
  }

  private release(): void {
    const sentinel = this.sentinel;
    this.sentinel = null;
    if (sentinel && !sentinel.released) void sentinel.release().catch(() => undefined);
    if (this.status !== 'unsupported') this.set('off');
  }
}

/** The page's Screen Wake Lock and visibility. */
export function browserWakeLock(): WakeLockPort {
  const wakeLock =
    typeof navigator !== 'undefined' ? (navigator as { wakeLock?: { request(type: 'screen'): Promise<WakeLockSentinelLike> } }).wakeLock : undefined;
  return {
    request: wakeLock ? (type) => wakeLock.request(type) : null,
    visible: () => typeof document === 'undefined' || document.visibilityState === 'visible',
    onVisible(listener) {
      const onChange = () => {
        if (document.visibilityState === 'visible') listener();
      };
      document.addEventListener('visibilitychange', onChange);
      return () => document.removeEventListener('visibilitychange', onChange);
    },
  };
}

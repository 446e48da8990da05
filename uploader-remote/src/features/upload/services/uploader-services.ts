import type { Analytics } from '@trailsense/shared/analytics-events';
import type { SessionEndReason } from '@trailsense/shared/aws';
import type { ProductApi, UploadsApi } from './api/api-client';
import type { UploadJournal } from './journal/upload-journal';
import type { RetryPolicy } from '../model/retry';
import type { UploadTarget } from './upload/amplify-storage';
import type { FileProber } from './files/file-prober';
import type { CopyMaker } from './files/copy-maker';
import type { ThumbnailSource } from './files/thumbnail-cache';
import type { WakeSource } from './clock/background-clock';
import type { Timers, UploadJob } from './upload/upload-engine';
import type { NotificationPort } from './browser/end-notification';
import type { UploaderPreferences } from './browser/uploader-preferences';
import type { WakeLockPort } from './browser/wake-lock';

/** The browser's idea of the network (navigator.onLine and its events). */
export interface NetworkPort {
  online: () => boolean;
  /** Calls back with `true` when the browser goes online, `false` when offline. */
  subscribe: (listener: (online: boolean) => void) => () => void;
}

/**
 * A lock across the tabs of this browser (Web Locks): one batch per user and ranch runs at a
 * time, so two tabs never send the same photos at once.
 */
export interface LockPort {
  /**
   * Resolves with the release once the lock is held; `onWait` is called first if another tab
   * holds it. Rejects when `signal` aborts before the lock is granted.
   */
  acquire(name: string, signal: AbortSignal, onWait: () => void): Promise<() => void>;
  /** The lock's release when it is free now, else null (nothing waits). */
  tryAcquire(name: string): Promise<(() => void) | null>;
}

/** What tabs of the same browser tell each other (BroadcastChannel). */
export type TabMessage =
  /** Uploads succeeded in another tab: its allowance is this tab's too. */
  | { type: 'uploaded'; owner: string; ranchId: string; at: number; count: number }
  /** A batch ended in another tab: this month's usage is worth fetching again. */
  | { type: 'batch-ended'; owner: string; ranchId: string };

export interface TabChannel {
  post(message: TabMessage): void;
  subscribe(listener: (message: TabMessage) => void): () => void;
}

/** Tells when the signed-in session ends: a sign-out (in any tab) or a refresh the pool refused. */
export interface SessionWatch {
  subscribe(listener: (why: SessionEndReason) => void): () => void;
}

/**
 * Every side effect of the uploader, injected (docs/style.md#where-logic-lives): the app passes the real ones
 * (`realUploaderServices`), tests pass fakes.
 */
export interface UploaderServices {
  // Functions are properties, not methods: the controller and engine pass them on unbound
  // (`sleep: services.sleep`), so no implementation may depend on `this`.
  api: ProductApi;
  /** Upload-metrics, photo lookups and upload slots (the uploads API: docs/uploader.md#server-reservations). */
  uploads: UploadsApi;
  analytics: Analytics;
  journal: UploadJournal;
  prober: FileProber;
  /** Remembered cameras and the recent upload speed (localStorage). */
  prefs: UploaderPreferences;
  /** Smaller copies of photos, made in workers ("Send smaller copies": services/files/copy-maker.ts). */
  copies: CopyMaker;
  /** Thumbnails of the rows on screen (made by the prober, kept for scrolling back). */
  thumbnails: ThumbnailSource;
  upload: (target: UploadTarget, job: UploadJob, context: { onProgress: (fraction: number) => void; signal: AbortSignal }) => Promise<void>;
  /** Fresh temporary credentials; rejects with `SessionEndedError` when the session is gone. */
  refreshCredentials: (signal: AbortSignal) => Promise<void>;
  network: NetworkPort;
  /** Screen Wake Lock and the page's visibility (services/browser/wake-lock.ts). */
  wakeLock: WakeLockPort;
  /** Desktop notifications (services/browser/end-notification.ts). */
  notifications: NotificationPort;
  locks: LockPort;
  tabs: TabChannel;
  session: SessionWatch;
  /** A random unique id (object keys are this plus the original extension). */
  newId: () => string;
  now: () => Date;
  /** Waits, in the timer worker (background-clock.ts): at their pace in a hidden tab. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  timers: Timers;
  /** When the computer woke from sleep or the page was resumed (background-clock.ts). */
  wakes: WakeSource;
  random: () => number;
  /** Tells the sign-in page why the user is there (shared/src/navigation/paused-work.ts). */
  setPausedWorkNotice: (text: string | null) => void;
  /** Where failures that are only logged go (docs/uploader.md#uploader-messages). */
  logError: (message: string, error: unknown) => void;
  retry: RetryPolicy;
  /** An upload with no progress for this long is aborted and retried (upload-engine.ts). */
  stallMs: number;
}

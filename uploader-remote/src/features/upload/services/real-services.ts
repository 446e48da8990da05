import { setPausedWorkNotice, type RuntimeConfig } from '@trailsense/shared';
import { createAnalytics } from './analytics/analytics';
import { amplifyIdToken } from './api/amplify-token';
import { createProductApi, createUploadsApi } from './api/api-client';
import { openUploadJournal } from './journal/upload-journal';
import { DEFAULT_RETRY } from '../model/retry';
import { amplifyUpload, refreshAmplifyCredentials } from './upload/amplify-storage';
import { browserLocks, browserNetwork, browserSession, browserTabs } from './browser/browser-ports';
import { browserNotifications } from './browser/end-notification';
import { browserWakeLock } from './browser/wake-lock';
import { createWorkerProber } from './files/file-prober';
import { createCopyMaker } from './files/copy-maker';
import { createBackgroundClock } from './clock/background-clock';
import { DEFAULT_STALL_MS } from './upload/upload-engine';
import { thumbnailCache } from './files/thumbnail-cache';
import { pageStorage, storedPreferences } from './browser/uploader-preferences';
import type { UploaderServices } from './uploader-services';

// One set per config for the page's life: the batch controller outlives the screen (a sign-in
// in between), and must find the same services when the screen comes back.
const made = new WeakMap<RuntimeConfig, UploaderServices>();

/** The uploader's services for a runtime config: the product API, analytics, Amplify storage, the journal, the browser. */
export function realUploaderServices(config: RuntimeConfig): UploaderServices {
  const existing = made.get(config);
  if (existing) return existing;
  const prober = createWorkerProber();
  // The uploader's waits and wakes, off the page's throttled timers (docs/uploader.md#a-batch-left-running).
  const clock = createBackgroundClock({ lifecycle: document });
  const services: UploaderServices = {
    api: createProductApi({ baseUrl: config.api.baseUrl, getIdToken: amplifyIdToken }),
    uploads: createUploadsApi({ baseUrl: config.api.uploadsBaseUrl, getIdToken: amplifyIdToken }),
    analytics: createAnalytics(config.analytics),
    journal: openUploadJournal(),
    prober,
    copies: createCopyMaker(),
    prefs: storedPreferences(pageStorage()),
    thumbnails: thumbnailCache((file, signal) => prober.thumbnail(file, signal)),
    upload: amplifyUpload,
    refreshCredentials: () => refreshAmplifyCredentials(),
    network: browserNetwork,
    wakeLock: browserWakeLock(),
    notifications: browserNotifications(),
    locks: browserLocks,
    tabs: browserTabs(),
    session: browserSession(config.auth.userPoolClientId),
    newId: () => crypto.randomUUID(),
    now: () => new Date(),
    sleep: clock.sleep,
    timers: clock.timers,
    wakes: clock.wakes,
    random: Math.random,
    setPausedWorkNotice,
    logError: (message, error) => console.error(message, error),
    retry: DEFAULT_RETRY,
    stallMs: DEFAULT_STALL_MS,
  };
  made.set(config, services);
  // Ask the browser to keep the journal under storage pressure (granted silently or not at all).
  void navigator.storage?.persist?.().catch(() => undefined);
  return services;
}

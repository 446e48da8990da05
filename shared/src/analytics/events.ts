/** The upload events of docs/product.md#analytics-events. */
export type UploadAnalyticsEvent =
  { name: 'imageUpload'; ranchid: string; key: string; uploadCount: number } | { name: 'uploadFailure'; ranchid: string; failureCount: number };

/** The Core Web Vitals recorded (docs/monitoring.md#webvital). */
export type VitalName = 'LCP' | 'INP' | 'CLS' | 'TTFB';

/**
 * One Core Web Vital of one page view, on the route the page was loaded on (docs/monitoring.md#webvital).
 * Milliseconds, except CLS (a unitless score).
 */
export interface WebVitalEvent {
  name: 'webVital';
  metric: VitalName;
  value: number;
  rating: 'good' | 'needs-improvement' | 'poor';
  /** The route table's path (`/login`), or `404`: never the address itself. */
  route: string;
  navigationType: 'navigate' | 'reload' | 'back-forward' | 'back-forward-cache' | 'prerender' | 'restore' | 'soft-navigation';
}

/** Why a batch ended without sending a photo, by kind (docs/monitoring.md#batchoutcome). */
export interface BatchFailures {
  /** Upload attempts used up, or refused for good (a 403, a 400). */
  upload: number;
  /** Of `upload`: the last attempt made no progress for the stall time. */
  stalled: number;
  /** No slot: the month's allowance is used up. */
  limit: number;
  /** No slot: the uploads API could not be reached. */
  unavailable: number;
  /** Could not be read, or not a JPEG after all. */
  unreadable: number;
}

/** One batch of the uploader, when it ends (docs/monitoring.md#batchoutcome). */
export interface BatchOutcomeEvent {
  name: 'batchOutcome';
  /** Photos sent. */
  photos: number;
  /** Their bytes. */
  bytes: number;
  /** From the first photo's admission to the end, ms (waiting for another tab's batch not included). */
  durationMs: number;
  /** bytes / duration, bytes per second (0 for an empty batch). */
  goodputBytesPerSecond: number;
  /** Attempts made again after a failure (transient errors, credentials refreshed, stalls). */
  retries: number;
  failures: BatchFailures;
  /** How long the tab was hidden while the batch ran, ms. */
  hiddenMs: number;
  /** Photos the journal or the server already had: not sent again. */
  skippedDuplicates: number;
  /** Stop was pressed. */
  stopped: boolean;
  /** "Send smaller copies" was on for the batch (absent from uploaders before copies: off). */
  smallerCopies?: boolean;
  /** Of `photos`, those sent as smaller copies. */
  copies?: number;
  /** The originals' bytes less their copies' (what copies spared the link), bytes. */
  bytesSaved?: number;
}

/** Where a client error came from (docs/monitoring.md#clienterror). */
export type ClientErrorKind = 'error' | 'rejection' | 'remote-load';

/** An uncaught error, an unhandled rejection or a remote that did not load (docs/monitoring.md#clienterror). */
export interface ClientErrorEvent {
  name: 'clientError';
  kind: ClientErrorKind;
  /** The error's name and message, with e-mail addresses, URLs' queries and long numbers scrubbed; at most 300 characters. */
  message: string;
  /** The script's path on its origin (`/static/js/main.1a2b.js`), when known. */
  source?: string;
  /** The remote module that did not load (`uploader/Uploader`), for `remote-load`. */
  module?: string;
  route: string;
  /** The shell's build (`__APP_VERSION__`). */
  release: string;
  /** Same errors of this page left out by the rate limit before this one. */
  suppressed: number;
}

/** Real-user metrics and client errors: no personal data and no ranch id. */
export type MonitoringEvent = WebVitalEvent | BatchOutcomeEvent | ClientErrorEvent;

/** The monitoring events any visitor's page sends to the collection route (docs/monitoring.md#delivery). */
export type CollectedEvent = WebVitalEvent | ClientErrorEvent;

/** The analytics events, by name: docs/product.md#analytics-events and docs/monitoring.md. */
export type AnalyticsEvent = UploadAnalyticsEvent | MonitoringEvent;

/** The analytics port: screens record events through this and never know where they go. */
export interface Analytics {
  /** Records one event. Never rejects: analytics must not break an upload (failures are logged). */
  track(event: AnalyticsEvent): Promise<void>;
}

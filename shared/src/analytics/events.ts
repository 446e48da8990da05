/** The analytics events of docs/product.md#analytics-events, by name. */
export type AnalyticsEvent =
  { name: 'imageUpload'; ranchid: string; key: string; uploadCount: number } | { name: 'uploadFailure'; ranchid: string; failureCount: number };

/** The analytics port: screens record events through this and never know where they go. */
export interface Analytics {
  /** Records one event. Never rejects: analytics must not break an upload (failures are logged). */
  track(event: AnalyticsEvent): Promise<void>;
}

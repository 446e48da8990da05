/** SPEC.md §3's analytics events, by name. */
export type AnalyticsEvent =
  | { name: 'imageUpload'; ranchid: string; key: string; uploadCount: number }
  | { name: 'uploadFailure'; ranchid: string; failureCount: number };

/** The analytics port: screens record events through this and never know where they go. */
export interface Analytics {
  /** Records one event. Never rejects: analytics must not break an upload (failures are logged). */
  track(event: AnalyticsEvent): Promise<void>;
}

/** The event's fields without its name: what a sink stores as the record's attributes. */
export function eventAttributes(event: AnalyticsEvent): Record<string, string | number> {
  const { name: _name, ...fields } = event;
  return fields;
}

import type { AnalyticsConfig } from '@trailsense/shared';
import type { Analytics, AnalyticsEvent } from '@trailsense/shared/analytics-events';

const logFailure = (event: AnalyticsEvent, error: unknown) => console.error(`Could not record the ${event.name} analytics event`, error);

/** Records nothing (`analytics.provider: "none"`). */
export const noAnalytics: Analytics = { track: async () => {} };

/** The sandbox sink (`analytics.provider: "sandbox"`): one JSON POST per event. */
export function sandboxAnalytics(endpoint: string, fetchImpl: typeof fetch = (...args) => fetch(...args)): Analytics {
  return {
    async track(event) {
      try {
        const res = await fetchImpl(endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(event),
          keepalive: true,
        });
        if (!res.ok) throw new Error(`the sink answered ${res.status}`);
      } catch (error) {
        logFailure(event, error);
      }
    },
  };
}

/** What the Firehose adapter needs from Amplify; injected so it is tested without AWS. */
export interface FirehoseModule {
  record(input: { streamName: string; data: Uint8Array }): void;
  flushEvents(): void;
}

/** Adds Amplify's Analytics.KinesisFirehose config to the page's one Amplify instance, once. */
async function configureFirehose(region: string): Promise<void> {
  const { Amplify } = await import('aws-amplify');
  const current = Amplify.getConfig();
  if (current.Analytics?.KinesisFirehose?.region === region) return;
  // Amplify.configure replaces the resources config (libraryOptions are kept), so pass it all.
  Amplify.configure({ ...current, Analytics: { ...current.Analytics, KinesisFirehose: { region } } });
}

const loadAmplifyFirehose = async (region: string): Promise<FirehoseModule> => {
  await configureFirehose(region);
  return import('aws-amplify/analytics/kinesis-firehose');
};

/**
 * Production (`analytics.provider: "firehose"`): Kinesis Firehose through Amplify, whose
 * credentials come from the identity pool. Amplify's analytics code is loaded on the first
 * event, so a page that records nothing pays nothing for it.
 */
export function firehoseAnalytics(
  config: { region: string; streamName: string },
  load: (region: string) => Promise<FirehoseModule> = loadAmplifyFirehose,
): Analytics {
  let module: Promise<FirehoseModule> | undefined;
  const encoder = new TextEncoder();
  return {
    async track(event) {
      try {
        module ??= load(config.region);
        const firehose = await module;
        firehose.record({ streamName: config.streamName, data: encoder.encode(JSON.stringify(event)) });
      } catch (error) {
        module = undefined;
        logFailure(event, error);
      }
    },
  };
}

/** The analytics adapter the runtime config names. */
export function createAnalytics(config: AnalyticsConfig): Analytics {
  switch (config.provider) {
    case 'sandbox':
      return sandboxAnalytics(config.endpoint);
    case 'firehose':
      return firehoseAnalytics(config);
    case 'none':
      return noAnalytics;
  }
}

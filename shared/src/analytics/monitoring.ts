/**
 * `@trailsense/shared/monitoring`: what the shell needs to record real-user metrics and client
 * errors (docs/monitoring.md), apart from the light entry so that no page pays for it before it
 * is interactive: the shell imports it after the page has loaded.
 */
import type { AnalyticsConfig } from '../config/types';

export { createAnalytics } from './analytics';
export { vitalsSampleRate, DEFAULT_VITALS_SAMPLE_RATE } from '../config/types';
export { sampledPageView, webVitalEvent, type VitalMetric } from './vitals';
export { clientErrorEvent, createErrorGate, DEFAULT_ERROR_GATE, scrubText, scriptPath, type ClientErrorInput, type GateVerdict } from './client-errors';

/**
 * How a page's monitoring events can be delivered: `now` (the sandbox's sink takes anyone's),
 * `with-session` (Firehose: its credentials come from the identity pool, which has no identities
 * for visitors who are not signed in, infra/src/stacks/identity-stack.ts; Amplify is configured
 * with the session first), or `off`.
 */
export function monitoringDelivery(config: AnalyticsConfig, signedIn: boolean): 'now' | 'with-session' | 'off' {
  switch (config.provider) {
    case 'sandbox':
      return 'now';
    case 'firehose':
      return signedIn ? 'with-session' : 'off';
    case 'none':
      return 'off';
  }
}

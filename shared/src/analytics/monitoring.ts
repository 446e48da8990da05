/**
 * `@trailsense/shared/monitoring`: what the shell needs to record real-user metrics and client
 * errors (docs/monitoring.md), apart from the light entry so that no page pays for it before it
 * is interactive: the shell imports it after the page has loaded.
 */
import type { RuntimeConfig } from '../config/types';

export { vitalsSampleRate, DEFAULT_VITALS_SAMPLE_RATE } from '../config/types';
export { sampledPageView, webVitalEvent, type VitalMetric } from './vitals';
export { clientErrorEvent, createErrorGate, DEFAULT_ERROR_GATE, scrubText, scriptPath, type ClientErrorInput, type GateVerdict } from './client-errors';
export {
  batchBodies,
  browserTransport,
  createMonitoringSender,
  DEFAULT_SEND_DELAY_MS,
  onPageLeave,
  type BatchTransport,
  type MonitoringSender,
} from './monitoring-sender';

/**
 * Where a page sends its monitoring events: the uploads API's collection route
 * (`<api.uploadsBaseUrl>/events`, docs/monitoring.md#delivery), which takes them from every
 * visitor, signed in or not; null when the config records no analytics (`provider: "none"`).
 */
export function monitoringEndpoint(config: Pick<RuntimeConfig, 'api' | 'analytics'>): string | null {
  if (config.analytics.provider === 'none') return null;
  return `${config.api.uploadsBaseUrl.replace(/\/+$/, '')}/events`;
}

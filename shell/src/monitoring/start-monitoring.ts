/**
 * Real-user metrics and client errors (docs/monitoring.md), loaded after the page has loaded so
 * that no page waits for it: the Core Web Vitals of a sampled page view, with web-vitals (loaded
 * only for a sampled view), and the page's client errors through the error gate. Both go to the
 * analytics the runtime config names. The rules are the shared package's pure functions.
 */
import {
  clientErrorEvent,
  createAnalytics,
  createErrorGate,
  monitoringDelivery,
  sampledPageView,
  vitalsSampleRate,
  webVitalEvent,
  type VitalMetric,
} from '@trailsense/shared/monitoring';
import type { AnalyticsEvent, RuntimeConfig } from '@trailsense/shared';
import { findRoute } from '../app/route-table';
import { sendClientErrorsTo } from './early-errors';

/** The route table's path for an address, or `404`: never the address itself (docs/monitoring.md#webvital). */
export function routeOf(pathname: string): string {
  return findRoute(pathname)?.path ?? '404';
}

export interface MonitoringSetup {
  config: RuntimeConfig;
  /** Whether a session is stored (Firehose can only take events with one). */
  signedIn: boolean;
  /** Configures Amplify with the session (before the first Firehose event). */
  prepare: () => Promise<unknown>;
  /** The address the page was loaded at: its vitals are this route's. */
  landingPath: string;
  /** The address now (for an error). */
  currentPath: () => string;
  random?: () => number;
  now?: () => number;
  /** Loads web-vitals (injected in tests). */
  loadVitals?: () => Promise<Record<'onLCP' | 'onINP' | 'onCLS' | 'onTTFB', (report: (metric: VitalMetric) => void) => void>>;
}

/** Starts recording this page's vitals (when sampled) and client errors. */
export async function startMonitoring(setup: MonitoringSetup): Promise<void> {
  const { config, random = Math.random, now = () => Date.now(), loadVitals = () => import('web-vitals') } = setup;
  const delivery = monitoringDelivery(config.analytics, setup.signedIn);
  if (delivery === 'off') return sendClientErrorsTo(() => undefined);
  const analytics = createAnalytics(config.analytics);
  const ready =
    delivery === 'with-session'
      ? setup.prepare().then(
          () => true,
          () => false,
        )
      : Promise.resolve(true);
  const send = (event: AnalyticsEvent) => void ready.then((ok) => (ok ? analytics.track(event) : undefined));

  const admit = createErrorGate(now);
  const release = __APP_VERSION__;
  sendClientErrorsTo((input) => {
    const event = clientErrorEvent(input, routeOf(setup.currentPath()), release);
    const verdict = admit(event);
    if (verdict.report) send({ ...event, suppressed: verdict.suppressed });
  });

  if (!sampledPageView(vitalsSampleRate(config.analytics), random)) return;
  const route = routeOf(setup.landingPath);
  const vitals = await loadVitals();
  const report = (metric: VitalMetric) => {
    const event = webVitalEvent(metric, route);
    if (event) send(event);
  };
  vitals.onTTFB(report);
  vitals.onLCP(report);
  vitals.onCLS(report);
  vitals.onINP(report);
}

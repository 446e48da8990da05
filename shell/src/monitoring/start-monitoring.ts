/**
 * Real-user metrics and client errors (docs/monitoring.md), loaded after the page has loaded so
 * that no page waits for it: the Core Web Vitals of a sampled page view, with web-vitals (loaded
 * only for a sampled view), and the page's client errors through the error gate. Both go, batched,
 * to the uploads API's collection route for every visitor, signed in or not, and the last batch
 * as a beacon when the page is hidden or closed (docs/monitoring.md#delivery). The rules are the
 * shared package's pure functions.
 */
import {
  browserTransport,
  clientErrorEvent,
  createErrorGate,
  createMonitoringSender,
  monitoringEndpoint,
  onPageLeave,
  sampledPageView,
  vitalsSampleRate,
  webVitalEvent,
  type BatchTransport,
  type VitalMetric,
} from '@trailsense/shared/monitoring';
import type { RuntimeConfig } from '@trailsense/shared';
import { findRoute } from '../app/route-table';
import { sendClientErrorsTo } from './early-errors';

/** The route table's path for an address, or `404`: never the address itself (docs/monitoring.md#webvital). */
export function routeOf(pathname: string): string {
  return findRoute(pathname)?.path ?? '404';
}

/**
 * A metric as web-vitals reports it with `reportSoftNavs`: `navigationURL` is the address the
 * metric is for — the landing page's, or a route reached by a click (a soft navigation) — which
 * may no longer be the address shown when it is reported.
 */
export type RoutedMetric = VitalMetric & { navigationURL?: string };

/** The route a metric is for: its own navigation's address, else the landing page's. */
export function routeOfMetric(metric: RoutedMetric, landingPath: string): string {
  if (!metric.navigationURL) return routeOf(landingPath);
  try {
    return routeOf(new URL(metric.navigationURL, 'http://page.invalid').pathname);
  } catch {
    return routeOf(landingPath);
  }
}

/** web-vitals' report options: soft navigations measured too, where the browser can (docs/monitoring.md#webvital). */
export const SOFT_NAVS = { reportSoftNavs: true } as const;

type OnMetric = (report: (metric: RoutedMetric) => void, options?: typeof SOFT_NAVS) => void;

export interface MonitoringSetup {
  config: RuntimeConfig;
  /** The address the page was loaded at: its vitals are this route's. */
  landingPath: string;
  /** The address now (for an error). */
  currentPath: () => string;
  random?: () => number;
  now?: () => number;
  /** Loads web-vitals (injected in tests). */
  loadVitals?: () => Promise<Record<'onLCP' | 'onINP' | 'onCLS' | 'onTTFB', OnMetric>>;
  /** Sends one batch to `url` (injected in tests; the browser's beacon or keepalive fetch). */
  transport?: (url: string) => BatchTransport;
}

const defaultTransport = (url: string): BatchTransport =>
  browserTransport(url, typeof navigator.sendBeacon === 'function' ? (to, body) => navigator.sendBeacon(to, body) : undefined, (...args) => fetch(...args));

/** Starts recording this page's vitals (when sampled) and client errors. */
export async function startMonitoring(setup: MonitoringSetup): Promise<void> {
  const { config, random = Math.random, now = () => Date.now(), loadVitals = () => import('web-vitals'), transport = defaultTransport } = setup;
  const endpoint = monitoringEndpoint(config);
  if (endpoint === null) return sendClientErrorsTo(() => undefined);
  const sender = createMonitoringSender({
    transport: transport(endpoint),
    hidden: () => document.visibilityState === 'hidden',
    setTimer: (callback, ms) => window.setTimeout(callback, ms),
    clearTimer: (timer) => window.clearTimeout(timer as number),
  });
  onPageLeave(window, document, () => sender.flush(true));

  const admit = createErrorGate(now);
  const release = __APP_VERSION__;
  sendClientErrorsTo((input) => {
    const event = clientErrorEvent(input, routeOf(setup.currentPath()), release);
    const verdict = admit(event);
    if (verdict.report) sender.send({ ...event, suppressed: verdict.suppressed });
  });

  if (!sampledPageView(vitalsSampleRate(config.analytics), random)) return;
  const vitals = await loadVitals();
  const report = (metric: RoutedMetric) => {
    // A soft navigation has no request of its own: web-vitals says 0, which is no measure.
    if (metric.name === 'TTFB' && metric.navigationType === 'soft-navigation') return;
    const event = webVitalEvent(metric, routeOfMetric(metric, setup.landingPath));
    if (event) sender.send(event);
  };
  // The landing page's vitals, and each route a click reaches (soft navigations) where the browser
  // measures them: Chromium 151+; elsewhere the landing page only. LCP, INP and CLS start again
  // on each route; TTFB is the landing page's.
  vitals.onTTFB(report);
  vitals.onLCP(report, SOFT_NAVS);
  vitals.onCLS(report, SOFT_NAVS);
  vitals.onINP(report, SOFT_NAVS);
}

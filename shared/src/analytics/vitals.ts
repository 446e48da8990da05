/**
 * Core Web Vitals as analytics events (docs/monitoring.md#webvital): which page views are
 * measured, and the event for one metric. Pure: the metric comes in as plain data (web-vitals'
 * `Metric` fits), randomness is injected.
 */
import type { VitalName, WebVitalEvent } from './events';

const VITALS: ReadonlySet<string> = new Set<VitalName>(['LCP', 'INP', 'CLS', 'TTFB']);

/** What the event needs from a web-vitals `Metric`. */
export interface VitalMetric {
  name: string;
  value: number;
  rating: WebVitalEvent['rating'];
  navigationType: WebVitalEvent['navigationType'];
}

/**
 * Whether this page view is measured: `rate` is the share of page views (0–1,
 * `analytics.vitalsSampleRate`), `random` a uniform draw in [0, 1) such as Math.random.
 * Decided once per page view, so a measured view reports all its vitals.
 */
export function sampledPageView(rate: number, random: () => number): boolean {
  return random() < rate;
}

/**
 * The event for one metric on `route`, or null for a metric that is not recorded (FCP). Times
 * are whole milliseconds; CLS keeps 4 decimals.
 */
export function webVitalEvent(metric: VitalMetric, route: string): WebVitalEvent | null {
  if (!VITALS.has(metric.name)) return null;
  const name = metric.name as VitalName;
  const value = name === 'CLS' ? Math.round(metric.value * 10_000) / 10_000 : Math.round(metric.value);
  return { name: 'webVital', metric: name, value: Math.max(0, value), rating: metric.rating, route, navigationType: metric.navigationType };
}

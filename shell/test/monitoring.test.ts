import type { RuntimeConfig } from '@trailsense/shared';
import type { AnalyticsEvent } from '@trailsense/shared/analytics-events';
import type { VitalMetric } from '@trailsense/shared/monitoring';
import { testConfig } from '../../test-support/runtime-config';

import type * as EarlyErrors from '../src/monitoring/early-errors';
import type * as StartMonitoring from '../src/monitoring/start-monitoring';

type Early = typeof EarlyErrors;
type Start = typeof StartMonitoring;

/** Fresh modules per test: the error queue is the page's, one per page. */
function load(): { early: Early; start: Start } {
  let modules!: { early: Early; start: Start };
  jest.isolateModules(() => {
    modules = { early: jest.requireActual<Early>('../src/monitoring/early-errors'), start: jest.requireActual<Start>('../src/monitoring/start-monitoring') };
  });
  return modules;
}

/** The collection route, faked at the transport: each batch sent, to where, and whether as the page left. */
interface Sent {
  url: string;
  events: AnalyticsEvent[];
  leaving: boolean;
}
let sent: Sent[];
/** Every event sent, in order. */
let posted: AnalyticsEvent[];
beforeEach(() => {
  sent = [];
  posted = [];
  global.fetch = () => {
    throw new Error('unexpected fetch: monitoring sends through its transport');
  };
});
const fakeTransport = (url: string) => {
  // Each test's own arrays: an earlier test's sender (its listeners stay on the window) never adds to them.
  const [mine, all] = [sent, posted];
  return (body: string, leaving: boolean) => {
    const { events } = JSON.parse(body) as { events: AnalyticsEvent[] };
    mine.push({ url, events, leaving });
    all.push(...events);
  };
};
/** The page is left: what is queued goes at once. */
const leavePage = () => window.dispatchEvent(new Event('pagehide'));

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** web-vitals, faked: each metric reported once, as the library would; the options each was asked with. */
function fakeVitals(metrics: (VitalMetric & { navigationURL?: string })[]) {
  let loads = 0;
  const asked = new Map<string, unknown>();
  const on = (name: string) => (report: (metric: VitalMetric) => void, options?: unknown) => {
    asked.set(name, options);
    metrics.filter((m) => m.name === name).forEach(report);
  };
  return {
    asked,
    loads: () => loads,
    load: async () => {
      loads++;
      return { onLCP: on('LCP'), onINP: on('INP'), onCLS: on('CLS'), onTTFB: on('TTFB') };
    },
  };
}

const withRate = (rate: number | undefined, provider: 'sandbox' | 'firehose' = 'sandbox'): RuntimeConfig => ({
  ...testConfig,
  analytics:
    provider === 'sandbox'
      ? { provider, endpoint: 'http://localhost:4104/events', ...(rate === undefined ? {} : { vitalsSampleRate: rate }) }
      : { provider, region: 'us-east-2', streamName: 'events', ...(rate === undefined ? {} : { vitalsSampleRate: rate }) },
});

const metrics: VitalMetric[] = [
  { name: 'TTFB', value: 81.2, rating: 'good', navigationType: 'navigate' },
  { name: 'FCP', value: 500, rating: 'good', navigationType: 'navigate' },
  { name: 'LCP', value: 1500, rating: 'good', navigationType: 'navigate' },
];

const setup = (config: RuntimeConfig, vitals: ReturnType<typeof fakeVitals>, extra: Partial<Parameters<Start['startMonitoring']>[0]> = {}) => ({
  config,
  landingPath: '/login/',
  currentPath: () => '/uploader',
  loadVitals: vitals.load,
  transport: fakeTransport,
  ...extra,
});

describe('startMonitoring', () => {
  it('records a sampled page view’s vitals on its route, FCP left out', async () => {
    const { start } = load();
    const vitals = fakeVitals(metrics);
    await start.startMonitoring(setup(withRate(1), vitals, { random: () => 0.99 }));
    await settle();
    leavePage();
    expect(posted).toEqual([
      { name: 'webVital', metric: 'TTFB', value: 81, rating: 'good', route: '/login', navigationType: 'navigate' },
      { name: 'webVital', metric: 'LCP', value: 1500, rating: 'good', route: '/login', navigationType: 'navigate' },
    ]);
  });

  it('records the vitals of a route reached by a click on that route, where the browser measures soft navigations', async () => {
    const { start } = load();
    const vitals = fakeVitals([
      { name: 'TTFB', value: 80, rating: 'good', navigationType: 'navigate', navigationURL: 'https://trailsense.example/login/' },
      { name: 'LCP', value: 1200, rating: 'good', navigationType: 'navigate', navigationURL: 'https://trailsense.example/login/' },
      // After a click to /uploader: the browser says which address each metric is for.
      { name: 'TTFB', value: 0, rating: 'good', navigationType: 'soft-navigation', navigationURL: 'https://trailsense.example/uploader' },
      { name: 'LCP', value: 310, rating: 'good', navigationType: 'soft-navigation', navigationURL: 'https://trailsense.example/uploader' },
      { name: 'CLS', value: 0.01234, rating: 'good', navigationType: 'soft-navigation', navigationURL: 'https://trailsense.example/uploader?x=1#y' },
      { name: 'INP', value: 96, rating: 'good', navigationType: 'soft-navigation', navigationURL: 'https://trailsense.example/no/such/page' },
    ]);
    await start.startMonitoring(setup(withRate(1), vitals, { random: () => 0 }));
    await settle();
    leavePage();
    expect(vitals.asked.get('LCP')).toEqual({ reportSoftNavs: true });
    expect(vitals.asked.get('CLS')).toEqual({ reportSoftNavs: true });
    expect(vitals.asked.get('INP')).toEqual({ reportSoftNavs: true });
    expect(posted.map((e) => ('metric' in e ? [e.metric, e.route, e.navigationType] : null))).toEqual([
      ['TTFB', '/login', 'navigate'],
      // No TTFB for a soft navigation (no request of its own).
      ['LCP', '/login', 'navigate'],
      ['LCP', '/uploader', 'soft-navigation'],
      ['CLS', '/uploader', 'soft-navigation'],
      ['INP', '404', 'soft-navigation'],
    ]);
  });

  it('does not even load web-vitals for a page view left out of the sample', async () => {
    const { start } = load();
    const vitals = fakeVitals(metrics);
    await start.startMonitoring(setup(withRate(0.25), vitals, { random: () => 0.5 }));
    await settle();
    leavePage();
    expect(vitals.loads()).toBe(0);
    expect(posted).toEqual([]);
  });

  it('names an unknown address 404, never the address', async () => {
    const { start } = load();
    await start.startMonitoring(setup(withRate(1), fakeVitals(metrics), { landingPath: '/subscriber@trailsense.example', random: () => 0 }));
    await settle();
    leavePage();
    expect(posted.map((e) => ('route' in e ? e.route : null))).toEqual(['404', '404']);
  });

  it('sends to the uploads API’s collection route with Firehose as with the sandbox: a visitor needs no session', async () => {
    const { start, early } = load();
    await start.startMonitoring(setup(withRate(1, 'firehose'), fakeVitals(metrics), { random: () => 0 }));
    early.reportClientError({ kind: 'error', message: 'boom' });
    await settle();
    leavePage();
    expect(sent.map((batch) => batch.url)).toEqual(['http://localhost:4103/events']);
    expect(posted.map((e) => e.name)).toEqual(['webVital', 'webVital', 'clientError']);
  });

  it('records nothing, and loads no web-vitals, with analytics off', async () => {
    const { start, early } = load();
    const vitals = fakeVitals(metrics);
    await start.startMonitoring(setup({ ...testConfig, analytics: { provider: 'none' } }, vitals, { random: () => 0 }));
    early.reportClientError({ kind: 'error', message: 'boom' });
    await settle();
    leavePage();
    expect(vitals.loads()).toBe(0);
    expect(sent).toEqual([]);
  });

  it('keeps events for one batch while the page is shown, and sends it as a beacon when the page is left', async () => {
    const { start } = load();
    await start.startMonitoring(setup(withRate(1), fakeVitals(metrics), { random: () => 0 }));
    await settle();
    expect(sent).toEqual([]);
    leavePage();
    expect(sent).toEqual([
      { url: 'http://localhost:4103/events', events: [expect.objectContaining({ metric: 'TTFB' }), expect.objectContaining({ metric: 'LCP' })], leaving: true },
    ]);
  });

  it('reports the errors from before it started, then each new one once, on the route they happen on', async () => {
    const { start, early } = load();
    const target = new EventTarget() as unknown as Window;
    early.captureErrors(target);
    target.dispatchEvent(
      new ErrorEvent('error', {
        message: 'x',
        error: new TypeError('no ranch for subscriber@trailsense.example'),
        filename: 'http://localhost:3000/static/js/main.js?v=1',
      }),
    );
    await start.startMonitoring(setup(withRate(0), fakeVitals([]), { random: () => 0.5 }));
    const rejection = new Event('unhandledrejection') as Event & { reason?: unknown };
    rejection.reason = new Error('late');
    target.dispatchEvent(rejection);
    early.reportClientError({ kind: 'remote-load', message: 'Failed to get manifest', module: 'uploader/Uploader' });
    early.reportClientError({ kind: 'remote-load', message: 'Failed to get manifest', module: 'uploader/Uploader' });
    await settle();
    leavePage();
    expect(posted).toEqual([
      {
        name: 'clientError',
        kind: 'error',
        message: 'TypeError: no ranch for <email>',
        source: '/static/js/main.js',
        route: '/uploader',
        release: '0.0.0-test',
        suppressed: 0,
      },
      { name: 'clientError', kind: 'rejection', message: 'Error: late', route: '/uploader', release: '0.0.0-test', suppressed: 0 },
      {
        name: 'clientError',
        kind: 'remote-load',
        message: 'Failed to get manifest',
        module: 'uploader/Uploader',
        route: '/uploader',
        release: '0.0.0-test',
        suppressed: 0,
      },
    ]);
  });
});

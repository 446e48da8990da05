// bench/blocking: main-thread blocking per route, the quantity behind Lighthouse's Total Blocking
// Time, measured directly and many times. Each route is loaded RUNS times (default 7) in real
// Chromium, each load in a fresh context with a cold cache and the CPU slowed CPU× (default 4,
// Lighthouse's mobile factor), against the production builds served as in production; app routes
// signed in where they need it. From a performance trace of each load: every main-thread task
// over 50 ms, and the blocking time after first contentful paint (each task's time beyond its
// first 50 ms, as Lighthouse counts it) until the network is idle and the route usable. Without
// a slow network the first paint comes late on the app routes that are not prerendered, after
// most of their tasks, so the same sum from the start of the load is shown beside it.
// Prints the median run per route, with all runs, and that run's long tasks; asserts nothing.
// Lighthouse (bench/lighthouse.mjs) simulates a slow network around a single observed load,
// which swings by ±50 ms here; seven direct loads per route compare two builds in minutes.
// With TASKS=1, each long task of the median load is listed with when it ran (ms from the start
// of the navigation, and whether between first paint and usable) and what it spent its time on
// (the scripts it evaluated or called into, style, layout), to find whose code a task is.
//   npm run bench:blocking -- /login          (after npm run build)
//   RUNS=9 npm run bench:blocking -- /login /uploader
//   TASKS=1 npm run bench:blocking -- /login
import { chromium, type Browser, type CDPSession } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { accounts, startSignedIn } from '../e2e/support/session';
import { ROUTES, startStack, stop } from './stack';

const RUNS = Number(process.env.RUNS ?? 7);
const CPU = Number(process.env.CPU ?? 4);
const LONG_TASK_MS = 50;
const TASKS = process.env.TASKS === '1';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: { url?: string; functionName?: string; type?: string } };
}

/** A long task: when it ran (ms from navigation start), how long, and where its time went. */
interface LongTask {
  start: number;
  duration: number;
  /** Between first contentful paint and the route being usable. */
  beforeUsable: boolean;
  /** The largest parts, e.g. "EvaluateScript 441.f650c301b9.js 62". */
  parts: string[];
}

/** Trace events that say what a task did, and the label of each. */
const PART_NAMES = new Set([
  'EvaluateScript',
  'FunctionCall',
  'v8.compile',
  'ParseHTML',
  'UpdateLayoutTree',
  'Layout',
  'Paint',
  'ParseAuthorStyleSheet',
  'TimerFire',
  'FireAnimationFrame',
  'EventDispatch',
  'RunMicrotasks',
  'v8.evaluateModule',
  'MajorGC',
  'MinorGC',
]);

function partLabel(event: TraceEvent): string {
  const url = event.args?.data?.url;
  const file = url ? url.slice(url.lastIndexOf('/') + 1) || url : '';
  const fn = event.args?.data?.functionName;
  return [event.name, file, fn && event.name === 'FunctionCall' ? `${fn}()` : '', event.args?.data?.type ?? ''].filter(Boolean).join(' ');
}

/**
 * Where a task's time went: the outermost attributable events inside it (a script's evaluation
 * counts as one part, not also its nested calls), summed by label, largest first.
 */
function taskParts(task: TraceEvent, thread: TraceEvent[]): string[] {
  const end = task.ts + task.dur!;
  const inside = thread.filter((e) => e.ph === 'X' && PART_NAMES.has(e.name) && e.ts >= task.ts && e.ts < end).sort((a, b) => a.ts - b.ts);
  const byLabel = new Map<string, number>();
  let coveredUntil = -1;
  for (const event of inside) {
    if (event.ts < coveredUntil) continue;
    coveredUntil = event.ts + (event.dur ?? 0);
    const label = partLabel(event);
    byLabel.set(label, (byLabel.get(label) ?? 0) + (event.dur ?? 0) / 1000);
  }
  return [...byLabel.entries()]
    .sort((a, b) => b[1] - a[1])
    .filter(([, ms]) => ms >= 5)
    .slice(0, 4)
    .map(([label, ms]) => `${label} ${ms.toFixed(0)}`);
}

interface Load {
  /** ms of main-thread time beyond 50 ms per task, after first contentful paint. */
  blocking: number;
  /** The same from the start of the load: what a page whose first paint comes early would count. */
  blockingFromStart: number;
  /** Durations of the tasks over 50 ms, in order, ms. */
  longTasks: number[];
  /** The same tasks, with when and what (TASKS=1). */
  detail: LongTask[];
  fcp: number;
  usable: number;
}

const USABLE_MARK = 'bench-usable';
/**
 * Runs in the page before its scripts: marks USABLE_MARK once a button named `name` (or, for a
 * page, a level-one heading) is on screen, checking at most once a frame after the DOM changed.
 * A string, so that tsx's helpers stay out of the page.
 */
const MARK_USABLE = `(name) => {
  let scheduled = false;
  const usable = () =>
    name === null
      ? document.querySelector('h1') !== null
      : [...document.querySelectorAll('button')].some((b) => b.textContent.trim() === name && b.getClientRects().length > 0);
  const check = () => {
    scheduled = false;
    if (!usable()) return;
    performance.mark('${USABLE_MARK}');
    observer.disconnect();
  };
  const observer = new MutationObserver(() => {
    if (!scheduled) (scheduled = true), requestAnimationFrame(check);
  });
  observer.observe(document, { subtree: true, childList: true });
}`;

/** Polls a numeric expression in the page over the DevTools protocol until it is 0 or more. */
async function pageNumber(cdp: CDPSession, expression: string, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { result } = (await cdp.send('Runtime.evaluate', { expression, returnByValue: true })) as { result: { value?: unknown } };
    if (typeof result.value === 'number' && result.value >= 0) return result.value;
    if (Date.now() > until) throw new Error(`${expression} stayed negative for ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function load(browser: Browser, route: (typeof ROUTES)[number]): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
  try {
    const page = await context.newPage();
    if (route.signedIn) await startSignedIn(page, accounts.subscriber);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU });
    const events: TraceEvent[] = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', {
      categories: 'devtools.timeline,disabled-by-default-devtools.timeline,blink.user_timing,loading',
      transferMode: 'ReportEvents',
    });
    const url = `http://localhost:3000${route.path}`;
    // Usable is marked by the page itself (markUsable) and read over the DevTools protocol: a
    // Playwright locator would run Playwright's injected script in the page, whose compile and
    // polling are long tasks of their own at 4× CPU, counted as the page's.
    await page.addInitScript(`(${MARK_USABLE})(${JSON.stringify(route.usable ?? null)})`);
    await page.goto(url);
    const usableMs = await pageNumber(cdp, `performance.getEntriesByName('${USABLE_MARK}')[0]?.startTime ?? -1`, 120_000);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000);
    const fcp = await pageNumber(cdp, "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1", 10_000);
    await cdp.send('Tracing.end');
    await complete;

    // The page's main thread: the renderer main thread that painted content first after the
    // navigation (other renderer threads are extensions' and the isolated SVG documents').
    const paint = events.filter((e) => e.name === 'firstContentfulPaint').sort((a, b) => a.ts - b.ts)[0];
    if (!paint) throw new Error(`no first contentful paint of ${url} in the trace`);
    const tasks = events.filter(
      (e) => e.pid === paint.pid && e.tid === paint.tid && e.ph === 'X' && e.name === 'RunTask' && (e.dur ?? 0) > LONG_TASK_MS * 1000,
    );
    const fcpTs = paint.ts / 1000;
    let blocking = 0;
    let blockingFromStart = 0;
    for (const task of tasks) {
      const start = task.ts / 1000;
      const end = start + task.dur! / 1000;
      blocking += Math.max(0, end - Math.max(start + LONG_TASK_MS, fcpTs));
      blockingFromStart += end - start - LONG_TASK_MS;
    }
    // The trace's time of the navigation's start: its first paint there, less the page's own time of it.
    const origin = fcpTs - fcp;
    const thread = events.filter((e) => e.pid === paint.pid && e.tid === paint.tid);
    const detail = tasks.map((task) => {
      const start = task.ts / 1000 - origin;
      return { start, duration: task.dur! / 1000, beforeUsable: start + task.dur! / 1000 > fcp && start < usableMs, parts: taskParts(task, thread) };
    });
    return { blocking, blockingFromStart, longTasks: tasks.map((t) => t.dur! / 1000), detail, fcp, usable: usableMs };
  } finally {
    await context.close();
  }
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main() {
  const paths = process.argv.slice(2).filter((a) => a.startsWith('/'));
  const routes = paths.length > 0 ? ROUTES.filter((r) => paths.includes(r.path)) : ROUTES.filter((r) => r.usable);
  const unknown = paths.filter((p) => !ROUTES.some((r) => r.path === p));
  if (unknown.length > 0) throw new Error(`unknown route ${unknown.join(', ')}; known: ${ROUTES.map((r) => r.path).join(' ')}`);
  const children = await startStack('bench-blocking');
  try {
    const browser = await chromium.launch(chromiumLaunchOptions());
    const rows: { path: string; loads: Load[]; median: Load }[] = [];
    for (const route of routes) {
      const loads: Load[] = [];
      for (let i = 0; i < RUNS; i++) loads.push(await load(browser, route));
      const sorted = [...loads].sort((a, b) => a.blocking - b.blocking);
      rows.push({ path: route.path, loads, median: sorted[Math.floor(sorted.length / 2)]! });
    }
    await browser.close();
    const ms = (n: number) => n.toFixed(0);
    console.log(`\nMain-thread blocking after first contentful paint, ${RUNS} loads per route, CPU ${CPU}× slower, cold cache; the median load\n`);
    console.log('| route | blocking ms, median (all loads) | from the start, median (all loads) | tasks > 50 ms | longest task ms | FCP ms | usable ms |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const { path, loads, median } of rows) {
      console.log(
        `| ${path} | ${ms(median.blocking)} (${loads.map((l) => ms(l.blocking)).join(', ')}) | ` +
          `${ms(medianOf(loads.map((l) => l.blockingFromStart)))} (${loads.map((l) => ms(l.blockingFromStart)).join(', ')}) | ${median.longTasks.length} | ` +
          `${ms(Math.max(0, ...median.longTasks))} | ${ms(median.fcp)} | ${ms(median.usable)} |`,
      );
    }
    for (const { path, median } of rows) {
      console.log(`\n${path}: tasks over 50 ms in the median load, in order (ms): ${median.longTasks.map(ms).join(', ') || 'none'}`);
      if (!TASKS || median.detail.length === 0) continue;
      console.log(`\n| ${path}: task at ms | ms | between first paint and usable | where the time went (ms) |\n|---:|---:|---|---|`);
      for (const task of median.detail)
        console.log(
          `| ${ms(task.start)} | ${ms(task.duration)} | ${task.beforeUsable ? 'yes' : 'no'} | ${task.parts.join('; ') || '(no attributable part)'} |`,
        );
    }
  } finally {
    for (const child of children) stop(child);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

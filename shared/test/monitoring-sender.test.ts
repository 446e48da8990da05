import { MONITORING_BATCH_LIMITS } from '../src/analytics/event-schema';
import type { ClientErrorEvent, CollectedEvent, WebVitalEvent } from '../src/analytics/events';
import { batchBodies, browserTransport, createMonitoringSender, onPageLeave } from '../src/analytics/monitoring-sender';

const vital = (value: number): WebVitalEvent => ({ name: 'webVital', metric: 'TTFB', value, rating: 'good', route: '/', navigationType: 'navigate' });
const bigError = (i: number): ClientErrorEvent => ({
  name: 'clientError',
  kind: 'error',
  message: `${i} ${'x'.repeat(290)}`,
  source: `/${'s'.repeat(299)}`,
  module: 'm'.repeat(100),
  route: '/uploader',
  release: 'r'.repeat(100),
  suppressed: 0,
});
const eventsOf = (body: string) => (JSON.parse(body) as { events: CollectedEvent[] }).events;
const bytes = (body: string) => new TextEncoder().encode(body).length;

describe('batchBodies', () => {
  it('puts a few events in one body, in order', () => {
    const bodies = batchBodies([vital(1), vital(2)]);
    expect(bodies).toEqual([JSON.stringify({ events: [vital(1), vital(2)] })]);
  });

  it('splits at 20 events', () => {
    const bodies = batchBodies(Array.from({ length: 45 }, (_, i) => vital(i)));
    expect(bodies.map((b) => eventsOf(b).length)).toEqual([20, 20, 5]);
    expect(bodies.flatMap(eventsOf).map((e) => (e as WebVitalEvent).value)).toEqual(Array.from({ length: 45 }, (_, i) => i));
  });

  it('splits to stay within 16 KiB, every event kept', () => {
    const errors = Array.from({ length: 40 }, (_, i) => bigError(i));
    const bodies = batchBodies(errors);
    expect(bodies.length).toBeGreaterThan(2);
    for (const body of bodies) expect(bytes(body)).toBeLessThanOrEqual(MONITORING_BATCH_LIMITS.maxBytes);
    expect(bodies.flatMap(eventsOf)).toEqual(errors);
  });

  it('leaves out an event too large for a request of its own', () => {
    expect(batchBodies([vital(1), bigError(1), vital(2)], { maxEvents: 20, maxBytes: 400 }).flatMap(eventsOf)).toEqual([vital(1), vital(2)]);
  });

  it('sends nothing for nothing', () => {
    expect(batchBodies([])).toEqual([]);
  });
});

/** A page, faked: its visibility, a clock of timers, and what was sent. */
function fakePage() {
  const sent: { events: CollectedEvent[]; leaving: boolean }[] = [];
  const timers = new Map<number, () => void>();
  let next = 0;
  let hidden = false;
  const sender = createMonitoringSender({
    transport: (body, leaving) => sent.push({ events: eventsOf(body), leaving }),
    hidden: () => hidden,
    setTimer: (callback) => {
      timers.set(++next, callback);
      return next;
    },
    clearTimer: (timer) => timers.delete(timer as number),
  });
  return {
    sender,
    sent,
    timers,
    fire: () => [...timers.entries()].forEach(([id, callback]) => (timers.delete(id), callback())),
    hide: () => (hidden = true),
  };
}

describe('createMonitoringSender', () => {
  it('keeps events until its timer, then sends them in one batch', () => {
    const page = fakePage();
    page.sender.send(vital(1));
    page.sender.send(vital(2));
    expect(page.sent).toEqual([]);
    expect(page.timers.size).toBe(1);
    page.fire();
    expect(page.sent).toEqual([{ events: [vital(1), vital(2)], leaving: false }]);
  });

  it('sends at once when 20 are waiting', () => {
    const page = fakePage();
    for (let i = 0; i < 20; i++) page.sender.send(vital(i));
    expect(page.sent.map((b) => b.events.length)).toEqual([20]);
    expect(page.timers.size).toBe(0);
  });

  it('flushes what waits as a beacon when the page is left, and sends later events at once while hidden', () => {
    const page = fakePage();
    page.sender.send(vital(1));
    page.hide();
    page.sender.flush(true);
    expect(page.timers.size).toBe(0);
    // web-vitals reports CLS and INP from its own visibilitychange listener, maybe after ours.
    page.sender.send(vital(2));
    expect(page.sent).toEqual([
      { events: [vital(1)], leaving: true },
      { events: [vital(2)], leaving: true },
    ]);
  });

  it('sends nothing when nothing waits', () => {
    const page = fakePage();
    page.sender.flush(true);
    expect(page.sent).toEqual([]);
  });
});

describe('onPageLeave', () => {
  it('calls back on pagehide and on visibilitychange to hidden, not to visible', () => {
    const win = new EventTarget();
    const visibility: { visibilityState: DocumentVisibilityState } = { visibilityState: 'visible' };
    const doc = Object.assign(new EventTarget(), visibility);
    let left = 0;
    onPageLeave(win, doc, () => left++);
    doc.dispatchEvent(new Event('visibilitychange'));
    expect(left).toBe(0);
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(new Event('visibilitychange'));
    win.dispatchEvent(new Event('pagehide'));
    expect(left).toBe(2);
  });
});

describe('browserTransport', () => {
  // jsdom has no Response: what the transport reads of one.
  const answer = (status: number) => ({ ok: status >= 200 && status < 300, status }) as Response;
  const url = 'https://uploads.example/events';
  const body = JSON.stringify({ events: [vital(1)] });

  it('sends a beacon when the page is left', () => {
    const beacons: [string, string][] = [];
    const fetchImpl = jest.fn<Promise<Response>, Parameters<typeof fetch>>();
    browserTransport(url, (to, text) => (beacons.push([to, text]), true), fetchImpl)(body, true);
    expect(beacons).toEqual([[url, body]]);
    expect(fetchImpl).not.toHaveBeenCalled();
  });

  it('fetches with keepalive, as text/plain without credentials, while the page is shown or when the beacon is refused', async () => {
    const fetchImpl = jest.fn<Promise<Response>, Parameters<typeof fetch>>(async () => answer(202));
    const send = browserTransport(url, () => false, fetchImpl);
    send(body, false);
    send(body, true);
    expect(fetchImpl).toHaveBeenCalledTimes(2);
    expect(fetchImpl).toHaveBeenCalledWith(url, {
      method: 'POST',
      body,
      keepalive: true,
      credentials: 'omit',
      headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
    });
  });

  it('logs a refusal or a network failure, and never throws', async () => {
    const logged: unknown[] = [];
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    browserTransport(
      url,
      undefined,
      async () => answer(400),
      (e) => logged.push(e),
    )(body, false);
    browserTransport(
      url,
      undefined,
      async () => Promise.reject(new TypeError('offline')),
      (e) => logged.push(e),
    )(body, false);
    await settle();
    expect(logged.map(String)).toEqual(['Error: the collection route answered 400', 'TypeError: offline']);
  });
});

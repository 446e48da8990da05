import { createBackgroundClock, type PageLifecycle, type TimerWorker } from '../src/features/upload/services/clock/background-clock';
import { sleptFor, WAKE_THRESHOLD_MS, type TimerMessage, type TimerRequest } from '../src/features/upload/services/clock/timer-protocol';
import { FakeWorker } from './support/fake-worker';

// Jest's fake clock stands for both threads' time; the "page" timers below are throttled as
// Chromium throttles a hidden tab after 5 minutes (a wake-up once a minute), the worker's are not.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** Page timers woken at most once a minute: each callback waits for the next whole minute. */
function throttledPageTimers() {
  let fired = 0;
  return {
    fired: () => fired,
    timers: {
      setTimeout: (callback: () => void, ms: number) => {
        const due = Date.now() + ms;
        const aligned = Math.ceil(due / 60_000) * 60_000;
        return setTimeout(
          () => {
            fired++;
            callback();
          },
          Math.max(ms, aligned - Date.now()),
        );
      },
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  };
}

/** timer.worker.ts's behaviour, on the fake clock: ready at once, timers unthrottled; `failAfterStart` reports an error instead. */
function fakeWorker(options: { failAfterStart?: boolean } = {}) {
  const armed = new Map<number, ReturnType<typeof setTimeout>>();
  const worker = new FakeWorker<TimerRequest, TimerMessage>((request, self) => {
    const existing = armed.get(request.id);
    if (existing !== undefined) clearTimeout(existing);
    if (request.kind === 'set')
      armed.set(
        request.id,
        setTimeout(() => self.answer({ kind: 'fire', id: request.id }), request.ms),
      );
  });
  // Started: the first message says it runs (or, for a blocked script, an error event with no details).
  setTimeout(() => {
    if (options.failAfterStart) worker.crash('');
    else worker.answer({ kind: 'ready' });
  }, 5);
  return {
    worker: worker as TimerWorker,
    requests: worker.posted,
    post: (message: TimerMessage) => worker.answer(message),
    terminated: () => worker.terminated,
  };
}

function lifecycle() {
  const handlers = new Map<string, () => void>();
  const page: PageLifecycle = { addEventListener: (type, listener) => void handlers.set(type, listener) };
  return { page, emit: (type: 'freeze' | 'resume') => handlers.get(type)?.() };
}

describe('sleptFor', () => {
  it('a heartbeat later than due by the threshold or more says how long the thread was stopped', () => {
    expect(sleptFor(1000, 1400)).toBeNull();
    expect(sleptFor(1000, 1000 + WAKE_THRESHOLD_MS - 1)).toBeNull();
    expect(sleptFor(1000, 1000 + WAKE_THRESHOLD_MS)).toBe(WAKE_THRESHOLD_MS);
    expect(sleptFor(1000, 3_601_000)).toBe(3_600_000);
  });
});

describe('createBackgroundClock', () => {
  it('keeps its pace when the page’s timers are throttled to once a minute: the timers run in the worker', async () => {
    const page = throttledPageTimers();
    const w = fakeWorker();
    const clock = createBackgroundClock({ createWorker: () => w.worker, pageTimers: page.timers, warn: jest.fn() });
    // The worker starts on first use; once it is ready, a 1 s backoff takes 1 s, not a minute.
    clock.timers.setTimeout(() => undefined, 10);
    await jest.advanceTimersByTimeAsync(20);
    const started = Date.now();
    let ended = -1;
    const sleeping = clock.sleep(1000, new AbortController().signal).then(() => (ended = Date.now()));
    await jest.advanceTimersByTimeAsync(1000);
    await sleeping;
    expect(ended - started).toBe(1000);
    expect(w.requests.filter((r) => r.kind === 'set')).toHaveLength(2);
  });

  it('holds timers on the page until the worker answers, then moves them to it with the time they had left', async () => {
    const page = throttledPageTimers();
    const w = fakeWorker();
    const clock = createBackgroundClock({ createWorker: () => w.worker, pageTimers: page.timers, warn: jest.fn() });
    const fired: number[] = [];
    const t0 = Date.now();
    clock.timers.setTimeout(() => fired.push(Date.now() - t0), 3000);
    await jest.advanceTimersByTimeAsync(5);
    expect(w.requests).toEqual([{ kind: 'set', id: 1, ms: 2995 }]);
    await jest.advanceTimersByTimeAsync(2995);
    expect(fired).toEqual([3000]);
    // The page's own timer was cleared: the callback ran once, not again at the minute.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fired).toHaveLength(1);
    expect(page.fired()).toBe(0);
  });

  it('clearTimeout disarms a timer in the worker and on the page', async () => {
    const w = fakeWorker();
    const clock = createBackgroundClock({ createWorker: () => w.worker, warn: jest.fn() });
    const early = jest.fn();
    const onPage = clock.timers.setTimeout(early, 1);
    clock.timers.clearTimeout(onPage);
    await jest.advanceTimersByTimeAsync(10);
    const late = jest.fn();
    const inWorker = clock.timers.setTimeout(late, 100);
    clock.timers.clearTimeout(inWorker);
    await jest.advanceTimersByTimeAsync(200);
    expect(early).not.toHaveBeenCalled();
    expect(late).not.toHaveBeenCalled();
    expect(w.requests.at(-1)).toEqual({ kind: 'clear', id: 2 });
  });

  it('a worker that cannot start leaves every timer to the page, with the time it had left: none is lost', async () => {
    const warn = jest.fn();
    const w = fakeWorker({ failAfterStart: true });
    const clock = createBackgroundClock({ createWorker: () => w.worker, warn });
    const fired: number[] = [];
    const t0 = Date.now();
    clock.timers.setTimeout(() => fired.push(Date.now() - t0), 500);
    await jest.advanceTimersByTimeAsync(1000);
    expect(fired).toEqual([500]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(w.terminated()).toBe(true);

    const throwing = createBackgroundClock({
      createWorker: () => {
        throw new Error('SecurityError');
      },
      warn,
    });
    const later = jest.fn();
    throwing.timers.setTimeout(later, 200);
    await jest.advanceTimersByTimeAsync(200);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it('a sleep ends early when its signal aborts', async () => {
    const clock = createBackgroundClock({ createWorker: () => fakeWorker().worker, warn: jest.fn() });
    const abort = new AbortController();
    let done = false;
    const sleeping = clock.sleep(30_000, abort.signal).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(100);
    abort.abort();
    await sleeping;
    expect(done).toBe(true);
  });

  it('tells its listeners of a wake: the worker’s late heartbeat, or the page resumed after a freeze', async () => {
    const w = fakeWorker();
    const life = lifecycle();
    const clock = createBackgroundClock({ createWorker: () => w.worker, lifecycle: life.page, warn: jest.fn() });
    const wakes: number[] = [];
    const unsubscribe = clock.wakes.subscribe((slept) => wakes.push(slept));
    await jest.advanceTimersByTimeAsync(10);
    w.post({ kind: 'woke', sleptMs: 7_200_000 });
    life.emit('freeze');
    await jest.advanceTimersByTimeAsync(40_000);
    life.emit('resume');
    expect(wakes).toEqual([7_200_000, 40_000]);
    unsubscribe();
    w.post({ kind: 'woke', sleptMs: 9000 });
    expect(wakes).toHaveLength(2);
  });
});

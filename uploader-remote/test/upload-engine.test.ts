import { backoffDelay, classifyUploadError, DEFAULT_RETRY, type RetryPolicy } from '../src/features/upload/model/retry';
import { initialQueueState, queueReducer, type EngineEvent } from '../src/features/upload/model/upload-queue';
import { mayStartAnother, runBatch, type BatchOptions, type EngineDeps, type UploadJob } from '../src/features/upload/services/upload/upload-engine';

// Every test runs on jest's fake clock: backoffs, stall watchdogs and flushes advance by hand.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const jobs = (n: number): UploadJob[] => Array.from({ length: n }, (_, i) => ({ id: `f${i}`, key: `k${i}.jpg`, file: new Blob(['x']) }));
/** Jobs whose files are `bytes` long (what the link watch weighs their progress by). */
const sizedJobs = (n: number, bytes: number): UploadJob[] => {
  const body = new Blob([new Uint8Array(bytes)]);
  return Array.from({ length: n }, (_, i) => ({ id: `f${i}`, key: `k${i}.jpg`, file: body }));
};
/** Lets promise chains run, with no clock time passing. */
const settle = () => jest.advanceTimersByTimeAsync(0);
const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };
const options = (over: Partial<BatchOptions> = {}): BatchOptions => ({ concurrency: 1, limit: 100, retry: policy, stallMs: 60_000, ...over });
const serviceError = (name: string, status: number) => Object.assign(new Error(`${name} happened`), { name, $metadata: { httpStatusCode: status } });
const timers = {
  setTimeout: (cb: () => void, ms: number) => setTimeout(cb, ms),
  clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
const realSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()));
  });

interface Pending {
  resolve: () => void;
  reject: (e: unknown) => void;
  progress: (fraction: number) => void;
  signal: AbortSignal;
}

/** Uploads that the test resolves or rejects by hand, recording concurrency. */
function manualDeps(over: Partial<EngineDeps> = {}) {
  const pending = new Map<string, Pending>();
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;
  const deps: EngineDeps = {
    upload: (job, { signal, onProgress }) =>
      new Promise<void>((resolve, reject) => {
        calls.push(job.key);
        active++;
        maxActive = Math.max(maxActive, active);
        const done = () => {
          active--;
          pending.delete(job.id);
        };
        pending.set(job.id, { resolve: () => (done(), resolve()), reject: (e) => (done(), reject(e)), progress: onProgress, signal });
        signal.addEventListener('abort', () => (done(), reject(Object.assign(new Error('Upload is canceled by user'), { name: 'CanceledError' }))));
      }),
    refreshCredentials: jest.fn(async () => undefined),
    sleep: realSleep,
    random: () => 0.5,
    timers,
    ...over,
  };
  const first = () => [...pending.entries()][0]!;
  return { deps, pending, calls, first, maxActive: () => maxActive };
}

describe('runBatch', () => {
  it('never has more uploads in flight than the concurrency', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(20), options({ concurrency: 4, limit: 20 }), m.deps, (e) => events.push(e));
    for (let i = 0; i < 20; i++) {
      await settle();
      expect(m.pending.size).toBeLessThanOrEqual(4);
      m.first()[1].resolve();
    }
    expect(await batch.done).toEqual({ succeeded: 20, failed: 0, dropped: 0, notSent: 0, untouched: 0, stopped: false });
    expect(m.maxActive()).toBe(4);
    expect(events.filter((e) => e.type === 'succeeded')).toHaveLength(20);
  });

  it('never succeeds more than the limit, whatever the concurrency', async () => {
    const m = manualDeps();
    const batch = runBatch(jobs(20), options({ concurrency: 6, limit: 15 }), m.deps, () => undefined);
    for (await settle(); m.pending.size > 0; await settle()) m.first()[1].resolve();
    const result = await batch.done;
    expect(result.succeeded).toBe(15);
    expect(m.calls).toHaveLength(15);
    expect(result.untouched).toBe(5);
  });

  it('reads the allowance before each start: successes elsewhere stop it early, in-flight uploads count', async () => {
    const m = manualDeps();
    let allowance = 3;
    const batch = runBatch(jobs(10), options({ concurrency: 6, allowance: () => allowance }), m.deps, (e) => {
      if (e.type === 'succeeded') allowance--;
    });
    await settle();
    expect(m.calls).toHaveLength(3);
    allowance = 1; // another tab used two
    m.first()[1].resolve();
    await settle();
    expect(m.calls).toHaveLength(3);
    for (; m.pending.size > 0; await settle()) m.first()[1].resolve();
    expect((await batch.done).untouched).toBe(7);
  });

  it('a permanent failure frees its slot for the next file', async () => {
    const m = manualDeps();
    const batch = runBatch(jobs(3), options({ concurrency: 2, limit: 2 }), m.deps, () => undefined);
    await settle();
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg']);
    m.pending.get('f0')!.reject(serviceError('AccessDenied', 403));
    await settle();
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg', 'k2.jpg']);
    m.pending.get('f1')!.resolve();
    m.pending.get('f2')!.resolve();
    expect(await batch.done).toEqual({ succeeded: 2, failed: 1, dropped: 0, notSent: 0, untouched: 0, stopped: false });
  });

  it('retries transient errors with backoff on the clock, reusing the same key, up to the attempt bound', async () => {
    const keys: string[] = [];
    const sleeps: number[] = [];
    const events: EngineEvent[] = [];
    const deps: EngineDeps = {
      upload: async (job) => {
        keys.push(job.key);
        throw serviceError('SlowDown', 503);
      },
      refreshCredentials: async () => undefined,
      sleep: (ms, signal) => (sleeps.push(ms), realSleep(ms, signal)),
      random: () => 0,
      timers,
    };
    const batch = runBatch(jobs(1), options(), deps, (e) => events.push(e));
    await settle();
    expect(keys).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(49);
    expect(keys).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(keys).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1000);
    const result = await batch.done;
    expect(keys).toEqual(['k0.jpg', 'k0.jpg', 'k0.jpg', 'k0.jpg']);
    expect(sleeps).toEqual([50, 100, 200]);
    expect(result.failed).toBe(1);
    expect(events.at(-1)).toEqual({ type: 'failed', id: 'f0', reason: 'SlowDown happened' });
  });

  it('with the default policy, a part that keeps failing is sent 6 times, 1 s doubling apart, then fails with the error shown', async () => {
    const sentAt: number[] = [];
    const events: EngineEvent[] = [];
    const start = Date.now();
    const deps: EngineDeps = {
      upload: async () => {
        sentAt.push(Date.now() - start);
        throw serviceError('SlowDown', 503);
      },
      refreshCredentials: async () => undefined,
      sleep: realSleep,
      // The whole of each jittered step: the longest waits the policy allows.
      random: () => 1,
      timers,
    };
    const batch = runBatch(jobs(1), options({ retry: DEFAULT_RETRY }), deps, (e) => events.push(e));
    await jest.advanceTimersByTimeAsync(30_999);
    expect(sentAt).toEqual([0, 1_000, 3_000, 7_000, 15_000]);
    await jest.advanceTimersByTimeAsync(1);
    expect(await batch.done).toEqual({ succeeded: 0, failed: 1, dropped: 0, notSent: 0, untouched: 0, stopped: false });
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(sentAt).toEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000]);

    // What the list shows once the engine's events are applied.
    const file = {
      id: 'f0',
      key: 'k0.jpg',
      name: 'IMG_0001.JPG',
      path: '',
      size: 1,
      lastModified: 0,
      file: new Blob(['x']),
      status: { kind: 'waiting' as const },
    };
    const listed = queueReducer(initialQueueState, { type: 'files-added', files: [file], skipped: [] });
    const after = queueReducer(queueReducer(listed, { type: 'batch-started', ids: ['f0'] }), { type: 'engine-events', events });
    expect(after.error).toBe('Problem with Storage.put operation: SlowDown happened');
    expect(after.files[0]!.status).toEqual({ kind: 'failed', reason: 'SlowDown happened' });
    expect(after.failures).toBe(1);
  });

  it('a sleep that rejects does not hang the batch', async () => {
    let n = 0;
    const deps: EngineDeps = {
      upload: async () => {
        if (++n < 2) throw serviceError('SlowDown', 503);
      },
      refreshCredentials: async () => undefined,
      sleep: async () => Promise.reject(new Error('timer broke')),
      random: () => 0.5,
      timers,
    };
    const batch = runBatch(jobs(1), options(), deps, () => undefined);
    await settle();
    expect(await batch.done).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('a lone upload with no progress is given up only when nothing has moved for the silence bound (3× the stall bound), and retried with the same key', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(1), options({ stallMs: 60_000 }), m.deps, (e) => events.push(e));
    await settle();
    const first = m.pending.get('f0')!;
    await jest.advanceTimersByTimeAsync(30_000);
    first.progress(0.5); // progress: the link moved
    // A minute and more of quiet is an outage or a buffer draining, not yet a dead connection.
    await jest.advanceTimersByTimeAsync(179_000);
    expect(first.signal.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(first.signal.aborted).toBe(true);
    expect(events).toContainEqual({ type: 'retrying', id: 'f0', attempt: 1, reason: 'No progress for 180 s' });
    await jest.advanceTimersByTimeAsync(policy.maxDelayMs);
    expect(m.calls).toEqual(['k0.jpg', 'k0.jpg']);
    m.pending.get('f0')!.resolve();
    expect(await batch.done).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('an upload whose bytes sit in the socket buffer while others share a slow link is not given up', async () => {
    // Six 4 MB photos handed whole to their sockets at once; the link carries 375 KB/s: each
    // answer comes after the link has carried one more, every ~11 s, the last after ~64 s.
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(sizedJobs(6, 4_000_000), options({ concurrency: 6, stallMs: 60_000 }), m.deps, (e) => events.push(e));
    await settle();
    for (const p of m.pending.values()) p.progress(1);
    for (let i = 0; i < 6; i++) {
      await jest.advanceTimersByTimeAsync(10_700);
      m.first()[1].resolve();
    }
    expect(await batch.done).toMatchObject({ succeeded: 6, failed: 0 });
    expect(events.filter((e) => e.type === 'retrying')).toEqual([]);
  });

  it('gives up an upload whose connection died while the others keep moving, past four times its drain time', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(sizedJobs(40, 1_000_000), options({ concurrency: 2, stallMs: 60_000 }), m.deps, (e) => events.push(e));
    await settle();
    const dead = m.pending.get('f0')!;
    dead.progress(0.3);
    // The other connection goes on: a photo every 2 s (500 KB/s delivered).
    for (let t = 0; t < 58_000; t += 2_000) {
      await jest.advanceTimersByTimeAsync(2_000);
      const [id, other] = [...m.pending.entries()].find(([id]) => id !== 'f0')!;
      other.progress(1);
      other.resolve();
      void id;
    }
    expect(dead.signal.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(6_000);
    expect(dead.signal.aborted).toBe(true);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retrying', id: 'f0', reason: expect.stringMatching(/^No progress for 6\d s$/) }));
    batch.stop();
    await batch.done;
  });

  it('rides out an outage of two minutes: nothing is given up, everything finishes', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(sizedJobs(2, 2_000_000), options({ concurrency: 2, stallMs: 60_000 }), m.deps, (e) => events.push(e));
    await settle();
    m.pending.get('f0')!.progress(0.4);
    await jest.advanceTimersByTimeAsync(2_000);
    m.pending.get('f1')!.progress(0.2);
    // The dish is obstructed; then one connection resumes 40 s before the other.
    await jest.advanceTimersByTimeAsync(120_000);
    m.pending.get('f1')!.progress(0.6);
    for (let t = 0; t < 40_000; t += 1_000) {
      await jest.advanceTimersByTimeAsync(1_000);
      m.pending.get('f1')?.progress(0.6 + t / 100_000);
    }
    m.pending.get('f1')!.resolve();
    m.pending.get('f0')!.progress(0.5);
    await settle();
    m.pending.get('f0')!.resolve();
    expect(await batch.done).toMatchObject({ succeeded: 2, failed: 0 });
    expect(events.filter((e) => e.type === 'retrying')).toEqual([]);
  });

  it('a progress event after its attempt failed changes nothing', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(1), options(), m.deps, (e) => events.push(e));
    await settle();
    const attempt = m.pending.get('f0')!;
    attempt.reject(serviceError('AccessDenied', 403));
    await settle();
    attempt.progress(0.9);
    await batch.done;
    expect(events.map((e) => e.type)).toEqual(['started', 'failed']);
  });

  it('expired credentials: refreshes and goes again without using an attempt', async () => {
    let n = 0;
    const refresh = jest.fn(async () => undefined);
    const deps: EngineDeps = {
      upload: async () => {
        if (++n <= 2) throw serviceError('ExpiredToken', 400);
      },
      refreshCredentials: refresh,
      sleep: realSleep,
      random: () => 0.5,
      timers,
    };
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(1), options({ retry: { ...policy, maxAttempts: 1 } }), deps, (e) => events.push(e));
    await settle();
    expect(await batch.done).toMatchObject({ succeeded: 1 });
    expect(refresh).toHaveBeenCalledTimes(2);
    expect(events.some((e) => e.type === 'failed')).toBe(false);
  });

  it('Stop does not wait for a credential refresh that never answers', async () => {
    const deps: EngineDeps = {
      upload: async () => Promise.reject(serviceError('ExpiredToken', 400)),
      refreshCredentials: () => new Promise<void>(() => undefined),
      sleep: realSleep,
      random: () => 0.5,
      timers,
    };
    const batch = runBatch(jobs(2), options(), deps, () => undefined);
    await settle();
    batch.stop();
    expect(await batch.done).toEqual({ succeeded: 0, failed: 0, dropped: 0, notSent: 0, untouched: 2, stopped: true });
  });

  it('Stop aborts in-flight uploads, starts nothing new, and returns them to waiting', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(10), options({ concurrency: 3 }), m.deps, (e) => events.push(e));
    await settle();
    m.pending.get('f0')!.resolve();
    await settle();
    batch.stop();
    expect(await batch.done).toEqual({ succeeded: 1, failed: 0, dropped: 0, notSent: 0, untouched: 9, stopped: true });
    expect(m.calls).toHaveLength(4);
    expect(
      events
        .filter((e) => e.type === 'returned')
        .map((e) => (e as { id: string }).id)
        .sort(),
    ).toEqual(['f1', 'f2', 'f3']);
    expect(events.some((e) => e.type === 'failed')).toBe(false);
  });

  it('pause returns in-flight uploads without using their attempts; resume sends them again, same keys', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(3), options({ concurrency: 2, retry: { ...policy, maxAttempts: 1 } }), m.deps, (e) => events.push(e));
    await settle();
    batch.pause();
    await settle();
    expect(m.pending.size).toBe(0);
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg']);
    let ended = false;
    void batch.done.then(() => (ended = true));
    await settle();
    expect(ended).toBe(false);

    batch.resume();
    for (await settle(); m.pending.size > 0; await settle()) m.first()[1].resolve();
    expect(await batch.done).toEqual({ succeeded: 3, failed: 0, dropped: 0, notSent: 0, untouched: 0, stopped: false });
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg', 'k0.jpg', 'k1.jpg', 'k2.jpg']);
    expect(events.filter((e) => e.type === 'started' && e.id === 'f0').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 1]);
  });

  it('a network error while offline uses no attempt and tells the caller, who pauses', async () => {
    const m = manualDeps();
    let online = true;
    // Called only once the batch runs, after `batch` is set.
    const networkLost = jest.fn(() => batch.pause());
    const batch = runBatch(jobs(1), options({ retry: { ...policy, maxAttempts: 1 } }), { ...m.deps, isOnline: () => online, networkLost }, () => undefined);
    await settle();
    online = false;
    m.pending.get('f0')!.reject(Object.assign(new Error('Network Error'), { name: 'ERR_NETWORK' }));
    await settle();
    expect(networkLost).toHaveBeenCalledTimes(1);
    online = true;
    batch.resume();
    await settle();
    m.pending.get('f0')!.resolve();
    expect(await batch.done).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('restart (a wake) aborts the uploads in flight and sends them again at once, under the same keys, no attempt used', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(3), options({ concurrency: 2, retry: { ...policy, maxAttempts: 1 } }), m.deps, (e) => events.push(e));
    await settle();
    const before = [...m.pending.values()].map((p) => p.signal);
    batch.restart();
    await settle();
    expect(before.every((signal) => signal.aborted)).toBe(true);
    // Started again without waiting for any timer.
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg', 'k0.jpg', 'k1.jpg']);
    for (; m.pending.size > 0; await settle()) m.first()[1].resolve();
    expect(await batch.done).toEqual({ succeeded: 3, failed: 0, dropped: 0, notSent: 0, untouched: 0, stopped: false });
    expect(events.filter((e) => e.type === 'started' && e.id === 'f0').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 1]);
  });

  it('right after a wake, transient failures burn no attempt (the link is coming back); afterwards they count again', async () => {
    const m = manualDeps();
    let woke = true;
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(1), options({ retry: { ...policy, maxAttempts: 2 } }), { ...m.deps, wokeRecently: () => woke }, (e) => events.push(e));
    const networkError = () => Object.assign(new Error('Network Error'), { name: 'ERR_NETWORK' });
    // Five failures while the link comes back: more than the two attempts a file has.
    for (let i = 0; i < 5; i++) {
      await settle();
      m.pending.get('f0')!.reject(networkError());
      await jest.advanceTimersByTimeAsync(policy.baseDelayMs);
    }
    woke = false;
    await settle();
    m.pending.get('f0')!.reject(networkError());
    await jest.advanceTimersByTimeAsync(policy.baseDelayMs);
    await settle();
    // The first counted failure used attempt 1 of 2: the file is tried once more, and goes.
    m.pending.get('f0')!.resolve();
    expect(await batch.done).toMatchObject({ succeeded: 1, failed: 0 });
    expect(events.filter((e) => e.type === 'started').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 1, 1, 1, 1, 1, 2]);
  });

  it('the scheduler under throttled timers: with every page timer held for a minute, the next file starts on the last one’s answer, not on a timer', async () => {
    const m = manualDeps();
    // Timers a hidden tab would wake once a minute: none of them may be on the way from one file to the next.
    const throttled = {
      setTimeout: (cb: () => void, ms: number) => setTimeout(cb, Math.max(ms, 60_000)),
      clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
    };
    const slowSleep = (ms: number, signal: AbortSignal) => realSleep(Math.max(ms, 60_000), signal);
    const batch = runBatch(jobs(40), options({ concurrency: 4, limit: 40 }), { ...m.deps, timers: throttled, sleep: slowSleep }, () => undefined);
    const started = Date.now();
    for (await settle(); m.pending.size > 0; await settle()) m.first()[1].resolve();
    expect(await batch.done).toMatchObject({ succeeded: 40 });
    expect(Date.now() - started).toBe(0);
  });

  it('jobs added while it runs are sent too', async () => {
    const m = manualDeps();
    const batch = runBatch(jobs(1), options(), m.deps, () => undefined);
    await settle();
    batch.add([{ id: 'late', key: 'late.jpg', file: new Blob(['y']) }]);
    for (; m.pending.size > 0; await settle()) m.first()[1].resolve();
    expect(await batch.done).toMatchObject({ succeeded: 2 });
    expect(m.calls).toEqual(['k0.jpg', 'late.jpg']);
  });

  it('drops what admit refuses, never sending it, and sends the rest under the key admit gives', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const admit = jest.fn(async (job: UploadJob) =>
      job.id === 'f1' ? ({ go: false, reason: 'already-uploaded' } as const) : { go: true as const, key: `journal-${job.id}.jpg` },
    );
    const batch = runBatch(jobs(3), options({ concurrency: 2, limit: 2 }), { ...m.deps, admit }, (e) => events.push(e));
    for (await settle(); m.pending.size > 0; await settle()) m.first()[1].resolve();
    expect(await batch.done).toEqual({ succeeded: 2, failed: 0, dropped: 1, notSent: 0, untouched: 0, stopped: false });
    expect(m.calls).toEqual(['journal-f0.jpg', 'journal-f2.jpg']);
    expect(events.filter((e) => e.type === 'dropped')).toEqual([{ type: 'dropped', id: 'f1', reason: 'already-uploaded' }]);
  });

  it('a rejected admit drops the job as unreadable', async () => {
    const m = manualDeps();
    const admit = () => Promise.reject(new Error('moved'));
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(1), options(), { ...m.deps, admit }, (e) => events.push(e));
    await settle();
    expect(await batch.done).toMatchObject({ dropped: 1 });
    expect(events).toEqual([{ type: 'dropped', id: 'f0', reason: 'unreadable' }]);
  });
});

describe('runBatch and the link', () => {
  /**
   * Uploads that each take `msAt(inFlight)` from their start (the link's share they get), the
   * starts and the most in flight recorded.
   */
  function linkDeps(msAt: (inFlight: number) => number, over: Partial<EngineDeps> = {}) {
    let active = 0;
    const inFlight: number[] = [];
    const starts: number[] = [];
    const deps: EngineDeps = {
      upload: () =>
        new Promise<void>((resolve) => {
          active++;
          inFlight.push(active);
          starts.push(Date.now());
          setTimeout(() => {
            active--;
            resolve();
          }, msAt(active));
        }),
      refreshCredentials: async () => undefined,
      sleep: realSleep,
      random: () => 0.5,
      timers,
      now: () => Date.now(),
      ...over,
    };
    return { deps, inFlight, starts };
  }

  it('with the fit, starts two at once and adds more while each one added raises what the link delivers', async () => {
    // Every upload takes 2 s whatever the others do (a long round trip, room on the link).
    const l = linkDeps(() => 2_000);
    const batch = runBatch(sizedJobs(120, 100_000), options({ concurrency: 'fit', limit: 1000 }), l.deps, () => undefined);
    await jest.advanceTimersByTimeAsync(0);
    expect(l.inFlight).toEqual([1, 2]);
    await jest.advanceTimersByTimeAsync(600_000);
    expect(await batch.done).toMatchObject({ succeeded: 120 });
    expect(Math.max(...l.inFlight)).toBe(6);
  });

  it('with the fit, a full link keeps about two in flight: photos finish one after another, not six slowly at once', async () => {
    // A link that is full at one: each upload takes its share of it (3 s alone, 6 s beside another).
    const l = linkDeps((n) => 3_000 * n);
    const batch = runBatch(sizedJobs(60, 1_000_000), options({ concurrency: 'fit', limit: 1000 }), l.deps, () => undefined);
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(await batch.done).toMatchObject({ succeeded: 60 });
    expect(Math.max(...l.inFlight)).toBeLessThanOrEqual(3);
    expect(l.inFlight.filter((n) => n <= 2).length).toBeGreaterThan(l.inFlight.length * 0.6);
  });

  it('with the fit, a stall halves how many are in flight', async () => {
    const m = manualDeps({ now: () => Date.now() });
    const batch = runBatch(sizedJobs(20, 1_000), options({ concurrency: 'fit', stallMs: 5_000 }), m.deps, () => undefined);
    await settle();
    expect(m.pending.size).toBe(2);
    // Both held with no progress: the silence bound gives them up; the fit halves to one.
    await jest.advanceTimersByTimeAsync(16_000);
    await jest.advanceTimersByTimeAsync(policy.maxDelayMs);
    expect(m.pending.size).toBe(1);
    batch.stop();
    await batch.done;
  });

  it('under a cap, each attempt starts when the bytes before it are paid for at the cap', async () => {
    const l = linkDeps(() => 0);
    const batch = runBatch(sizedJobs(4, 2_000_000), options({ concurrency: 2, pace: () => 1_000_000 }), l.deps, () => undefined);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(await batch.done).toMatchObject({ succeeded: 4 });
    const t0 = l.starts[0]!;
    expect(l.starts.map((t) => t - t0)).toEqual([0, 2_000, 4_000, 6_000]);
  });

  it('a cap changed mid-batch holds from the next attempt; lifted, the rest go at once', async () => {
    let cap: number | null = 1_000_000;
    const l = linkDeps(() => 0);
    const batch = runBatch(sizedJobs(5, 1_000_000), options({ concurrency: 1, pace: () => cap }), l.deps, () => undefined);
    await jest.advanceTimersByTimeAsync(1_500);
    expect(l.starts).toHaveLength(2);
    cap = 250_000;
    await jest.advanceTimersByTimeAsync(3_000);
    expect(l.starts).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(l.starts).toHaveLength(3);
    cap = null;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(await batch.done).toMatchObject({ succeeded: 5 });
  });

  it('the cap counts what admission says an attempt sends (a smaller copy’s bytes), not the file’s', async () => {
    const l = linkDeps(() => 0, { admit: async () => ({ go: true, bytes: 250_000 }) });
    const batch = runBatch(sizedJobs(3, 4_000_000), options({ concurrency: 1, pace: () => 1_000_000 }), l.deps, () => undefined);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(await batch.done).toMatchObject({ succeeded: 3 });
    const t0 = l.starts[0]!;
    expect(l.starts.map((t) => t - t0)).toEqual([0, 250, 500]);
  });

  it('Stop ends an attempt waiting for its turn under the cap', async () => {
    const l = linkDeps(() => 0);
    const batch = runBatch(sizedJobs(3, 10_000_000), options({ concurrency: 1, pace: () => 100_000 }), l.deps, () => undefined);
    await jest.advanceTimersByTimeAsync(1_000);
    batch.stop();
    expect(await batch.done).toMatchObject({ succeeded: 1, untouched: 2, stopped: true });
  });
});

describe('mayStartAnother', () => {
  it('counts in-flight uploads against the limit and the allowance', () => {
    const s = { succeeded: 0, active: 0, limit: 15, allowance: 100, concurrency: 6, halted: false, queued: 5 };
    expect(mayStartAnother({ ...s, succeeded: 13, active: 2 })).toBe(false);
    expect(mayStartAnother({ ...s, succeeded: 13, active: 1 })).toBe(true);
    expect(mayStartAnother({ ...s, active: 4, concurrency: 4 })).toBe(false);
    expect(mayStartAnother({ ...s, active: 2, allowance: 2 })).toBe(false);
    expect(mayStartAnother({ ...s, halted: true })).toBe(false);
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt, with jitter between half and the whole step, capped', () => {
    const p = { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 8000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(backoffDelay(2, p, () => 0.5)).toBe(1500);
  });
});

describe('classifyUploadError', () => {
  it('retries network errors, timeouts, 429 and 5xx', () => {
    expect(classifyUploadError(Object.assign(new Error('Network Error'), { name: 'ERR_NETWORK' })).kind).toBe('transient');
    expect(classifyUploadError(serviceError('RequestTimeout', 400)).kind).toBe('transient');
    expect(classifyUploadError(serviceError('TooManyRequests', 429)).kind).toBe('transient');
    expect(classifyUploadError(serviceError('InternalError', 500)).kind).toBe('transient');
    expect(classifyUploadError(serviceError('SlowDown', 503)).kind).toBe('transient');
    // A conditional write meeting one under way to the same key: the retry then finds it stored (412).
    expect(classifyUploadError(serviceError('ConditionalRequestConflict', 409)).kind).toBe('transient');
  });
  it("retries fetch's own network TypeErrors, but reports a TypeError from code", () => {
    expect(classifyUploadError(new TypeError('Failed to fetch')).kind).toBe('transient');
    expect(classifyUploadError(new TypeError('Load failed')).kind).toBe('transient');
    expect(classifyUploadError(new TypeError("Cannot read properties of undefined (reading 'key')"))).toEqual({
      kind: 'permanent',
      message: "Cannot read properties of undefined (reading 'key')",
    });
  });
  it('refreshes on expired credentials', () => expect(classifyUploadError(serviceError('ExpiredToken', 400)).kind).toBe('credentials'));
  it('does not count a cancel as a failure', () =>
    expect(classifyUploadError(Object.assign(new Error('x'), { name: 'CanceledError' })).kind).toBe('cancelled'));
  it('reports 403 and the like with their message', () =>
    expect(classifyUploadError(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }))).toEqual({
      kind: 'permanent',
      message: 'Access Denied',
    }));
});

import { backoffDelay, classifyUploadError, DEFAULT_RETRY, type RetryPolicy } from '../src/features/upload/model/retry';
import type { EngineEvent } from '../src/features/upload/model/upload-queue';
import { mayStartAnother, runBatch, type EngineDeps, type UploadJob } from '../src/features/upload/services/upload-engine';

const jobs = (n: number): UploadJob[] => Array.from({ length: n }, (_, i) => ({ id: `f${i}`, key: `k${i}.jpg`, file: new Blob(['x']) }));
const tick = () => new Promise((r) => setTimeout(r, 0));
const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };
const serviceError = (name: string, status: number) => Object.assign(new Error(`${name} happened`), { name, $metadata: { httpStatusCode: status } });

/** Uploads that the test resolves or rejects by hand, recording concurrency. */
function manualDeps() {
  const pending = new Map<string, { resolve: () => void; reject: (e: unknown) => void; signal: AbortSignal }>();
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;
  const deps: EngineDeps = {
    upload: (job, { signal }) =>
      new Promise<void>((resolve, reject) => {
        calls.push(job.key);
        active++;
        maxActive = Math.max(maxActive, active);
        const done = () => active--;
        pending.set(job.id, { resolve: () => (done(), resolve()), reject: (e) => (done(), reject(e)), signal });
        signal.addEventListener('abort', () => (done(), reject(Object.assign(new Error('Upload is canceled by user'), { name: 'CanceledError' }))));
      }),
    refreshCredentials: jest.fn(async () => undefined),
    sleep: jest.fn(async () => undefined),
    random: () => 0.5,
  };
  return { deps, pending, calls, maxActive: () => maxActive };
}

describe('runBatch', () => {
  it('never has more uploads in flight than the concurrency', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(20), { concurrency: 4, limit: 20, retry: policy }, m.deps, (e) => events.push(e));
    for (let i = 0; i < 20; i++) {
      await tick();
      expect(m.pending.size).toBeLessThanOrEqual(4);
      const [id, p] = [...m.pending.entries()][0]!;
      m.pending.delete(id);
      p.resolve();
    }
    const result = await batch.done;
    expect(result).toEqual({ succeeded: 20, failed: 0, refused: 0, untouched: 0, stopped: false });
    expect(m.maxActive()).toBe(4);
    expect(events.filter((e) => e.type === 'succeeded')).toHaveLength(20);
  });

  it('never succeeds more than the allowance, whatever the concurrency', async () => {
    const m = manualDeps();
    const batch = runBatch(jobs(20), { concurrency: 6, limit: 15, retry: policy }, m.deps, () => undefined);
    while (m.pending.size > 0) {
      const [id, p] = [...m.pending.entries()][0]!;
      m.pending.delete(id);
      p.resolve();
      await tick();
    }
    const result = await batch.done;
    expect(result.succeeded).toBe(15);
    expect(m.calls).toHaveLength(15);
    expect(result.untouched).toBe(5);
  });

  it('a permanent failure frees its allowance slot for the next file', async () => {
    const m = manualDeps();
    const batch = runBatch(jobs(3), { concurrency: 2, limit: 2, retry: policy }, m.deps, () => undefined);
    await tick();
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg']);
    m.pending.get('f0')!.reject(serviceError('AccessDenied', 403));
    m.pending.delete('f0');
    await tick();
    expect(m.calls).toEqual(['k0.jpg', 'k1.jpg', 'k2.jpg']);
    m.pending.get('f1')!.resolve();
    m.pending.get('f2')!.resolve();
    expect(await batch.done).toEqual({ succeeded: 2, failed: 1, refused: 0, untouched: 0, stopped: false });
  });

  it('retries transient errors with backoff, reusing the same key, up to the attempt bound', async () => {
    let attempts = 0;
    const sleeps: number[] = [];
    const keys: string[] = [];
    const events: EngineEvent[] = [];
    const deps: EngineDeps = {
      upload: async (job) => {
        keys.push(job.key);
        attempts++;
        throw serviceError('SlowDown', 503);
      },
      refreshCredentials: async () => undefined,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
    };
    const result = await runBatch(jobs(1), { concurrency: 1, limit: 1, retry: policy }, deps, (e) => events.push(e)).done;
    expect(attempts).toBe(4);
    expect(new Set(keys)).toEqual(new Set(['k0.jpg']));
    expect(sleeps).toEqual([50, 100, 200]);
    expect(result.failed).toBe(1);
    expect(events.at(-1)).toEqual({ type: 'failed', id: 'f0', reason: 'SlowDown happened' });
  });

  it('succeeds after transient failures without a failure event', async () => {
    let n = 0;
    const events: EngineEvent[] = [];
    const deps: EngineDeps = {
      upload: async () => {
        if (++n < 3) throw Object.assign(new Error('Network Error'), { name: 'ERR_NETWORK' });
      },
      refreshCredentials: async () => undefined,
      sleep: async () => undefined,
      random: () => 0.5,
    };
    expect((await runBatch(jobs(1), { concurrency: 1, limit: 1, retry: policy }, deps, (e) => events.push(e)).done).succeeded).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['started', 'retrying', 'started', 'retrying', 'started', 'succeeded']);
  });

  it('refreshes expired credentials silently and tries again', async () => {
    let n = 0;
    const refresh = jest.fn(async () => undefined);
    const deps: EngineDeps = {
      upload: async () => {
        if (++n === 1) throw serviceError('ExpiredToken', 400);
      },
      refreshCredentials: refresh,
      sleep: async () => undefined,
      random: () => 0.5,
    };
    const events: EngineEvent[] = [];
    expect((await runBatch(jobs(1), { concurrency: 1, limit: 1, retry: policy }, deps, (e) => events.push(e)).done).succeeded).toBe(1);
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(events.some((e) => e.type === 'failed')).toBe(false);
  });

  it('Stop aborts in-flight uploads, starts nothing new, and returns them to waiting', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const batch = runBatch(jobs(10), { concurrency: 3, limit: 10, retry: policy }, m.deps, (e) => events.push(e));
    await tick();
    m.pending.get('f0')!.resolve();
    await tick();
    batch.stop();
    const result = await batch.done;
    expect(result).toEqual({ succeeded: 1, failed: 0, refused: 0, untouched: 9, stopped: true });
    expect(m.calls).toHaveLength(4);
    expect(events.filter((e) => e.type === 'returned').map((e) => e.id).sort()).toEqual(['f1', 'f2', 'f3']);
    expect(events.some((e) => e.type === 'failed')).toBe(false);
  });

  it('never uploads a job that admit refuses; a refusal is no failure and frees its allowance slot', async () => {
    const m = manualDeps();
    const events: EngineEvent[] = [];
    const admit = jest.fn(async (job: UploadJob) => job.id !== 'f1');
    const batch = runBatch(jobs(4), { concurrency: 2, limit: 3, retry: policy }, { ...m.deps, admit }, (e) => events.push(e));
    while ((await tick(), m.pending.size > 0)) {
      const [id, p] = [...m.pending.entries()][0]!;
      m.pending.delete(id);
      p.resolve();
    }
    expect(await batch.done).toEqual({ succeeded: 3, failed: 0, refused: 1, untouched: 0, stopped: false });
    expect(m.calls).toEqual(['k0.jpg', 'k2.jpg', 'k3.jpg']);
    expect(events.filter((e) => e.type === 'refused')).toEqual([{ type: 'refused', id: 'f1' }]);
    expect(events.some((e) => e.id === 'f1' && e.type !== 'refused')).toBe(false);
  });

  it('waits for admit before the first attempt, and a rejected admit counts as a refusal', async () => {
    const m = manualDeps();
    let admitF0!: (ok: boolean) => void;
    const admit = (job: UploadJob) => (job.id === 'f0' ? new Promise<boolean>((r) => (admitF0 = r)) : Promise.reject(new Error('unreadable')));
    const batch = runBatch(jobs(2), { concurrency: 2, limit: 2, retry: policy }, { ...m.deps, admit }, () => undefined);
    await tick();
    expect(m.calls).toEqual([]);
    admitF0(true);
    await tick();
    expect(m.calls).toEqual(['k0.jpg']);
    m.pending.get('f0')!.resolve();
    expect(await batch.done).toEqual({ succeeded: 1, failed: 0, refused: 1, untouched: 0, stopped: false });
  });
});

describe('mayStartAnother', () => {
  it('counts in-flight uploads against the allowance', () => {
    expect(mayStartAnother({ succeeded: 13, active: 2, limit: 15, concurrency: 6, stopping: false, queued: 5 })).toBe(false);
    expect(mayStartAnother({ succeeded: 13, active: 1, limit: 15, concurrency: 6, stopping: false, queued: 5 })).toBe(true);
    expect(mayStartAnother({ succeeded: 0, active: 4, limit: 15, concurrency: 4, stopping: false, queued: 5 })).toBe(false);
    expect(mayStartAnother({ succeeded: 0, active: 0, limit: 15, concurrency: 4, stopping: true, queued: 5 })).toBe(false);
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt, with jitter between half and the whole step, capped', () => {
    const p = { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 8000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(backoffDelay(2, p, () => 0.5)).toBe(1500);
  });
  it('has a bounded default', () => expect(DEFAULT_RETRY.maxAttempts).toBeGreaterThan(1));
});

describe('classifyUploadError', () => {
  it('retries network errors, timeouts, 429 and 5xx', () => {
    expect(classifyUploadError(Object.assign(new Error('Network Error'), { name: 'ERR_NETWORK' })).kind).toBe('transient');
    expect(classifyUploadError(serviceError('RequestTimeout', 400)).kind).toBe('transient');
    expect(classifyUploadError(serviceError('TooManyRequests', 429)).kind).toBe('transient');
    expect(classifyUploadError(serviceError('InternalError', 500)).kind).toBe('transient');
    expect(classifyUploadError(serviceError('SlowDown', 503)).kind).toBe('transient');
  });
  it('refreshes on expired credentials', () => expect(classifyUploadError(serviceError('ExpiredToken', 400)).kind).toBe('credentials'));
  it('does not count a cancel as a failure', () => expect(classifyUploadError(Object.assign(new Error('x'), { name: 'CanceledError' })).kind).toBe('cancelled'));
  it('reports 403 and the like with their message', () =>
    expect(classifyUploadError(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }))).toEqual({ kind: 'permanent', message: 'Access Denied' }));
});

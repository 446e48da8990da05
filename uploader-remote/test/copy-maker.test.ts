import { Blob as NodeBlob } from 'node:buffer';
import type { PhotoExif } from '../src/features/upload/model/photo-exif';
import type { CopyResult } from '../src/features/upload/model/smaller-copy';
import {
  COPY_WORKERS,
  CopyMakerDisposedError,
  createCopyMaker,
  MAX_CONSECUTIVE_CRASHES,
  type CopyWorker,
} from '../src/features/upload/services/files/copy-maker';
import type { CopyRequest, CopyResponse } from '../src/features/upload/services/files/copy-protocol';
import { FakeWorker } from './support/fake-worker';

// On jest's fake clock: `flush` lets queued callbacks run without real time passing.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
const flush = () => jest.advanceTimersByTimeAsync(10);

const photo = (name: string): Blob => new NodeBlob([name]) as unknown as Blob;
const EXIF: PhotoExif = { make: 'Browning', captureTime: '2024-10-03T05:12:44' };
const copyOf = (name: string): CopyResult => ({ kind: 'copy', blob: photo(`copy of ${name}`), width: 2048, height: 1536 });

type CopyFake = FakeWorker<CopyRequest, CopyResponse>;
/** The copy requests posted to `worker`, in order. */
const copiesOf = (worker: CopyFake) => worker.posted.filter((m): m is Extract<CopyRequest, { kind: 'copy' }> => m.kind === 'copy');
/** The copy request posted last to `worker`, which it is making. */
const current = (worker: CopyFake) => copiesOf(worker).at(-1)!;
const RANGE_ERROR = 'Uncaught RangeError: Array buffer allocation failed';

/** A maker whose workers are FakeWorkers, listed in the order started. */
function makerWithFakes(options: { workers?: number; startWorker?: () => CopyWorker } = {}) {
  const workers: CopyFake[] = [];
  const warn = jest.fn();
  const maker = createCopyMaker({
    workers: options.workers,
    startWorker:
      options.startWorker ??
      (() => {
        const worker: CopyFake = new FakeWorker();
        workers.push(worker);
        return worker;
      }),
    warn,
  });
  return { maker, workers, warn };
}

/** Tracks a promise's outcome without awaiting it. */
function track<T>(promise: Promise<T>) {
  const outcome: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(outcome, { value, settled: true }),
    (error: unknown) => Object.assign(outcome, { error, settled: true }),
  );
  return outcome;
}

describe('createCopyMaker', () => {
  it('starts no worker before the first copy, then at most `workers`, one copy posted to each at a time', async () => {
    const { maker, workers } = makerWithFakes({ workers: 2 });
    await flush();
    expect(workers).toHaveLength(0);
    const made = ['a', 'b', 'c', 'd'].map((name) => track(maker.make(photo(name), EXIF)));
    await flush();
    expect(workers).toHaveLength(2);
    expect(workers.map((w) => copiesOf(w).length)).toEqual([1, 1]);
    expect(current(workers[0]!)).toMatchObject({ kind: 'copy', exif: EXIF, longEdge: 2048, quality: expect.any(Number) as number });

    // An answer frees its worker for the next copy, in the order asked.
    const first = current(workers[0]!);
    workers[0]!.answer({ id: first.id, result: copyOf('a') });
    await flush();
    expect(made[0]!.value).toEqual(copyOf('a'));
    expect(workers.map((w) => copiesOf(w).length)).toEqual([2, 1]);
    // c, the third asked for.
    expect(current(workers[0]!).id).toBe(3);
    expect(workers).toHaveLength(2);
  });

  it(`uses ${COPY_WORKERS} workers by default`, async () => {
    const { maker, workers } = makerWithFakes();
    for (let i = 0; i < 5; i++) void maker.make(photo(`p${i}`), null).catch(() => undefined);
    await flush();
    expect(workers).toHaveLength(COPY_WORKERS);
    maker.dispose();
  });

  it("passes on the worker's answer for a photo it could not use", async () => {
    const { maker, workers } = makerWithFakes({ workers: 1 });
    const made = track(maker.make(photo('broken'), null));
    await flush();
    workers[0]!.answer({ id: current(workers[0]!).id, result: { kind: 'original', reason: 'undecodable' } });
    await flush();
    expect(made.value).toEqual({ kind: 'original', reason: 'undecodable' });
  });

  it('rejects an aborted copy at once: one waiting leaves the queue, one being made is cancelled in its worker', async () => {
    const { maker, workers } = makerWithFakes({ workers: 1 });
    const running = new AbortController();
    const waiting = new AbortController();
    const a = track(maker.make(photo('a'), null, running.signal));
    const b = track(maker.make(photo('b'), null, waiting.signal));
    const c = track(maker.make(photo('c'), null));
    await flush();
    const worker = workers[0]!;
    const aId = current(worker).id;

    waiting.abort();
    await flush();
    expect(b.error).toMatchObject({ name: 'AbortError' });
    running.abort();
    await flush();
    expect(a.error).toMatchObject({ name: 'AbortError' });
    expect(worker.posted.at(-1)).toEqual({ kind: 'cancel', id: aId });
    // The worker is still busy with the cancelled copy until it answers: c waits.
    expect(copiesOf(worker)).toHaveLength(1);

    worker.answer({ id: aId, cancelled: true });
    await flush();
    expect(copiesOf(worker)).toHaveLength(2);
    worker.answer({ id: current(worker).id, result: copyOf('c') });
    await flush();
    expect(c.value).toEqual(copyOf('c'));
    expect(b.settled && a.settled).toBe(true);
  });

  it('rejects a copy whose signal has already aborted, without posting it', async () => {
    const { maker, workers } = makerWithFakes();
    const made = track(maker.make(photo('a'), null, AbortSignal.abort()));
    await flush();
    expect(made.error).toMatchObject({ name: 'AbortError' });
    expect(workers).toHaveLength(0);
  });

  it('ignores a late answer for a copy whose signal aborted', async () => {
    const { maker, workers } = makerWithFakes({ workers: 1 });
    const controller = new AbortController();
    const made = track(maker.make(photo('a'), null, controller.signal));
    await flush();
    controller.abort();
    // The result crossed the cancel.
    workers[0]!.answer({ id: current(workers[0]!).id, result: copyOf('a') });
    await flush();
    expect(made.error).toMatchObject({ name: 'AbortError' });
  });

  it('rejects copies pending and later ones once disposed, and stops its workers', async () => {
    const { maker, workers } = makerWithFakes({ workers: 1 });
    const a = track(maker.make(photo('a'), null));
    const b = track(maker.make(photo('b'), null));
    await flush();
    maker.dispose();
    await flush();
    expect(a.error).toBeInstanceOf(CopyMakerDisposedError);
    expect(b.error).toBeInstanceOf(CopyMakerDisposedError);
    expect(workers[0]!.terminated).toBe(true);
    await expect(maker.make(photo('c'), null)).rejects.toBeInstanceOf(CopyMakerDisposedError);
  });

  it('terminates a worker that finishes starting after the maker was disposed', async () => {
    const { maker, workers } = makerWithFakes();
    void maker.make(photo('a'), null).catch(() => undefined);
    maker.dispose();
    await flush();
    expect(workers.every((w) => w.terminated)).toBe(true);
  });

  it('replaces a worker that crashes; the copy it was making is sent as the original', async () => {
    const { maker, workers, warn } = makerWithFakes({ workers: 1 });
    const a = track(maker.make(photo('a'), null));
    const b = track(maker.make(photo('b'), null));
    await flush();
    workers[0]!.crash(RANGE_ERROR);
    await flush();
    expect(a.value).toEqual({ kind: 'original', reason: 'unavailable' });
    expect(workers[0]!.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    workers[1]!.answer({ id: current(workers[1]!).id, result: copyOf('b') });
    await flush();
    expect(b.value).toEqual(copyOf('b'));
    expect(warn).not.toHaveBeenCalled();
  });

  it(`gives copies up after ${MAX_CONSECUTIVE_CRASHES} crashes in a row: every copy is then the original, with one warning`, async () => {
    const { maker, workers, warn } = makerWithFakes({ workers: 1 });
    const made = ['a', 'b', 'c', 'd', 'e'].map((name) => track(maker.make(photo(name), null)));
    await flush();
    for (let i = 0; i < MAX_CONSECUTIVE_CRASHES; i++) {
      workers.at(-1)!.crash(RANGE_ERROR);
      await flush();
    }
    expect(workers).toHaveLength(MAX_CONSECUTIVE_CRASHES);
    expect(made.map((m) => m.value)).toEqual(made.map(() => ({ kind: 'original', reason: 'unavailable' })));
    expect(await maker.make(photo('f'), null)).toEqual({ kind: 'original', reason: 'unavailable' });
    expect(workers).toHaveLength(MAX_CONSECUTIVE_CRASHES);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('counts only crashes in a row: an answer in between starts the count again', async () => {
    const { maker, workers, warn } = makerWithFakes({ workers: 1 });
    for (let i = 0; i < 2 * MAX_CONSECUTIVE_CRASHES; i++) {
      const made = track(maker.make(photo(`p${i}`), null));
      await flush();
      if (i % 2 === 0) workers.at(-1)!.crash(RANGE_ERROR);
      else workers.at(-1)!.answer({ id: current(workers.at(-1)!).id, result: copyOf(`p${i}`) });
      await flush();
      expect(made.settled).toBe(true);
    }
    expect(warn).not.toHaveBeenCalled();
  });

  it('answers every copy `unavailable` when no worker can be started', async () => {
    const { maker, warn } = makerWithFakes({
      startWorker: () => {
        throw new ReferenceError('Worker is not defined');
      },
    });
    expect(await maker.make(photo('a'), null)).toEqual({ kind: 'original', reason: 'unavailable' });
    expect(await maker.make(photo('b'), null)).toEqual({ kind: 'original', reason: 'unavailable' });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('answers a copy that cannot be posted `unavailable`, and keeps the worker', async () => {
    const { maker, workers } = makerWithFakes({ workers: 1 });
    const a = track(maker.make(photo('a'), null));
    await flush();
    const worker = workers[0]!;
    worker.answer({ id: current(worker).id, result: copyOf('a') });
    await flush();
    jest.spyOn(worker, 'postMessage').mockImplementationOnce(() => {
      throw new DOMException('could not be cloned', 'DataCloneError');
    });
    const b = track(maker.make(photo('b'), null));
    await flush();
    expect(b.value).toEqual({ kind: 'original', reason: 'unavailable' });
    expect(a.value).toEqual(copyOf('a'));
    const c = track(maker.make(photo('c'), null));
    await flush();
    worker.answer({ id: current(worker).id, result: copyOf('c') });
    await flush();
    expect(c.value).toEqual(copyOf('c'));
    expect(workers).toHaveLength(1);
  });
});

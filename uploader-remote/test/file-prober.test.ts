import { Blob as NodeBlob } from 'node:buffer';
import { webcrypto } from 'node:crypto';
import { startCrossOriginWorker, workerBootstrap, type WorkerEnvironment } from '../src/features/upload/services/browser/cross-origin-worker';
import { probeFile, type FileProbe } from '../src/features/upload/services/files/file-probe';
import {
  createInlineProber,
  createWorkerProber,
  ProberDisposedError,
  STAT_BUDGET_MS,
  STAT_SLICE,
  statInSlices,
  type FileProber,
  type ProbeWorker,
} from '../src/features/upload/services/files/file-prober';
import type { ProbeRequest, ProbeResponse } from '../src/features/upload/services/files/probe-protocol';
import { fakeThumbnailJpeg, jpegWithExif } from '../../test-support/jpeg';
import { FakeWorker } from './support/fake-worker';

const subtle = webcrypto.subtle as unknown as SubtleCrypto;
const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0];
const blobOf = (...bytes: number[]): Blob => new NodeBlob([Uint8Array.from(bytes)]) as unknown as Blob;
const ok = (fingerprint: string): FileProbe => ({ kind: 'ok', fingerprint, isJpeg: true, exif: null });
// On jest's fake clock: `flush` lets queued callbacks run without real time passing.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
const flush = () => jest.advanceTimersByTimeAsync(10);
/** A SubtleCrypto whose digest answers at once (the reads are what these tests pace). */
const instantSubtle = { digest: async () => new ArrayBuffer(32) } as unknown as SubtleCrypto;

type ProbeFake = FakeWorker<ProbeRequest, ProbeResponse>;
const fakeWorker = (): ProbeFake => new FakeWorker();
/** `worker` answers request `id` with a fingerprint naming it. */
const answerOk = (worker: ProbeFake, id: number) => worker.answer({ id, result: ok(`fp-${id}`) });
/** The thumbnail requests posted to `worker`, in order. */
const thumbnailRequests = (worker: ProbeFake) => worker.posted.filter((m) => m.kind === 'thumbnail');

/** A fallback prober that records what it probes and answers each with its name. */
function recordingFallback() {
  const probed: Blob[] = [];
  const thumbnailed: Blob[] = [];
  const names = new Map<Blob, string>();
  const prober: FileProber = {
    probe: async (file) => (probed.push(file), ok(`inline-${names.get(file) ?? '?'}`)),
    thumbnail: async (file) => (thumbnailed.push(file), `inline-thumbnail-${names.get(file) ?? '?'}`),
    stat: async (files: readonly Blob[]) => files.map((f) => ({ size: f.size, lastModified: -1 })),
    dispose: jest.fn(),
  };
  return { prober, probed, thumbnailed, names };
}

/**
 * Files whose first bytes are read only when the test says: `reads` lists the reads started, by
 * file name, and `answer(name)` lets one finish (with a JPEG holding an EXIF thumbnail).
 */
function slowFiles() {
  const reads: string[] = [];
  const pending = new Map<string, () => void>();
  const thumbnail = fakeThumbnailJpeg(40);
  const bytes = jpegWithExif({ make: 'Browning', thumbnail });
  const file = (name: string): Blob =>
    ({
      size: bytes.length,
      slice: () => ({
        arrayBuffer: () =>
          new Promise<ArrayBuffer>((resolve) => {
            reads.push(name);
            pending.set(name, () => resolve(bytes.slice().buffer));
          }),
      }),
    }) as unknown as Blob;
  return { file, reads, answer: (name: string) => pending.get(name)!(), url: `data:image/jpeg;base64,${Buffer.from(thumbnail).toString('base64')}` };
}

describe('createInlineProber', () => {
  it('probes on the calling thread, exactly as probeFile does', async () => {
    const prober = createInlineProber(subtle);
    const photo = blobOf(...JPEG_HEAD, 1, 2, 3);
    expect(await prober.probe(photo)).toEqual(await probeFile(photo, subtle));
    expect(await prober.probe(blobOf(0x89, 0x50))).toMatchObject({ kind: 'ok', isJpeg: false });
  });

  it('keeps at most maxInFlight reads going and starts the next as one ends', async () => {
    const reads: { answer: () => void }[] = [];
    const slowBlob = (): Blob =>
      ({
        size: 3,
        slice: () => ({
          arrayBuffer: () => new Promise<ArrayBuffer>((resolve) => reads.push({ answer: () => resolve(Uint8Array.from([0xff, 0xd8, 0xff]).buffer) })),
        }),
      }) as unknown as Blob;
    const prober = createInlineProber(instantSubtle, 2);
    const probes = [prober.probe(slowBlob()), prober.probe(slowBlob()), prober.probe(slowBlob())];
    await flush();
    expect(reads).toHaveLength(2);
    reads[0]!.answer();
    await flush();
    expect(reads).toHaveLength(3);
    reads[1]!.answer();
    reads[2]!.answer();
    expect((await Promise.all(probes)).map((p) => p.kind)).toEqual(['ok', 'ok', 'ok']);
  });

  it('rejects what is pending, and what comes later, once disposed', async () => {
    const never = { size: 3, slice: () => ({ arrayBuffer: () => new Promise<ArrayBuffer>(() => undefined) }) } as unknown as Blob;
    const prober = createInlineProber(subtle, 1);
    const running = prober.probe(never);
    const queued = prober.probe(never);
    prober.dispose();
    await expect(running).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(queued).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(prober.probe(blobOf(1))).rejects.toBeInstanceOf(ProberDisposedError);
  });
});

describe('createInlineProber thumbnails', () => {
  it('makes only EXIF thumbnails: the embedded one as a data: URL, none without it (no decoding on the page’s thread)', async () => {
    const decode = jest.fn();
    const scope = globalThis as { createImageBitmap?: unknown; OffscreenCanvas?: unknown };
    const before = { createImageBitmap: scope.createImageBitmap, OffscreenCanvas: scope.OffscreenCanvas };
    Object.assign(scope, { createImageBitmap: decode, OffscreenCanvas: class {} });
    try {
      const prober = createInlineProber(subtle);
      const thumbnail = fakeThumbnailJpeg(200);
      const withThumbnail = new NodeBlob([jpegWithExif({ make: 'Browning', thumbnail })]) as unknown as Blob;
      expect(await prober.thumbnail(withThumbnail)).toBe(`data:image/jpeg;base64,${Buffer.from(thumbnail).toString('base64')}`);
      expect(await prober.thumbnail(new NodeBlob([jpegWithExif({ make: 'Browning' })]) as unknown as Blob)).toBeNull();
      expect(await prober.thumbnail(blobOf(0x89, 0x50))).toBeNull();
      expect(decode).not.toHaveBeenCalled();
    } finally {
      Object.assign(scope, before);
    }
  });

  it('makes at most 4 at once, the newest waiting one first, apart from the probes', async () => {
    const slow = slowFiles();
    const prober = createInlineProber(instantSubtle, 1);
    // A probe that never ends holds the probes' only slot: thumbnails do not wait for it.
    const never = { size: 3, slice: () => ({ arrayBuffer: () => new Promise<ArrayBuffer>(() => undefined) }) } as unknown as Blob;
    void prober.probe(never);
    void prober.probe(never);
    const thumbnails = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => prober.thumbnail(slow.file(name)));
    await flush();
    expect(slow.reads).toEqual(['a', 'b', 'c', 'd']);
    slow.answer('a');
    await flush();
    expect(slow.reads).toEqual(['a', 'b', 'c', 'd', 'f']);
    expect(await thumbnails[0]).toBe(slow.url);
    slow.answer('b');
    await flush();
    expect(slow.reads).toEqual(['a', 'b', 'c', 'd', 'f', 'e']);
    for (const name of ['c', 'd', 'e', 'f']) slow.answer(name);
    expect(await Promise.all(thumbnails)).toEqual(Array(6).fill(slow.url));
  });

  it('drops a waiting request whose signal aborts (its row scrolled away), resolving it null', async () => {
    const slow = slowFiles();
    const prober = createInlineProber(instantSubtle, 1, 1);
    const first = prober.thumbnail(slow.file('first'));
    const scrolledAway = new AbortController();
    const dropped = prober.thumbnail(slow.file('dropped'), scrolledAway.signal);
    const last = prober.thumbnail(slow.file('last'));
    await flush();
    scrolledAway.abort();
    expect(await dropped).toBeNull();
    slow.answer('first');
    await flush();
    slow.answer('last');
    expect(await Promise.all([first, last])).toEqual([slow.url, slow.url]);
    expect(slow.reads).toEqual(['first', 'last']);
    // Already aborted: nothing is read.
    const gone = new AbortController();
    gone.abort();
    expect(await prober.thumbnail(slow.file('never'), gone.signal)).toBeNull();
    expect(slow.reads).not.toContain('never');
  });

  it('answers null at once when a running request aborts, and keeps its slot until it ends', async () => {
    const slow = slowFiles();
    const prober = createInlineProber(instantSubtle, 1, 1);
    const shown = new AbortController();
    const running = prober.thumbnail(slow.file('running'), shown.signal);
    const next = prober.thumbnail(slow.file('next'));
    await flush();
    shown.abort();
    expect(await running).toBeNull();
    await flush();
    expect(slow.reads).toEqual(['running']);
    slow.answer('running');
    await flush();
    expect(slow.reads).toEqual(['running', 'next']);
    slow.answer('next');
    expect(await next).toBe(slow.url);
  });

  it('rejects running and waiting thumbnails, and later ones, once disposed', async () => {
    const slow = slowFiles();
    const prober = createInlineProber(instantSubtle, 1, 1);
    const running = prober.thumbnail(slow.file('a'));
    const waiting = prober.thumbnail(slow.file('b'));
    await flush();
    prober.dispose();
    await expect(running).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(waiting).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(prober.thumbnail(slow.file('c'))).rejects.toBeInstanceOf(ProberDisposedError);
    slow.answer('a'); // a late answer changes nothing
    await flush();
    expect(slow.reads).toEqual(['a']);
  });
});

describe('createWorkerProber', () => {
  it('starts the worker on the first probe only, and once', async () => {
    const worker = fakeWorker();
    const createWorker = jest.fn(() => worker);
    const prober = createWorkerProber({ createWorker, createFallback: () => recordingFallback().prober });
    await flush();
    expect(createWorker).not.toHaveBeenCalled();
    const a = prober.probe(blobOf(1));
    const b = prober.probe(blobOf(2));
    await flush();
    expect(createWorker).toHaveBeenCalledTimes(1);
    expect(worker.posted.map((m) => m.id)).toEqual([1, 2]);
    answerOk(worker, 1);
    answerOk(worker, 2);
    expect(await Promise.all([a, b])).toEqual([ok('fp-1'), ok('fp-2')]);
  });

  it('matches answers to probes by id, in whatever order they come', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker });
    const files = [blobOf(1), blobOf(2), blobOf(3)];
    const probes = files.map((f) => prober.probe(f));
    await flush();
    expect(worker.posted.map((m) => ('file' in m ? m.file : null))).toEqual(files);
    const [first, second, third] = worker.posted;
    answerOk(worker, third!.id);
    worker.answer({ id: first!.id, result: { kind: 'unreadable', reason: 'gone' } });
    worker.answer({ id: 999, result: ok('nobody asked') }); // ignored
    answerOk(worker, second!.id);
    expect(await Promise.all(probes)).toEqual([{ kind: 'unreadable', reason: 'gone' }, ok(`fp-${second!.id}`), ok(`fp-${third!.id}`)]);
  });

  it('posts at most maxInFlight and queues the rest until answers come', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker, maxInFlight: 32 });
    const probes = Array.from({ length: 100 }, (_, i) => prober.probe(blobOf(i)));
    await flush();
    expect(worker.posted).toHaveLength(32);
    for (const m of worker.posted.slice(0, 10)) answerOk(worker, m.id);
    expect(worker.posted).toHaveLength(42);
    // Keep answering whatever is posted: every probe ends, never more than 32 outstanding.
    let answered = 10;
    while (answered < worker.posted.length) {
      expect(worker.posted.length - answered).toBeLessThanOrEqual(32);
      answerOk(worker, worker.posted[answered++]!.id);
    }
    expect(answered).toBe(100);
    expect((await Promise.all(probes)).every((p) => p.kind === 'ok')).toBe(true);
  });

  it('rejects a probe the worker answers with an error that is not about the file', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker });
    const probe = prober.probe(blobOf(1));
    await flush();
    worker.answer({ id: worker.posted[0]!.id, error: "Cannot read properties of undefined (reading 'digest')" });
    await expect(probe).rejects.toThrow("reading 'digest'");
  });

  it.each([
    [
      'throws',
      () => {
        throw new DOMException('Failed to construct Worker', 'SecurityError');
      },
    ],
    ['rejects', () => Promise.reject(new Error('chunk load failed'))],
  ])('probes everything inline when the worker cannot be created (its factory %s), warning once', async (_, createWorker) => {
    const fallback = recordingFallback();
    const warn = jest.fn();
    const prober = createWorkerProber({ createWorker, createFallback: () => fallback.prober, warn });
    const a = blobOf(1);
    const b = blobOf(2);
    fallback.names.set(a, 'a').set(b, 'b');
    expect(await Promise.all([prober.probe(a), prober.probe(b)])).toEqual([ok('inline-a'), ok('inline-b')]);
    const c = blobOf(3);
    fallback.names.set(c, 'c');
    expect(await prober.probe(c)).toEqual(ok('inline-c'));
    expect(fallback.probed).toEqual([a, b, c]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('re-runs inline what a worker that errors out never answered, and everything after, warning once', async () => {
    const worker = fakeWorker();
    const fallback = recordingFallback();
    const warn = jest.fn();
    const prober = createWorkerProber({ createWorker: () => worker, createFallback: () => fallback.prober, warn, maxInFlight: 2 });
    const files = [blobOf(1), blobOf(2), blobOf(3)];
    files.forEach((f, i) => fallback.names.set(f, `f${i}`));
    const probes = files.map((f) => prober.probe(f));
    await flush();
    expect(worker.posted).toHaveLength(2);
    answerOk(worker, worker.posted[0]!.id); // answered before the crash: kept
    await flush();
    expect(worker.posted).toHaveLength(3);
    worker.crash();
    worker.crash(); // a second error event: no second warning, nothing run twice
    expect(await Promise.all(probes)).toEqual([ok('fp-1'), ok('inline-f1'), ok('inline-f2')]);
    const later = blobOf(4);
    fallback.names.set(later, 'later');
    expect(await prober.probe(later)).toEqual(ok('inline-later'));
    expect(fallback.probed).toEqual([files[1], files[2], later]);
    expect(worker.terminated).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![1]).toBe('Uncaught ReferenceError: x is not defined');
  });

  it('falls back when an answer cannot be received (messageerror): that probe would wait forever', async () => {
    const worker = fakeWorker();
    const fallback = recordingFallback();
    const prober = createWorkerProber({ createWorker: () => worker, createFallback: () => fallback.prober, warn: jest.fn() });
    const file = blobOf(1);
    fallback.names.set(file, 'one');
    const probe = prober.probe(file);
    await flush();
    worker.breakMessages();
    expect(await probe).toEqual(ok('inline-one'));
  });

  it('probes inline a file that cannot be posted, and keeps the worker for the rest', async () => {
    const worker = fakeWorker();
    const fallback = recordingFallback();
    const warn = jest.fn();
    const unclonable = blobOf(1);
    fallback.names.set(unclonable, 'unclonable');
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (m) => {
      if ('file' in m && m.file === unclonable) throw new DOMException('could not be cloned', 'DataCloneError');
      post(m);
    };
    const prober = createWorkerProber({ createWorker: () => worker, createFallback: () => fallback.prober, warn });
    const a = prober.probe(unclonable);
    const b = prober.probe(blobOf(2));
    await flush();
    answerOk(worker, worker.posted[0]!.id);
    expect(await Promise.all([a, b])).toEqual([ok('inline-unclonable'), ok(`fp-${worker.posted[0]!.id}`)]);
    expect(warn).not.toHaveBeenCalled();
    expect(worker.terminated).toBe(false);
  });

  it('uses the inline prober with the page’s crypto.subtle as the default fallback', async () => {
    const pageCrypto = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
    Object.defineProperty(globalThis, 'crypto', { value: webcrypto, configurable: true });
    try {
      const prober = createWorkerProber({
        createWorker: () => {
          throw new Error('no Worker here');
        },
        warn: jest.fn(),
      });
      const photo = blobOf(...JPEG_HEAD, 9);
      expect(await prober.probe(photo)).toEqual(await probeFile(photo, subtle));
    } finally {
      if (pageCrypto) Object.defineProperty(globalThis, 'crypto', pageCrypto);
    }
  });

  it('rejects pending probes, terminates the worker and refuses new probes once disposed', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker, maxInFlight: 1 });
    const posted = prober.probe(blobOf(1));
    const queued = prober.probe(blobOf(2));
    await flush();
    prober.dispose();
    expect(worker.terminated).toBe(true);
    await expect(posted).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(queued).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(prober.probe(blobOf(3))).rejects.toBeInstanceOf(ProberDisposedError);
  });

  it('terminates a worker that finishes starting after dispose', async () => {
    const worker = fakeWorker();
    let started!: (w: ProbeWorker) => void;
    const prober = createWorkerProber({ createWorker: () => new Promise<ProbeWorker>((resolve) => (started = resolve)) });
    const probe = prober.probe(blobOf(1));
    const rejected = expect(probe).rejects.toBeInstanceOf(ProberDisposedError);
    await flush();
    prober.dispose();
    started(worker);
    await flush();
    expect(worker.terminated).toBe(true);
    expect(worker.posted).toEqual([]);
    await rejected;
  });
});

describe('createWorkerProber thumbnails', () => {
  it('posts thumbnails apart from the probes: at most 4, newest first, ahead of thousands of queued probes', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker, maxInFlight: 2 });
    for (let i = 0; i < 10_000; i++) void prober.probe(blobOf(i));
    const files = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => new File([name], name) as unknown as Blob);
    const thumbnails = files.map((f) => prober.thumbnail(f));
    await flush();
    const named = () => thumbnailRequests(worker).map((m) => (m.file as File).name);
    expect(named()).toEqual(['f', 'e', 'd', 'c']);
    expect(worker.posted.filter((m) => m.kind === 'probe')).toHaveLength(2);
    const [f, e] = thumbnailRequests(worker);
    worker.answer({ id: f!.id, thumbnail: 'data:image/jpeg;base64,Zg==' });
    worker.answer({ id: 999, thumbnail: 'nobody asked' }); // ignored
    await flush();
    expect(named()).toEqual(['f', 'e', 'd', 'c', 'b']);
    worker.answer({ id: e!.id, thumbnail: null });
    await flush();
    expect(named()).toEqual(['f', 'e', 'd', 'c', 'b', 'a']);
    for (const m of thumbnailRequests(worker).slice(2)) worker.answer({ id: m.id, thumbnail: `url-${(m.file as File).name}` });
    expect(await Promise.all(thumbnails)).toEqual(['url-a', 'url-b', 'url-c', 'url-d', null, 'data:image/jpeg;base64,Zg==']);
  });

  it('starts the worker on the first thumbnail too', async () => {
    const worker = fakeWorker();
    const createWorker = jest.fn(() => worker);
    const prober = createWorkerProber({ createWorker });
    const thumbnail = prober.thumbnail(blobOf(1));
    await flush();
    expect(createWorker).toHaveBeenCalledTimes(1);
    expect(worker.posted).toEqual([{ id: 1, kind: 'thumbnail', file: expect.anything() }]);
    worker.answer({ id: 1, thumbnail: 'data:image/jpeg;base64,AA==' });
    expect(await thumbnail).toBe('data:image/jpeg;base64,AA==');
  });

  it('never posts a request whose row scrolled away while it waited, and answers it null', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker, maxThumbnailsInFlight: 1 });
    const first = prober.thumbnail(blobOf(1));
    await flush();
    const scrolledAway = new AbortController();
    const dropped = prober.thumbnail(blobOf(2), scrolledAway.signal);
    await flush();
    scrolledAway.abort();
    expect(await dropped).toBeNull();
    worker.answer({ id: worker.posted[0]!.id, thumbnail: 'url-1' });
    expect(await first).toBe('url-1');
    await flush();
    expect(worker.posted).toHaveLength(1);
  });

  it('makes on the fallback the thumbnails a failed worker never answered, and every later one', async () => {
    const worker = fakeWorker();
    const fallback = recordingFallback();
    const warn = jest.fn();
    const prober = createWorkerProber({ createWorker: () => worker, createFallback: () => fallback.prober, warn, maxThumbnailsInFlight: 1 });
    const a = blobOf(1);
    const b = blobOf(2);
    fallback.names.set(a, 'a').set(b, 'b');
    const thumbnails = [prober.thumbnail(a), prober.thumbnail(b)];
    await flush();
    expect(thumbnailRequests(worker)).toHaveLength(1);
    worker.crash();
    expect(await Promise.all(thumbnails)).toEqual(['inline-thumbnail-a', 'inline-thumbnail-b']);
    const later = blobOf(3);
    fallback.names.set(later, 'later');
    expect(await prober.thumbnail(later)).toBe('inline-thumbnail-later');
    expect(fallback.thumbnailed).toEqual([b, a, later]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('makes thumbnails on the fallback when the worker cannot be created', async () => {
    const fallback = recordingFallback();
    const prober = createWorkerProber({
      createWorker: () => Promise.reject(new Error('chunk load failed')),
      createFallback: () => fallback.prober,
      warn: jest.fn(),
    });
    const file = blobOf(1);
    fallback.names.set(file, 'one');
    expect(await prober.thumbnail(file)).toBe('inline-thumbnail-one');
  });

  it('rejects posted and waiting thumbnails, and later ones, once disposed', async () => {
    const worker = fakeWorker();
    const prober = createWorkerProber({ createWorker: () => worker, maxThumbnailsInFlight: 1 });
    const posted = prober.thumbnail(blobOf(1));
    const waiting = prober.thumbnail(blobOf(2));
    await flush();
    prober.dispose();
    await expect(posted).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(waiting).rejects.toBeInstanceOf(ProberDisposedError);
    await expect(prober.thumbnail(blobOf(3))).rejects.toBeInstanceOf(ProberDisposedError);
    expect(worker.terminated).toBe(true);
  });
});

describe('statInSlices', () => {
  it('reads sizes and modified times a slice per task, so the page gets turns in between', async () => {
    // Timer callbacks are numbered as they run; each read of a size notes the task it is in.
    let task = 0;
    const fakeSetTimeout = globalThis.setTimeout;
    const timeouts = jest.spyOn(globalThis, 'setTimeout').mockImplementation((callback: () => void, ms?: number) =>
      fakeSetTimeout(() => {
        task++;
        callback();
      }, ms),
    );
    const readsIn: number[] = [];
    const files = Array.from({ length: STAT_SLICE * 2 + 1 }, (_, i) => {
      const size = i % 7;
      return {
        get size() {
          readsIn[task] = (readsIn[task] ?? 0) + 1;
          return size;
        },
        lastModified: i,
      } as unknown as Blob;
    });
    const stats = statInSlices(files);
    await jest.runAllTimersAsync();
    timeouts.mockRestore();
    // None in the caller's task, then one slice per task.
    expect(Array.from(readsIn, (n) => n ?? 0)).toEqual([0, STAT_SLICE, STAT_SLICE, 1]);
    const result = await stats;
    expect(result).toHaveLength(files.length);
    expect(result[9]).toEqual({ size: 2, lastModified: 9 });
  });
});

describe('statInSlices on a slow disk', () => {
  it('stops a slice when its time budget is spent, however few files it read', async () => {
    const files = Array.from({ length: 30 }, (_, i) => new File([new Uint8Array(i % 3)], `f${i}`) as unknown as Blob);
    // Each look at the clock finds 10 ms gone: a slice reads 3 files (25 ms budget), not 250.
    let now = 0;
    const clock = () => (now += 10);
    const timeouts = jest.spyOn(globalThis, 'setTimeout');
    const stats = statInSlices(files, clock);
    await flush();
    expect(await stats).toHaveLength(30);
    expect(STAT_BUDGET_MS).toBe(25);
    expect(timeouts).toHaveBeenCalledTimes(10);
    timeouts.mockRestore();
  });
});

describe('CrossOriginWorker', () => {
  const chunk = 'http://localhost:3002/probe-worker.0123456789.js';

  it('starts a same-origin script directly (the remote on its own page)', () => {
    expect(workerBootstrap(chunk, 'http://localhost:3002/')).toEqual({ kind: 'direct', url: chunk });
    expect(workerBootstrap('/w.js', 'http://localhost:3002/uploader')).toEqual({ kind: 'direct', url: 'http://localhost:3002/w.js' });
  });

  it('starts a script of another origin through a blob: URL that imports it (the remote in the shell)', () => {
    expect(workerBootstrap(new URL(chunk), 'http://localhost:3000/uploader')).toEqual({
      kind: 'blob',
      source: `importScripts("${chunk}");\n`,
    });
    // Another port is another origin; a module worker imports instead.
    expect(workerBootstrap(chunk, 'http://localhost:3000/', 'module')).toEqual({ kind: 'blob', source: `import "${chunk}";\n` });
  });

  function fakeEnvironment(pageUrl: string) {
    const created: { url: string | URL; options: WorkerOptions | undefined; worker: ProbeFake }[] = [];
    const revoked: string[] = [];
    const env: WorkerEnvironment = {
      Worker: jest.fn(function (url: string | URL, options?: WorkerOptions) {
        const worker = fakeWorker();
        created.push({ url, options, worker });
        return worker;
      }) as unknown as WorkerEnvironment['Worker'],
      pageUrl,
      createObjectURL: () => 'blob:http://localhost:3000/1234',
      revokeObjectURL: (url) => revoked.push(url),
    };
    return { env, created, revoked };
  }

  it('creates the worker from the blob: URL with the given options, and revokes the URL once it answers', () => {
    const { env, created, revoked } = fakeEnvironment('http://localhost:3000/uploader');
    const worker = startCrossOriginWorker(chunk, { name: 'probe-worker' }, env) as unknown as ProbeFake;
    expect(created).toEqual([{ url: 'blob:http://localhost:3000/1234', options: { name: 'probe-worker' }, worker }]);
    expect(revoked).toEqual([]);
    answerOk(worker, 1);
    worker.crash();
    expect(revoked).toEqual(['blob:http://localhost:3000/1234']);
  });

  it('revokes the blob: URL when the Worker constructor throws', () => {
    const { env, revoked } = fakeEnvironment('http://localhost:3000/');
    env.Worker = function () {
      throw new DOMException('Failed to construct Worker', 'SecurityError');
    } as unknown as WorkerEnvironment['Worker'];
    expect(() => startCrossOriginWorker(chunk, undefined, env)).toThrow('Failed to construct Worker');
    expect(revoked).toEqual(['blob:http://localhost:3000/1234']);
  });

  it('creates a same-origin worker from the chunk’s URL itself', () => {
    const { env, created } = fakeEnvironment('http://localhost:3002/');
    startCrossOriginWorker(chunk, undefined, env);
    expect(created.map((c) => c.url)).toEqual([chunk]);
  });
});

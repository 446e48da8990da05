/**
 * Smaller copies ("Send smaller copies", uploader-remote/src/features/upload/model/smaller-copy.ts):
 * what size and JPEG quality the copy should have, and how fast the real copy path makes them.
 * In headless Chromium, on PHOTOS (default 20) realistic trail-camera photos of 12–20 MP and
 * 3–5 MB (e2e/support/photos.ts, generated and cached). The uploader's copy code is bundled for a
 * page with esbuild; the page is served by Playwright's routing (no port), on an https origin:
 * WebCodecs' ImageDecoder exists only in a secure context.
 *
 * 1. Size × quality: for long edges {1600, 2048, 2560} × qualities {0.7 … 0.9}, each photo's copy
 *    made by the worker's own makeCopy: mean bytes, ratio to the original, and SSIM (the image-ssim
 *    package: 8×8 windows on luma) against the original reduced to the copy's size by an exact
 *    area average (every source pixel weighted by how much of it each copy pixel covers); and,
 *    to compare sizes on one scale, SSIM of every copy reduced (the same way) to the smallest
 *    size against the original reduced to it.
 * 2. Decode and resize: at COPY_LONG_EDGE, each way of getting the copy's pixels — the photo
 *    decoded whole then drawn with imageSmoothingQuality 'high' (the worker's way before the DCT
 *    scale, and still its way where there is no scaled decoder), 'low', createImageBitmap's own
 *    resize, and the worker's way now: decoded by WebCodecs' ImageDecoder at the smallest DCT
 *    scale that covers the copy (smaller-copy.ts's scaledDecode), made an ImageBitmap, drawn
 *    'high' (and, to show why, drawn 'low', and the VideoFrame drawn as it is) — per photo:
 *    time on the page's thread, SSIM of the resized pixels (before JPEG) against the same
 *    reference, the copy's bytes at COPY_QUALITY and its SSIM after JPEG.
 * 3. Throughput: every photo through createCopyMaker with 1 and 2 workers, for the real worker
 *    bundle (DCT-scaled decode) and the same bundle with the scaled decoder taken away (decoded
 *    whole, as before): copies per second, and the longest main-thread task meanwhile
 *    (PerformanceObserver 'longtask'), the two alternating so the machine's load falls on both.
 *
 *   npm run bench:copies
 *   PHOTOS=8 BENCH_SECTIONS=sweep npm run bench:copies
 */
import { chromium, type Page } from '@playwright/test';
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import type { jpegFrame } from '../uploader-remote/src/features/upload/model/jpeg-frame';
import {
  COPY_LONG_EDGE,
  COPY_QUALITY,
  type copyDimensions,
  type CopyResult,
  type scaledDecode,
} from '../uploader-remote/src/features/upload/model/smaller-copy';
import type { createCopyMaker } from '../uploader-remote/src/features/upload/services/files/copy-maker';
import type { copyDecoder, makeCopy } from '../uploader-remote/src/features/upload/services/files/copy.worker';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { photoExif, realisticPhotos } from '../e2e/support/photos';
import { repo } from '../e2e/support/servers';
import { printTable } from './table';

const PHOTOS = Number(process.env.PHOTOS ?? 20);
const EDGES = [1600, 2048, 2560];
const QUALITIES = [0.7, 0.75, 0.8, 0.85, 0.9];
const WORKER_COUNTS = [1, 2];
/** The worker bundles of section 3: the real one, and one decoding every photo whole (the path before the DCT scale). */
const WORKER_KINDS = ['scaled', 'whole'] as const;
type WorkerKind = (typeof WORKER_KINDS)[number];
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? 'sweep,resize,throughput').split(',').map((s) => s.trim()));
const ORIGIN = 'https://copy-bench.test';
const FILES = path.join(repo, 'uploader-remote/src/features/upload');

/** What the page bundle exposes as `copyBench`. */
interface CopyBench {
  createCopyMaker: typeof createCopyMaker;
  makeCopy: typeof makeCopy;
  copyDecoder: typeof copyDecoder;
  copyDimensions: typeof copyDimensions;
  scaledDecode: typeof scaledDecode;
  jpegFrame: typeof jpegFrame;
  /** image-ssim's compare (typed here: the package ships its TypeScript source, which this project's settings refuse). */
  ssim: (a: SsimImage, b: SsimImage) => { ssim: number };
}
interface SsimImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
  /** 4: RGBA. */
  channels: 4;
}
declare const copyBench: CopyBench;
/** The photos, fetched by the page once, and each kind of copy worker's script as a blob: URL. */
declare const benchPhotos: Blob[];
declare const copyWorkerUrls: Record<WorkerKind, string>;

/** The copy workers and the page's code, bundled as the uploader's build would (one self-contained script each). */
async function bundles(): Promise<{ workers: Record<WorkerKind, string>; page: string }> {
  const common = { bundle: true, write: false, format: 'iife', target: 'chrome120', logLevel: 'error' } as const;
  const scaled = await build({ ...common, entryPoints: [path.join(FILES, 'services/files/copy.worker.ts')] });
  // The real entry, answering with the scaled decoder taken away: importing copy.worker.ts serves
  // with this thread's decoder, and serving again replaces its onmessage.
  const whole = await build({
    ...common,
    stdin: {
      contents: [
        "import { copyDecoder, serveCopies } from './services/files/copy.worker';",
        'const decoder = copyDecoder(self);',
        'serveCopies(self, decoder && { ...decoder, decodeScaledJpeg: null });',
      ].join('\n'),
      resolveDir: FILES,
      loader: 'ts',
    },
  });
  const page = await build({
    ...common,
    globalName: 'copyBench',
    // copy-maker's default worker (start-copy-worker.ts) is webpack's to compile; the bench passes its own.
    define: { 'import.meta.url': JSON.stringify(`${ORIGIN}/`) },
    stdin: {
      contents: [
        "export { createCopyMaker } from './services/files/copy-maker';",
        "export { makeCopy, copyDecoder } from './services/files/copy.worker';",
        "export { copyDimensions, scaledDecode } from './model/smaller-copy';",
        "export { jpegFrame } from './model/jpeg-frame';",
        "export { compare as ssim } from 'image-ssim';",
      ].join('\n'),
      resolveDir: FILES,
      loader: 'ts',
    },
  });
  return { workers: { scaled: scaled.outputFiles[0]!.text, whole: whole.outputFiles[0]!.text }, page: page.outputFiles[0]!.text };
}

// ---- Run in the page (serialised with toString: they use only the page's globals) ----

/**
 * `src` (RGBA, w × h) reduced to tw × th by an exact area average, in two separable passes: the
 * reference a copy is compared with.
 */
function areaResize(src: Uint8ClampedArray, w: number, h: number, tw: number, th: number): Uint8ClampedArray {
  // `lines` lines of `inLen` pixels (`step` apart; lines `lineStep` apart) to `outLen` pixels each.
  const pass = (
    input: Float32Array | Uint8ClampedArray,
    inLen: number,
    outLen: number,
    lines: number,
    step: number,
    lineStep: number,
    outStep: number,
    outLineStep: number,
  ) => {
    const out = new Float32Array(lines * outLen * 4);
    const scale = inLen / outLen;
    for (let o = 0; o < outLen; o++) {
      const start = o * scale;
      const end = start + scale;
      for (let i = Math.floor(start); i < Math.min(inLen, Math.ceil(end)); i++) {
        const weight = (Math.min(end, i + 1) - Math.max(start, i)) / scale;
        for (let line = 0; line < lines; line++) {
          const s = line * lineStep + i * step;
          const d = line * outLineStep + o * outStep;
          out[d] = out[d]! + input[s]! * weight;
          out[d + 1] = out[d + 1]! + input[s + 1]! * weight;
          out[d + 2] = out[d + 2]! + input[s + 2]! * weight;
        }
      }
    }
    return out;
  };
  // Rows: w → tw for each of h lines; then columns: h → th for each of tw lines.
  const rows = pass(src, w, tw, h, 4, w * 4, 4, tw * 4);
  const both = pass(rows, h, th, tw, tw * 4, 4, tw * 4, 4);
  const result = new Uint8ClampedArray(tw * th * 4);
  for (let i = 0; i < result.length; i += 4) {
    result[i] = both[i]!;
    result[i + 1] = both[i + 1]!;
    result[i + 2] = both[i + 2]!;
    result[i + 3] = 255;
  }
  return result;
}

/** The pixels of an image (a bitmap or a blob to decode), RGBA. */
async function pixelsOf(image: ImageBitmap | Blob): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const bitmap = image instanceof Blob ? await createImageBitmap(image, { imageOrientation: 'from-image' }) : image;
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  context.drawImage(bitmap, 0, 0);
  const { data, width, height } = context.getImageData(0, 0, bitmap.width, bitmap.height);
  if (image instanceof Blob) bitmap.close();
  return { data, width, height };
}

function ssimOf(a: Uint8ClampedArray, b: Uint8ClampedArray, width: number, height: number): number {
  return copyBench.ssim({ data: a, width, height, channels: 4 }, { data: b, width, height, channels: 4 }).ssim;
}

/** Section 1 for photo `index`: every edge × quality, as { edge, quality, bytes, ssim, kind }. */
async function sweepPhoto({ index, edges, qualities }: { index: number; edges: number[]; qualities: number[] }) {
  const photo = benchPhotos[index]!;
  const full = await pixelsOf(photo);
  const rows: { edge: number; quality: number; bytes: number; ssim: number; ssimCommon: number; kind: string }[] = [];
  // Copies of every size compared at the smallest one too: what a larger copy keeps shows there.
  const common = copyBench.copyDimensions(full.width, full.height, Math.min(...edges))!;
  const commonReference = areaResize(full.data, full.width, full.height, common.width, common.height);
  for (const edge of edges) {
    const size = copyBench.copyDimensions(full.width, full.height, edge)!;
    const reference = areaResize(full.data, full.width, full.height, size.width, size.height);
    for (const quality of qualities) {
      const result: CopyResult | null = await copyBench.makeCopy(photo, null, { longEdge: edge, quality }, copyBench.copyDecoder());
      if (!result || result.kind !== 'copy') {
        rows.push({ edge, quality, bytes: photo.size, ssim: 1, ssimCommon: 1, kind: result ? result.reason : 'cancelled' });
        continue;
      }
      const copy = await pixelsOf(result.blob);
      const atCommon = areaResize(copy.data, size.width, size.height, common.width, common.height);
      rows.push({
        edge,
        quality,
        bytes: result.blob.size,
        ssim: ssimOf(reference, copy.data, size.width, size.height),
        ssimCommon: ssimOf(commonReference, atCommon, common.width, common.height),
        kind: 'copy',
      });
    }
  }
  return { originalBytes: photo.size, rows };
}

/**
 * Section 2 for photo `index`: each way of getting the copy's pixels at `edge`, timed on the
 * page's thread (decode and resize), its SSIM before JPEG, and the copy's bytes and SSIM at `quality`.
 */
async function resizePhoto({ index, edge, quality }: { index: number; edge: number; quality: number }) {
  const photo = benchPhotos[index]!;
  const full = await pixelsOf(photo);
  const size = copyBench.copyDimensions(full.width, full.height, edge)!;
  const reference = areaResize(full.data, full.width, full.height, size.width, size.height);
  const draw = (image: CanvasImageSource & { close(): void }, smoothing: ImageSmoothingQuality | null) => {
    const canvas = new OffscreenCanvas(size.width, size.height);
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    if (smoothing) context.imageSmoothingQuality = smoothing;
    context.drawImage(image, 0, 0, size.width, size.height);
    image.close();
    return { canvas, context };
  };
  const whole = () => createImageBitmap(photo, { imageOrientation: 'from-image' });
  /** The worker's scaled decode (copy.worker.ts's imageDecoderScaled), its sizes from the model: the frame, or (`bitmap`) the frame made an ImageBitmap as the worker does. */
  const scaled = async (bitmap: boolean): Promise<CanvasImageSource & { close(): void }> => {
    const bytes = await photo.arrayBuffer();
    const stored = copyBench.jpegFrame(new Uint8Array(bytes))!;
    const decode = copyBench.scaledDecode(stored.width, stored.height, edge)!;
    const decoder = new ImageDecoder({ data: bytes, type: 'image/jpeg', desiredWidth: decode.width, desiredHeight: decode.height, transfer: [bytes] });
    const { image } = await decoder.decode();
    decoder.close();
    if (!bitmap) return image;
    const made = await createImageBitmap(image);
    image.close();
    return made;
  };
  const ways: Record<string, () => Promise<{ canvas: OffscreenCanvas; context: OffscreenCanvasRenderingContext2D }>> = {
    "decoded whole, drawn 'high' (the worker's before; still where there is no ImageDecoder)": async () => draw(await whole(), 'high'),
    "decoded whole, drawn 'low'": async () => draw(await whole(), 'low'),
    "createImageBitmap(blob, { resizeWidth, resizeHeight, resizeQuality: 'high' })": async () =>
      draw(await createImageBitmap(photo, { imageOrientation: 'from-image', resizeWidth: size.width, resizeHeight: size.height, resizeQuality: 'high' }), null),
    "ImageDecoder at the DCT scale, made an ImageBitmap, drawn 'high' (the worker's now)": async () => draw(await scaled(true), 'high'),
    "ImageDecoder at the DCT scale, made an ImageBitmap, drawn 'low'": async () => draw(await scaled(true), 'low'),
    "ImageDecoder at the DCT scale, the VideoFrame drawn, 'high' asked": async () => draw(await scaled(false), 'high'),
  };
  const results: { way: string; ms: number; ssim: number; bytes: number; copySsim: number }[] = [];
  for (const [way, run] of Object.entries(ways)) {
    const started = performance.now();
    const { canvas, context } = await run();
    const data = context.getImageData(0, 0, size.width, size.height).data;
    const ms = performance.now() - started;
    const copy = await canvas.convertToBlob({ type: 'image/jpeg', quality });
    const copied = await pixelsOf(copy);
    results.push({
      way,
      ms,
      ssim: ssimOf(reference, data, size.width, size.height),
      bytes: copy.size,
      copySsim: ssimOf(reference, copied.data, size.width, size.height),
    });
  }
  return results;
}

/** Section 3: every photo through createCopyMaker with `workers` workers of `kind`. */
async function throughput({ workers, kind, exifs }: { workers: number; kind: WorkerKind; exifs: Record<string, string>[] }) {
  let longest = 0;
  let longTasks = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longest = Math.max(longest, entry.duration);
      longTasks++;
    }
  });
  if (!PerformanceObserver.supportedEntryTypes.includes('longtask')) throw new Error('this Chromium reports no long tasks');
  observer.observe({ type: 'longtask' });
  // The observer is seen to work: a 60 ms task of the page's own is reported, then forgotten.
  await new Promise<void>((resolve) =>
    setTimeout(() => {
      const until = performance.now() + 60;
      while (performance.now() < until);
      setTimeout(resolve, 100);
    }, 0),
  );
  if (longTasks + observer.takeRecords().length === 0) throw new Error('a 60 ms task was not reported as a long task');
  longest = longTasks = 0;
  const maker = copyBench.createCopyMaker({ workers, startWorker: () => new Worker(copyWorkerUrls[kind]) });
  const started = performance.now();
  const results = await Promise.all(benchPhotos.map((photo, i) => maker.make(photo, exifs[i] ?? null)));
  const seconds = (performance.now() - started) / 1000;
  // Long tasks are reported after they end: one more turn of the event loop collects the last.
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const entry of observer.takeRecords()) {
    longest = Math.max(longest, entry.duration);
    longTasks++;
  }
  observer.disconnect();
  maker.dispose();
  const copies = results.filter((r) => r.kind === 'copy').length;
  return { copies, seconds, longest, longTasks };
}

// ---- Node side ----

async function openPage(photos: string[], code: Awaited<ReturnType<typeof bundles>>): Promise<{ page: Page; close: () => Promise<void> }> {
  const browser = await chromium.launch(chromiumLaunchOptions());
  const page = await browser.newPage();
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = new URL(route.request().url());
    const photo = /^\/photos\/(\d+)\.jpg$/.exec(url.pathname);
    if (photo) return route.fulfill({ body: fs.readFileSync(photos[Number(photo[1])]!), contentType: 'image/jpeg' });
    const worker = /^\/copy-(scaled|whole)\.worker\.js$/.exec(url.pathname);
    if (worker) return route.fulfill({ body: code.workers[worker[1] as WorkerKind], contentType: 'text/javascript' });
    return route.fulfill({ body: '<!doctype html><title>copy bench</title>', contentType: 'text/html' });
  });
  await page.goto(`${ORIGIN}/`);
  // tsx names functions with a helper the page does not have.
  await page.evaluate('globalThis.__name = globalThis.__name || ((f) => f)');
  await page.addScriptTag({ content: code.page });
  await page.addScriptTag({ content: [areaResize, pixelsOf, ssimOf, sweepPhoto, resizePhoto, throughput].map((f) => f.toString()).join('\n') });
  await page.evaluate(
    async ({ count, kinds }) => {
      const g = globalThis as unknown as { benchPhotos: Blob[]; copyWorkerUrls: Record<string, string> };
      g.benchPhotos = [];
      for (let i = 0; i < count; i++) g.benchPhotos.push(await (await fetch(`/photos/${i}.jpg`)).blob());
      g.copyWorkerUrls = {};
      for (const kind of kinds) g.copyWorkerUrls[kind] = URL.createObjectURL(await (await fetch(`/copy-${kind}.worker.js`)).blob());
    },
    { count: photos.length, kinds: [...WORKER_KINDS] },
  );
  return { page, close: () => browser.close() };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;

async function sweep(page: Page, count: number): Promise<void> {
  const perPhoto: Awaited<ReturnType<typeof sweepPhoto>>[] = [];
  for (let index = 0; index < count; index++)
    perPhoto.push(await page.evaluate(`sweepPhoto(${JSON.stringify({ index, edges: EDGES, qualities: QUALITIES })})`));
  const originals = perPhoto.map((p) => p.originalBytes);
  const table = [['long edge', 'quality', 'mean copy', 'copy / original', 'SSIM', 'SSIM min', `SSIM at ${Math.min(...EDGES)} px`, 'not copied']];
  for (const edge of EDGES)
    for (const quality of QUALITIES) {
      const rows = perPhoto.map((p) => p.rows.find((r) => r.edge === edge && r.quality === quality)!);
      const copies = rows.filter((r) => r.kind === 'copy');
      table.push([
        String(edge),
        quality.toFixed(2),
        kb(mean(copies.map((r) => r.bytes))),
        `${(100 * mean(perPhoto.map((p, i) => rows[i]!.bytes / p.originalBytes))).toFixed(1)} %`,
        mean(copies.map((r) => r.ssim)).toFixed(4),
        Math.min(...copies.map((r) => r.ssim)).toFixed(4),
        mean(copies.map((r) => r.ssimCommon)).toFixed(4),
        String(rows.length - copies.length),
      ]);
    }
  console.log(`\n1. Size × quality: ${count} photos, originals ${kb(mean(originals))} mean (${kb(Math.min(...originals))}–${kb(Math.max(...originals))})`);
  printTable(table);
}

async function resize(page: Page, count: number): Promise<void> {
  const perPhoto: Awaited<ReturnType<typeof resizePhoto>>[] = [];
  for (let index = 0; index < count; index++)
    perPhoto.push(await page.evaluate(`resizePhoto(${JSON.stringify({ index, edge: COPY_LONG_EDGE, quality: COPY_QUALITY })})`));
  const table = [
    ['copy pixels made by', 'ms per photo (mean)', 'SSIM before JPEG (mean)', 'SSIM min', `copy at ${COPY_QUALITY} (mean)`, 'SSIM of the copy (mean)'],
  ];
  for (const way of perPhoto[0]!.map((r) => r.way)) {
    const rows = perPhoto.map((p) => p.find((r) => r.way === way)!);
    table.push([
      way,
      mean(rows.map((r) => r.ms)).toFixed(0),
      mean(rows.map((r) => r.ssim)).toFixed(4),
      Math.min(...rows.map((r) => r.ssim)).toFixed(4),
      kb(mean(rows.map((r) => r.bytes))),
      mean(rows.map((r) => r.copySsim)).toFixed(4),
    ]);
  }
  console.log(`\n2. Decode and resize to ${COPY_LONG_EDGE} px, on the page's thread, ${count} photos`);
  printTable(table);
}

async function speed(page: Page, count: number): Promise<void> {
  const exifs = Array.from({ length: count }, (_, i) => photoExif(i + 1));
  const table = [['decode', 'workers', 'copies', 'time', 'copies/s', 'longest main-thread task', 'long tasks']];
  const runs: [WorkerKind, number, Awaited<ReturnType<typeof throughput>>][] = [];
  // Alternating, so a change in the machine's load falls on both decodes alike.
  for (const workers of WORKER_COUNTS)
    for (const kind of WORKER_KINDS) runs.push([kind, workers, await page.evaluate(`throughput(${JSON.stringify({ workers, kind, exifs })})`)]);
  for (const kind of WORKER_KINDS)
    for (const [k, workers, r] of runs.filter(([k]) => k === kind)) {
      table.push([
        k === 'scaled' ? 'DCT-scaled (ImageDecoder)' : 'whole (createImageBitmap)',
        String(workers),
        `${r.copies} of ${count}`,
        `${r.seconds.toFixed(1)} s`,
        (r.copies / r.seconds).toFixed(2),
        r.longTasks ? `${Math.round(r.longest)} ms` : 'none over 50 ms',
        String(r.longTasks),
      ]);
    }
  console.log(`\n3. Through createCopyMaker (long edge ${COPY_LONG_EDGE}, quality ${COPY_QUALITY}), ${count} photos`);
  printTable(table);
}

async function main(): Promise<void> {
  const photos = await realisticPhotos(PHOTOS);
  const code = await bundles();
  const { page, close } = await openPage(photos, code);
  try {
    if (SECTIONS.has('sweep')) await sweep(page, photos.length);
    if (SECTIONS.has('resize')) await resize(page, photos.length);
    if (SECTIONS.has('throughput')) await speed(page, photos.length);
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

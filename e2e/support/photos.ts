/**
 * Realistic trail-camera photos for browser tests and benches: 12–20 MP JPEGs of 3–5 MB with the
 * EXIF a camera writes (capture time, make, model, optionally an Orientation), where a flat fill or
 * test-support/jpeg.ts's tiny JPEG would make a resize or an encoder look far better than on a
 * member's photos.
 *
 * Each is painted in headless Chromium from its seed alone: a sky gradient with clouds above a
 * ridge line, ground and foliage from multi-octave value noise (random grids from a few cells to
 * one per pixel, each smoothly upscaled by the canvas and weighted like pink noise), tree trunks, a
 * deer-like body, the info bar a trail camera prints, and per-pixel sensor noise; every third
 * photo is a grey night shot lit by the infrared flash. The JPEG quality is then chosen (by
 * halving the interval) so the file lands in 3–5 MB, as a camera's does. The EXIF is written by
 * the uploader's own writer (uploader-remote/src/features/upload/model/exif-writer.ts).
 *
 * Deterministic by seed for a given Chromium (the canvas's scaling and JPEG encoder), and cached
 * under .sandbox-data/photos/ (ignored by git): a photo is painted once per machine, in 3–4 s.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { withExif, type ExifOrientation } from '../../uploader-remote/src/features/upload/model/exif-writer';
import type { PhotoExif } from '../../uploader-remote/src/features/upload/model/photo-exif';
import { chromiumLaunchOptions } from './chromium';
import { repo } from './servers';

/** Raised when the painting changes, so cached photos of an older painting are not reused. */
const GENERATOR_VERSION = 1;
export const PHOTO_CACHE_DIR = path.join(repo, '.sandbox-data', 'photos');

/** Sizes of real trail cameras' photos, 12–20 MP (4:3 and 16:9), taken in turn by seed. */
export const PHOTO_SIZES: readonly (readonly [number, number])[] = [
  [4000, 3000],
  [4608, 3456],
  [5376, 3024],
  [5120, 3840],
];
export const MIN_PHOTO_BYTES = 3_000_000;
export const MAX_PHOTO_BYTES = 5_000_000;

export interface RealisticPhotoOptions {
  /** The first photo's seed; photo i has seed firstSeed + i. Default 1. */
  firstSeed?: number;
  /** The EXIF Orientation written (the pixels are painted landscape). Default 1. */
  orientation?: ExifOrientation;
  /** A browser to paint in; default: one launched (chromiumLaunchOptions) only if a photo is not cached, and closed after. */
  browser?: Browser;
  /** Where photos are cached. Default PHOTO_CACHE_DIR. */
  dir?: string;
}

/** What a generated photo's EXIF says: a fixed camera, one capture a minute from a fixed time by seed. */
export function photoExif(seed: number): PhotoExif {
  const at = new Date(Date.UTC(2024, 9, 3, 5, 0, 0) + seed * 60_000);
  const captureTime = at.toISOString().slice(0, 19);
  return { captureTime, captureOffset: '-05:00', make: 'Browning', model: 'BTC-8E-HP5', serial: 'TS-BENCH-0001' };
}

/** The size photo `seed` is painted at. */
export function photoSize(seed: number): readonly [number, number] {
  return PHOTO_SIZES[(((seed - 1) % PHOTO_SIZES.length) + PHOTO_SIZES.length) % PHOTO_SIZES.length]!;
}

/**
 * `count` realistic photos' paths (seeds firstSeed … firstSeed + count − 1), painted and cached on
 * first use.
 */
export async function realisticPhotos(count: number, options: RealisticPhotoOptions = {}): Promise<string[]> {
  const dir = options.dir ?? PHOTO_CACHE_DIR;
  const orientation = options.orientation ?? 1;
  const first = options.firstSeed ?? 1;
  fs.mkdirSync(dir, { recursive: true });
  const wanted = Array.from({ length: count }, (_, i) => {
    const seed = first + i;
    const [width, height] = photoSize(seed);
    return { seed, width, height, file: path.join(dir, `trail-v${GENERATOR_VERSION}-${seed}-${width}x${height}-o${orientation}.jpg`) };
  });
  const missing = wanted.filter((w) => !fs.existsSync(w.file));
  if (missing.length > 0) {
    const browser = options.browser ?? (await chromium.launch(chromiumLaunchOptions()));
    try {
      const page = await browser.newPage();
      // tsx (the benches) names functions with a helper the page does not have.
      await page.evaluate('globalThis.__name = globalThis.__name || ((f) => f)');
      for (const photo of missing) {
        const jpeg = await paintPhoto(page, photo.seed, photo.width, photo.height);
        const bytes = withExif(jpeg, photoExif(photo.seed), { orientation });
        // Written whole, then renamed: a run beside this one never reads half a photo.
        const temp = `${photo.file}.${process.pid}.tmp`;
        fs.writeFileSync(temp, bytes);
        fs.renameSync(temp, photo.file);
      }
      await page.close();
    } finally {
      if (!options.browser) await browser.close();
    }
  }
  return wanted.map((w) => w.file);
}

/** Paints photo `seed` in `page` and encodes it to 3–5 MB; the JPEG as the canvas wrote it (JFIF, no EXIF). */
export async function paintPhoto(page: Page, seed: number, width: number, height: number): Promise<Uint8Array> {
  await page.evaluate(paintScene, { seed, width, height });
  let low = 0.5;
  let high = 1;
  let quality = 0.92;
  let best: { bytes: Uint8Array; miss: number } | null = null;
  const target = (MIN_PHOTO_BYTES + MAX_PHOTO_BYTES) / 2;
  for (let step = 0; step < 8; step++) {
    const base64 = await page.evaluate(encodeScene, quality);
    const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
    const miss = Math.abs(bytes.length - target);
    if (!best || miss < best.miss) best = { bytes, miss };
    if (bytes.length >= MIN_PHOTO_BYTES + 250_000 && bytes.length <= MAX_PHOTO_BYTES - 250_000) break;
    if (bytes.length > target) high = quality;
    else low = quality;
    quality = (low + high) / 2;
  }
  await page.evaluate(() => {
    (globalThis as { trailScene?: HTMLCanvasElement }).trailScene = undefined;
  });
  const size = best!.bytes.length;
  if (size < MIN_PHOTO_BYTES || size > MAX_PHOTO_BYTES) throw new Error(`photo ${seed} came out at ${size} bytes, outside 3–5 MB at any quality`);
  return best!.bytes;
}

/** Encodes the painted scene at `quality`, as base64 (runs in the page). */
async function encodeScene(quality: number): Promise<string> {
  const canvas = (globalThis as { trailScene?: HTMLCanvasElement }).trailScene!;
  const blob = await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('toBlob failed'))), 'image/jpeg', quality));
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Paints the scene of `seed` into a canvas kept as `globalThis.trailScene` (runs in the page, so
 * it uses nothing from outside itself).
 */
function paintScene({ seed, width, height }: { seed: number; width: number; height: number }): void {
  // mulberry32: a small, seedable PRNG.
  let state = seed * 0x9e3779b9;
  const rand = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const night = seed % 3 === 0;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;

  // Value noise: grids of random greys from 4 cells across to one cell per pixel, each upscaled
  // smoothly; drawn low to high with alphas that weight octave k by 0.78^k (pink-noise-like), so
  // that leaves a few pixels wide stand out as in a real photo of foliage.
  const noise = document.createElement('canvas');
  noise.width = width;
  noise.height = height;
  const nctx = noise.getContext('2d', { willReadFrequently: true })!;
  nctx.imageSmoothingEnabled = true;
  nctx.imageSmoothingQuality = 'medium';
  let total = 0;
  for (let k = 0, cells = 4; cells <= width * 2; k++, cells *= 2) {
    const w = Math.min(width, cells);
    const h = Math.max(2, Math.round((w * height) / width));
    const grid = document.createElement('canvas');
    grid.width = w;
    grid.height = h;
    const gctx = grid.getContext('2d')!;
    const data = gctx.createImageData(w, h);
    for (let i = 0; i < data.data.length; i += 4) {
      const v = rand() * 255;
      data.data[i] = v;
      data.data[i + 1] = (v + rand() * 60) % 256;
      data.data[i + 2] = rand() * 255;
      data.data[i + 3] = 255;
    }
    gctx.putImageData(data, 0, 0);
    const weight = Math.pow(0.78, k);
    total += weight;
    nctx.globalAlpha = weight / total;
    nctx.drawImage(grid, 0, 0, width, height);
    if (w === width) break;
  }
  nctx.globalAlpha = 1;
  const field = nctx.getImageData(0, 0, width, height).data;

  // The ridge line: a few sines of random phase, between 30 % and 45 % of the height.
  const waves = Array.from({ length: 6 }, (_, i) => ({ f: (i + 1) * (1 + rand()) * 2, a: (0.04 / (i + 1)) * height, p: rand() * 6.28 }));
  const horizon0 = height * (0.3 + rand() * 0.15);
  const ridge = new Float32Array(width);
  for (let x = 0; x < width; x++) ridge[x] = horizon0 + waves.reduce((sum, w) => sum + w.a * Math.sin((w.f * x * 6.28) / width + w.p), 0);

  const skyTop = night ? [20, 20, 22] : [90 + rand() * 40, 130 + rand() * 40, 190 + rand() * 40];
  const skyLow = night ? [45, 45, 48] : [200 + rand() * 30, 205 + rand() * 30, 215 + rand() * 25];
  const leaf = night ? [120, 120, 120] : [55 + rand() * 30, 75 + rand() * 30, 30 + rand() * 20];
  const soil = night ? [90, 90, 90] : [105 + rand() * 30, 85 + rand() * 20, 55 + rand() * 15];
  const image = ctx.createImageData(width, height);
  const out = image.data;
  const cx = width / 2;
  const cy = height * 0.6;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      // Averaging the octaves pulls every value to the middle: stretched back to a photo's contrast.
      const n = Math.min(1, Math.max(0, (field[i]! / 255 - 0.5) * 3 + 0.5));
      const g = Math.min(1, Math.max(0, (field[i + 1]! / 255 - 0.5) * 3 + 0.5));
      const b = Math.min(1, Math.max(0, (field[i + 2]! / 255 - 0.5) * 3 + 0.5));
      let r: number, gg: number, bb: number;
      if (y < ridge[x]!) {
        const t = y / ridge[x]!;
        const cloud = Math.max(0, n - 0.5) * 90;
        r = skyTop[0]! + (skyLow[0]! - skyTop[0]!) * t + cloud;
        gg = skyTop[1]! + (skyLow[1]! - skyTop[1]!) * t + cloud;
        bb = skyTop[2]! + (skyLow[2]! - skyTop[2]!) * t + cloud;
      } else {
        // Foliage where the noise is high, soil where it is low; the finest octaves give the leaves.
        const m = Math.min(1, Math.max(0, (n - 0.4) * 5));
        const shade = 0.35 + 1.2 * g;
        r = (soil[0]! * (1 - m) + leaf[0]! * m) * shade + (b - 0.5) * 40;
        gg = (soil[1]! * (1 - m) + leaf[1]! * m) * shade + (b - 0.5) * 30;
        bb = (soil[2]! * (1 - m) + leaf[2]! * m) * shade;
      }
      if (night) {
        // The infrared flash lights the middle: a grey picture falling off to the corners.
        const d = Math.hypot((x - cx) / width, (y - cy) / height);
        const lum = (0.3 * r + 0.59 * gg + 0.11 * bb) * Math.max(0.15, 1.25 - 1.6 * d);
        r = gg = bb = lum;
      }
      out[i] = r;
      out[i + 1] = gg;
      out[i + 2] = bb;
      out[i + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);

  // Tree trunks, rocks and a deer-like body, shaded, textured by the noise drawn over them.
  const dark = night ? 'rgba(40,40,40,0.85)' : 'rgba(60,45,30,0.85)';
  for (let t = 0, trees = 2 + Math.floor(rand() * 4); t < trees; t++) {
    const x = rand() * width;
    const w = width * (0.015 + rand() * 0.04);
    const gradient = ctx.createLinearGradient(x, 0, x + w, 0);
    gradient.addColorStop(0, dark);
    gradient.addColorStop(0.6, night ? 'rgba(110,110,110,0.85)' : 'rgba(120,100,75,0.85)');
    gradient.addColorStop(1, dark);
    ctx.fillStyle = gradient;
    ctx.fillRect(x, 0, w, height * (0.85 + rand() * 0.15));
  }
  for (let s = 0, rocks = 3 + Math.floor(rand() * 5); s < rocks; s++) {
    ctx.fillStyle = night ? `rgba(150,150,150,0.7)` : `rgba(${120 + rand() * 40},${115 + rand() * 30},${105 + rand() * 30},0.75)`;
    ctx.beginPath();
    ctx.ellipse(rand() * width, height * (0.7 + rand() * 0.25), width * (0.02 + rand() * 0.05), height * (0.01 + rand() * 0.03), 0, 0, 6.29);
    ctx.fill();
  }
  if (rand() < 0.7) {
    const x = width * (0.2 + rand() * 0.6);
    const y = height * (0.55 + rand() * 0.15);
    ctx.fillStyle = night ? 'rgba(200,200,200,0.9)' : 'rgba(130,90,55,0.92)';
    ctx.beginPath();
    ctx.ellipse(x, y, width * 0.07, height * 0.06, 0, 0, 6.29);
    ctx.ellipse(x + width * 0.07, y - height * 0.08, width * 0.02, height * 0.035, -0.5, 0, 6.29);
    ctx.fill();
    ctx.fillRect(x - width * 0.05, y, width * 0.012, height * 0.12);
    ctx.fillRect(x + width * 0.04, y, width * 0.012, height * 0.12);
  }
  ctx.globalCompositeOperation = 'overlay';
  ctx.globalAlpha = 0.35;
  // An infrared night shot has no colour.
  if (night) ctx.filter = 'grayscale(1)';
  ctx.drawImage(noise, 0, 0);
  ctx.filter = 'none';
  ctx.globalCompositeOperation = 'source-over';
  ctx.globalAlpha = 1;

  // Sensor noise, stronger in the dark (as a small sensor's is), over everything but the info bar.
  const barHeight = Math.round(height * 0.045);
  const pixels = ctx.getImageData(0, 0, width, height - barHeight);
  const p = pixels.data;
  const sigma = night ? 9 : 5;
  for (let i = 0; i < p.length; i += 4) {
    const dim = 1.6 - p[i + 1]! / 255;
    const common = (rand() + rand() - 1) * sigma * dim;
    p[i] = p[i]! + common + (rand() - 0.5) * sigma;
    p[i + 1] = p[i + 1]! + common + (rand() - 0.5) * sigma * 0.7;
    p[i + 2] = p[i + 2]! + common + (rand() - 0.5) * sigma * 1.2;
  }
  ctx.putImageData(pixels, 0, 0);

  // The info bar a trail camera prints at the bottom.
  ctx.fillStyle = '#000';
  ctx.fillRect(0, height - barHeight, width, barHeight);
  ctx.fillStyle = '#fff';
  ctx.font = `${Math.round(barHeight * 0.6)}px sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.fillText(`BTC-8E  ${40 + Math.floor(rand() * 40)}°F  29.92inHg  10/03/2024  CAM ${seed}`, barHeight, height - barHeight / 2);

  (globalThis as { trailScene?: HTMLCanvasElement }).trailScene = canvas;
}

/**
 * Uploads in flight at once. Measured with bench/upload.ts (300 × 1.5 MB, Chromium, sandbox):
 * 1 → 31.7 files/s, 4 → 42.2, 6 → 49.7 (×1.57). Six is also the browser's HTTP/1.1 connection
 * limit per host, and S3 is a host of its own (the API and analytics use others), so more would
 * only queue in the browser.
 */
export const DEFAULT_CONCURRENCY = 6;
export const MAX_CONCURRENCY = 16;

/** `?concurrency=N` (benchmarks, support): a whole number 1–16, else the default. */
export function parseConcurrency(value: string | null | undefined): number {
  if (!value || !/^\d+$/.test(value.trim())) return DEFAULT_CONCURRENCY;
  const n = Number(value);
  return n >= 1 && n <= MAX_CONCURRENCY ? n : DEFAULT_CONCURRENCY;
}

/**
 * `?stall=N` (tests, support on a link known to pause): seconds without progress before an
 * upload is aborted and retried, a whole number 5–600, else `fallbackMs` (upload-engine.ts's 60 s).
 */
export function parseStallMs(value: string | null | undefined, fallbackMs: number): number {
  if (!value || !/^\d+$/.test(value.trim())) return fallbackMs;
  const n = Number(value);
  return n >= 5 && n <= 600 ? n * 1000 : fallbackMs;
}

/** A reservation id as the uploads API makes them (`r-YYYY_MM-<random>`), or undefined. */
export function parseReservation(value: string | null | undefined): string | undefined {
  return value && /^r-\d{4}_\d{2}-[A-Za-z0-9_-]{16,64}$/.test(value) ? value : undefined;
}

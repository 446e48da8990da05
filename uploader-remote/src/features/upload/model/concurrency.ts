/**
 * Uploads in flight at once: by default as many as keep the link full (model/link-fit.ts, at most
 * six: the browser's HTTP/1.1 connection limit per host, and S3 is a host of its own). A fixed
 * number is for benchmarks and support (`?concurrency=N`, up to 16).
 */
export const DEFAULT_CONCURRENCY = 'fit' as const;
export const MAX_CONCURRENCY = 16;

/** `?concurrency=N` (benchmarks, support): a whole number 1–16, else 'fit' (the link decides). */
export function parseConcurrency(value: string | null | undefined): number | 'fit' {
  if (!value || !/^\d+$/.test(value.trim())) return DEFAULT_CONCURRENCY;
  const n = Number(value);
  return n >= 1 && n <= MAX_CONCURRENCY ? n : DEFAULT_CONCURRENCY;
}

/**
 * `?stall=N` (tests, support on a link known to pause): the least seconds without progress before
 * an upload may be aborted and retried (model/stall-watch.ts), a whole number 5–600, else
 * `fallbackMs` (upload-engine.ts's 60 s).
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

/**
 * How many upload slots the uploader asks the server for at a time (docs/uploader.md#server-reservations):
 * a slice of the batch, not one call per photo and not a whole card's worth held for hours. A
 * slice is about ten minutes of sending at the speed measured, within [MIN_SLICE, MAX_SLICE];
 * the server keeps unused slots 15 minutes from their last use (infra/src/ledger/rules.ts), so a
 * slice is used up well before its slots could lapse.
 */

/** The fewest photos asked for at once (a slow link still sends a few a minute). */
export const MIN_SLICE = 20;
/** The most: the uploads API's limit per call (infra/src/ledger/rules.ts MAX_FINGERPRINTS_PER_CALL). */
export const MAX_SLICE = 500;
/** Before any speed is measured. */
export const DEFAULT_SLICE = 50;
/** How much sending a slice is meant to cover. */
export const SLICE_SECONDS = 600;

/** Photos in a slice at `bytesPerSecond` (null: not measured yet) for photos of `averageBytes`. */
export function sliceSize(bytesPerSecond: number | null, averageBytes: number): number {
  if (bytesPerSecond === null || !(bytesPerSecond > 0) || !(averageBytes > 0)) return DEFAULT_SLICE;
  return Math.max(MIN_SLICE, Math.min(MAX_SLICE, Math.round((SLICE_SECONDS * bytesPerSecond) / averageBytes)));
}

/**
 * The fingerprints of the next slice: `first` (the photo about to be sent), then the upcoming
 * photos in list order, each once, skipping those already settled (known, granted or refused),
 * up to `size`.
 */
export function nextSlice(first: string, upcoming: Iterable<string>, settled: (fingerprint: string) => boolean, size: number): string[] {
  const slice = [first];
  const seen = new Set(slice);
  for (const fingerprint of upcoming) {
    if (slice.length >= size) break;
    if (seen.has(fingerprint) || settled(fingerprint)) continue;
    seen.add(fingerprint);
    slice.push(fingerprint);
  }
  return slice;
}

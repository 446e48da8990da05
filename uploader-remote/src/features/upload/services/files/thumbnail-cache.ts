/**
 * Thumbnails of the rows on screen. A thumbnail is made only when its row is shown (the prober
 * takes the EXIF thumbnail, or downscales in its worker), and the latest ones are kept so that
 * scrolling back shows them at once. Never one per listed file: 10,000 decoded photos would take
 * gigabytes and minutes.
 */
export interface ThumbnailSource {
  /** A thumbnail already made for this file (`null`: it has none), or undefined if not made yet. */
  cached(file: Blob): string | null | undefined;
  /** Makes (or returns) the thumbnail; resolves null when none can be made or `signal` aborted first. */
  load(file: Blob, signal: AbortSignal): Promise<string | null>;
}

/** Thumbnails kept: a data URL is 2–5 KB, so 400 rows of scrolling back cost a megabyte or two. */
export const THUMBNAILS_KEPT = 400;

export function thumbnailCache(make: (file: Blob, signal: AbortSignal) => Promise<string | null>, kept = THUMBNAILS_KEPT): ThumbnailSource {
  // A Map keeps insertion order: re-inserting on use makes its first key the least recently used.
  const made = new Map<Blob, string | null>();
  const remember = (file: Blob, url: string | null) => {
    made.delete(file);
    made.set(file, url);
    while (made.size > kept) made.delete(made.keys().next().value!);
  };
  return {
    cached(file) {
      if (!made.has(file)) return undefined;
      const url = made.get(file)!;
      remember(file, url);
      return url;
    },
    async load(file, signal) {
      if (made.has(file)) return made.get(file)!;
      const url = await make(file, signal).catch(() => null);
      // A row scrolled away before its turn got null without a try: that is not "has none".
      if (url !== null || !signal.aborted) remember(file, url);
      return url;
    },
  };
}

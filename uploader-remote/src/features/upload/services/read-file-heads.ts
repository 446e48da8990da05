import { precheck, type FileFacts } from '../model/file-filter';

/** How many files' first bytes are read at once (and between yields to the page). */
const CHUNK = 256;

/**
 * Reads the first bytes of each file that passes the cheap checks, a chunk at a time, so
 * 10,000 files never hold the main thread for long.
 */
export async function readFileHeads(files: readonly (FileFacts & Blob)[], bytes = 3): Promise<Map<number, Uint8Array>> {
  const heads = new Map<number, Uint8Array>();
  const wanted = files.map((f, i) => [f, i] as const).filter(([f]) => precheck(f) === null);
  for (let start = 0; start < wanted.length; start += CHUNK) {
    await Promise.all(
      wanted.slice(start, start + CHUNK).map(async ([file, index]) => {
        try {
          heads.set(index, new Uint8Array(await file.slice(0, bytes).arrayBuffer()));
        } catch {
          // Unreadable (moved, permission): no head, so it is skipped as not a JPEG.
        }
      }),
    );
  }
  return heads;
}

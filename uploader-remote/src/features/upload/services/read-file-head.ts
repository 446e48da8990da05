/**
 * The first `bytes` bytes of a file, or null if it cannot be read (moved, permission denied),
 * which the signature check treats as "not a JPEG".
 */
export async function readFileHead(file: Blob, bytes = 3): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await file.slice(0, bytes).arrayBuffer());
  } catch {
    return null;
  }
}

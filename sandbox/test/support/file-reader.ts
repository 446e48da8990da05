/**
 * Amplify's multipart upload reads parts with the browser's FileReader (CRC32 of each part), which
 * Node lacks. The website runs in a browser; this shim gives the Node tests the same path.
 */
class NodeFileReader {
  static readonly DONE = 2;
  readyState = 0;
  result: ArrayBuffer | null = null;
  error: unknown = null;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  readAsArrayBuffer(blob: Blob): void {
    blob.arrayBuffer().then(
      (buffer) => {
        this.result = buffer;
        this.readyState = NodeFileReader.DONE;
        this.onload?.();
      },
      (err: unknown) => {
        this.error = err;
        this.readyState = NodeFileReader.DONE;
        this.onerror?.();
      },
    );
  }
}

export function installFileReader(): void {
  const g = globalThis as { FileReader?: unknown };
  if (g.FileReader === undefined) g.FileReader = NodeFileReader;
}

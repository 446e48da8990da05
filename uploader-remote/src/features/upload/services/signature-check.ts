import { hasJpegSignature } from '../model/file-filter';
import type { SignatureVerdict } from '../model/upload-queue';

/** How many files' first bytes are read at once; also how many verdicts make one state update. */
export const SIGNATURE_CHUNK = 256;

/** A listed file to check: its id in the list and its bytes. */
export interface SignatureJob {
  id: string;
  file: Blob;
}

export interface SignatureCheck {
  /**
   * Whether a file's first bytes are a JPEG's. A file asked for twice while its read is in flight
   * (the background pass and an upload that cannot wait for it) is read once.
   */
  isJpeg(job: SignatureJob): Promise<boolean>;
  /**
   * Checks `jobs` in the background, `SIGNATURE_CHUNK` at a time, handing each chunk's verdicts
   * to `onChunk` (one state update per chunk). Stops between chunks once `signal` aborts.
   */
  checkAll(jobs: readonly SignatureJob[], onChunk: (verdicts: SignatureVerdict[]) => void, signal: AbortSignal): Promise<void>;
}

/** The first-bytes check over an injected reader (`readFileHead` in the app, fakes in tests). */
export function createSignatureCheck(readHead: (file: Blob) => Promise<Uint8Array | null>): SignatureCheck {
  // Only reads in flight are kept: a settled verdict is in the list's state, and forgetting it
  // keeps 10,000 files from pinning 10,000 promises.
  const inFlight = new Map<string, Promise<boolean>>();
  const isJpeg = (job: SignatureJob): Promise<boolean> => {
    const pending = inFlight.get(job.id);
    if (pending) return pending;
    const verdict = readHead(job.file)
      .then((head) => head !== null && hasJpegSignature(head), () => false)
      .finally(() => inFlight.delete(job.id));
    inFlight.set(job.id, verdict);
    return verdict;
  };
  return {
    isJpeg,
    async checkAll(jobs, onChunk, signal) {
      for (let start = 0; start < jobs.length && !signal.aborted; start += SIGNATURE_CHUNK) {
        const chunk = jobs.slice(start, start + SIGNATURE_CHUNK);
        const verdicts = await Promise.all(chunk.map(async (job) => ({ id: job.id, isJpeg: await isJpeg(job) })));
        if (!signal.aborted) onChunk(verdicts);
      }
    },
  };
}

import type { FileProbe } from './file-probe';

/** What the page posts to the probe worker: one file, with an id to match the answer to. */
export interface ProbeRequest {
  id: number;
  file: Blob;
}

/**
 * The worker's answer to one request: the probe, or the message of an error that is not about the
 * file (e.g. no SubtleCrypto), which the page rejects that probe with.
 */
export type ProbeResponse = { id: number; result: FileProbe } | { id: number; error: string };

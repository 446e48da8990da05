// The probe worker's entry: webpack compiles it as its own self-contained chunk (see
// start-probe-worker.ts and webpack/index.js), so it may import npm modules (exifr).
// It must not import federation-shared modules (react, @trailsense/shared, aws-amplify): the
// worker has no federation share scope to take them from.
import { probeFile } from './file-probe';
import type { ProbeRequest, ProbeResponse } from './probe-protocol';
import { makeThumbnail, threadDecoder } from './thumbnail';

/**
 * The little of DedicatedWorkerGlobalScope this entry uses. The "webworker" lib cannot join the
 * project's DOM lib in one program (they declare the same globals differently), so the worker's
 * scope is typed here.
 */
interface ProbeWorkerScope {
  onmessage: ((event: MessageEvent<ProbeRequest>) => void) | null;
  postMessage(message: ProbeResponse): void;
  crypto: Crypto;
}

const scope = self as unknown as ProbeWorkerScope;

/** This thread's decoder for photos without an EXIF thumbnail: off the page's thread, it may decode. */
const decoder = threadDecoder();

// Each message starts its work at once, without waiting for the ones before: reads, digests and
// decodes are asynchronous, so several files overlap. The page bounds how many are in flight.
scope.onmessage = (event) => {
  const { id, kind, file } = event.data;
  if (kind === 'thumbnail') {
    // makeThumbnail never rejects: a photo without a thumbnail is answered null.
    void makeThumbnail(file, decoder).then((thumbnail) => scope.postMessage({ id, thumbnail }));
    return;
  }
  probeFile(file, scope.crypto.subtle).then(
    (result) => scope.postMessage({ id, result }),
    (error: unknown) => scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
};

// The probe worker's entry: webpack compiles it as its own self-contained chunk (see
// start-probe-worker.ts and webpack/index.js), so it may import npm modules (exifr, later).
// It must not import federation-shared modules (react, @trailsense/shared, aws-amplify): the
// worker has no federation share scope to take them from.
import { probeFile } from './file-probe';
import type { ProbeRequest, ProbeResponse } from './probe-protocol';

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

// Each message starts its probe at once, without waiting for the ones before: reads and digests
// are asynchronous, so several files overlap. The page bounds how many are in flight.
scope.onmessage = (event) => {
  const { id, file } = event.data;
  probeFile(file, scope.crypto.subtle).then(
    (result) => scope.postMessage({ id, result }),
    (error: unknown) => scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
};

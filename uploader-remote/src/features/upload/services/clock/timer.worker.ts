// The timer worker's entry: webpack compiles it as its own self-contained chunk (see
// start-timer-worker.ts and webpack/index.js). It imports nothing shared through federation.
import { HEARTBEAT_MS, sleptFor, type TimerMessage, type TimerRequest } from './timer-protocol';

/** The little of DedicatedWorkerGlobalScope this entry uses (see probe.worker.ts for why it is typed here). */
interface TimerWorkerScope {
  onmessage: ((event: MessageEvent<TimerRequest>) => void) | null;
  postMessage(message: TimerMessage): void;
}

const scope = self as unknown as TimerWorkerScope;
const armed = new Map<number, ReturnType<typeof setTimeout>>();

scope.onmessage = (event) => {
  const request = event.data;
  const existing = armed.get(request.id);
  if (existing !== undefined) clearTimeout(existing);
  armed.delete(request.id);
  if (request.kind === 'set') {
    armed.set(
      request.id,
      setTimeout(() => {
        armed.delete(request.id);
        scope.postMessage({ kind: 'fire', id: request.id });
      }, request.ms),
    );
  }
};

scope.postMessage({ kind: 'ready' });

// The heartbeat: wall-clock time that passed while this thread could not run (the computer
// slept, or the browser froze the page with its workers) shows as a late beat.
let last = Date.now();
setInterval(() => {
  const now = Date.now();
  const slept = sleptFor(HEARTBEAT_MS, now - last);
  last = now;
  if (slept !== null) scope.postMessage({ kind: 'woke', sleptMs: slept });
}, HEARTBEAT_MS);

import { CrossOriginWorker } from '../browser/cross-origin-worker';

/**
 * Starts the timer worker (timer.worker.ts), compiled by webpack into a worker chunk of its own
 * (as start-probe-worker.ts does for the probe worker; kept apart for the same reason: jest cannot
 * compile `import.meta`).
 */
export function startTimerWorker(): Worker {
  return new CrossOriginWorker(new URL('./timer.worker.ts', import.meta.url), { name: 'timer-worker' });
}

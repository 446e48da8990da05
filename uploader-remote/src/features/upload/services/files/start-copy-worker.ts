import { CrossOriginWorker } from '../browser/cross-origin-worker';

/**
 * Starts a copy worker (copy.worker.ts), as start-probe-worker.ts starts the probe worker: webpack
 * sees this construction (CrossOriginWorker is listed in module.parser.javascript.worker,
 * webpack/index.js), compiles copy.worker.ts into a self-contained worker chunk and replaces the URL
 * with that chunk's absolute URL on the remote's origin. Every worker of the pool
 * (copy-maker.ts) runs the same chunk, loaded once.
 *
 * Kept apart from copy-maker.ts because `import.meta` does not compile for jest (CommonJS).
 */
export function startCopyWorker(): Worker {
  return new CrossOriginWorker(new URL('./copy.worker.ts', import.meta.url), { name: 'copy-worker' });
}

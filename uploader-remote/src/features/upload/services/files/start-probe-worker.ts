import { CrossOriginWorker } from '../browser/cross-origin-worker';

/**
 * Starts the probe worker (probe.worker.ts). Webpack sees this construction (CrossOriginWorker is
 * listed in module.parser.javascript.worker, webpack/index.js), compiles probe.worker.ts into a
 * worker chunk of its own and replaces the URL with that chunk's absolute URL on the remote's
 * origin. `name` names the chunk (probe-worker.<hash>.js) and the thread in developer tools.
 *
 * Kept apart from file-prober.ts because `import.meta` does not compile for jest (CommonJS):
 * file-prober.ts loads this module only when no worker factory is injected.
 */
export function startProbeWorker(): Worker {
  return new CrossOriginWorker(new URL('./probe.worker.ts', import.meta.url), { name: 'probe-worker' });
}

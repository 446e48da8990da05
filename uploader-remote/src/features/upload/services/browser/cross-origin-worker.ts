/**
 * `new Worker(url)` that also works when this remote's code runs in a page of another origin.
 *
 * The remote's chunks are served from its own origin (output.publicPath 'auto': http://localhost:3002
 * locally, its CDN in production) but run in the shell's page (http://localhost:3000, the site's
 * origin). Browsers refuse `new Worker(url)` for a script of another origin (SecurityError), so
 * then the worker is started from a same-origin `blob:` URL whose only code is
 * `importScripts(<absolute url of the worker chunk>)`: a classic worker may import scripts from any
 * origin, as a page's `<script>` may. On the remote's own page (standalone, same origin) the chunk
 * is started directly, as webpack would.
 *
 * Webpack recognises `new CrossOriginWorker(new URL('../x.worker.ts', import.meta.url))` as a
 * worker construction (module.parser.javascript.worker in webpack/index.js): it compiles the entry
 * as a worker chunk and passes that chunk's absolute URL here. The import must be spelled
 * `import { CrossOriginWorker } from '../browser/cross-origin-worker'` for webpack to see it (webpack/index.js).
 *
 * Content-Security-Policy: where a CSP applies to the page, it must allow `worker-src blob:` (the
 * cross-origin case starts the worker from a blob: URL; without it the worker fails to start and
 * the prober falls back to the main thread), and `script-src` must allow the remote's origin (it
 * already must, for remoteEntry.js), which `importScripts` inside the worker is checked against.
 *
 * Inside the cross-origin worker, `self.location` is the blob: URL (the page's origin), so the
 * worker chunk must not resolve URLs against its own location: it must load no further chunks or
 * assets. It is built self-contained (see webpack/index.js).
 */

/** How a worker for `scriptUrl` is started from a page of `pageOrigin`. */
export type WorkerBootstrap = { kind: 'direct'; url: string } | { kind: 'blob'; source: string };

/** The globals `CrossOriginWorker` uses, injectable for tests. */
export interface WorkerEnvironment {
  Worker: new (url: string | URL, options?: WorkerOptions) => Worker;
  /** The page's URL: its origin decides, and relative script URLs resolve against it. */
  pageUrl: string;
  createObjectURL(blob: Blob): string;
  revokeObjectURL(url: string): void;
}

/** Decides how to start a worker script: directly when same-origin, else through a blob: URL. */
export function workerBootstrap(scriptUrl: string | URL, pageUrl: string, type: WorkerType = 'classic'): WorkerBootstrap {
  const url = new URL(scriptUrl, pageUrl);
  if (url.origin === new URL(pageUrl).origin) return { kind: 'direct', url: url.href };
  // A module worker imports instead (the script's server must then allow CORS, as the static
  // server and the dev server do); webpack builds classic workers here.
  const source = type === 'module' ? `import ${JSON.stringify(url.href)};\n` : `importScripts(${JSON.stringify(url.href)});\n`;
  return { kind: 'blob', source };
}

/** Starts a worker for `scriptUrl` in the given environment (`CrossOriginWorker` uses the page's). */
export function startCrossOriginWorker(scriptUrl: string | URL, options: WorkerOptions | undefined, env: WorkerEnvironment): Worker {
  const bootstrap = workerBootstrap(scriptUrl, env.pageUrl, options?.type);
  if (bootstrap.kind === 'direct') return new env.Worker(bootstrap.url, options);
  const blobUrl = env.createObjectURL(new Blob([bootstrap.source], { type: 'text/javascript' }));
  let worker: Worker;
  try {
    worker = new env.Worker(blobUrl, options);
  } catch (error) {
    env.revokeObjectURL(blobUrl);
    throw error;
  }
  // The blob: URL is only needed until the worker has loaded it. Revoking it right away is allowed
  // by the spec but not honoured by every engine, so it is revoked when the worker first answers
  // or fails; at most one small blob lives until then.
  const revoke = () => {
    worker.removeEventListener('message', revoke);
    worker.removeEventListener('error', revoke);
    env.revokeObjectURL(blobUrl);
  };
  worker.addEventListener('message', revoke);
  worker.addEventListener('error', revoke);
  return worker;
}

/**
 * A `Worker` started with `startCrossOriginWorker` in the current page. The interface merge gives
 * the class Worker's type; the constructor returns the real Worker (a constructor may return an
 * object), so instances are genuine Workers, not wrappers.
 */
/* eslint-disable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type --
   the merge is the point: it types the class as Worker, and the constructor does return one. */
export interface CrossOriginWorker extends Worker {}
export class CrossOriginWorker {
  /* eslint-enable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type */
  constructor(scriptUrl: string | URL, options?: WorkerOptions) {
    return startCrossOriginWorker(scriptUrl, options, {
      Worker,
      pageUrl: self.location.href,
      createObjectURL: (blob) => URL.createObjectURL(blob),
      revokeObjectURL: (url) => URL.revokeObjectURL(url),
    });
  }
}

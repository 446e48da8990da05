/**
 * What the deploy command does with each file of an app's build: whether it is uploaded at all,
 * its Content-Type and Cache-Control, and its role in a release — the rules the local production
 * server follows (scripts/static-server.mjs `cacheControlFor`;
 * scripts/test/deploy-cache-headers.test.mjs checks that both agree on every file of the builds).
 *
 * - **hashed**: the name carries a content hash (`325.e8d85c681d.js`, `assets/<name>.<hash>.png`):
 *   `public, max-age=31536000, immutable`; uploaded first; pruned once no kept release lists it.
 * - **companion**: a file named after a hashed file (`325.e8d85c681d.js.LICENSE.txt`): unique to
 *   that chunk, so pruned with it; `no-cache` like every unhashed name.
 * - **entry**: every other file — pages, `config.json`, `routes.json`, `mf-manifest.json`,
 *   `remoteEntry.js`, a remote's `main.js`, images at fixed names: `no-cache`; uploaded last,
 *   invalidated when changed, never deleted (an open page may ask for it by name at any time).
 *
 * Never uploaded: source maps (`.map`), the build's precompressed copies (`.br`, `.gz` —
 * CloudFront compresses by Accept-Encoding itself) and dot files (`.build-stamp`).
 */

/** The apps the command deploys: each has its own bucket and distribution. */
export const APPS = ['shell', 'auth-remote', 'uploader-remote'] as const;
export type AppName = (typeof APPS)[number];

export function isAppName(value: string): value is AppName {
  return (APPS as readonly string[]).includes(value);
}

export type FileKind = 'hashed' | 'companion' | 'entry';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const NO_CACHE = 'no-cache';

/** As scripts/static-server.mjs: a chunk name carrying a 10-hex-digit content hash, or a hashed asset. */
const HASHED = /\.[0-9a-f]{10}\.(js|css)$|\/assets\/.+\.[0-9a-f]{10}\.\w+$/;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** Why a build file is not uploaded, or undefined when it is. `path` is relative, with `/`. */
export function exclusionOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name.startsWith('.')) return 'dot file';
  if (path.endsWith('.map')) return 'source map';
  if (path.endsWith('.br') || path.endsWith('.gz')) return 'precompressed copy (CloudFront compresses)';
  return undefined;
}

export function isHashed(path: string): boolean {
  return HASHED.test(`/${path}`);
}

export function contentTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && CONTENT_TYPES[name.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

/** The file's role; `hashedPaths` are the hashed files of the same release (for companions). */
export function kindOf(path: string, hashedPaths: ReadonlySet<string>): FileKind {
  if (isHashed(path)) return 'hashed';
  for (let end = path.lastIndexOf('.'); end > 0; end = path.lastIndexOf('.', end - 1)) {
    if (hashedPaths.has(path.slice(0, end))) return 'companion';
  }
  return 'entry';
}

export function cacheControlOf(kind: FileKind): string {
  return kind === 'hashed' ? IMMUTABLE : NO_CACHE;
}

/**
 * What the deploy command does with each file of an app's build: whether it is uploaded at all,
 * its Content-Type and Cache-Control (shared/src/serving/files.ts, the rules the local production
 * server follows too: scripts/static-server.mjs;
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
import { contentTypeFor, IMMUTABLE, isHashedPath, NO_CACHE } from '@trailsense/shared/serving';

/** The apps the command deploys: each has its own bucket and distribution. */
export const APPS = ['shell', 'auth-remote', 'uploader-remote'] as const;
export type AppName = (typeof APPS)[number];

export function isAppName(value: string): value is AppName {
  return (APPS as readonly string[]).includes(value);
}

export type FileKind = 'hashed' | 'companion' | 'entry';

export { IMMUTABLE, NO_CACHE };

/** Why a build file is not uploaded, or undefined when it is. `path` is relative, with `/`. */
export function exclusionOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name.startsWith('.')) return 'dot file';
  if (path.endsWith('.map')) return 'source map';
  if (path.endsWith('.br') || path.endsWith('.gz')) return 'precompressed copy (CloudFront compresses)';
  return undefined;
}

export function isHashed(path: string): boolean {
  return isHashedPath(path);
}

export function contentTypeOf(path: string): string {
  return contentTypeFor(path);
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

/**
 * How a file of an app's build is served, in one place for both places that decide it: the local
 * production server (scripts/static-server.mjs) and the deploy command, which sets the same
 * headers on the objects CloudFront serves (infra/src/deploy/files.ts). Pure: names in, headers out.
 */

/** Cache-Control of a file whose name carries its content hash: cached for a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cache-Control of every other file (pages, config.json, routes.json, manifests, entry scripts). */
export const NO_CACHE = 'no-cache';

/** A chunk name carries a 10-hex-digit content hash (`325.e8d85c681d.js`), or a hashed asset. */
const HASHED = /\.[0-9a-f]{10}\.(js|css)$|\/assets\/.+\.[0-9a-f]{10}\.\w+$/;

/** Content types by extension (lower case, with the dot). */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
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

/** Whether a site path (`/325.e8d85c681d.js`) names a file by its content hash. */
export function isHashedPath(urlPath: string): boolean {
  return HASHED.test(urlPath.startsWith('/') ? urlPath : `/${urlPath}`);
}

/** The Cache-Control of a site path. */
export function cacheControlFor(urlPath: string): string {
  return isHashedPath(urlPath) ? IMMUTABLE : NO_CACHE;
}

/** The Content-Type of a file by its name's extension; `application/octet-stream` when unknown. */
export function contentTypeFor(filePath: string): string {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && CONTENT_TYPES[name.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

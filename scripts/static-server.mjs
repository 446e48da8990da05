// The local production server: serves an app's dist folder the way the production CDN does —
// unhashed entry files no-cache, hashed chunks immutable, gzip when the browser accepts it,
// deep links answered with index.html (shell only), and /config.json from a config file.
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';

const gzip = promisify(zlib.gzip);

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt', '.map']);
/** A chunk name carries a content hash (`325.e8d85c681d.js`): it can be cached forever. */
const HASHED = /\.[0-9a-f]{10}\.(js|css)$|\/assets\/.+\.[0-9a-f]{10}\.\w+$/;

/** The Cache-Control header for a served path (exported for the header test). */
export function cacheControlFor(urlPath) {
  return HASHED.test(urlPath) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/**
 * @param {{ root: string, port: number, host?: string, spa?: boolean, configFile?: string }} options
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startStaticServer({ root, port, host = '127.0.0.1', spa = false, configFile }) {
  const rootDir = path.resolve(root);
  const gzipCache = new Map();

  async function send(req, res, status, body, type, cacheControl) {
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Vary', 'Accept-Encoding');
    let payload = body;
    const ext = Object.entries(TYPES).find(([, t]) => t === type)?.[0] ?? '';
    if (COMPRESSIBLE.has(ext) && body.length > 1024 && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      const key = body;
      payload = gzipCache.get(key) ?? (await gzip(body, { level: 9 }));
      gzipCache.set(key, payload);
      res.setHeader('Content-Encoding', 'gzip');
    }
    res.setHeader('Content-Length', payload.length);
    res.writeHead(status);
    res.end(req.method === 'HEAD' ? undefined : payload);
  }

  const server = http.createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (urlPath === '/config.json' && configFile) {
        await send(req, res, 200, await fs.readFile(configFile), TYPES['.json'], 'no-cache');
        return;
      }
      const filePath = path.join(rootDir, urlPath);
      if (!filePath.startsWith(rootDir)) {
        res.writeHead(400).end();
        return;
      }
      const file = await readFileOrNull(filePath.endsWith(path.sep) ? path.join(filePath, 'index.html') : filePath);
      if (file) {
        const ext = path.extname(filePath) || '.html';
        await send(req, res, 200, file, TYPES[ext] ?? 'application/octet-stream', cacheControlFor(urlPath));
        return;
      }
      // A deep link (/support, /uploader) is a route of the single-page app: answer with the page.
      if (spa && !path.extname(urlPath)) {
        await send(req, res, 200, await fs.readFile(path.join(rootDir, 'index.html')), TYPES['.html'], 'no-cache');
        return;
      }
      await send(req, res, 404, Buffer.from('Not found'), TYPES['.txt'], 'no-cache');
    } catch (error) {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end('Internal error');
    }
  });

  await new Promise((resolve, reject) => {
    server.once('error', (error) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use (serving ${root}).`) : error),
    );
    server.listen(port, host, resolve);
  });
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readFileOrNull(filePath) {
  try {
    const stat = await fs.stat(filePath);
    return stat.isFile() ? await fs.readFile(filePath) : null;
  } catch {
    return null;
  }
}

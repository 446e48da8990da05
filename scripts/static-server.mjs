// The local production server: serves an app's dist folder the way the production CDN does —
// unhashed entry files no-cache, hashed chunks immutable, the build's precompressed copy (.br,
// else .gz) when the browser accepts it, the shell's pages by path (routes.json: prerendered
// marketing pages, the bare page for app routes, the 404 page with status 404 for the rest),
// and /config.json from a config file. Every response carries the site's security headers
// (@trailsense/shared/server-headers): the shell's with the Content-Security-Policy generated from
// that config, a remote's with CORS for the shell's origin alone. The shared module is TypeScript,
// so this file runs under tsx (scripts/serve.mjs registers it; Playwright and jest compile it too).
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { remoteServerHeaders, shellServerHeaders } from '@trailsense/shared/server-headers';
import { cacheControlFor, contentTypeFor } from '@trailsense/shared/serving';

const TYPES = { html: contentTypeFor('x.html'), json: contentTypeFor('x.json'), txt: contentTypeFor('x.txt') };

/** Precompressed copies the build writes beside an asset, best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
];
/** The Cache-Control of a served path: the deploy command's rule too (shared/src/serving/files.ts). */
export { cacheControlFor };

/**
 * The security headers for one request: the shell's (`corsOrigin` unset) from the config file's
 * current text, so a changed config takes effect on the next request; a remote's for the request's
 * Origin. The last config text's headers are kept, as every request would compute the same.
 * @param {{ configFile?: string, inlineScriptHashes: readonly string[], corsOrigin?: string }} options
 */
function securityHeadersFor({ configFile, inlineScriptHashes, corsOrigin }) {
  let last = { configText: undefined, headers: {} };
  return async (req) => {
    if (corsOrigin) return remoteServerHeaders({ requestOrigin: req.headers.origin, shellOrigin: corsOrigin });
    const configText = configFile ? ((await readFileOrNull(configFile))?.toString('utf8') ?? null) : null;
    if (configText !== last.configText) last = { configText, headers: shellServerHeaders({ configText, inlineScriptHashes }) };
    return last.headers;
  };
}

/**
 * @param {{ root: string, port: number, host?: string, spa?: boolean, configFile?: string, corsOrigin?: string }} options
 *   `corsOrigin`: the origin allowed to read this server's files from another origin (a remote's
 *   server: the shell's origin); without it the server is the shell's and sends the CSP.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startStaticServer({ root, port, host = '127.0.0.1', spa = false, configFile, corsOrigin }) {
  const rootDir = path.resolve(root);
  // The shell's build says which paths are prerendered pages, which the browser renders (app
  // routes) and what answers the rest, with a 404 (scripts/prerender.mjs writes it), and the hash
  // of each inline script its pages carry (for the Content-Security-Policy).
  const routes = spa ? JSON.parse((await readFileOrNull(path.join(rootDir, 'routes.json'))) ?? 'null') : null;
  if (routes && !Array.isArray(routes.inlineScriptHashes)) {
    throw new Error(`${path.join(rootDir, 'routes.json')} lists no inlineScriptHashes (an older build): rebuild the shell.`);
  }
  const headersFor = securityHeadersFor({ configFile, inlineScriptHashes: routes?.inlineScriptHashes ?? [], corsOrigin });

  /** Sends a file, or its precompressed copy when the browser accepts that encoding. */
  async function sendFile(req, res, status, filePath, type, cacheControl) {
    const accepted = req.headers['accept-encoding'] ?? '';
    for (const encoding of ENCODINGS) {
      if (!new RegExp(`\\b${encoding.name}\\b`).test(accepted)) continue;
      const compressed = await readFileOrNull(filePath + encoding.suffix);
      if (compressed) return send(req, res, status, compressed, type, cacheControl, encoding.name);
    }
    return send(req, res, status, await fs.readFile(filePath), type, cacheControl);
  }

  async function send(req, res, status, body, type, cacheControl, encoding) {
    const { Vary: vary, ...security } = await headersFor(req);
    for (const [name, value] of Object.entries(security)) res.setHeader(name, value);
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('Vary', vary ? `Accept-Encoding, ${vary}` : 'Accept-Encoding');
    if (encoding) res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', body.length);
    res.writeHead(status);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const server = http.createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (urlPath === '/config.json' && configFile) {
        const config = await readFileOrNull(configFile);
        if (config) await send(req, res, 200, config, TYPES.json, 'no-cache');
        else await send(req, res, 404, Buffer.from('{"message":"no config"}'), TYPES.json, 'no-cache');
        return;
      }
      const filePath = path.join(rootDir, urlPath);
      if (!filePath.startsWith(rootDir)) {
        res.writeHead(400).end();
        return;
      }
      const target = filePath.endsWith(path.sep) ? path.join(filePath, 'index.html') : filePath;
      if (await isFile(target)) {
        const ext = path.extname(target) || '.html';
        await sendFile(req, res, 200, target, contentTypeFor(`x${ext}`), cacheControlFor(urlPath));
        return;
      }
      if (routes && !path.extname(urlPath)) {
        const routePath = urlPath.length > 1 ? urlPath.replace(/\/+$/, '') : urlPath;
        const page = routes.pages[routePath];
        if (page) return await sendFile(req, res, 200, path.join(rootDir, page), TYPES.html, 'no-cache');
        if (routes.appPaths.includes(routePath)) {
          return await sendFile(req, res, 200, path.join(rootDir, routes.app), TYPES.html, 'no-cache');
        }
        return await sendFile(req, res, 404, path.join(rootDir, routes.notFound), TYPES.html, 'no-cache');
      }
      // Without a route list, a deep link (/support, /uploader) gets the single-page app's page.
      if (spa && !path.extname(urlPath)) {
        await sendFile(req, res, 200, path.join(rootDir, 'index.html'), TYPES.html, 'no-cache');
        return;
      }
      await send(req, res, 404, Buffer.from('Not found'), TYPES.txt, 'no-cache');
    } catch (error) {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end('Internal error');
    }
  });

  await new Promise((resolve, reject) => {
    server.once('error', (error) => reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use (serving ${root}).`) : error));
    server.listen(port, host, resolve);
  });
  return {
    // The port the system chose when `port` is 0 (tests).
    url: `http://localhost:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function isFile(filePath) {
  try {
    return (await fs.stat(filePath)).isFile();
  } catch {
    return false;
  }
}

async function readFileOrNull(filePath) {
  return (await isFile(filePath)) ? fs.readFile(filePath) : null;
}

// Prerenders the shell's marketing routes (/, /about, /videos, /support, /contact and the 404
// page) into its production build: each gets an HTML file with its title, meta description,
// structured data and content, which the page then hydrates. /login gets its frame (the page
// without the sign-in kit, shell/src/remotes/route-frames.tsx), which the page renders afresh. Runs after `webpack` in the
// shell's build; the config is the one the site will be served with (TRAILSENSE_CONFIG, default
// config/local.json), because the brand's texts are part of the pages.
//   node scripts/prerender.mjs [distDir]
import { build } from 'esbuild';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { promisify } from 'node:util';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[2] ?? path.join(repo, 'shell/dist'));
const configFile = path.resolve(repo, process.env.TRAILSENSE_CONFIG ?? 'config/local.json');

/** Bundles the prerender entry for Node: TypeScript and the shared package compiled, styles dropped. */
async function loadRenderer() {
  const outfile = path.join(repo, 'node_modules/.cache/trailsense-prerender/prerender.mjs');
  const shellPkg = JSON.parse(await fs.readFile(path.join(repo, 'shell/package.json'), 'utf8'));
  await build({
    entryPoints: [path.join(repo, 'shell/src/prerender.tsx')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    jsx: 'automatic',
    loader: { '.css': 'empty' },
    // React, the router and react-error-boundary run from node_modules, as in the page (a CommonJS
    // package bundled into this ESM file could not `require` React); our TypeScript is bundled.
    external: ['react', 'react-dom', 'react-router', 'react-router-dom', 'react-error-boundary'],
    define: {
      __APP_VERSION__: JSON.stringify(shellPkg.version),
      __APP_NAME__: JSON.stringify(shellPkg.name),
      __SHARED_VERSIONS__: '{}',
    },
    // Minified: the stored-session check is inlined into every page from this bundle.
    minify: true,
    logLevel: 'warning',
  });
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
}

/** What an app route (sign-in, uploader) says without JavaScript; the marketing pages read fine without it. */
const NOSCRIPT =
  'Signing in and uploading need JavaScript. Our FAQ is at <a href="/support">/support</a> and our contact details at <a href="/contact">/contact</a>.';

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Where things go in webpack's (minified) page.
const TITLE = /<title>[\s\S]*?<\/title>/;
const DESCRIPTION = /<meta name="?description"? content=("[^"]*"|[^\s>]*)\s*\/?>/;
const CHARSET = /<meta charset="?utf-8"?\s*\/?>/i;
const ROOT = /<div id="?root"?><\/div>/;

/** Replaces the one match of `pattern` in `text`; the build fails if the template lacks it. */
function replaceOnce(text, pattern, replacement) {
  if (!pattern.test(text)) throw new Error(`The page template has no ${pattern}.`);
  return text.replace(pattern, () => replacement);
}

/** Puts the stored-session script first in the head, so it runs before anything paints. */
export function withSessionScript(template, sessionScript) {
  const charset = CHARSET.exec(template)?.[0];
  if (!charset) throw new Error(`The page template has no ${CHARSET}.`);
  return template.replace(CHARSET, () => `${charset}<script>${sessionScript}</script>`);
}

/**
 * The head links that start a framed route's remote with the HTML: a preconnect to the remote's
 * origin and a preload of its manifest (fetched by the federation runtime as a plain CORS fetch,
 * which a `crossorigin` fetch preload matches), instead of after the shell's scripts and config.
 */
export function remoteHints(manifestUrl) {
  const url = escapeHtml(manifestUrl);
  const origin = escapeHtml(new URL(manifestUrl).origin);
  return `<link rel="preconnect" href="${origin}" crossorigin><link rel="preload" href="${url}" as="fetch" crossorigin>`;
}

/**
 * The built page with a route's head and content filled in. A framed route (`frame`) names the
 * frame it was drawn with (`data-frame`: the page hydrates it only with a config that draws the
 * same one), says without JavaScript what app routes say, and carries its remote's hints.
 */
export function fillTemplate(template, { html, head, jsonLdText }, sessionScript, frame) {
  let page = withSessionScript(template, sessionScript);
  page = replaceOnce(page, TITLE, `<title>${escapeHtml(head.title)}</title>`);
  page = replaceOnce(page, DESCRIPTION, `<meta name="description" content="${escapeHtml(head.description)}">`);
  page = frame
    ? replaceOnce(page, ROOT, `<div id="root" data-frame="${escapeHtml(frame.variant)}">${html}</div><noscript>${NOSCRIPT}</noscript>`)
    : replaceOnce(page, ROOT, `<div id="root">${html}</div>`);
  if (frame?.manifestUrl) page = page.replace('</head>', () => `${remoteHints(frame.manifestUrl)}</head>`);
  if (jsonLdText) page = page.replace('</head>', () => `<script type="application/ld+json" id="route-json-ld">${jsonLdText}</script></head>`);
  return page;
}

/** An inline `<script>` (no `src`) and its attributes and text. */
const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
/** `type` values a browser runs as script (absent and empty too); any other is a data block. */
const EXECUTABLE_TYPE = /^(|module|(text|application)\/(java|ecma)script)$/i;

/** The CSP hash source that allows an inline script with exactly this text: `'sha256-<base64>'`. */
export function cspHashSource(scriptText) {
  return `'sha256-${crypto.createHash('sha256').update(scriptText, 'utf8').digest('base64')}'`;
}

/**
 * The hash sources of every inline script a page runs, for the Content-Security-Policy's
 * script-src (infra/docs/server.md#security-headers). A script with `src` is allowed by its origin;
 * a data block (`type="application/ld+json"`) is not script and needs none.
 */
export function inlineScriptHashes(html) {
  const hashes = [];
  for (const [, attributes, text] of html.matchAll(INLINE_SCRIPT)) {
    if (/\ssrc\s*=/i.test(` ${attributes}`)) continue;
    const type = /\stype\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(` ${attributes}`);
    if (!EXECUTABLE_TYPE.test((type?.[2] ?? type?.[3] ?? type?.[4] ?? '').trim())) continue;
    hashes.push(cspHashSource(text));
  }
  return [...new Set(hashes)];
}

/** The file a path is written to: / → index.html, /support → support.html. */
const fileFor = (routePath) => (routePath === '/' ? 'index.html' : `${routePath.slice(1)}.html`);

async function writeCompressed(file, text) {
  const body = Buffer.from(text);
  await fs.writeFile(file, body);
  // The server sends the precompressed copy; a stale one from webpack must not survive.
  await fs.writeFile(`${file}.br`, await promisify(zlib.brotliCompress)(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
  await fs.writeFile(`${file}.gz`, await promisify(zlib.gzip)(body, { level: 9 }));
}

async function main() {
  const renderer = await loadRenderer();
  await renderer.preloadAllPages();
  const parsed = renderer.parseRuntimeConfig(JSON.parse(await fs.readFile(configFile, 'utf8')));
  if (!parsed.ok) throw new Error(`${configFile} has problems:\n- ${parsed.problems.join('\n- ')}`);
  const templateFile = path.join(dist, 'index.html');
  // Keep webpack's page (scripts, no content) once: a rebuild of the prerender starts from it.
  const appFile = path.join(dist, 'app.html');
  const template = await fs.readFile(templateFile, 'utf8');
  if (!ROOT.test(template)) throw new Error(`${templateFile} is not webpack's page (already prerendered?): rebuild the shell.`);
  const sessionScript = renderer.sessionScript();
  // App routes keep the template's generic title and description until the page sets its own.
  const appPage = replaceOnce(withSessionScript(template, sessionScript), ROOT, `<div id="root"></div><noscript>${NOSCRIPT}</noscript>`);
  await writeCompressed(appFile, appPage);
  const hashes = new Set(inlineScriptHashes(appPage));

  const pages = {};
  const rows = [];
  const framed = new Set(renderer.framedPaths);
  for (const routePath of [...renderer.prerenderedPaths, ...renderer.framedPaths, renderer.notFoundPath]) {
    const page = renderer.prerender(routePath, parsed.config);
    const file = routePath === renderer.notFoundPath ? '404.html' : fileFor(routePath);
    const remote = renderer.framedRemote(routePath);
    const frame = framed.has(routePath)
      ? { variant: renderer.frameVariant(parsed.config), manifestUrl: remote ? parsed.config.remotes[remote] : undefined }
      : undefined;
    const text = fillTemplate(template, page, sessionScript, frame);
    await writeCompressed(path.join(dist, file), text);
    for (const hash of inlineScriptHashes(text)) hashes.add(hash);
    if (routePath !== renderer.notFoundPath) pages[routePath] = file;
    rows.push(`${routePath.padEnd(16)} → ${file.padEnd(13)} ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB`);
  }
  // The static server (and a CDN's rules) answer by this: prerendered page, app page, else 404;
  // the inline scripts' hashes go into the Content-Security-Policy of both servers.
  const manifest = { pages, appPaths: renderer.appPaths, app: 'app.html', notFound: '404.html', inlineScriptHashes: [...hashes] };
  await fs.writeFile(path.join(dist, 'routes.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(`Prerendered with ${path.relative(repo, configFile)}:\n  ${rows.join('\n  ')}`);
}

// Run as a script (`node scripts/prerender.mjs`), not when a test imports its functions.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error('Prerender failed:', error);
    process.exitCode = 1;
  });
}

/**
 * A faithful miniature of a remote's build (uploader-remote/dist) for the deploy tests: the entry
 * files at fixed names (index.html, main.js, remoteEntry.js, mf-manifest.json), chunks named by
 * their content hash as webpack names them (`<name>.<10 hex>.js`), a chunk's LICENSE companion,
 * and what the deploy leaves out (a source map, the .br/.gz copies, the build stamp). Its page
 * lazy-loads a hashed chunk on demand (`window.loadLazy()`), as the shell loads a remote's. Its
 * manifest states the federation runtime this repository's remotes need and shares nothing, so it
 * fits the shell of this repository (a remote's deploy checks that: --shell). Its manifest names
 * remoteEntry.js, as a build from before the hashed entry did; with `hashedEntry` it names a
 * content-hashed copy, remoteEntry.<10 hex>.js, as a production build does now (webpack/index.js).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { hostDescription, runtimeRange, runtimeVersion, RUNTIME_PACKAGE } from '@trailsense/webpack-config/federation-check';
import type { HostDescription } from '@trailsense/webpack-config/federation-check';

const REPO = path.resolve(__dirname, '..', '..', '..');

/**
 * What a remote built in this repository says of the federation runtime it needs, as its
 * mf-manifest.json's metaData says it (webpack/index.js).
 */
export const FIXTURE_RUNTIME = { package: RUNTIME_PACKAGE, requiredVersion: runtimeRange(runtimeVersion(path.join(REPO, 'shell'))) };

/**
 * The live shell's federation-host.json for a remote's deploy (--shell): the shell of this
 * repository, as its build describes it. Written to `file`, whose path is returned.
 */
export function writeShellHost(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(hostDescription(REPO), null, 2)}\n`);
  return file;
}

export interface FixtureRelease {
  dir: string;
  marker: string;
  /** The entry script its manifest names: remoteEntry.js, or the hashed copy. */
  entry: string;
  /** The lazily loaded chunk's file name. */
  lazyChunk: string;
  /** The chunk with a LICENSE companion. */
  vendorChunk: string;
  /** Every file written, relative. */
  files: string[];
}

const hashed = (name: string, content: string) => `${name}.${createHash('sha256').update(content).digest('hex').slice(0, 10)}.js`;

export function writeFixtureRelease(dir: string, marker: string, options: { hashedEntry?: boolean } = {}): FixtureRelease {
  fs.mkdirSync(dir, { recursive: true });
  const lazy = `export function describe() {\n  return 'lazy chunk of release ${marker}';\n}\n`;
  const lazyChunk = hashed('lazy', lazy);
  const vendor = `/*! vendor of release ${marker} | MIT */\nexport const vendor = '${marker}';\n`;
  const vendorChunk = hashed('vendor', vendor);
  const main = [
    `// The entry script of release ${marker}: it names its chunks, so it is never cached.`,
    `document.documentElement.dataset.release = '${marker}';`,
    `window.loadLazy = () => import('./${lazyChunk}').then((chunk) => chunk.describe());`,
    `import('./${vendorChunk}').then((chunk) => { document.documentElement.dataset.vendor = chunk.vendor; });`,
    '',
  ].join('\n');
  const remoteEntry = `// remote entry of release ${marker}\nwindow.fixtureRemote = { lazy: './${lazyChunk}', vendor: './${vendorChunk}' };\n`;
  const entry = options.hashedEntry ? hashed('remoteEntry', remoteEntry) : 'remoteEntry.js';
  const files: Record<string, string | Buffer> = {
    'index.html': `<!doctype html><html lang=en><head><meta charset=utf-8><title>release ${marker}</title><script type=module src=main.js></script></head><body><p>release ${marker}</p></body></html>`,
    'main.js': main,
    'remoteEntry.js': remoteEntry,
    [entry]: remoteEntry,
    'mf-manifest.json': `${JSON.stringify({ id: 'fixture', name: 'fixture', metaData: { remoteEntry: { name: entry, path: '' }, buildInfo: { buildVersion: marker }, federationRuntime: FIXTURE_RUNTIME }, shared: [], exposes: [{ path: './Lazy', assets: { js: { sync: [lazyChunk, vendorChunk], async: [] } } }] }, null, 2)}\n`,
    [lazyChunk]: lazy,
    [vendorChunk]: vendor,
    [`${vendorChunk}.LICENSE.txt`]: `vendor of release ${marker} | MIT\n`,
    [`${lazyChunk}.map`]: '{"version":3,"mappings":""}\n',
    [`${lazyChunk}.br`]: Buffer.from([0x0b, 0x01, 0x80]),
    [`${lazyChunk}.gz`]: Buffer.from([0x1f, 0x8b]),
    '.build-stamp': marker,
  };
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return { dir, marker, entry, lazyChunk, vendorChunk, files: Object.keys(files) };
}

/** The files of a fixture release the deploy uploads (no map, .br, .gz or dot file). */
export function deployedFiles(release: FixtureRelease): string[] {
  return release.files.filter((f) => !/\.(map|br|gz)$/.test(f) && !f.startsWith('.')).sort();
}

export interface FixtureShell {
  dir: string;
  /** The hashed app script every page loads. */
  mainChunk: string;
  /** Every file written, relative. */
  files: string[];
}

/**
 * A miniature of the shell's build (shell/dist): the prerendered pages, the bare app page and the
 * 404 page that routes.json names (infra/test/fixtures/routes.json, the real build's), a hashed
 * script with its LICENSE companion, an image at a fixed name, its federation-host.json (this
 * repository's shell's, or `host`'s), what the deploy leaves out — and a stray config.json, which
 * the deploy must replace with the environment's (--config).
 */
export function writeFixtureShell(dir: string, marker: string, options: { host?: HostDescription } = {}): FixtureShell {
  fs.mkdirSync(dir, { recursive: true });
  const routes = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'routes.json'), 'utf8')) as {
    pages: Record<string, string>;
    app: string;
    notFound: string;
  };
  const script = `/*! shell of release ${marker} | MIT */\ndocument.documentElement.dataset.release = '${marker}';\n`;
  const mainChunk = hashed('main', script);
  const page = (title: string) =>
    `<!doctype html><html lang=en><head><meta charset=utf-8><title>${title} (${marker})</title><script defer src=/${mainChunk}></script></head><body></body></html>`;
  const files: Record<string, string> = {
    'routes.json': `${JSON.stringify(routes, null, 2)}\n`,
    'config.json': '{"stale":"not the environment\'s config"}\n',
    'favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
    'federation-host.json': `${JSON.stringify(options.host ?? hostDescription(REPO), null, 2)}\n`,
    [mainChunk]: script,
    [`${mainChunk}.LICENSE.txt`]: `shell of release ${marker} | MIT\n`,
    [`${mainChunk}.map`]: '{"version":3,"mappings":""}\n',
    [`${mainChunk}.gz`]: 'gz',
    'index.html.br': 'br',
  };
  for (const [route, file] of Object.entries(routes.pages)) files[file] = page(route);
  files[routes.app] = page('app');
  files[routes.notFound] = page('not found');
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return { dir, mainChunk, files: Object.keys(files) };
}

/** The live remotes of the example environment (config/production.example.json's `remotes.*`). */
export const EXAMPLE_REMOTES = {
  auth: 'https://auth.trailsense.example/mf-manifest.json',
  uploader: 'https://uploader.trailsense.example/mf-manifest.json',
};

/**
 * A `fetch` that serves each URL of `files` (a remote's manifest, as JSON text) and answers 404
 * to every other: the live remotes a shell's deploy or rollback checks, without the network.
 */
export function fetchFrom(files: Record<string, string | (() => string)>): typeof fetch {
  return async (input) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const file = files[url];
    if (file === undefined) return new Response('<Error><Code>NoSuchKey</Code></Error>', { status: 404 });
    return new Response(typeof file === 'function' ? file() : file, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

/** The example environment's live remotes, each serving a fixture release's manifest (it fits this repository's shell). */
export function exampleRemotesFetch(release: FixtureRelease): typeof fetch {
  const manifest = () => fs.readFileSync(path.join(release.dir, 'mf-manifest.json'), 'utf8');
  return fetchFrom({ [EXAMPLE_REMOTES.auth]: manifest, [EXAMPLE_REMOTES.uploader]: manifest });
}

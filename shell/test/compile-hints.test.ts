/**
 * @jest-environment node
 */
import fs from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import webpack from 'webpack';
import { COMPILE_HINT, CompileHintsPlugin } from '@trailsense/webpack-config/compile-hints';

/** A function body of about `bytes` bytes, so that a module weighs what a test needs. */
const weighing = (name: string, bytes: number) =>
  `export function ${name}() {\n${Array.from({ length: Math.ceil(bytes / 40) }, (_, i) => `  globalThis.v${i} = ${i} * 2 + 1;\n`).join('')}}\n`;

/**
 * A small project: an entry of its own code that loads `kit` (mostly an eager package's code),
 * `page` (mostly another package's, with a little of the eager one) and a worker (all the eager
 * package's). Built once, in production mode with source maps, unminified to keep it quick.
 */
let out: string;
let root: string;
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'compile-hints-'));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('node_modules/eager-lib/package.json', '{"name":"eager-lib","version":"1.0.0","sideEffects":false}');
  write('node_modules/eager-lib/index.js', weighing('big', 8000));
  write('node_modules/eager-lib/small.js', weighing('small', 200));
  write('node_modules/other-lib/package.json', '{"name":"other-lib","version":"1.0.0","sideEffects":false}');
  write('node_modules/other-lib/index.js', weighing('other', 8000));
  write('src/kit.js', "import { big } from 'eager-lib';\nexport const kit = () => big();\n");
  write('src/page.js', "import { other } from 'other-lib';\nimport { small } from 'eager-lib/small';\nexport const page = () => [other(), small()];\n");
  write('src/worker.js', "import { big } from 'eager-lib';\nbig();\n");
  write(
    'src/index.js',
    [
      weighing('own', 4000),
      "import(/* webpackChunkName: 'kit' */ './kit').then((m) => m.kit());",
      "import(/* webpackChunkName: 'page' */ './page').then((m) => m.page());",
      "new Worker(/* webpackChunkName: 'worker' */ new URL('./worker.js', import.meta.url));",
    ].join('\n'),
  );
  out = path.join(root, 'dist');
  const compiler = webpack({
    mode: 'production',
    context: root,
    entry: { main: './src/index.js' },
    output: { path: out, filename: '[name].js', chunkFilename: '[name].js' },
    devtool: 'source-map',
    optimization: { minimize: false, splitChunks: false, concatenateModules: true },
    plugins: [new CompileHintsPlugin(['eager-lib'])],
  });
  const stats = await new Promise<webpack.Stats>((resolve, reject) =>
    compiler.run((error, result) => (error || !result ? reject(error ?? new Error('no stats')) : resolve(result))),
  );
  await new Promise((resolve) => compiler.close(resolve));
  expect(stats.hasErrors()).toBe(false);
}, 60_000);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const read = (file: string) => fs.readFileSync(path.join(out, file), 'utf8');

describe('CompileHintsPlugin: chunks mostly of the named packages are compiled eagerly', () => {
  it('starts a chunk that is mostly the packages’ code with V8’s compile hint, as its first line', () => {
    expect(read('kit.js').startsWith(COMPILE_HINT)).toBe(true);
    expect(COMPILE_HINT).toBe('//# allFunctionsCalledOnLoad\n');
  });

  it('leaves alone a chunk of our own code, and one that merely includes a little of the packages', () => {
    expect(read('main.js')).not.toContain('allFunctionsCalledOnLoad');
    expect(read('page.js')).not.toContain('allFunctionsCalledOnLoad');
  });

  it('leaves a worker’s script alone, though it is all the packages’ code', () => {
    expect(read('worker.js')).not.toContain('allFunctionsCalledOnLoad');
  });

  it('accounts for the added line in the source map: the packages’ code below it still maps to its own line', () => {
    const map = new SourceMap(JSON.parse(read('kit.js.map')) as SourceMapPayload);
    const lines = read('kit.js').split('\n');
    const line = lines.findIndex((text) => text.includes('globalThis.v7 = 7 * 2 + 1;'));
    expect(line).toBeGreaterThan(0);
    const entry = map.findEntry(line, lines[line]!.indexOf('globalThis')) as { originalSource?: string; originalLine?: number };
    expect(entry.originalSource).toMatch(/eager-lib\/index\.js$/);
    // Zero-based: line 0 of eager-lib/index.js is `export function big() {`, v0 is on line 1.
    expect(entry.originalLine).toBe(8);
  });
});

// Jest transform for the repo's Node scripts (ES modules, .mjs) and the TypeScript they import
// (the shared package's server headers, .ts): esbuild turns them into CommonJS, which jest runs
// without Node's experimental VM modules. TypeScript keeps .mjs files ESM. `import.meta.url` is
// the file's own URL, as under Node (CommonJS has no import.meta).
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      format: 'cjs',
      loader: /\.tsx?$/.test(filename) ? 'ts' : 'js',
      sourcefile: filename,
      sourcemap: 'external',
      target: 'node22',
      define: { 'import.meta.url': '__importMetaUrl' },
      banner: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    });
    return { code, map };
  },
};

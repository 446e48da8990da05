// Jest transform for the repo's Node scripts (ES modules, .mjs): esbuild turns them into CommonJS,
// which jest runs without Node's experimental VM modules. TypeScript keeps .mjs files ESM.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, { format: 'cjs', loader: 'js', sourcefile: filename, sourcemap: 'external', target: 'node20' });
    return { code, map };
  },
};

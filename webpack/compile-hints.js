// Marks chunks for eager compilation with V8's explicit compile hint: a first line
// `//# allFunctionsCalledOnLoad` (Chrome 136+; other engines read a comment). Without it V8
// compiles each function on its first call, on the main thread: evaluating the sign-in kit's
// chunk was one task of 65-75 ms at 4× CPU on /login, most of it compiling. With it the script is
// compiled while it streams in, off the main thread (docs/architecture.md#compile-hints). Only the
// chunks mostly of the packages named (webpack/index.js EAGER_PACKAGES), which run on the way to a
// usable member route; never the marketing pages' (nothing to gain there, and eager code costs
// memory). Added after minification (which would drop the comment) and before the source maps are
// written (which account for the line).
const webpack = require('webpack');

const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

/** Whether a chunk belongs to a web worker's entry (kept whole: SelfContainedWorkersPlugin). */
const isWorkerChunk = (chunk) => Boolean(chunk.getEntryOptions()?.worker);

class CompileHintsPlugin {
  /** @param {string[]} packages */
  constructor(packages) {
    const names = packages.map((pkg) => pkg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
    this.pattern = new RegExp(`[\\\\/]node_modules[\\\\/](?:${names})[\\\\/]`);
  }

  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    const name = 'CompileHintsPlugin';
    /** Bytes of a module's code (each part of a concatenated one) from the packages, and in all. */
    const weigh = (module) => {
      let eager = 0;
      let all = 0;
      for (const inner of module.modules ?? [module]) {
        const size = inner.size();
        all += size;
        if (this.pattern.test(inner.nameForCondition?.() ?? '')) eager += size;
      }
      return { eager, all };
    };
    compiler.hooks.thisCompilation.tap(name, (compilation) => {
      compilation.hooks.processAssets.tap({ name, stage: webpack.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE + 50 }, () => {
        for (const chunk of compilation.chunks) {
          if (isWorkerChunk(chunk)) continue;
          // Mostly their code: a chunk that merely includes one of their modules (the Firehose
          // client, the storage module) is not compiled whole for it.
          let eager = 0;
          let all = 0;
          for (const module of compilation.chunkGraph.getChunkModulesIterable(chunk)) {
            const weight = weigh(module);
            eager += weight.eager;
            all += weight.all;
          }
          if (all === 0 || eager / all < 0.5) continue;
          for (const file of chunk.files) {
            if (file.endsWith('.js')) compilation.updateAsset(file, (source) => new webpack.sources.ConcatSource(COMPILE_HINT, source));
          }
        }
      });
    });
  }
}

module.exports = { CompileHintsPlugin, isWorkerChunk, COMPILE_HINT };

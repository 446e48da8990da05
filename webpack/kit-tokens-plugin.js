// Drops the sign-in kit's component tokens that nothing reads from a build's CSS.
//
// The kit's base sheet (@aws-amplify/ui's base.layer.css) defines about 1,600 custom properties on
// :root, 1,300 of them component tokens (`--amplify-components-<component>-…`) for every component
// of the kit, each read only by that component's sheet. auth-remote ships the sheets of the
// components /login draws (auth-remote/src/features/login/sign-in-kit-styles.ts), so most component
// tokens are read by nothing: they are parsed and carried on every element's computed style for
// nothing. This plugin removes, from every CSS file of the build, the definitions of component
// tokens that no declaration of the build's CSS or JavaScript reads (with `var(…)`), directly or
// through another token (docs/architecture.md#the-sign-in-kits-stylesheet). The theme's own tokens
// (`--amplify-colors-…`, `--amplify-space-…`) all stay: the kit's style props read them from
// JavaScript by name.
const postcss = require('postcss');
const webpack = require('webpack');

const COMPONENT_TOKEN = /^--amplify-components-/;
const READ = /var\(\s*(--amplify-components-[A-Za-z0-9_-]+)/g;

/** The component tokens a text reads with var(). */
function readsOf(text) {
  return [...text.matchAll(READ)].map((match) => match[1]);
}

/**
 * The component tokens to keep: those read by a declaration that is not a component token's
 * definition, in any sheet, or by the JavaScript, and those these read in turn.
 * @param {import('postcss').Root[]} roots the build's CSS, parsed
 * @param {string[]} scripts the build's JavaScript
 * @returns {Set<string>}
 */
function usedComponentTokens(roots, scripts) {
  /** @type {Map<string, string[]>} each token's definitions' values */
  const definitions = new Map();
  const wanted = [];
  for (const root of roots) {
    root.walkDecls((decl) => {
      if (COMPONENT_TOKEN.test(decl.prop)) definitions.set(decl.prop, [...(definitions.get(decl.prop) ?? []), decl.value]);
      else wanted.push(...readsOf(decl.value));
    });
  }
  for (const script of scripts) wanted.push(...readsOf(script));
  const used = new Set();
  while (wanted.length > 0) {
    const token = wanted.pop();
    if (used.has(token)) continue;
    used.add(token);
    for (const value of definitions.get(token) ?? []) wanted.push(...readsOf(value));
  }
  return used;
}

/**
 * Removes the definitions of component tokens not in `used`; returns how many.
 * @param {import('postcss').Root} root
 * @param {Set<string>} used
 */
function pruneComponentTokens(root, used) {
  let removed = 0;
  root.walkDecls(COMPONENT_TOKEN, (decl) => {
    if (used.has(decl.prop)) return;
    decl.remove();
    removed += 1;
  });
  return removed;
}

/**
 * The same on texts: `sheets` with the component tokens nothing reads dropped.
 * @param {string[]} sheets the build's CSS
 * @param {string[]} scripts the build's JavaScript
 * @returns {{ sheets: string[], used: Set<string> }}
 */
function pruneSheets(sheets, scripts) {
  const roots = sheets.map((sheet) => postcss.parse(sheet));
  const used = usedComponentTokens(roots, scripts);
  for (const root of roots) pruneComponentTokens(root, used);
  return { sheets: roots.map((root) => root.toString()), used };
}

class UnusedKitTokensPlugin {
  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    const name = 'UnusedKitTokensPlugin';
    compiler.hooks.thisCompilation.tap(name, (compilation) => {
      // Before the source maps are written (they follow the change) and the copies compressed.
      compilation.hooks.processAssets.tap({ name, stage: webpack.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE }, (assets) => {
        const sheets = Object.keys(assets).filter((file) => file.endsWith('.css'));
        // Most builds (the shell's, the uploader's) carry no kit tokens: nothing to parse.
        if (!sheets.some((file) => String(compilation.getAsset(file).source.source()).includes('--amplify-components-'))) return;
        const parsed = sheets.map((file) => {
          const { source, map } = compilation.getAsset(file).source.sourceAndMap();
          return { file, map, root: postcss.parse(String(source), { from: file }) };
        });
        const scripts = Object.keys(assets)
          .filter((file) => file.endsWith('.js'))
          .map((file) => String(compilation.getAsset(file).source.source()));
        const used = usedComponentTokens(
          parsed.map(({ root }) => root),
          scripts,
        );
        for (const { file, map, root } of parsed) {
          if (pruneComponentTokens(root, used) === 0) continue;
          const result = root.toResult({ to: file, map: map ? { prev: map, inline: false, annotation: false, sourcesContent: true } : false });
          compilation.updateAsset(
            file,
            result.map ? new webpack.sources.SourceMapSource(result.css, file, result.map.toJSON()) : new webpack.sources.RawSource(result.css),
          );
        }
      });
    });
  }
}

module.exports = { UnusedKitTokensPlugin, usedComponentTokens, pruneComponentTokens, pruneSheets };

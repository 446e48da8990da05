// A webpack loader for the sign-in kit's theme context (@aws-amplify/ui-react's
// components/ThemeProvider/ThemeContext.mjs): its default theme is built here, at build time,
// instead of by `createTheme()` in the browser. On a phone (4× CPU) createTheme() is a task of
// 50-60 ms in the kit's first render on /login, one component that React cannot slice
// (docs/architecture.md#the-sign-in-kits-theme-is-built-at-build-time).
//
// The module keeps its contract (it exports `ThemeContext`, whose default value is
// `{ theme, colorMode: undefined }`), and the theme is the one createTheme() returns: the same
// tokens with the same names, values and `toString()`, breakpoints and name. What the kit's
// screens never read in the default context — the component tokens, the theme's CSS text and its
// overrides — are left to the real createTheme(), run on first read. The build fails if an upgrade
// changes the module, so nothing is replaced by guesswork.
const path = require('node:path');

/** What the kit's module must look like to be replaced (6.15.x: the default theme made at import). */
const EXPECTED = /const ThemeContext = React\.createContext\(\{\s*theme: createTheme\(\),\s*colorMode: undefined,\s*\}\);\s*export \{ ThemeContext \};/;

/**
 * JavaScript for an expression that rebuilds `theme` (a createTheme() result) with `createTheme`
 * in scope: the tokens but the component tokens as JSON, each token given back its `toString()`.
 * @param {{ tokens: Record<string, unknown>, breakpoints: unknown, name: string, overrides: unknown[] }} theme
 */
function themeExpression(theme) {
  const { components: _components, ...tokens } = theme.tokens;
  return `(() => {
  let full;
  const fullTheme = () => (full ??= createTheme());
  const tokens = JSON.parse(${JSON.stringify(JSON.stringify(tokens))});
  // A token is an object with its CSS variable's name, its path and value; toString() names the variable.
  (function withToString(node) {
    for (const key in node) {
      const value = node[key];
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      if (typeof value.name === 'string' && Array.isArray(value.path) && 'value' in value) value.toString = () => \`var(\${value.name})\`;
      else withToString(value);
    }
  })(tokens);
  const theme = {
    tokens: { get components() { return fullTheme().tokens.components; }, ...tokens },
    breakpoints: ${JSON.stringify(theme.breakpoints)},
    name: ${JSON.stringify(theme.name)},
    get cssText() { return fullTheme().cssText; },
    containerProps: ({ colorMode } = {}) => ({ 'data-amplify-theme': ${JSON.stringify(theme.name)}, 'data-amplify-color-mode': colorMode }),
    ${theme.overrides.length === 0 ? 'overrides: [],' : 'get overrides() { return fullTheme().overrides; },'}
  };
  return theme;
})()`;
}

/**
 * The module that replaces the kit's ThemeContext.mjs.
 * @param {Parameters<typeof themeExpression>[0]} theme
 */
function themeContextSource(theme) {
  return `// Written by webpack/kit-theme-loader.js: the kit's default theme, built at build time.
import * as React from 'react';
import { createTheme } from '@aws-amplify/ui';

const ThemeContext = React.createContext({ theme: ${themeExpression(theme)}, colorMode: undefined });

export { ThemeContext };
`;
}

/** @this {import('webpack').LoaderContext<unknown>} */
function kitThemeLoader(source) {
  if (!EXPECTED.test(source)) {
    this.emitError(
      new Error(
        `${this.resourcePath} is not the theme context webpack/kit-theme-loader.js knows (the sign-in kit was upgraded?): ` +
          'read the new module, then update or remove the loader.',
      ),
    );
    return source;
  }
  // The createTheme() of the copy this module imports, in Node: the same version, the same theme.
  const ui = require.resolve('@aws-amplify/ui', { paths: [path.dirname(this.resourcePath)] });
  this.addDependency(ui);
  const { createTheme } = require(ui);
  return themeContextSource(createTheme());
}

module.exports = kitThemeLoader;
module.exports.themeExpression = themeExpression;
module.exports.themeContextSource = themeContextSource;
module.exports.EXPECTED = EXPECTED;

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createTheme } from '@aws-amplify/ui-react';
import kitThemeLoader, { EXPECTED, themeExpression } from '@trailsense/webpack-config/kit-theme-loader';

type Theme = ReturnType<typeof createTheme>;

/** The theme as the built module makes it, with the kit's real createTheme in scope. */
const rebuilt = (theme: Theme): Theme =>
  (vm.runInThisContext(`(createTheme) => ${themeExpression(theme)}`) as (make: typeof createTheme) => Theme)(createTheme);

/** What a token gives as text: its CSS variable. */
const text = (token: unknown) => (token as { toString(): string }).toString();

/** Every token of a tree: its path and the token. */
function tokensOf(node: unknown, at: string[] = []): Array<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  if ('value' in record && typeof record.name === 'string') return [[at.join('.'), record]];
  return Object.keys(record).flatMap((key) => tokensOf(record[key], [...at, key]));
}

describe('the sign-in kit’s default theme, built at build time', () => {
  const original = createTheme();
  const built = rebuilt(original);

  it('has every token createTheme() makes, with the same name, value, original, path and CSS variable', () => {
    const expected = tokensOf({ ...original.tokens, components: undefined });
    const actual = new Map(tokensOf({ ...built.tokens, components: undefined }));
    expect(expected.length).toBeGreaterThan(150);
    expect([...actual.keys()]).toEqual(expected.map(([at]) => at));
    for (const [at, token] of expected) {
      const mine = actual.get(at)!;
      expect({ at, name: mine.name, value: mine.value, original: mine.original, path: mine.path, css: text(mine) }).toEqual({
        at,
        name: token.name,
        value: token.value,
        original: token.original,
        path: token.path,
        css: text(token),
      });
    }
    // What the kit's style props do with a theme key: `gap="small"` → the space token's variable.
    expect(text(built.tokens.space.small)).toBe('var(--amplify-space-small)');
  });

  it('gives the rest of the theme as createTheme() does: breakpoints, name, container props, and on first read the component tokens and CSS text', () => {
    expect(built.breakpoints).toEqual(original.breakpoints);
    expect(built.name).toBe(original.name);
    expect(built.containerProps({ colorMode: 'dark' })).toEqual(original.containerProps({ colorMode: 'dark' }));
    expect(built.overrides).toEqual(original.overrides);
    expect(built.cssText).toBe(original.cssText);
    expect(JSON.stringify(built.tokens.components)).toBe(JSON.stringify(original.tokens.components));
  });

  it('replaces only the module it knows, and fails the build on any other', () => {
    const kitModule = path.join(path.dirname(require.resolve('@aws-amplify/ui-react')), 'esm/components/ThemeProvider/ThemeContext.mjs');
    const source = fs.readFileSync(kitModule, 'utf8');
    expect(EXPECTED.test(source)).toBe(true);
    const errors: Error[] = [];
    const context = { resourcePath: kitModule, emitError: (e: Error) => errors.push(e), addDependency: () => {} };
    const output = kitThemeLoader.call(context, source);
    expect(errors).toEqual([]);
    expect(output).toContain('export { ThemeContext };');
    expect(output).not.toMatch(/theme: createTheme\(\)/);

    const changed = source.replace('colorMode: undefined', "colorMode: 'system'");
    expect(kitThemeLoader.call(context, changed)).toBe(changed);
    expect(errors[0]?.message).toMatch(/is not the theme context webpack\/kit-theme-loader\.js knows/);
  });
});

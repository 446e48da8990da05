import fs from 'node:fs';
import path from 'node:path';
import { pruneSheets } from '@trailsense/webpack-config/kit-tokens-plugin';

/** One of the kit's own sheets, as the build reads it. */
const kitSheet = (name: string) => fs.readFileSync(path.join(path.dirname(require.resolve('@aws-amplify/ui-react')), 'styles', `${name}.layer.css`), 'utf8');

/** A sheet's component token definitions: name → value. */
function componentTokens(sheet: string): Map<string, string> {
  return new Map([...sheet.matchAll(/^\s*(--amplify-components-[\w-]+):\s*([^;]*);/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('the kit’s component tokens that nothing reads are dropped from the build’s CSS', () => {
  const base = kitSheet('base');
  const ours = '.login [data-amplify-authenticator] { --amplify-components-button-primary-background-color: #2f5d34; }';
  const script = 'el.style.height = "var(--amplify-components-placeholder-small-height)"';
  const { sheets, used } = pruneSheets([base, kitSheet('button'), ours], [script]);
  const kept = sheets[0]!;

  it('keeps what a shipped sheet or the JavaScript reads, and what those tokens read in turn', () => {
    expect(used.has('--amplify-components-button-primary-background-color')).toBe(true);
    expect(used.has('--amplify-components-placeholder-small-height')).toBe(true);
    const all = componentTokens(base);
    for (const token of used) {
      expect(kept).toContain(`${token}:`);
      for (const [, read] of (all.get(token) ?? '').matchAll(/var\((--amplify-components-[\w-]+)/g)) expect(used.has(read!)).toBe(true);
    }
    // Our own overrides, in a sheet of their own, stay as written.
    expect(sheets[2]).toBe(ours);
  });

  it('drops the rest, and keeps every theme token (the kit’s style props read them from JavaScript by name)', () => {
    expect(componentTokens(base).size).toBeGreaterThan(1000);
    expect([...componentTokens(kept).keys()].sort()).toEqual([...componentTokens(base).keys()].filter((token) => used.has(token)).sort());
    expect(kept).not.toContain('--amplify-components-accordion-background-color');
    expect(kept.length).toBeLessThan(base.length / 2);
    const themeTokens = (sheet: string) => sheet.match(/^\s*--amplify-(?!components-)[\w-]+:/gm) ?? [];
    expect(themeTokens(kept)).toEqual(themeTokens(base));
    expect(kept.startsWith('@layer amplify.base')).toBe(true);
  });
});

// Types of kit-tokens-plugin.js, for auth-remote's unit test.
export function pruneSheets(sheets: string[], scripts: string[]): { sheets: string[]; used: Set<string> };
export class UnusedKitTokensPlugin {
  apply(compiler: unknown): void;
}

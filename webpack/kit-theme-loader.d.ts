// Types of kit-theme-loader.js, for auth-remote's unit test.
declare function kitThemeLoader(this: unknown, source: string): string;
export default kitThemeLoader;
export function themeExpression(theme: object): string;
export function themeContextSource(theme: object): string;
export const EXPECTED: RegExp;

// Types of shared-singletons.js, for the shell's unit tests.
/** One module of a remote's `shared` option: its copy's version and the range it accepts of the shell's. */
export interface SingletonConfig {
  singleton: true;
  requiredVersion: string;
  version: string;
}
export function sharedSingletons(): Record<string, SingletonConfig>;
export function sharedVersions(): Record<string, { version: string; requiredVersion: string }>;
export function packageOf(key: string): string;
export const SINGLETONS: readonly string[];

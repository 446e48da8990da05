// Types of federation-check.js, for the shell's unit test.
export interface SharedEntry {
  name: string;
  version?: string;
}
export function hostModules(source: string): string[];
export function unprovided(provided: string[], manifest: { shared?: SharedEntry[] }): SharedEntry[];
export function checkFederation(options?: { remotes?: string[]; root?: string }): { problems: string[]; checked: string[] };
export const HOST_SOURCE: string;

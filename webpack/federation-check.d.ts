// Types of federation-check.js, for the shell's unit test and the deploy's preflight (infra).
export interface SharedEntry {
  name: string;
  version?: string;
  requiredVersion?: string;
}
/** A module a shell provides, with its package's version (null: a shell built before versions were published). */
export interface ProvidedModule {
  name: string;
  version: string | null;
}
export function hostModules(source: string): string[];
export function unprovided(provided: ReadonlyArray<string | { name: string }>, manifest: { shared?: SharedEntry[] }): SharedEntry[];
export interface HostDescription {
  runtime: { package: string; version: string };
  modules: ProvidedModule[];
}
export function checkFederation(options?: { remotes?: string[]; root?: string; host?: HostDescription }): { problems: string[]; checked: string[] };
export function hostDescription(root?: string): HostDescription;
export function readHost(where: string): Promise<HostDescription>;
export function hostLocation(where: string): string;
export function manifestProblems(remote: string, manifest: { shared?: SharedEntry[]; metaData?: object }, host: HostDescription): string[];
export function runtimeProblem(remote: string, manifest: { metaData?: object }, provided: string): string | null;
export function versionProblem(remote: string, entry: SharedEntry, provided: string | null): string | null;
export function outrankProblem(remote: string, entry: SharedEntry): string | null;
export function packageOf(importPath: string): string;
export function runtimeVersion(appDir: string): string;
export function runtimeRange(version: string): string;
export const HOST_FILE: string;
export const RUNTIME_PACKAGE: string;
export const HOST_SOURCE: string;

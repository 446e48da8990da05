// Types of federation-check.js, for the shell's unit test and the deploy's preflight (infra).
export interface SharedEntry {
  name: string;
  version?: string;
}
export function hostModules(source: string): string[];
export function unprovided(provided: string[], manifest: { shared?: SharedEntry[] }): SharedEntry[];
export interface HostDescription {
  runtime: { package: string; version: string };
  modules: string[];
}
export function checkFederation(options?: { remotes?: string[]; root?: string; host?: HostDescription }): { problems: string[]; checked: string[] };
export function hostDescription(root?: string): HostDescription;
export function readHost(where: string): Promise<HostDescription>;
export function hostLocation(where: string): string;
export function manifestProblems(remote: string, manifest: { shared?: SharedEntry[]; metaData?: object }, host: HostDescription): string[];
export function runtimeProblem(remote: string, manifest: { metaData?: object }, provided: string): string | null;
export function runtimeVersion(appDir: string): string;
export function runtimeRange(version: string): string;
export const HOST_FILE: string;
export const RUNTIME_PACKAGE: string;
export const HOST_SOURCE: string;

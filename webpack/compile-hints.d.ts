// Types of compile-hints.js, for the shell's unit test.
export const COMPILE_HINT: string;
export function isWorkerChunk(chunk: unknown): boolean;
export class CompileHintsPlugin {
  constructor(packages: string[]);
  apply(compiler: unknown): void;
}

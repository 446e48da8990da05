/** How the shell hands over one module: already loaded (`lib`) or on demand (`get`). */
export type ProvidedModule = { lib: () => unknown } | { get: () => Promise<unknown> };

/** A singleton's version and the range remotes may require, from webpack/shared-singletons.js. */
export interface SingletonVersion {
  version: string;
  requiredVersion: string;
}

/** The package an import path belongs to: `@aws-amplify/core/internals/utils` → `@aws-amplify/core`. */
export function packageOf(importPath: string): string {
  const parts = importPath.split('/');
  return importPath.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * The `shared` option of the federation runtime for the modules the shell provides. Every module
 * must belong to a package of the singleton list (so versions cannot drift from what the
 * remotes' build plugin was told); a module outside it is a mistake and throws.
 */
export function sharedProvision(modules: Record<string, ProvidedModule>, versions: Record<string, SingletonVersion>) {
  return Object.fromEntries(
    Object.entries(modules).map(([importPath, provided]) => {
      const pkg = packageOf(importPath);
      const known = versions[pkg];
      if (!known) throw new Error(`${importPath} is not in the shared singleton list (webpack/shared-singletons.js).`);
      const base = {
        version: known.version,
        scope: 'default',
        // A remote registers its own copies when it starts; at equal versions the runtime lets a
        // copy that is not loaded yet be replaced (by name order), except under 'loaded-first'.
        // The shell's copies must stay: Amplify is configured in them, not in a remote's.
        strategy: 'loaded-first' as const,
        shareConfig: { singleton: true, requiredVersion: known.requiredVersion },
      };
      return [
        importPath,
        'lib' in provided
          ? { ...base, lib: provided.lib as () => Record<string, unknown> }
          : {
              ...base,
              get: async () => {
                const loaded = (await provided.get()) as Record<string, unknown>;
                return () => loaded;
              },
            },
      ];
    }),
  );
}

/** The version of each module the shell provides, by import path (what a remote's manifest is checked against). */
export function providedVersions(modules: Record<string, ProvidedModule>, versions: Record<string, SingletonVersion>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(modules).flatMap((importPath) => {
      const known = versions[packageOf(importPath)];
      return known ? [[importPath, known.version]] : [];
    }),
  );
}

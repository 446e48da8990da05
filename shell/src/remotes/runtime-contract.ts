// The federation runtime contract between the shell and its remotes, checked at run time. A remote
// carries no federation runtime of its own: it runs on the shell's (webpack/index.js,
// `externalRuntime`), and its manifest states the runtime range it was built for
// (`metaData.federationRuntime`). A remote whose range the shell's runtime is outside is refused
// before any of its code runs: its route shows the error boundary, never a broken page.
// webpack/federation-check.js applies the same rule at build time
// (docs/architecture.md#one-federation-runtime).
import type { ModuleFederation, ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';

/** Tells whether `version` is in the semver `range` (the runtime's own implementation). */
export type Satisfies = (version: string, range: string) => boolean;

/** A remote's manifest was built for another federation runtime than the one on the page. */
export class RemoteRuntimeMismatch extends Error {
  constructor(
    readonly remote: string,
    readonly required: string,
    readonly provided: string,
  ) {
    super(`The remote ${remote} needs the federation runtime ${required}; this shell provides ${provided}.`);
    this.name = 'RemoteRuntimeMismatch';
  }
}

/**
 * Why a remote whose manifest carries `metaData` cannot run on the runtime `provided`, or null
 * when it can. A manifest that states no runtime is of a remote that carries its own (built before
 * the contract): it runs as before.
 */
export function runtimeRefusal(remote: string, metaData: unknown, provided: string, satisfies: Satisfies): RemoteRuntimeMismatch | null {
  const stated = (metaData as { federationRuntime?: { requiredVersion?: unknown } } | null | undefined)?.federationRuntime;
  if (stated === undefined) return null;
  const range = stated?.requiredVersion;
  try {
    if (typeof range === 'string' && satisfies(provided, range)) return null;
  } catch {
    // An unreadable range fits nothing.
  }
  return new RemoteRuntimeMismatch(remote, String(range), provided);
}

/**
 * The runtime plugin that applies the contract: it reads each remote's manifest as the runtime
 * loads it, before the remote's entry is fetched, and refuses a remote built for another runtime.
 * The refused manifest is forgotten, so Retry reads it afresh (a fixed remote then loads).
 */
export function runtimeContractPlugin(satisfies: Satisfies): ModuleFederationRuntimePlugin {
  let host: ModuleFederation | null = null;
  return {
    name: 'trailsense-runtime-contract',
    apply(instance) {
      host = instance;
    },
    loadRemoteSnapshot(args) {
      if (!host || !args.manifestJson) return args;
      const refusal = runtimeRefusal(args.moduleInfo.name, args.manifestJson.metaData, host.version, satisfies);
      if (!refusal) return args;
      if (args.manifestUrl) {
        host.snapshotHandler.manifestCache.delete(args.manifestUrl);
        delete host.snapshotHandler.manifestLoading[args.manifestUrl];
      }
      throw refusal;
    },
  };
}

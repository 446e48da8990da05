// The contracts between the shell and its remotes that the page checks, before any of a remote's
// code runs. A remote carries no federation runtime of its own: it runs on the shell's
// (webpack/index.js, `externalRuntime`), and its manifest states the runtime range it was built for
// (`metaData.federationRuntime`). It also runs the shell's copy of every module the shell provides
// (React, Amplify, the shared package), and its manifest states the range of each it needs
// (`shared[].requiredVersion`). A remote the shell's runtime or one of its modules does not fit is
// refused: its route shows the error boundary, never a broken page. webpack/federation-check.js
// applies the same rules at build time and infra/src/deploy/preflight.ts at deploy time
// (docs/federation.md#released-alone-or-together).
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

/** A remote's manifest needs a version of a module the shell provides that the shell does not have. */
export class RemoteSharedMismatch extends Error {
  constructor(
    readonly remote: string,
    readonly module: string,
    readonly required: string,
    readonly provided: string,
  ) {
    super(`The remote ${remote} needs ${module} ${required}; this shell provides ${provided}.`);
    this.name = 'RemoteSharedMismatch';
  }
}

/** One module of a manifest's `shared` list, as far as the check reads it. */
interface SharedNeed {
  name?: unknown;
  requiredVersion?: unknown;
}

/**
 * Why a remote cannot use the modules the shell provides (`provided`: version by import path), or
 * null when it can: each module of its manifest that the shell provides must be in the range the
 * remote was built for. A module the shell does not provide the remote loads from its own build
 * (webpack/federation-check.js fails such a build), and a need without a range fits any version.
 */
export function sharedRefusal(remote: string, shared: unknown, provided: Readonly<Record<string, string>>, satisfies: Satisfies): RemoteSharedMismatch | null {
  if (!Array.isArray(shared)) return null;
  for (const need of shared as SharedNeed[]) {
    const name = typeof need?.name === 'string' ? need.name : null;
    const version = name !== null && Object.hasOwn(provided, name) ? provided[name] : undefined;
    const range = need?.requiredVersion;
    if (version === undefined || typeof range !== 'string' || range === '' || range === '*') continue;
    let fits = false;
    try {
      fits = satisfies(version, range);
    } catch {
      // An unreadable range fits nothing.
    }
    if (!fits) return new RemoteSharedMismatch(remote, name!, range, version);
  }
  return null;
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
 * loads it, before the remote's entry is fetched, and refuses a remote built for another runtime
 * or for versions of the provided modules (`provided`: version by import path) the shell does not
 * have. The refused manifest is forgotten, so Retry reads it afresh (a fixed remote then loads).
 */
export function runtimeContractPlugin(satisfies: Satisfies, provided: Readonly<Record<string, string>> = {}): ModuleFederationRuntimePlugin {
  let host: ModuleFederation | null = null;
  return {
    name: 'trailsense-runtime-contract',
    apply(instance) {
      host = instance;
    },
    loadRemoteSnapshot(args) {
      if (!host || !args.manifestJson) return args;
      const refusal =
        runtimeRefusal(args.moduleInfo.name, args.manifestJson.metaData, host.version, satisfies) ??
        sharedRefusal(args.moduleInfo.name, args.manifestJson.shared, provided, satisfies);
      if (!refusal) return args;
      if (args.manifestUrl) {
        host.snapshotHandler.manifestCache.delete(args.manifestUrl);
        delete host.snapshotHandler.manifestLoading[args.manifestUrl];
      }
      throw refusal;
    },
  };
}

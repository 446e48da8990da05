// The build-time check that a remote fits the shell it will run in: every module it shares is
// provided by the shell, and the federation runtime it was built against is the one the shell
// provides.
//
// The shell is a federation runtime host: it lists, import path by import path, the modules it
// hands to remotes (`modules` in shell/src/remotes/federation.ts). The remotes are built with the
// federation plugin, which shares whole prefixes (`@aws-amplify/core/`, see shared-singletons.js)
// and writes the import paths it actually shares into each build's mf-manifest.json. A path a
// remote shares but the shell does not provide is loaded from the remote's own copy: for
// Amplify's internals that is a second, unconfigured Amplify — signed out, with no storage
// bucket — and nothing fails until a user meets it. An Amplify upgrade that starts importing a
// new internal path does exactly that, so every remote build runs this check and fails on it.
//
// The federation runtime: a remote carries no copy of its own (`externalRuntime` in webpack/index.js)
// and uses the shell's, so a remote built against a runtime the shell does not provide would run
// on code it was not built for. Each remote's manifest states the range it needs
// (`metaData.federationRuntime.requiredVersion`); this check fails the build when the shell's
// runtime is outside it, and the shell refuses such a remote at run time as well
// (shell/src/remotes/runtime-contract.ts). docs/federation.md#one-federation-runtime says why,
// and the release order this implies.
//
// Which shell: by default the one in this repository (its source, and the runtime installed for
// it). A remote released on its own checks against the shell that is deployed, whose build
// publishes what it provides as /federation-host.json: FEDERATION_HOST=<the site's URL, that
// file's URL, or a file>. A remote's deploy checks the same against the live shell (--shell,
// infra/src/deploy/preflight.ts).
//
// Usage: [FEDERATION_HOST=<url|file>] node webpack/federation-check.js [auth-remote uploader-remote …]
//        (default: both)
const fs = require('node:fs');
const path = require('node:path');
const { satisfy } = require('@module-federation/enhanced/runtime');
const { packageOf, sharedVersions } = require('./shared-singletons');

const repoRoot = path.resolve(__dirname, '..');
const HOST_SOURCE = 'shell/src/remotes/federation.ts';
const REMOTES = ['auth-remote', 'uploader-remote'];
/** The package whose code is the federation runtime (what `externalRuntime` leaves out of a remote). */
const RUNTIME_PACKAGE = '@module-federation/runtime-core';
/** The file a shell build publishes: the runtime and the modules it provides (hostDescription). */
const HOST_FILE = 'federation-host.json';

/**
 * The version of the federation runtime installed for an app (resolved from its folder, as its
 * build resolves it).
 * @param {string} appDir
 */
function runtimeVersion(appDir) {
  // The package does not export its package.json: find it beside its resolved entry.
  let dir = path.dirname(require.resolve(RUNTIME_PACKAGE, { paths: [appDir] }));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

/**
 * The runtime range a remote built against `version` accepts: the same minor, this patch or a
 * later one. The runtime's internals (what a remote's bundler runtime calls) change between minor
 * versions of the 2.x line, so a minor step of the runtime is a coordinated release.
 * @param {string} version
 */
function runtimeRange(version) {
  return `~${version}`;
}

/**
 * What a shell provides remotes: its federation runtime, and each module by import path with the
 * version of its package (a remote's manifest says which range of it the remote needs).
 * @typedef {{ name: string, version: string }} ProvidedModule
 * @typedef {{ runtime: { package: string, version: string }, modules: ProvidedModule[] }} HostDescription
 * @param {string} [root] the repository
 * @returns {HostDescription}
 */
function hostDescription(root = repoRoot) {
  const versions = sharedVersions(root);
  return {
    runtime: { package: RUNTIME_PACKAGE, version: runtimeVersion(path.join(root, 'shell')) },
    modules: hostModules(fs.readFileSync(path.join(root, HOST_SOURCE), 'utf8')).map((name) => {
      const known = versions[packageOf(name)];
      if (!known) throw new Error(`${HOST_SOURCE} provides ${name}, whose package is not in webpack/shared-singletons.js.`);
      return { name, version: known.version };
    }),
  };
}

/**
 * Where a deployed shell's description is: a URL or a file as given, or, for a site's URL (one
 * not naming a .json file), its /federation-host.json.
 * @param {string} where
 */
function hostLocation(where) {
  if (!/^https?:\/\//.test(where)) return where;
  const url = new URL(where);
  if (url.pathname.endsWith('.json')) return url.href;
  url.pathname = `${url.pathname.replace(/\/?$/, '/')}${HOST_FILE}`;
  return url.href;
}

/**
 * A deployed shell's description, from its URL (a site's, or its federation-host.json's) or a
 * file; a clear error when it is missing or is not one (a shell deployed before it published one
 * provides no runtime to remotes).
 * @param {string} where
 * @returns {Promise<HostDescription>}
 */
async function readHost(where) {
  const location = hostLocation(where);
  let text;
  if (/^https?:\/\//.test(location)) {
    let response;
    try {
      response = await fetch(location, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new Error(`${location} could not be read (${error instanceof Error ? error.message : String(error)}).`);
    }
    if (!response.ok) throw new Error(`${location} answered ${response.status}: that shell publishes no ${HOST_FILE} (deploy the shell first).`);
    text = await response.text();
  } else {
    try {
      text = fs.readFileSync(location, 'utf8');
    } catch (error) {
      throw new Error(`${location} could not be read (${error instanceof Error ? error.message : String(error)}).`);
    }
  }
  let host;
  try {
    host = JSON.parse(text);
  } catch {
    throw new Error(`${location} is not JSON: it is not a shell's ${HOST_FILE}.`);
  }
  if (typeof host?.runtime?.version !== 'string' || !Array.isArray(host.modules)) {
    throw new Error(`${location} does not describe a shell (no runtime version or module list): it is not a shell's ${HOST_FILE}.`);
  }
  // A shell built before modules carried versions lists bare import paths: provided, version unknown.
  const modules = host.modules.map((entry) =>
    typeof entry === 'string'
      ? { name: entry, version: null }
      : { name: String(entry?.name), version: typeof entry?.version === 'string' ? entry.version : null },
  );
  return { runtime: host.runtime, modules };
}

/**
 * The import paths the shell provides: the keys of the `modules` object literal in the host's
 * federation source. (A unit test, shell/test/federation-check.test.ts, holds this reading to the
 * object the shell really exports, so the two cannot drift.)
 * @param {string} source the text of shell/src/remotes/federation.ts
 * @returns {string[]}
 */
function hostModules(source) {
  const start = source.search(/\bconst modules\b[^=]*=\s*\{/);
  if (start < 0) throw new Error(`${HOST_SOURCE} no longer declares \`const modules = { … }\`; update webpack/federation-check.js.`);
  const open = source.indexOf('{', source.indexOf('=', start));
  // The object ends at the brace that balances its opening one.
  let depth = 0;
  let end = open;
  for (; end < source.length; end += 1) {
    if (source[end] === '{') depth += 1;
    else if (source[end] === '}' && (depth -= 1) === 0) break;
  }
  const body = source.slice(open + 1, end);
  // Top-level keys: at the object's start and after each comma at depth 0, the next
  // `'name':` / `name:` (comments and blank space skipped).
  const keyAt = /(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:'([^']+)'|"([^"]+)"|([A-Za-z_$][\w$]*))\s*:/y;
  const keys = [];
  let expectKey = true;
  depth = 0;
  for (let i = 0; i < body.length; i += 1) {
    if (expectKey && depth === 0) {
      keyAt.lastIndex = i;
      const match = keyAt.exec(body);
      if (match) keys.push(match[1] ?? match[2] ?? match[3]);
      expectKey = false;
    }
    const ch = body[i];
    if ('{(['.includes(ch)) depth += 1;
    else if ('})]'.includes(ch)) depth -= 1;
    else if (ch === ',' && depth === 0) expectKey = true;
  }
  return keys;
}

/**
 * The modules a remote's manifest shares that the host does not provide.
 * @param {Array<string | { name: string }>} provided the modules the host provides (or their import paths)
 * @param {{ shared?: Array<{ name: string, version?: string }> }} manifest a remote's mf-manifest.json
 * @returns {Array<{ name: string, version?: string }>}
 */
function unprovided(provided, manifest) {
  const offered = new Set(provided.map((entry) => (typeof entry === 'string' ? entry : entry.name)));
  return (manifest.shared ?? []).filter((entry) => !offered.has(entry.name));
}

/**
 * Why a module the host provides does not fit what the remote was built with, or null when it
 * does: the host's version must be inside the range the remote's manifest requires. The same
 * rule the shell applies on the page before a remote's code runs (shell/src/remotes/runtime-contract.ts).
 * @param {string} remote
 * @param {{ name: string, version?: string, requiredVersion?: unknown }} entry one of the manifest's `shared`
 * @param {string | null} provided the host's version of it (null: a host that does not say)
 * @returns {string | null}
 */
function versionProblem(remote, entry, provided) {
  const required = entry.requiredVersion;
  if (typeof required !== 'string' || required === '' || required === '*') return null;
  if (provided === null) {
    return `${remote} needs ${entry.name}@${required}, and the shell does not say which version it provides (its ${HOST_FILE} predates versions): release the shell first.`;
  }
  let fits = false;
  try {
    fits = satisfy(provided, required);
  } catch {
    // An unreadable range fits nothing.
  }
  if (fits) return null;
  return (
    `${remote} was built with ${entry.name}@${entry.version ?? '?'} and needs ${required}; the shell provides ${provided}: ` +
    `in the shell's page the remote would be refused. Build the remote against the shell's version, or release a shell that provides it first.`
  );
}

/**
 * Why a remote's copy of a module the shell provides could be loaded instead of the shell's, or
 * null: the copy must stand for the lowest version the remote accepts (`^<version>`). The
 * federation runtime hands a remote the highest version registered that is not loaded yet, and
 * the shell provides some modules on demand (`/aws`, `/session`, Amplify): a copy above a shell
 * the remote accepts would be a second instance on the page (webpack/shared-singletons.js).
 * @param {string} remote
 * @param {{ name: string, version?: string, requiredVersion?: unknown }} entry one of the manifest's `shared`
 * @returns {string | null}
 */
function outrankProblem(remote, entry) {
  const required = entry.requiredVersion;
  if (typeof required !== 'string' || typeof entry.version !== 'string' || required === `^${entry.version}`) return null;
  return (
    `${remote} registers its copy of ${entry.name} as ${entry.version} and accepts a shell from ${required}: beside a shell ` +
    `providing less than ${entry.version} the page would load the remote's copy, a second instance. Build the remote's shared ` +
    `options with webpack/shared-singletons.js (a copy stands for the lowest version it accepts).`
  );
}

/**
 * Why a remote cannot run on a host's runtime, or null when it can.
 * @param {string} remote
 * @param {{ metaData?: { federationRuntime?: { requiredVersion?: unknown } } }} manifest
 * @param {string} provided the host's runtime version
 * @returns {string | null}
 */
function runtimeProblem(remote, manifest, provided) {
  const required = manifest.metaData?.federationRuntime?.requiredVersion;
  if (typeof required !== 'string') {
    return `${remote} does not say which federation runtime it needs (no metaData.federationRuntime in its mf-manifest.json): build it with the factory in webpack/index.js.`;
  }
  if (satisfy(provided, required)) return null;
  return (
    `${remote} was built against the federation runtime ${RUNTIME_PACKAGE}@${required}, and the shell provides ${provided}: ` +
    `in the shell's page the remote would be refused. Build the remote with the shell's runtime version, or release a shell that provides ${required} first.`
  );
}

/**
 * Checks the named remotes' builds against a host. Returns the problems, one sentence each.
 * @param {{ remotes?: string[], root?: string, host?: HostDescription }} [options]
 */
function checkFederation({ remotes = REMOTES, root = repoRoot, host = hostDescription(root) } = {}) {
  const problems = [];
  const checked = [];
  for (const remote of remotes) {
    const file = path.join(root, remote, 'dist', 'mf-manifest.json');
    if (!fs.existsSync(file)) {
      problems.push(`${remote}: no build to check (${remote}/dist/mf-manifest.json is missing; run \`npm run build -w ${remote}\`).`);
      continue;
    }
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    checked.push(`${remote} (${(manifest.shared ?? []).length} shared modules)`);
    problems.push(...manifestProblems(remote, manifest, host));
  }
  return { problems, checked };
}

/**
 * Why a remote's build (its mf-manifest.json) cannot run in a shell: a runtime the shell does not
 * provide, and each shared module it does not provide. Empty when it can.
 * @param {string} remote
 * @param {{ shared?: Array<{ name: string, version?: string }>, metaData?: object }} manifest
 * @param {HostDescription} host
 * @returns {string[]}
 */
function manifestProblems(remote, manifest, host) {
  const problems = [];
  const runtime = runtimeProblem(remote, manifest, host.runtime.version);
  if (runtime) problems.push(runtime);
  const versions = new Map(host.modules.map((entry) => (typeof entry === 'string' ? [entry, null] : [entry.name, entry.version ?? null])));
  for (const entry of manifest.shared ?? []) {
    if (!versions.has(entry.name)) continue;
    const problem = versionProblem(remote, entry, versions.get(entry.name) ?? null) ?? outrankProblem(remote, entry);
    if (problem) problems.push(problem);
  }
  for (const entry of unprovided(host.modules, manifest)) {
    problems.push(
      `${remote} shares ${entry.name}${entry.version ? `@${entry.version}` : ''}, which the shell does not provide: ` +
        `in the shell's page the remote would load its own copy (for Amplify, a second, unconfigured instance). ` +
        `Add it to \`modules\` in ${HOST_SOURCE}, or stop the remote from sharing it (webpack/shared-singletons.js).`,
    );
  }
  return problems;
}

async function main() {
  const wanted = process.argv.slice(2);
  const where = process.env.FEDERATION_HOST;
  let host;
  try {
    host = where ? await readHost(where) : hostDescription();
  } catch (error) {
    console.error(`Federation check failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const { problems, checked } = checkFederation({ remotes: wanted.length > 0 ? wanted : REMOTES, host });
  if (problems.length > 0) {
    console.error(`Federation check failed:\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log(
    `Federation check: the shell${where ? ` at ${where}` : ''} provides the runtime (${host.runtime.version}) and every module ${checked.join(' and ')} share, at versions they accept.`,
  );
}

if (require.main === module) void main();

module.exports = {
  hostModules,
  unprovided,
  checkFederation,
  hostDescription,
  readHost,
  hostLocation,
  manifestProblems,
  runtimeProblem,
  versionProblem,
  outrankProblem,
  packageOf,
  runtimeVersion,
  runtimeRange,
  HOST_SOURCE,
  HOST_FILE,
  RUNTIME_PACKAGE,
};

// The one list of modules every app shares as federation singletons (docs/federation.md#shared-singletons).
// The remotes pass it to the build plugin; the shell, a runtime host, offers the same modules at
// the same versions (shell/src/remotes/federation.ts, through sharedVersions()).
// The Amplify singleton lives in @aws-amplify/core: sharing only aws-amplify would give a remote
// its own unconfigured copy. Trailing-slash keys cover subpath imports (react/jsx-runtime,
// aws-amplify/auth). react-router is deliberately not shared: remotes navigate through the shared
// package, and a shared module is bundled whole. Only what must be one instance on the page is
// here (React, Amplify, the shared package's user context and session).
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// Read package.json from node_modules directly: some packages do not export './package.json'.
/** The package of an import path or singleton key: `react/` → `react`, `@trailsense/shared/aws` → `@trailsense/shared`. */
const packageOf = (key) => {
  const parts = key.replace(/\/$/, '').split('/');
  return key.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};
const readPackageFile = (name, file) => JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, file), 'utf8'));
const versionOf = (name) => readPackageFile(name, 'package.json').version;
const SHARED = '@trailsense/shared';
/**
 * The version a remote's copy of a package stands for, and the lowest it accepts of the shell's:
 * the package's version, except for the shared package, whose stamp records the oldest version
 * whose provided contract the code keeps (`since` in shared/provided-contract.json,
 * scripts/shared-version.mjs). So a remote built after a patch of it still runs on a shell that
 * provides the version before, and its copies never outrank the shell's: the federation runtime
 * hands a remote the highest version registered that is not yet loaded, and `/aws` and `/session`
 * load on demand, so a remote copy registered above the shell's would be a second instance on the
 * page (docs/federation.md#released-alone-or-together).
 */
const floorOf = (name) => {
  if (name !== SHARED) return versionOf(name);
  const stamp = readPackageFile(name, 'provided-contract.json');
  return stamp.since ?? stamp.version;
};

const SINGLETONS = [
  'react',
  'react/',
  'react-dom',
  'react-dom/',
  // The shared package's provided entries, by name: its other subpaths (the object key, the quota,
  // the metadata encoding, …) are bundled into the one app that uses them in the browser, so an
  // uploader release runs its own copy (docs/federation.md#released-alone-or-together).
  '@trailsense/shared',
  '@trailsense/shared/aws',
  '@trailsense/shared/session',
  'aws-amplify',
  'aws-amplify/',
  '@aws-amplify/core',
  '@aws-amplify/core/',
  '@aws-amplify/auth',
];

/**
 * The `shared` option of a remote's ModuleFederationPlugin. Only what more than one app uses is
 * shared: a shared module is bundled whole and resolved at run time, so the sign-in kit
 * (@aws-amplify/ui-react, used by auth-remote alone) is bundled into its remote and tree-shaken.
 * webpack/federation-check.js fails a build whose manifest shares what the shell does not provide.
 */
function sharedSingletons() {
  return Object.fromEntries(
    SINGLETONS.map((key) => {
      const pkg = packageOf(key);
      // Exact versions: every app is built from one lockfile, and a mismatch must show, not guess.
      const version = floorOf(pkg);
      return [key, { singleton: true, requiredVersion: `^${version}`, version }];
    }),
  );
}

/**
 * Version and accepted range of every singleton package, by package name: what the shell's
 * runtime host offers remotes (shell/src/remotes/federation.ts) must match what the plugin says.
 */
function sharedVersions() {
  const packages = new Set(SINGLETONS.map(packageOf));
  return Object.fromEntries([...packages].map((pkg) => [pkg, { version: versionOf(pkg), requiredVersion: `^${floorOf(pkg)}` }]));
}

module.exports = { sharedSingletons, sharedVersions, packageOf, SINGLETONS };

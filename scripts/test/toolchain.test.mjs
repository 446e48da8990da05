// What a newcomer's `npm install` runs and which Node it accepts, read from the committed
// package.json and lockfile (README "Quick start"; docs/architecture.md "Node versions").
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const repo = path.resolve(__dirname, '..', '..');
const read = (file) => JSON.parse(fs.readFileSync(path.join(repo, file), 'utf8'));
const lock = read('package-lock.json');
const root = read('package.json');

it('compiles nothing at install: the only install scripts are esbuild’s check of its shipped binary and two that are switched off', () => {
  const withScripts = Object.entries(lock.packages)
    .filter(([name, entry]) => name !== '' && entry.hasInstallScript)
    .map(([name]) => name.replace(/^.*node_modules\//, ''));
  expect(withScripts.sort()).toEqual(['@parcel/watcher', 'aws-sdk', 'esbuild']);
  // npm runs no script of a package that allowScripts sets to false.
  expect(root.allowScripts).toEqual({ esbuild: true, '@parcel/watcher': false, 'aws-sdk': false });
  // No package that builds with node-gyp from its own sources.
  const gyp = Object.entries(lock.packages).filter(([, entry]) => (entry.dependencies ?? {})['node-gyp'] || (entry.dependencies ?? {})['prebuild-install']);
  expect(gyp.map(([name]) => name)).toEqual([]);
});

it('accepts Node 22.15+, 24 and 26 and nothing older, and every locked package accepts each of them', () => {
  expect(root.engines.node).toBe('^22.15 || ^24 || ^26');
  // The lowest of each line we support must satisfy every package's own `engines.node`.
  const lowest = ['22.15.0', '24.0.0', '26.0.0'];
  const refusing = [];
  for (const [name, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (typeof range !== 'string' || name === '') continue;
    for (const version of lowest) if (!semver.satisfies(version, range)) refusing.push(`${name} (${range}) refuses ${version}`);
  }
  expect(refusing).toEqual([]);
});

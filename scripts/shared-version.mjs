// The version of @trailsense/shared is the version of what the shell provides remotes at run time.
//
// The shell hands remotes its own copy of the shared package's provided entries
// (`@trailsense/shared`, `/aws`, `/session`: the keys of `modules` in
// shell/src/remotes/federation.ts), and a remote's manifest says which range of the package's
// version it was built with. That check is only as good as the version: a shared package that
// changes and keeps its version lets an uploader built with the new code run on the shell's old
// copy, silently. So the version is held to the code: shared/provided-contract.json records the
// version and a fingerprint of every file the provided entries reach (their code and types, not
// comments or formatting), and `npm test` fails when the code changed and the version did not
// (docs/federation.md#released-alone-or-together).
//
// What the singleton holds is what must be one instance on the page, and its contract: wires,
// events and their schemas, object keys, the quota and headers are source-shared instead, imported
// by their own subpaths and bundled into each app that uses them, so that an uploader's or the
// server's change to one is released with that app alone. `check` fails when an entry the shell
// provides reaches such a module: it would be in the singleton, and move its version.
//
// The stamp also records `since`: the oldest version whose provided contract the code keeps, and
// so what a remote built now requires (`^<since>`, webpack/shared-singletons.js). A patch keeps
// it (a remote built after a fix uses nothing an older shell lacks); a minor or a major moves it to
// the new version. `--since` sets it lower by hand, for a version that moved while what remotes
// run stayed as it was.
//
// Usage: node scripts/shared-version.mjs [check|stamp [--since <version>]]
//   check (default)  exit 1, saying what to do, when the provided code differs from the stamp
//   stamp            record the fingerprint; refuses unless shared/package.json's version changed
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACT_FILE = 'shared/provided-contract.json';
const PACKAGE = '@trailsense/shared';

/** The subpaths of the shared package the shell provides (`.`, `./aws`, …), from its federation source. */
export function providedEntries(root = repoRoot) {
  const { hostModules, HOST_SOURCE } = require(path.join(root, 'webpack', 'federation-check.js'));
  return hostModules(fs.readFileSync(path.join(root, HOST_SOURCE), 'utf8'))
    .filter((name) => name === PACKAGE || name.startsWith(`${PACKAGE}/`))
    .map((name) => `.${name.slice(PACKAGE.length)}`);
}

function resolveRelative(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const exportsOf = (root) => JSON.parse(fs.readFileSync(path.join(root, 'shared', 'package.json'), 'utf8')).exports ?? {};

/**
 * Every file of the shared package the given entries reach through relative imports (static or
 * dynamic), each with the file that first imports it (null for an entry's own file).
 * @returns {Map<string, string | null>} repository-relative paths
 */
function reach(root, entries) {
  const exported = exportsOf(root);
  const relative = (file) => path.relative(root, file).split(path.sep).join('/');
  const pending = entries.map((entry) => {
    const target = exported[entry];
    if (typeof target !== 'string') throw new Error(`shared/package.json exports no ${entry}.`);
    return [path.join(root, 'shared', target), null];
  });
  const seen = new Map();
  while (pending.length > 0) {
    const [file, from] = pending.pop();
    if (seen.has(relative(file))) continue;
    seen.set(relative(file), from);
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const resolved = resolveRelative(file, fileName);
      if (resolved) pending.push([resolved, relative(file)]);
    }
  }
  return seen;
}

/** Every file of the shared package the given entries reach through relative imports (static or dynamic). */
export function reachableFiles(root = repoRoot, entries = providedEntries(root)) {
  return [...reach(root, entries).keys()].sort();
}

/**
 * Subpaths of the singleton's own modules that are also imported by path, outside the browser's
 * singleton (the runtime config's types and reading, the brand: by the server's code and the
 * tools). Every other subpath the shell does not provide is source-shared.
 */
export const SINGLETON_BY_PATH = ['./brand', './config', './config-types'];

/** The subpaths bundled into each app that imports them: the exports the shell does not provide, but the singleton's own. */
export function sourceSharedEntries(root = repoRoot) {
  const provided = providedEntries(root);
  return Object.keys(exportsOf(root)).filter((entry) => !provided.includes(entry) && !SINGLETON_BY_PATH.includes(entry));
}

/**
 * The source-shared files the entries the shell provides reach, each with the file that brings it
 * in: a file reached from a source-shared subpath and not one of the singleton's own modules (the
 * config and brand that source-shared code may read).
 * @returns {Array<{ file: string, from: string | null }>}
 */
export function sourceSharedReached(root = repoRoot) {
  const provided = reach(root, providedEntries(root));
  const own = new Set(
    reachableFiles(
      root,
      SINGLETON_BY_PATH.filter((entry) => entry in exportsOf(root)),
    ),
  );
  return reachableFiles(root, sourceSharedEntries(root))
    .filter((file) => !own.has(file) && provided.has(file))
    .map((file) => ({ file, from: provided.get(file) ?? null }));
}

/** A file's code as TypeScript prints it without comments: formatting and comments do not count. */
function normalised(root, file) {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
    false,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  return ts.createPrinter({ removeComments: true }).printFile(source);
}

/** The fingerprint of the provided code: its files' names and normalised code. */
export function fingerprint(root = repoRoot) {
  const hash = crypto.createHash('sha256');
  for (const file of reachableFiles(root)) hash.update(`${file}\0${normalised(root, file)}\0`);
  return hash.digest('hex');
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const packageVersion = (root) => readJson(path.join(root, 'shared', 'package.json')).version;

/** A version's numbers, or null when it is not `<major>.<minor>.<patch>`. */
const parts = (version) => (/^(\d+)\.(\d+)\.(\d+)$/.exec(String(version)) ?? []).slice(1).map(Number);
/** Why `since` cannot be the floor of `version`, or null: the same major, and not above it. */
function sinceProblem(since, version) {
  const [s, v] = [parts(since), parts(version)];
  if (s.length === 0 || v.length === 0) return `${since} is not a version of the form 1.2.3.`;
  if (s[0] !== v[0]) return `since ${since} is of another major than ${version}: remotes built for one major do not run on another.`;
  if (s[1] > v[1] || (s[1] === v[1] && s[2] > v[2])) return `since ${since} is above the version ${version}: the shell would refuse its own remotes.`;
  return null;
}

/**
 * The floor a new stamp records: the one asked for, else the previous stamp's on a patch (the
 * same major and minor), else the new version itself.
 */
function nextSince(previous, version, asked) {
  if (asked !== undefined) return asked;
  const [p, v] = [parts(previous?.version), parts(version)];
  const patch = p.length > 0 && p[0] === v[0] && p[1] === v[1] && p[2] <= v[2];
  return patch ? (previous.since ?? previous.version) : version;
}

/** Why the provided code and its version disagree, or null when they agree. */
export function check(root = repoRoot) {
  const file = path.join(root, CONTRACT_FILE);
  const stamp = fs.existsSync(file) ? readJson(file) : null;
  const version = packageVersion(root);
  const now = fingerprint(root);
  const leaked = sourceSharedReached(root);
  if (leaked.length > 0) {
    const list = leaked.map(({ file, from }) => (from ? `${file} (imported by ${from})` : file)).join(', ');
    return (
      `The entries the shell provides from ${PACKAGE} reach source-shared code: ${list}. It would be one copy on the page, ` +
      `the shell's, and a change to it would move the singleton's version and wait for a shell release. Import it by its own ` +
      `subpath where it is used, not through a provided entry (docs/federation.md#shared-singletons).`
    );
  }
  const since = stamp?.since === undefined ? null : sinceProblem(stamp.since, stamp.version);
  if (since) return `${CONTRACT_FILE}: ${since}`;
  if (stamp?.fingerprint === now && stamp.version === version) return null;
  if (stamp?.fingerprint === now)
    return `${CONTRACT_FILE} records version ${stamp.version}, shared/package.json says ${version}: run \`npm run stamp:shared\`.`;
  return (
    `The code the shell provides remotes from ${PACKAGE} changed since version ${stamp?.version ?? '(none)'} was stamped. ` +
    `A remote built with it would run on a live shell's older copy unless the version says so: give shared/package.json a new version ` +
    `(patch: a fix; minor: an addition; major: a removal or a change remotes notice) and run \`npm run stamp:shared\`, then \`npm install\` for the lockfile.`
  );
}

/**
 * Records the fingerprint with the current version and the floor remotes built now require;
 * refuses a changed fingerprint under an unchanged version, and a floor of another major or above
 * the version.
 * @param {string} [root]
 * @param {{ since?: string }} [options] `since`: the floor, when it is lower than the rule gives
 */
export function stamp(root = repoRoot, { since: asked } = {}) {
  const file = path.join(root, CONTRACT_FILE);
  const previous = fs.existsSync(file) ? readJson(file) : null;
  const version = packageVersion(root);
  const now = fingerprint(root);
  if (previous && previous.version === version && previous.fingerprint !== now) {
    throw new Error(`The provided code changed and ${PACKAGE} is still ${version}: give shared/package.json a new version first.`);
  }
  const since = nextSince(previous, version, asked);
  const problem = sinceProblem(since, version);
  if (problem) throw new Error(`Not stamped: ${problem}`);
  fs.writeFileSync(file, `${JSON.stringify({ version, since, fingerprint: now }, null, 2)}\n`);
  return { version, since, fingerprint: now };
}

function main() {
  const command = process.argv[2] ?? 'check';
  try {
    if (command === 'stamp') {
      const flag = process.argv.indexOf('--since');
      const { version, since } = stamp(repoRoot, flag > 0 ? { since: process.argv[flag + 1] ?? '' } : {});
      console.log(`${CONTRACT_FILE}: ${PACKAGE} ${version} stamped; remotes built now require ^${since}.`);
    } else if (command === 'check') {
      const problem = check();
      if (problem) {
        console.error(problem);
        process.exit(1);
      }
      console.log(`${PACKAGE} ${packageVersion(repoRoot)}: the provided code matches its stamp.`);
    } else {
      console.error('Usage: node scripts/shared-version.mjs [check|stamp [--since <version>]]');
      process.exit(2);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

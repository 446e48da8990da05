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
// (docs/architecture.md#released-alone-or-together).
//
// Usage: node scripts/shared-version.mjs [check|stamp]
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

/** Every file of the shared package the given entries reach through relative imports (static or dynamic). */
export function reachableFiles(root = repoRoot, entries = providedEntries(root)) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'shared', 'package.json'), 'utf8'));
  const pending = entries.map((entry) => {
    const target = pkg.exports?.[entry];
    if (typeof target !== 'string') throw new Error(`shared/package.json exports no ${entry}, which the shell provides.`);
    return path.join(root, 'shared', target);
  });
  const seen = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const resolved = resolveRelative(file, fileName);
      if (resolved) pending.push(resolved);
    }
  }
  return [...seen].map((file) => path.relative(root, file).split(path.sep).join('/')).sort();
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

/** Why the provided code and its version disagree, or null when they agree. */
export function check(root = repoRoot) {
  const file = path.join(root, CONTRACT_FILE);
  const stamp = fs.existsSync(file) ? readJson(file) : null;
  const version = packageVersion(root);
  const now = fingerprint(root);
  if (stamp?.fingerprint === now && stamp.version === version) return null;
  if (stamp?.fingerprint === now)
    return `${CONTRACT_FILE} records version ${stamp.version}, shared/package.json says ${version}: run \`npm run stamp:shared\`.`;
  return (
    `The code the shell provides remotes from ${PACKAGE} changed since version ${stamp?.version ?? '(none)'} was stamped. ` +
    `A remote built with it would run on a live shell's older copy unless the version says so: give shared/package.json a new version ` +
    `(patch: a fix; minor: an addition; major: a removal or a change remotes notice) and run \`npm run stamp:shared\`, then \`npm install\` for the lockfile.`
  );
}

/** Records the fingerprint with the current version; refuses a changed fingerprint under an unchanged version. */
export function stamp(root = repoRoot) {
  const file = path.join(root, CONTRACT_FILE);
  const previous = fs.existsSync(file) ? readJson(file) : null;
  const version = packageVersion(root);
  const now = fingerprint(root);
  if (previous && previous.version === version && previous.fingerprint !== now) {
    throw new Error(`The provided code changed and ${PACKAGE} is still ${version}: give shared/package.json a new version first.`);
  }
  fs.writeFileSync(file, `${JSON.stringify({ version, fingerprint: now }, null, 2)}\n`);
  return { version, fingerprint: now };
}

function main() {
  const command = process.argv[2] ?? 'check';
  try {
    if (command === 'stamp') {
      const { version } = stamp();
      console.log(`${CONTRACT_FILE}: ${PACKAGE} ${version} stamped.`);
    } else if (command === 'check') {
      const problem = check();
      if (problem) {
        console.error(problem);
        process.exit(1);
      }
      console.log(`${PACKAGE} ${packageVersion(repoRoot)}: the provided code matches its stamp.`);
    } else {
      console.error('Usage: node scripts/shared-version.mjs [check|stamp]');
      process.exit(2);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

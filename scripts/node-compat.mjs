// `npm run check:node`: does the project install, typecheck and pass its unit tests on each Node
// line it supports? For each version (default 22, 24 and 26: the newest of each line; or
// `npm run check:node -- 22.15.0 26`), it installs that Node from the registry's `node` package
// into a temporary folder, copies this checkout there (the files git tracks or would track, so
// uncommitted work is checked too, without node_modules or builds), and with that Node first on
// PATH runs `npm install`, `npm run typecheck` and `npx jest --ci`. The lines run one after
// another (two cores). Prints a table; exits non-zero if any step failed anywhere.
// The browser tests and builds are not part of it: `scripts/node26.sh npm test` runs all on 26.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const versions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24', '26'];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-node-compat-'));
const keep = process.env.KEEP === '1';

function run(command, args, options) {
  const started = Date.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  return { ok: result.status === 0, seconds: (Date.now() - started) / 1000, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** The checkout's files as git sees them (tracked, plus untracked not ignored), copied to `dest`. */
function copyCheckout(dest) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && fs.existsSync(path.join(repo, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dest, file)), { recursive: true });
    fs.copyFileSync(path.join(repo, file), path.join(dest, file));
  }
  for (const file of files) if (file.endsWith('.sh')) fs.chmodSync(path.join(dest, file), 0o755);
}

const rows = [];
let failed = false;
for (const wanted of versions) {
  const nodeDir = path.join(work, `node-${wanted}`);
  fs.mkdirSync(nodeDir, { recursive: true });
  console.log(`\n=== Node ${wanted}: installing the registry's node@${wanted}`);
  const fetched = run('npm', ['install', '--prefix', nodeDir, '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', `node@${wanted}`], {
    cwd: nodeDir,
  });
  const bin = path.join(nodeDir, 'node_modules', 'node', 'bin');
  if (!fetched.ok || !fs.existsSync(path.join(bin, 'node'))) {
    console.log(fetched.output);
    rows.push({ version: wanted, problem: 'could not install this Node' });
    failed = true;
    continue;
  }
  const version = execFileSync(path.join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
  const checkout = path.join(work, `checkout-${wanted}`);
  copyCheckout(checkout);
  // This Node first on PATH; npm (whichever is installed) runs under it through `#!/usr/bin/env node`.
  // Under `npm run check:node`, npm passes its run's settings down as npm_* variables (the project,
  // the script, the Node that ran it): the copy's npm reads its own, as on a fresh machine.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  Object.assign(env, { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CI: 'true' });
  const opts = { cwd: checkout, env };

  console.log(`=== ${version}: npm install`);
  const install = run('npm', ['install', '--no-audit', '--no-fund'], opts);
  const engineWarnings = (install.output.match(/EBADENGINE/g) ?? []).length;
  let typecheck = { ok: false, seconds: 0 };
  let tests = { passed: 0, failed: 0, seconds: 0, ok: false };
  if (install.ok) {
    console.log(`=== ${version}: npm run typecheck`);
    typecheck = run('npm', ['run', 'typecheck', '--silent'], opts);
    if (!typecheck.ok) console.log(typecheck.output.slice(-4000));
    console.log(`=== ${version}: npx jest --ci`);
    const results = path.join(checkout, 'jest-results.json');
    const jest = run('npx', ['jest', '--ci', '--json', `--outputFile=${results}`], opts);
    const json = fs.existsSync(results) ? JSON.parse(fs.readFileSync(results, 'utf8')) : null;
    tests = {
      ok: jest.ok,
      seconds: jest.seconds,
      passed: json?.numPassedTests ?? 0,
      failed: json ? json.numFailedTests + (json.numRuntimeErrorTestSuites ?? 0) : 1,
    };
    if (!jest.ok) console.log(jest.output.slice(-6000));
  } else {
    console.log(install.output.slice(-4000));
  }
  rows.push({ version, install, engineWarnings, typecheck, tests });
  if (!install.ok || !typecheck.ok || !tests.ok) failed = true;
  if (!keep) fs.rmSync(checkout, { recursive: true, force: true });
}

const s = (seconds) => `${Math.round(seconds)}`;
console.log(`\nInstall, typecheck and unit tests per Node line (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores)\n`);
console.log('| node | npm install s | EBADENGINE warnings | typecheck | jest passed | jest failed | jest s |');
console.log('|---|---:|---:|---|---:|---:|---:|');
for (const row of rows) {
  if (row.problem) console.log(`| ${row.version} | ${row.problem} | | | | | |`);
  else
    console.log(
      `| ${row.version} | ${row.install.ok ? s(row.install.seconds) : 'failed'} | ${row.engineWarnings} | ${row.typecheck.ok ? `ok (${s(row.typecheck.seconds)} s)` : 'failed'} | ${row.tests.passed} | ${row.tests.failed} | ${s(row.tests.seconds)} |`,
    );
}
if (keep) console.log(`\nKept: ${work}`);
else fs.rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

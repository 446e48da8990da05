// `npm test`: every check the project has — typecheck, lint, formatting (Prettier), the docs'
// citations and links, unit and integration tests (jest, all workspaces), production builds,
// browser tests (Playwright) — and one closing line `N passed, N failed[, N skipped]` summing all
// suites. Exits non-zero if anything failed. SKIP_BUILD=1 reuses existing builds (handy while
// iterating on tests).
//
// Two lanes at once, then the browser tests alone: jest and then the builds in one, the static
// checks (each mostly one thread) in the other, so both cores work. Each step's output is printed
// whole when it ends, so the two lanes' lines never interleave.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('test');

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const results = path.join(repo, 'test-results');
fs.mkdirSync(results, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const problems = [];

/** Runs one step; its output is kept and printed whole, with its name and time, when it ends. */
function step(name, command, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repo, env: { ...process.env, FORCE_COLOR: '0' } });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    let finished = false;
    // A process that cannot start reports 'error' and may then 'close' too: one report.
    const finish = (status, error) => {
      if (finished) return;
      finished = true;
      console.log(`\n=== ${name}: ${command} ${args.join(' ')} (${Math.round((Date.now() - started) / 1000)} s)`);
      process.stdout.write(Buffer.concat(output));
      if (error) console.log(String(error));
      if (status !== 0) problems.push(`${name} exited with ${status}`);
      resolve(status === 0);
    };
    child.on('error', (error) => finish('an error', error));
    child.on('close', (code, signal) => finish(code ?? signal));
  });
}

/** The browser tests print as they go (they run alone, and take minutes). */
function liveStep(name, command, args) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repo, stdio: 'inherit' });
    let failedToStart = false;
    child.on('error', (error) => {
      failedToStart = true;
      problems.push(`${name} could not start: ${error.message}`);
      resolve(false);
    });
    child.on('close', (code, signal) => {
      if (failedToStart) return;
      if (code !== 0) problems.push(`${name} exited with ${code ?? signal}`);
      resolve(code === 0);
    });
  });
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

const jestFile = path.join(results, 'jest.json');
fs.rmSync(jestFile, { force: true });

/** The static checks, one after another. */
async function checks() {
  // Each check counts as one: its own output names every problem.
  for (const [name, command, args] of [
    ['typecheck', 'npm', ['run', 'typecheck', '--silent']],
    ['lint', 'npm', ['run', 'lint', '--silent']],
    ['formatting', 'npm', ['run', 'format:check', '--silent']],
    ['documentation citations', 'node', ['scripts/check-doc-links.mjs']],
  ]) {
    if (!(await step(name, command, args))) totals.failed += 1;
  }
}

/** The unit and integration tests, then the production builds the browser tests need. */
async function testsAndBuilds() {
  await step('unit and integration tests', 'npx', ['jest', '--ci', '--json', `--outputFile=${jestFile}`]);
  return process.env.SKIP_BUILD === '1' || step('production builds', 'npm', ['run', 'build', '--silent']);
}

const [built] = await Promise.all([testsAndBuilds(), checks()]);
const jest = readJson(jestFile);
if (jest) {
  totals.passed += jest.numPassedTests;
  totals.failed += jest.numFailedTests + (jest.numRuntimeErrorTestSuites ?? 0);
  totals.skipped += jest.numPendingTests + (jest.numTodoTests ?? 0);
} else {
  problems.push('jest wrote no results');
  totals.failed += 1;
}

if (built) {
  const e2eFile = path.join(results, 'e2e.json');
  fs.rmSync(e2eFile, { force: true });
  await liveStep('browser tests', 'npx', ['playwright', 'test']);
  const e2e = readJson(e2eFile);
  if (e2e?.stats) {
    totals.passed += e2e.stats.expected + e2e.stats.flaky;
    totals.failed += e2e.stats.unexpected;
    totals.skipped += e2e.stats.skipped;
  } else {
    problems.push('Playwright wrote no results');
    totals.failed += 1;
  }
} else {
  totals.failed += 1;
}

if (problems.length > 0) console.log(`\nProblems:\n- ${problems.join('\n- ')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(problems.length > 0 || totals.failed > 0 ? 1 : 0);

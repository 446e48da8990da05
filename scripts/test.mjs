// `npm test`: every check the project has, in order — typecheck, lint, formatting (Prettier), the
// docs' citations and links,
// unit and integration tests
// (jest, all workspaces), production builds, browser tests (Playwright) — and one closing line
// `N passed, N failed[, N skipped]` summing all suites. Exits non-zero if anything failed.
// SKIP_BUILD=1 reuses existing builds (handy while iterating on tests).
import { spawnSync } from 'node:child_process';
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

function step(name, command, args, env = {}) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: repo, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) problems.push(`${name} exited with ${result.status ?? result.signal}`);
  return result.status === 0;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

const typecheckOk = step('typecheck', 'npm', ['run', 'typecheck', '--silent']);
if (!typecheckOk) totals.failed += 1;
// Each counts as one check: its own output names every problem.
if (!step('lint', 'npm', ['run', 'lint', '--silent'])) totals.failed += 1;
if (!step('formatting', 'npm', ['run', 'format:check', '--silent'])) totals.failed += 1;
if (!step('documentation citations', 'node', ['scripts/check-doc-links.mjs'])) totals.failed += 1;

const jestFile = path.join(results, 'jest.json');
fs.rmSync(jestFile, { force: true });
step('unit and integration tests', 'npx', ['jest', '--ci', '--json', `--outputFile=${jestFile}`]);
const jest = readJson(jestFile);
if (jest) {
  totals.passed += jest.numPassedTests;
  totals.failed += jest.numFailedTests + (jest.numRuntimeErrorTestSuites ?? 0);
  totals.skipped += jest.numPendingTests + (jest.numTodoTests ?? 0);
} else {
  problems.push('jest wrote no results');
  totals.failed += 1;
}

const built = process.env.SKIP_BUILD === '1' || step('production builds', 'npm', ['run', 'build', '--silent']);
if (built) {
  const e2eFile = path.join(results, 'e2e.json');
  fs.rmSync(e2eFile, { force: true });
  step('browser tests', 'npx', ['playwright', 'test']);
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

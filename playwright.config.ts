import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/support/chromium';

/**
 * Browser tests: real Chromium against the production builds (`npm run build`) served as in
 * production (scripts/serve.mjs) with config/e2e.json, and the sandbox backend. Both servers
 * start here.
 *
 * Two projects share them:
 * - `parallel`: nearly every test, spread over the workers one test at a time. Each worker signs
 *   in as its own tenant's accounts and switches only its own tenant's ranches (e2e/support/test.ts,
 *   tenant.ts), so tests side by side never meet each other's counts, objects or switches;
 * - `serial`: the tests tagged `@serial`, one at a time, after every `parallel` test has ended
 *   (it is `parallel`'s teardown project, which also runs when a `parallel` test failed): they
 *   read what no tenant can keep apart, the monitoring events, which name no member or ranch.
 * `--project=serial` runs those alone; `--workers` sets the parallel ones.
 */
export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  // Workers share the two cores with the sandbox and the static server: a remote's first load
  // (its bundles parsed in a fresh context) can take several seconds on a busy machine.
  expect: { timeout: 20_000 },
  // Measured on a 2-core machine (docs/performance.md#browser-tests): each worker is a Chromium
  // and its pages, mostly waiting on the sandbox and on the uploader's own timers.
  workers: 3,
  forbidOnly: true,
  retries: 0,
  // Artifacts in their own folder: Playwright empties outputDir at start, and test-results/ also
  // holds the other suites' results.
  outputDir: 'test-results/e2e-artifacts',
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  projects: [
    { name: 'parallel', grepInvert: /@serial/, fullyParallel: true, teardown: 'serial' },
    { name: 'serial', grep: /@serial/, workers: 1 },
  ],
  use: {
    baseURL: 'http://localhost:3000',
    launchOptions: chromiumLaunchOptions(),
    trace: 'retain-on-failure',
  },
  webServer: [
    {
      // The log is kept: browser tests read the confirmation codes it "delivers", as a person would.
      // The firewall is off: every test's members share one address, which production's rate per
      // address would cut off; the firewall tests in e2e/uploader-batches.spec.ts switch their
      // ranch's own.
      command: `mkdir -p .sandbox-data && npm run sandbox -- --reset --firewall off --data-dir ${path.resolve('.sandbox-data/e2e')} > ${path.resolve('.sandbox-data/e2e.log')} 2>&1`,
      url: 'http://localhost:4103/ranches/cedar-creek',
      reuseExistingServer: false,
      // Bounds only a server that never starts: on a 2-core machine held busy, start-up took minutes.
      timeout: 600_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: 'node scripts/serve.mjs',
      // The local config with "Create Account" on (config/local.json keeps production's default, off).
      env: { TRAILSENSE_CONFIG: 'config/e2e.json' },
      url: 'http://localhost:3000/config.json',
      reuseExistingServer: false,
      timeout: 600_000,
    },
  ],
});

if (!fs.existsSync('shell/dist/index.html')) {
  throw new Error('The production builds are missing: run `npm run build` first (npm test does it for you).');
}

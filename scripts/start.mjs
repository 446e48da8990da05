// `npm start`: the local site as production serves it — the sandbox backend and the three apps'
// production builds (shell :3000 with its prerendered marketing pages, auth-remote :3001,
// uploader-remote :3002), served by scripts/serve.mjs with production's caching, encoding and
// routing. An app is built first when it has no build yet or its sources changed since its last
// one (a content stamp in <app>/dist/.build-stamp: scripts/build-stamp.mjs); otherwise its build
// is reused. Each line is prefixed by its source; if any piece stops, everything stops.
// `npm run dev` runs the webpack dev servers with live reload instead.
//   node scripts/start.mjs [sandbox options, e.g. --reset, --link starlink]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPS, STAMP_FILE, checkApp, formatDuration, formatStamp } from './build-stamp.mjs';
import { createSupervisor } from './supervise.mjs';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('start');

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2); // passed to the sandbox, e.g. --reset, --link starlink

// The sandbox's options are checked before anything is built: a bad `--link` (or any option the
// sandbox refuses) stops here with the sandbox's own message, and the line says what the link is.
if (extra.length > 0) {
  const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const check = spawnSync(process.execPath, [tsx, path.join(repo, 'sandbox', 'src', 'cli.ts'), '--check', ...extra], { cwd: repo, stdio: 'inherit' });
  if (check.status !== 0) process.exit(check.status ?? 1);
}

const supervisor = createSupervisor({ cwd: repo });
console.log('Starting the local site as production serves it: http://localhost:3000 (Ctrl-C stops everything)');

const checked = performance.now();
const checks = APPS.map((app) => checkApp(repo, app, { env: process.env }));
const toBuild = checks.filter((check) => check.build);
console.log(`Checked the builds against their sources in ${formatDuration(performance.now() - checked)}.`);

let built = 0;
for (const check of checks) {
  if (!check.build) {
    console.log(`${check.app}: up to date`);
    continue;
  }
  built += 1;
  console.log(`Building ${check.app} (${built} of ${toBuild.length}: ${check.reason})…`);
  const stampFile = path.join(repo, check.app, 'dist', STAMP_FILE);
  // A build that fails or is stopped must leave no stamp behind.
  fs.rmSync(stampFile, { force: true });
  const began = performance.now();
  // The same build as `npm run build` (the shell's includes the prerender), with the same config.
  const result = await supervisor.run('npm', ['run', 'build', '-w', check.app]);
  if (supervisor.stopping) break;
  if (result.code !== 0) {
    process.stderr.write(`${result.output}\n`);
    console.error(`${check.app}: the build failed (${result.signal ?? `exit ${result.code}`}); not starting.`);
    await supervisor.stopAll(1);
  }
  fs.writeFileSync(stampFile, formatStamp(check.current));
  console.log(`${check.app} built in ${formatDuration(performance.now() - began)}`);
}

if (!supervisor.stopping) {
  supervisor.start({ name: 'sandbox', command: 'npm', args: ['run', 'sandbox', '--', ...extra] });
  supervisor.start({ name: 'serve', command: process.execPath, args: [path.join(repo, 'scripts/serve.mjs')] });
}

// `npm start`: the whole local site — the sandbox backend and the three apps' dev servers
// (shell :3000, auth-remote :3001, uploader-remote :3002) — with each line prefixed by its source.
// If any piece stops, everything stops, so the site never runs half-up.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2); // passed to the sandbox, e.g. --reset

const pieces = [
  { name: 'sandbox', args: ['run', 'sandbox', '--', ...extra] },
  { name: 'shell', args: ['run', 'start', '-w', 'shell'] },
  { name: 'auth', args: ['run', 'start', '-w', 'auth-remote'] },
  { name: 'uploader', args: ['run', 'start', '-w', 'uploader-remote'] },
];

const children = [];
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  // Each piece runs in its own process group: npm → sh → node, and all of them must stop.
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  setTimeout(() => process.exit(code), 1500).unref();
}

for (const piece of pieces) {
  const child = spawn('npm', piece.args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  const prefix = `[${piece.name}]`.padEnd(11);
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`${prefix} ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${prefix} stopped (${signal ?? `exit ${code}`}); stopping the others.`);
      stopAll(code || 1);
    }
  });
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
console.log('Starting the local site: http://localhost:3000 (Ctrl-C stops everything)');

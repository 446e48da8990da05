// The local stack the browser benches run against: production builds served as in production
// (scripts/serve.mjs) and the sandbox (for routes that need a session). Shared by bench/bundle.ts
// and bench/blocking.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const repo = path.resolve(__dirname, '..');

/**
 * The routes the browser benches load. `usable`: the button whose arrival makes an app route
 * usable (its remote's screen is there); a page is usable once interactive.
 */
export const ROUTES: { path: string; signedIn: boolean; usable?: string }[] = [
  { path: '/', signedIn: false },
  { path: '/support', signedIn: false },
  { path: '/about', signedIn: false },
  { path: '/login', signedIn: false, usable: 'Sign In' },
  { path: '/uploader', signedIn: true, usable: 'Add Images' },
  { path: '/profile', signedIn: true, usable: 'Save changes' },
];

/** Starts a server in its own process group, so stopping it stops its children too (npm → tsx → node). */
export function start(command: string, args: string[]): ChildProcess {
  return spawn(command, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
}

export function stop(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

export async function waitFor(url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up`);
}

/** Starts the sandbox (reseeded, in a data directory of the bench's own) and the static servers; resolves when both answer. */
export async function startStack(dataDir: string): Promise<ChildProcess[]> {
  const children = [
    start('npm', ['run', 'sandbox', '--', '--reset', '--quiet', '--data-dir', path.join(repo, '.sandbox-data', dataDir)]),
    start('node', ['scripts/serve.mjs']),
  ];
  try {
    await Promise.all([waitFor('http://localhost:4103/ranches/cedar-creek'), waitFor('http://localhost:3000/config.json')]);
  } catch (error) {
    for (const child of children) stop(child);
    throw error;
  }
  return children;
}

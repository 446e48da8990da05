// Runs the pieces of the local site (`npm start`, `npm run dev`) as one: each piece's output
// line by line behind its name, and when one piece stops — or on Ctrl-C — every piece stops, so
// the site never runs half-up and nothing is left behind.
import { spawn } from 'node:child_process';

/** How long a piece gets to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5000;

/** Calls `onLine` with each complete line of `stream`, and the unterminated rest at its end. */
export function forEachLine(stream, onLine) {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  stream.on('end', () => {
    if (buffered) onLine(buffered);
    buffered = '';
  });
}

/** Whether any process of the group led by `pid` is still running. */
function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * @param {{ cwd: string, prefixWidth?: number }} options
 */
export function createSupervisor({ cwd, prefixWidth = 11 }) {
  /** @type {Set<import('node:child_process').ChildProcess>} */
  const children = new Set();
  let stopping = false;

  const prefixOf = (name) => `[${name}]`.padEnd(prefixWidth);

  // Each child runs in its own process group (npm → sh → node …), so the whole group can be
  // stopped, and Ctrl-C in the terminal reaches only this process, which stops them in order.
  function spawnChild(command, args, env) {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    return child;
  }

  /** Stops every piece (SIGTERM to each group, SIGKILL after a grace period), then exits with `code`. */
  async function stopAll(code) {
    if (stopping) return;
    stopping = true;
    const groups = [...children].map((child) => child.pid).filter((pid) => pid !== undefined);
    for (const pid of groups) signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (groups.some(groupAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const pid of groups.filter(groupAlive)) {
      console.error(`${prefixOf('stop')} a process of group ${pid} ignored SIGTERM; killing it.`);
      signalGroup(pid, 'SIGKILL');
    }
    process.exit(code);
  }

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));

  return {
    stopAll,
    get stopping() {
      return stopping;
    },

    /**
     * A piece that runs until stopped: its output goes to stdout behind `[name]`; if it exits,
     * everything stops.
     * @param {{ name: string, command: string, args: string[], env?: Record<string, string> }} piece
     */
    start({ name, command, args, env }) {
      const prefix = prefixOf(name);
      const child = spawnChild(command, args, env);
      for (const stream of [child.stdout, child.stderr]) forEachLine(stream, (line) => process.stdout.write(`${prefix} ${line}\n`));
      child.on('error', (error) => {
        console.error(`${prefix} could not start: ${error.message}`);
        void stopAll(1);
      });
      child.on('exit', (code, signal) => {
        if (stopping) return;
        console.error(`${prefix} stopped (${signal ?? `exit ${code}`}); stopping the others.`);
        void stopAll(code || 1);
      });
      return child;
    },

    /**
     * A command that runs to its end (a build), its output kept rather than shown; it is stopped
     * with everything else.
     * @returns {Promise<{ code: number | null, signal: string | null, output: string }>}
     */
    run(command, args, env) {
      return new Promise((resolve) => {
        const child = spawnChild(command, args, env);
        const lines = [];
        for (const stream of [child.stdout, child.stderr]) forEachLine(stream, (line) => lines.push(line));
        child.on('error', (error) => resolve({ code: null, signal: null, output: error.message }));
        child.on('close', (code, signal) => {
          children.delete(child);
          resolve({ code, signal, output: lines.join('\n') });
        });
      });
    },
  };
}

// The packet emulator (netem.py) from a bench's side (bench/netem/README.md): whether the machine
// can run it, the private network namespace the bench then runs in (netns.sh), and the emulator
// process for one link, fed the sandbox's own timeline (sandbox/src/link-profile.ts timelineJson)
// so it shows the same link as the sandbox's proxy would.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { timelineJson } from '../../sandbox/src/index';
import type { LinkSpec } from '../../sandbox/src/index';

const here = __dirname;
const repo = path.resolve(here, '../..');
/** Set in the bench's own namespace, where the TUN devices and routes are up. */
const NETNS_ENV = 'BENCH_NETNS';

export type PacketSupport = { ok: true } | { ok: false; why: string };

/** Whether the packet emulator can run here: root, /dev/net/tun, ip, unshare and python3, and a TUN device and a port rule in a namespace. */
export function packetSupport(): PacketSupport {
  if (process.getuid?.() !== 0) return { ok: false, why: 'not root' };
  if (!fs.existsSync('/dev/net/tun')) return { ok: false, why: 'no /dev/net/tun' };
  for (const tool of ['ip', 'unshare', 'python3']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return { ok: false, why: `no ${tool} on PATH` };
  }
  // The namespace lives as long as this one command: nothing is left behind.
  const probe = spawnSync(
    'unshare',
    ['-n', 'sh', '-c', 'ip tuntap add dev tprobe mode tun && ip link set tprobe up && ip rule add pref 10 iif lo ipproto tcp dport 9 lookup 100'],
    {
      encoding: 'utf8',
    },
  );
  if (probe.status !== 0)
    return { ok: false, why: `a TUN device and a port rule in a network namespace failed: ${(probe.stderr || probe.error?.message || '').trim()}` };
  return { ok: true };
}

/** Whether this process runs in the bench's namespace (netns.sh set it up). */
export function inBenchNamespace(): boolean {
  return process.env[NETNS_ENV] === '1';
}

/**
 * Runs `script` again, with tsx, in a private network namespace whose `ports` go through the TUN
 * devices; resolves with its exit code. The namespace, its devices and routes end with it; Ctrl-C
 * and SIGTERM are passed on.
 */
export function runInNamespace(script: string, ports: readonly number[]): Promise<number> {
  const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn('unshare', ['-n', path.join(here, 'netns.sh'), ports.join(','), '--', process.execPath, tsx, script], {
    stdio: 'inherit',
    env: { ...process.env, [NETNS_ENV]: '1' },
  });
  const pass = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = pass('SIGINT');
  const onTerm = pass('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

interface Count {
  bytes: number;
  packets: number;
}

/** One direction's counters: carried, and dropped by cause (queue full, random loss, outage, a failed write). */
export interface DirectionStats {
  carried: Count;
  dropped: Record<'queue' | 'loss' | 'outage' | 'write', Count>;
  /** Bytes in its queue now. */
  queued: number;
}

export interface PacketStats {
  /** ms since the link started: its timeline's `t`. */
  t: number;
  /** Client → server (the uplink). */
  up: DirectionStats;
  /** Server → client. */
  down: DirectionStats;
}

export interface PacketLink {
  stats(): Promise<PacketStats>;
  /** Ends the emulator (its stdin closes) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Starts the emulator between the namespace's TUN devices for `link`, its timeline written for
 * [0, horizonMs) (after that its last segment holds) into `dir`; resolves once both devices are open.
 */
export async function startPacketLink(link: LinkSpec, opts: { horizonMs: number; dir: string }): Promise<PacketLink> {
  fs.mkdirSync(opts.dir, { recursive: true });
  const file = path.join(opts.dir, 'timeline.json');
  fs.writeFileSync(file, JSON.stringify(timelineJson(link, opts.horizonMs)));
  const seed = 'profile' in link ? link.seed : 1;
  const child = spawn('python3', [path.join(here, 'netem.py'), '--timeline', file, '--seed', String(seed)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(line));
  void exited.then(() => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the packet emulator exited (${child.exitCode ?? child.signalCode})`));
  });
  let gone = false;
  void exited.then(() => (gone = true));
  const nextLine = () =>
    new Promise<string>((resolve, reject) => (gone ? reject(new Error('the packet emulator has exited')) : waiting.push({ resolve, reject })));
  await nextLine();
  return {
    async stats() {
      const line = nextLine();
      child.stdin.write('stats\n');
      return JSON.parse(await line) as PacketStats;
    },
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

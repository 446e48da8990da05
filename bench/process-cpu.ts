/**
 * Where a machine's CPU went over a stretch of a bench (Linux only: /proc): CPU seconds per
 * process role and thread name between two snapshots. This bench's own Node process (which runs
 * the sandbox, its link emulator and the static servers) and the processes it started: Chromium's
 * told apart by their `--type` (the renderer, the GPU process, the network service and other
 * utility processes, the browser). The rest of the machine's busy time is "other" (on a shared
 * machine, other people's work). Thread names are the kernel's (15 characters at most):
 * "CrRendererMain" is a page's main thread, "DedicatedWorker" a web worker, "ThreadPoolForeg"
 * Chromium's thread pool (where WebCodecs decodes images).
 */
import fs from 'node:fs';

/** CPU ticks per "role · thread" at one moment, and the machine's total ticks (all cores, busy or not). */
export interface CpuSnapshot {
  threads: Map<string, number>;
  machine: { busy: number; total: number };
}

const TICKS_PER_SECOND = 100;

/** The name, parent pid and utime + stime of a /proc stat line (fields 4, 14 and 15, counted after the parenthesised name, which may hold spaces). */
function statOf(stat: string): { name: string; parent: number; ticks: number } | null {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const fields = stat.slice(close + 2).split(' ');
  return { name: stat.slice(open + 1, close), parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** The pids descended from this process (itself included). */
function ownPids(parents: Map<number, number>): Set<number> {
  const own = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents)
      if (!own.has(pid) && own.has(parent)) {
        own.add(pid);
        grew = true;
      }
  }
  return own;
}

/** The process's role, or 'other' for one this bench did not start. */
function roleOf(pid: number, cmdline: string, own: Set<number>): string {
  if (pid === process.pid) return 'bench Node (sandbox, link emulator, servers)';
  if (!own.has(pid)) return 'other';
  if (!/chrom/i.test(cmdline.split('\0')[0] ?? '')) return 'started by the bench, not Chromium';
  const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
  if (!type) return 'Chromium browser';
  if (type === 'utility') return /NetworkService/.test(cmdline) ? 'Chromium network service' : 'Chromium utility';
  return `Chromium ${type}`;
}

const read = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** Every thread's ticks now; null where there is no /proc. */
export function cpuSnapshot(): CpuSnapshot | null {
  const machineLine = read('/proc/stat')?.split('\n')[0];
  if (!machineLine) return null;
  const [, ...counts] = machineLine.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  const total = counts.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (counts[3] ?? 0) + (counts[4] ?? 0);
  const pids = fs
    .readdirSync('/proc')
    .map(Number)
    .filter((pid) => Number.isInteger(pid));
  const parents = new Map<number, number>();
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    const s = stat ? statOf(stat) : null;
    if (s) parents.set(pid, s.parent);
  }
  const own = ownPids(parents);
  const threads = new Map<string, number>();
  for (const pid of pids) {
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (cmdline === null) continue;
    const role = roleOf(pid, cmdline, own);
    // Others' processes count only in the machine's busy time (cpuBetween's "other").
    if (role === 'other') continue;
    let tids: string[];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`);
      const t = stat ? statOf(stat) : null;
      if (!t) continue;
      const key = `${role} · ${t.name.replace(/\d+$/, '')}`;
      threads.set(key, (threads.get(key) ?? 0) + t.ticks);
    }
  }
  return { threads, machine: { busy: total - idle, total } };
}

/**
 * CPU seconds per "role · thread" from `before` to `after`, largest first, those under `min`
 * seconds left out; and the machine's. "other" is the machine's busy time less this bench's own:
 * a process of someone else's that ended meanwhile takes its ticks with it, so summing theirs
 * would undercount.
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot, min = 0.2): { rows: [string, number][]; machineBusy: number; machineTotal: number } {
  const machineBusy = (after.machine.busy - before.machine.busy) / TICKS_PER_SECOND;
  const rows: [string, number][] = [];
  let own = 0;
  for (const [key, ticks] of after.threads) {
    // A thread that ended meanwhile is missing from `after`; one that started counts from zero.
    const seconds = Math.max(0, ticks - (before.threads.get(key) ?? 0)) / TICKS_PER_SECOND;
    own += seconds;
    if (seconds >= min) rows.push([key, seconds]);
  }
  rows.push(['other (the machine busy, less the above)', Math.max(0, machineBusy - own)]);
  rows.sort((a, b) => b[1] - a[1]);
  return { rows, machineBusy, machineTotal: (after.machine.total - before.machine.total) / TICKS_PER_SECOND };
}

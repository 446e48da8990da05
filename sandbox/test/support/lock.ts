/**
 * A cross-process lock for test files: every sandbox binds the fixed S3 port 20005, so two test
 * files (in two jest workers) must not run a sandbox at the same time.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LOCK_DIR = path.join(os.tmpdir(), 'trailsense-sandbox-tests.lock');

function holderAlive(): boolean {
  try {
    const pid = Number(readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive but not ours; ENOENT on the pid file: the holder is still writing it.
    return (err as NodeJS.ErrnoException).code === 'EPERM' || (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

export async function acquireLock(timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!holderAlive()) rmSync(LOCK_DIR, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`sandbox test lock ${LOCK_DIR} still held after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export function releaseLock(): void {
  rmSync(LOCK_DIR, { recursive: true, force: true });
}

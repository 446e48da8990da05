import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type LaunchOptions } from '@playwright/test';

/** Flags that keep Chromium off the network it cannot reach (docs/architecture.md#browser-tests). */
export const CHROMIUM_FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/**
 * Chromium for the browser tests: Debian's /usr/bin/chromium (Playwright cannot download its own
 * browser here), or whatever CHROMIUM_PATH names. Elsewhere, with neither, Playwright's own.
 * The flags keep Chromium off the network it cannot reach (docs/architecture.md#browser-tests).
 */
export function chromiumLaunchOptions(): LaunchOptions {
  const fromEnv = process.env.CHROMIUM_PATH;
  const executablePath = fromEnv ?? (fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
  return {
    ...(executablePath ? { executablePath } : {}),
    args: [...CHROMIUM_FLAGS],
  };
}

/**
 * Chromium as a member runs it, for what Playwright's own launch hides: Playwright starts Chromium
 * with background throttling off and emulates focus, so its pages are always visible, never
 * throttled and never frozen. This one is started by hand without those flags and driven over
 * CDP with `noDefaults`: a tab opened in front of another hides it, Chromium throttles the hidden
 * tab's timers (intensive throttling after `graceSeconds` hidden, 300 as in Chrome), and
 * `Page.setWebLifecycleState` can freeze it. Call `close()` when done: it returns once the
 * process has exited, so its profile directory can be removed (Chromium still writes to it for a
 * moment after a kill; removing it earlier fails with ENOTEMPTY).
 */
export async function memberChromium(
  profileDir: string,
  graceSeconds = 300,
): Promise<{ browser: Browser; context: BrowserContext; close: () => Promise<void> }> {
  const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const child = spawn(
    executable,
    [
      '--headless',
      '--no-sandbox',
      ...CHROMIUM_FLAGS,
      '--remote-debugging-port=0',
      `--user-data-dir=${profileDir}`,
      `--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/${graceSeconds}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /DevTools listening on (ws:\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`${executable} exited (${code}) before listening: ${output.slice(-500)}`)));
  });
  const browser = await chromium.connectOverCDP(endpoint, { noDefaults: true, isLocal: true });
  return {
    browser,
    context: browser.contexts()[0]!,
    close: async () => {
      await browser.close().catch(() => undefined);
      await stopProcess(child);
    },
  };
}

/** Ends a child process: SIGTERM, then SIGKILL if it is still there after 5 s; resolves on exit. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

import fs from 'node:fs';
import type { LaunchOptions } from '@playwright/test';

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

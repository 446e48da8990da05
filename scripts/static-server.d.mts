// Types of static-server.mjs, for the TypeScript that starts it (the browser tests' servers).
export function cacheControlFor(urlPath: string): string;
export function startStaticServer(options: {
  root: string;
  port: number;
  host?: string;
  spa?: boolean;
  configFile?: string;
  /** A remote's server: the only origin it allows to read its files (the shell's). */
  corsOrigin?: string;
}): Promise<{ url: string; close: () => Promise<void> }>;

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import localConfig from '../../config/local.json';
import { startStaticServer } from '../../scripts/static-server.mjs';

export const repo = path.resolve(__dirname, '../..');

export interface Server {
  url: string;
  close: () => Promise<void>;
}

/** A private copy of the site on its own ports (for tests that stop or replace a remote). */
export interface Stack {
  shellUrl: string;
  ports: { shell: number; auth: number; uploader: number };
  configFile: string;
  servers: { shell: Server; auth: Server | null; uploader: Server | null };
  startRemote(name: 'auth' | 'uploader', distDir?: string): Promise<void>;
  stopRemote(name: 'auth' | 'uploader'): Promise<void>;
  close(): Promise<void>;
}

/** Where each app's build is served from (default: its dist/ in this tree). */
export type DistDirs = Partial<Record<'shell' | 'auth' | 'uploader', string>>;

/**
 * Serves the production builds on `base`, `base + 1`, `base + 2`, with a config that points at
 * them; `dists` serves other builds (a saved copy of an earlier one, for a before/after bench).
 */
export async function startStack(base: number, configOverride?: (config: typeof localConfig) => unknown, dists: DistDirs = {}): Promise<Stack> {
  const ports = { shell: base, auth: base + 1, uploader: base + 2 };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-stack-'));
  const configFile = path.join(dir, 'config.json');
  const config = {
    ...localConfig,
    remotes: {
      auth: `http://localhost:${ports.auth}/mf-manifest.json`,
      uploader: `http://localhost:${ports.uploader}/mf-manifest.json`,
    },
  };
  fs.writeFileSync(configFile, JSON.stringify(configOverride ? configOverride(config) : config));
  const dist = {
    auth: dists.auth ?? path.join(repo, 'auth-remote/dist'),
    uploader: dists.uploader ?? path.join(repo, 'uploader-remote/dist'),
  };
  const shellUrl = `http://localhost:${ports.shell}`;
  // The shell's server sends the CSP; a remote's allows the shell's origin alone (CORS).
  const serve = (root: string, port: number, spa = false): Promise<Server> =>
    startStaticServer({ root, port, spa, configFile, corsOrigin: spa ? undefined : shellUrl });

  const stack: Stack = {
    shellUrl,
    ports,
    configFile,
    servers: {
      shell: await serve(dists.shell ?? path.join(repo, 'shell/dist'), ports.shell, true),
      auth: await serve(dist.auth, ports.auth),
      uploader: await serve(dist.uploader, ports.uploader),
    },
    async startRemote(name, distDir = dist[name]) {
      await stack.stopRemote(name);
      stack.servers[name] = await serve(distDir, ports[name]);
    },
    async stopRemote(name) {
      await stack.servers[name]?.close();
      stack.servers[name] = null;
    },
    async close() {
      await Promise.all([stack.servers.shell.close(), stack.stopRemote('auth'), stack.stopRemote('uploader')]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}

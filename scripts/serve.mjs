// `npm run serve`: the three production builds on their local ports, as the site runs in production.
// Usage: node scripts/serve.mjs [shell|auth-remote|uploader-remote ...]   (default: all three)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register as registerCommonJs } from 'tsx/cjs/api';
import { register as registerEsm } from 'tsx/esm/api';

// The static server sends the security headers of a TypeScript module (the shared package's
// server-headers): tsx compiles it on load, whether Node loads it as an ES module or, as here (its
// package is not "type": "module"), as CommonJS. Registered before the server is imported.
registerEsm();
registerCommonJs();
const { startStaticServer } = await import('./static-server.mjs');

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const configFile = path.resolve(repo, process.env.TRAILSENSE_CONFIG ?? 'config/local.json');

const SHELL_ORIGIN = 'http://localhost:3000';
/**
 * Each app's local port; config/local.json points the shell at the remotes' ports. A remote allows
 * the shell's origin alone to read its files (CORS).
 */
export const APPS = {
  shell: { port: 3000, spa: true },
  'auth-remote': { port: 3001, spa: false, corsOrigin: SHELL_ORIGIN },
  'uploader-remote': { port: 3002, spa: false, corsOrigin: SHELL_ORIGIN },
};

const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(APPS);
for (const app of wanted) {
  const spec = APPS[app];
  if (!spec) {
    console.error(`Unknown app "${app}". Choose from: ${Object.keys(APPS).join(', ')}.`);
    process.exit(2);
  }
  try {
    const { url } = await startStaticServer({ root: path.join(repo, app, 'dist'), port: spec.port, spa: spec.spa, configFile, corsOrigin: spec.corsOrigin });
    console.log(`${app.padEnd(16)} ${url}`);
  } catch (error) {
    console.error(String(error.message ?? error));
    process.exit(1);
  }
}

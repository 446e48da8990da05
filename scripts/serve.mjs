// `npm run serve`: the three production builds on their local ports, as the site runs in production.
// Usage: node scripts/serve.mjs [shell|auth-remote|uploader-remote ...]   (default: all three)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStaticServer } from './static-server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const configFile = path.resolve(repo, process.env.TRAILSENSE_CONFIG ?? 'config/local.json');

/** Each app's local port; config/local.json points the shell at the remotes' ports. */
export const APPS = {
  shell: { port: 3000, spa: true },
  'auth-remote': { port: 3001, spa: false },
  'uploader-remote': { port: 3002, spa: false },
};

const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(APPS);
for (const app of wanted) {
  const spec = APPS[app];
  if (!spec) {
    console.error(`Unknown app "${app}". Choose from: ${Object.keys(APPS).join(', ')}.`);
    process.exit(2);
  }
  try {
    const { url } = await startStaticServer({ root: path.join(repo, app, 'dist'), port: spec.port, spa: spec.spa, configFile });
    console.log(`${app.padEnd(16)} ${url}`);
  } catch (error) {
    console.error(String(error.message ?? error));
    process.exit(1);
  }
}

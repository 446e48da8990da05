// `npm run dev`: the local site for working on it — the sandbox backend and the three apps' webpack
// dev servers (shell :3000, auth-remote :3001, uploader-remote :3002) with live reload, each line
// prefixed by its source. Marketing pages are not prerendered here: `npm start` shows the site as
// production serves it. If any piece stops, everything stops.
//   node scripts/dev.mjs [sandbox options, e.g. --reset]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSupervisor } from './supervise.mjs';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('run dev');

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2); // passed to the sandbox, e.g. --reset

const supervisor = createSupervisor({ cwd: repo });
supervisor.start({ name: 'sandbox', command: 'npm', args: ['run', 'sandbox', '--', ...extra] });
supervisor.start({ name: 'shell', command: 'npm', args: ['run', 'start', '-w', 'shell'] });
supervisor.start({ name: 'auth', command: 'npm', args: ['run', 'start', '-w', 'auth-remote'] });
supervisor.start({ name: 'uploader', command: 'npm', args: ['run', 'start', '-w', 'uploader-remote'] });
console.log('Starting the local site with live reload: http://localhost:3000 (Ctrl-C stops everything)');

// The Node lines the repository runs on (package.json "engines": 22.15+, 24, 26; CI runs 26),
// checked first by the long commands (`npm start`, `npm run dev`, `npm test`, `npm run sandbox`),
// so that an older Node stops at once with the way out — scripts/node26.sh — instead of building
// for a minute and then dying with a stack trace (the sandbox's `node:sqlite` is not in Node 20).
//
//   node scripts/node-version.mjs <command>   # exits 1 with the message on an older Node
import { pathToFileURL } from 'node:url';

/** Null when `version` (`v22.15.0`) is a line the repository runs on, else what to tell the user. */
export function nodeVersionProblem(version, command) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if ((major === 22 && minor >= 15) || major === 24 || major >= 26) return null;
  return `TrailSense needs Node 22.15+, 24 or 26 and this is Node ${version.replace(/^v/, '')}: run \`scripts/node26.sh npm ${command}\` (it brings Node 26 into tools/node26/ once).`;
}

/** Exits with the message when this Node is too old for `npm <command>`. */
export function requireSupportedNode(command) {
  const problem = nodeVersionProblem(process.version, command);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) requireSupportedNode(process.argv.slice(2).join(' ') || 'start');

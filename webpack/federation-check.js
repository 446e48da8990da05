// The build-time check that every module a remote shares is provided by the shell.
//
// The shell is a federation runtime host: it lists, import path by import path, the modules it
// hands to remotes (`modules` in shell/src/remotes/federation.ts). The remotes are built with the
// federation plugin, which shares whole prefixes (`@aws-amplify/core/`, see shared-singletons.js)
// and writes the import paths it actually shares into each build's mf-manifest.json. A path a
// remote shares but the shell does not provide is loaded from the remote's own copy: for
// Amplify's internals that is a second, unconfigured Amplify — signed out, with no storage
// bucket — and nothing fails until a user meets it. An Amplify upgrade that starts importing a
// new internal path does exactly that, so every remote build runs this check and fails on it.
//
// Usage: node webpack/federation-check.js [auth-remote uploader-remote …]   (default: both)
const fs = require('node:fs');
const path = require('node:path');

const repoRoot = path.resolve(__dirname, '..');
const HOST_SOURCE = 'shell/src/remotes/federation.ts';
const REMOTES = ['auth-remote', 'uploader-remote'];

/**
 * The import paths the shell provides: the keys of the `modules` object literal in the host's
 * federation source. (A unit test, shell/test/federation-check.test.ts, holds this reading to the
 * object the shell really exports, so the two cannot drift.)
 * @param {string} source the text of shell/src/remotes/federation.ts
 * @returns {string[]}
 */
function hostModules(source) {
  const start = source.search(/\bconst modules\b[^=]*=\s*\{/);
  if (start < 0) throw new Error(`${HOST_SOURCE} no longer declares \`const modules = { … }\`; update webpack/federation-check.js.`);
  const open = source.indexOf('{', source.indexOf('=', start));
  // The object ends at the brace that balances its opening one.
  let depth = 0;
  let end = open;
  for (; end < source.length; end += 1) {
    if (source[end] === '{') depth += 1;
    else if (source[end] === '}' && (depth -= 1) === 0) break;
  }
  const body = source.slice(open + 1, end);
  // Top-level keys: at the object's start and after each comma at depth 0, the next
  // `'name':` / `name:` (comments and blank space skipped).
  const keyAt = /(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:'([^']+)'|"([^"]+)"|([A-Za-z_$][\w$]*))\s*:/y;
  const keys = [];
  let expectKey = true;
  depth = 0;
  for (let i = 0; i < body.length; i += 1) {
    if (expectKey && depth === 0) {
      keyAt.lastIndex = i;
      const match = keyAt.exec(body);
      if (match) keys.push(match[1] ?? match[2] ?? match[3]);
      expectKey = false;
    }
    const ch = body[i];
    if ('{(['.includes(ch)) depth += 1;
    else if ('})]'.includes(ch)) depth -= 1;
    else if (ch === ',' && depth === 0) expectKey = true;
  }
  return keys;
}

/**
 * The modules a remote's manifest shares that the host does not provide.
 * @param {string[]} provided import paths the host provides
 * @param {{ shared?: Array<{ name: string, version?: string }> }} manifest a remote's mf-manifest.json
 * @returns {Array<{ name: string, version?: string }>}
 */
function unprovided(provided, manifest) {
  const offered = new Set(provided);
  return (manifest.shared ?? []).filter((entry) => !offered.has(entry.name));
}

/**
 * Checks the named remotes' builds against the host. Returns the problems, one sentence each.
 * @param {{ remotes?: string[], root?: string }} [options]
 */
function checkFederation({ remotes = REMOTES, root = repoRoot } = {}) {
  const provided = hostModules(fs.readFileSync(path.join(root, HOST_SOURCE), 'utf8'));
  const problems = [];
  const checked = [];
  for (const remote of remotes) {
    const file = path.join(root, remote, 'dist', 'mf-manifest.json');
    if (!fs.existsSync(file)) {
      problems.push(`${remote}: no build to check (${remote}/dist/mf-manifest.json is missing; run \`npm run build -w ${remote}\`).`);
      continue;
    }
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    checked.push(`${remote} (${(manifest.shared ?? []).length} shared modules)`);
    for (const entry of unprovided(provided, manifest)) {
      problems.push(
        `${remote} shares ${entry.name}${entry.version ? `@${entry.version}` : ''}, which the shell does not provide: ` +
          `in the shell's page the remote would load its own copy (for Amplify, a second, unconfigured instance). ` +
          `Add it to \`modules\` in ${HOST_SOURCE}, or stop the remote from sharing it (webpack/shared-singletons.js).`,
      );
    }
  }
  return { problems, checked };
}

if (require.main === module) {
  const wanted = process.argv.slice(2);
  const { problems, checked } = checkFederation({ remotes: wanted.length > 0 ? wanted : REMOTES });
  if (problems.length > 0) {
    console.error(`Federation check failed:\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log(`Federation check: the shell provides every module ${checked.join(' and ')} share.`);
}

module.exports = { hostModules, unprovided, checkFederation, HOST_SOURCE };

// Whether an app's production build (<app>/dist) still matches its sources: a content stamp — a
// SHA-256 over every input file's path and bytes, never modification times — written to
// <app>/dist/.build-stamp after a successful build. `npm start` (scripts/start.mjs) rebuilds an app
// only when the stamp of its sources differs from the one its last build wrote.
// No side effects but reading files; the repository root is always passed in.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const STAMP_FILE = '.build-stamp';

/** The apps `npm start` builds and serves, in build order. */
export const APPS = ['shell', 'auth-remote', 'uploader-remote'];

/** Inputs every app's build reads: the shared package, the webpack config factory, the locked dependencies. */
const COMMON_INPUTS = ['shared/src', 'shared/package.json', 'webpack', 'tsconfig.base.json', 'tsconfig.json', 'package-lock.json', 'patches'];

/** Files a finished build has; without them the build is not reused, whatever its stamp says. */
const BUILD_OUTPUTS = {
  shell: ['index.html', 'routes.json'],
  'auth-remote': ['mf-manifest.json', 'remoteEntry.js'],
  'uploader-remote': ['mf-manifest.json', 'remoteEntry.js'],
};

/** Never inputs: installed packages, build output, and dotfiles (.DS_Store, editor swap files). */
const SKIPPED_NAMES = new Set(['node_modules', 'dist']);
const skipped = (name) => SKIPPED_NAMES.has(name) || name.startsWith('.');

/** The repository paths (files or folders) an app's build reads. */
export function inputsOf(app) {
  const own = [`${app}/src`, `${app}/public`, `${app}/package.json`, `${app}/webpack.config.js`];
  // The shell's build ends with the prerender, which renders with the config the site is served with.
  const prerender = app === 'shell' ? ['scripts/prerender.mjs'] : [];
  return [...own, ...COMMON_INPUTS, ...prerender];
}

/**
 * Every file under `inputs` (paths relative to `repo`; a missing one is skipped), as sorted
 * repository paths with forward slashes, so the stamp is the same on every machine.
 */
export function listInputFiles(repo, inputs) {
  const files = [];
  const walk = (relative) => {
    let stat;
    try {
      stat = fs.statSync(path.join(repo, relative));
    } catch {
      return; // not there (an app without public/): nothing to hash
    }
    if (stat.isFile()) {
      files.push(relative);
      return;
    }
    if (!stat.isDirectory()) return;
    for (const entry of fs.readdirSync(path.join(repo, relative))) {
      if (!skipped(entry)) walk(`${relative}/${entry}`);
    }
  };
  for (const input of inputs) walk(input.split(path.sep).join('/'));
  return [...new Set(files)].sort();
}

/**
 * The stamp of an app's sources: a hex SHA-256 over each input file's path and contents, plus
 * what else changes the output — for the shell, the contents of the runtime config file it is
 * prerendered with; for every app, the release marker webpack writes into the version.
 * @param {string} repo
 * @param {string} app
 * @param {{ env?: Record<string, string | undefined> }} [options]
 */
export function computeStamp(repo, app, { env = {} } = {}) {
  const hash = createHash('sha256');
  const add = (label, bytes) => {
    hash.update(`${label}\0${bytes.length}\0`);
    hash.update(bytes);
  };
  for (const file of listInputFiles(repo, inputsOf(app))) add(file, fs.readFileSync(path.join(repo, file)));
  if (app === 'shell') {
    const configFile = path.resolve(repo, env.TRAILSENSE_CONFIG ?? 'config/local.json');
    let config;
    try {
      config = fs.readFileSync(configFile);
    } catch {
      config = Buffer.from(`missing ${configFile}`); // the build itself will say what is wrong
    }
    add('<runtime config>', config);
  }
  add('<APP_RELEASE_MARKER>', Buffer.from(env.APP_RELEASE_MARKER ?? ''));
  return hash.digest('hex');
}

/** The text written to <app>/dist/.build-stamp. */
export function formatStamp(stamp) {
  return `${stamp}\n`;
}

/** The stamp in a .build-stamp file's text, or null when there is none. */
export function parseStamp(text) {
  const match = /^([0-9a-f]{64})\s*$/.exec(text ?? '');
  return match ? match[1] : null;
}

/**
 * Whether to build an app, and why.
 * @param {{ current: string, stored: string | null, distExists: boolean, outputsPresent: boolean }} state
 *   current: the stamp of the sources now; stored: the one the last build wrote (null: none);
 *   distExists: <app>/dist is there; outputsPresent: the build's key files are there.
 * @returns {{ build: boolean, reason: string }}
 */
export function decide({ current, stored, distExists, outputsPresent }) {
  if (!distExists) return { build: true, reason: 'no build yet' };
  if (stored === null) return { build: true, reason: 'the existing build has no stamp' };
  if (!outputsPresent) return { build: true, reason: 'the last build is incomplete' };
  if (stored !== current) return { build: true, reason: 'sources changed since the last build' };
  return { build: false, reason: 'up to date' };
}

/** Reads an app's build state and decides whether to build it. */
export function checkApp(repo, app, options) {
  const dist = path.join(repo, app, 'dist');
  const current = computeStamp(repo, app, options);
  let stored = null;
  try {
    stored = parseStamp(fs.readFileSync(path.join(dist, STAMP_FILE), 'utf8'));
  } catch {
    // no stamp
  }
  const distExists = fs.existsSync(dist);
  const outputsPresent = (BUILD_OUTPUTS[app] ?? []).every((file) => fs.existsSync(path.join(dist, file)));
  return { app, current, ...decide({ current, stored, distExists, outputsPresent }) };
}

/** "40 ms", "2.4 s", "41 s", "2 min 5 s": how long a check or a build took. */
export function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

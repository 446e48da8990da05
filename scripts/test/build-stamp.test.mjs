// The content stamp by which `npm start` decides to rebuild an app: on a small repository
// written to a temporary folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APPS, STAMP_FILE, checkApp, computeStamp, decide, formatDuration, formatStamp, inputsOf, listInputFiles, parseStamp } from '../build-stamp.mjs';

let repo;

function write(relative, text) {
  const file = path.join(repo, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A finished build of `app` with the stamp of its sources now. */
function writeBuild(app, env = {}) {
  const outputs = app === 'shell' ? ['index.html', 'routes.json'] : ['mf-manifest.json', 'remoteEntry.js'];
  for (const file of outputs) write(`${app}/dist/${file}`, 'built');
  write(`${app}/dist/${STAMP_FILE}`, formatStamp(computeStamp(repo, app, { env })));
}

const stampOf = (app, env) => computeStamp(repo, app, { env });
const allStamps = (env) => Object.fromEntries(APPS.map((app) => [app, stampOf(app, env)]));

beforeEach(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'build-stamp-'));
  for (const app of APPS) {
    write(`${app}/src/index.ts`, `export const app = '${app}';`);
    write(`${app}/package.json`, `{ "name": "${app}" }`);
    write(`${app}/webpack.config.js`, 'module.exports = {};');
  }
  write('shell/public/robots.txt', 'User-agent: *');
  write('shared/src/index.ts', 'export const shared = 1;');
  write('shared/package.json', '{}');
  write('webpack/index.js', 'module.exports = {};');
  write('scripts/prerender.mjs', '// prerender');
  write('tsconfig.base.json', '{}');
  write('tsconfig.json', '{}');
  write('package-lock.json', '{ "lockfileVersion": 3 }');
  write('config/local.json', '{ "auth": { "signUpEnabled": false } }');
  write('config/e2e.json', '{ "auth": { "signUpEnabled": true } }');
});

afterEach(() => {
  fs.rmSync(repo, { recursive: true, force: true });
});

describe('the inputs of a build', () => {
  test('are the app’s own sources, the shared package, the webpack config and the lockfile; the prerender only for the shell', () => {
    expect(inputsOf('uploader-remote')).toEqual(
      expect.arrayContaining(['uploader-remote/src', 'uploader-remote/public', 'shared/src', 'webpack', 'tsconfig.base.json', 'package-lock.json']),
    );
    expect(inputsOf('shell')).toContain('scripts/prerender.mjs');
    expect(inputsOf('auth-remote')).not.toContain('scripts/prerender.mjs');
    expect(inputsOf('auth-remote').some((input) => input.startsWith('shell/'))).toBe(false);
  });

  test('are listed sorted, without installed packages, build output or dotfiles, and missing folders are skipped', () => {
    write('shell/src/b.ts', '');
    write('shell/src/a/z.ts', '');
    write('shell/src/node_modules/x/index.js', '');
    write('shell/src/.DS_Store', '');
    write('webpack/node_modules/dep/index.js', '');
    write('shell/dist/index.html', '');
    expect(listInputFiles(repo, ['shell/src', 'shell/dist-missing', 'webpack'])).toEqual([
      'shell/src/a/z.ts',
      'shell/src/b.ts',
      'shell/src/index.ts',
      'webpack/index.js',
    ]);
  });
});

describe('the stamp', () => {
  test('depends on contents, not on modification times', () => {
    const before = stampOf('shell');
    fs.utimesSync(path.join(repo, 'shell/src/index.ts'), new Date(2001, 0, 1), new Date(2001, 0, 1));
    write('shared/src/index.ts', 'export const shared = 1;'); // rewritten, same bytes
    expect(stampOf('shell')).toBe(before);
  });

  test('an app’s own source changes its stamp alone', () => {
    const before = allStamps();
    write('uploader-remote/src/index.ts', 'export const app = 2;');
    const after = allStamps();
    expect(after['uploader-remote']).not.toBe(before['uploader-remote']);
    expect(after.shell).toBe(before.shell);
    expect(after['auth-remote']).toBe(before['auth-remote']);
  });

  test('a new, renamed or deleted file changes it', () => {
    const before = stampOf('auth-remote');
    write('auth-remote/src/new.ts', '');
    const added = stampOf('auth-remote');
    expect(added).not.toBe(before);
    fs.renameSync(path.join(repo, 'auth-remote/src/new.ts'), path.join(repo, 'auth-remote/src/renamed.ts'));
    const renamed = stampOf('auth-remote');
    expect(renamed).not.toBe(added);
    fs.rmSync(path.join(repo, 'auth-remote/src/renamed.ts'));
    expect(stampOf('auth-remote')).toBe(before);
  });

  test('the shared package, the webpack config and the lockfile change every app’s stamp', () => {
    for (const file of ['shared/src/index.ts', 'webpack/index.js', 'package-lock.json', 'tsconfig.base.json']) {
      const before = allStamps();
      write(file, `changed ${file}`);
      const after = allStamps();
      for (const app of APPS) expect(after[app]).not.toBe(before[app]);
    }
  });

  test('the prerender and the runtime config change the shell’s stamp only', () => {
    for (const file of ['scripts/prerender.mjs', 'config/local.json']) {
      const before = allStamps();
      write(file, `changed ${file}`);
      const after = allStamps();
      expect(after.shell).not.toBe(before.shell);
      expect(after['auth-remote']).toBe(before['auth-remote']);
      expect(after['uploader-remote']).toBe(before['uploader-remote']);
    }
  });

  test('the shell is stamped with the config TRAILSENSE_CONFIG names, by its contents', () => {
    const local = stampOf('shell', {});
    expect(stampOf('shell', { TRAILSENSE_CONFIG: 'config/local.json' })).toBe(local);
    expect(stampOf('shell', { TRAILSENSE_CONFIG: path.join(repo, 'config/local.json') })).toBe(local);
    expect(stampOf('shell', { TRAILSENSE_CONFIG: 'config/e2e.json' })).not.toBe(local);
    expect(stampOf('shell', { TRAILSENSE_CONFIG: 'config/missing.json' })).not.toBe(local);
  });

  test('a release marker changes every app’s stamp', () => {
    for (const app of APPS) expect(stampOf(app, { APP_RELEASE_MARKER: 'build-123' })).not.toBe(stampOf(app, {}));
  });

  test('build output and installed packages do not change it', () => {
    const before = allStamps();
    write('shell/dist/index.html', 'other');
    write('shell/node_modules/x/index.js', 'other');
    write('node_modules/react/index.js', 'other');
    expect(allStamps()).toEqual(before);
  });

  test('is written as one line and read back; anything else reads as no stamp', () => {
    const stamp = stampOf('shell');
    expect(stamp).toMatch(/^[0-9a-f]{64}$/);
    expect(parseStamp(formatStamp(stamp))).toBe(stamp);
    expect(parseStamp('')).toBeNull();
    expect(parseStamp('not a stamp\n')).toBeNull();
    expect(parseStamp(null)).toBeNull();
  });
});

describe('whether to build', () => {
  const stamp = 'a'.repeat(64);

  test.each([
    { label: 'no dist', build: true, reason: 'no build yet', state: { stored: null, distExists: false, outputsPresent: false } },
    { label: 'a dist without stamp', build: true, reason: 'the existing build has no stamp', state: { stored: null, distExists: true, outputsPresent: true } },
    {
      label: 'the same stamp, an output missing',
      build: true,
      reason: 'the last build is incomplete',
      state: { stored: stamp, distExists: true, outputsPresent: false },
    },
    {
      label: 'another stamp',
      build: true,
      reason: 'sources changed since the last build',
      state: { stored: 'b'.repeat(64), distExists: true, outputsPresent: true },
    },
    { label: 'the same stamp', build: false, reason: 'up to date', state: { stored: stamp, distExists: true, outputsPresent: true } },
  ])('$label → build $build ($reason)', ({ state, build, reason }) => {
    expect(decide({ current: stamp, ...state })).toEqual({ build, reason });
  });

  test('read from the repository: no build, a stamped build, a changed source, a missing output', () => {
    expect(checkApp(repo, 'shell', { env: {} })).toMatchObject({ app: 'shell', build: true, reason: 'no build yet' });
    writeBuild('shell');
    expect(checkApp(repo, 'shell', { env: {} })).toMatchObject({ build: false, reason: 'up to date', current: stampOf('shell') });
    write('shell/src/index.ts', 'export const app = 2;');
    expect(checkApp(repo, 'shell', { env: {} })).toMatchObject({ build: true, reason: 'sources changed since the last build' });
    writeBuild('shell');
    fs.rmSync(path.join(repo, 'shell/dist/routes.json'));
    expect(checkApp(repo, 'shell', { env: {} })).toMatchObject({ build: true, reason: 'the last build is incomplete' });
  });

  test('a build made with another config is rebuilt for this one', () => {
    writeBuild('shell', {});
    expect(checkApp(repo, 'shell', { env: {} }).build).toBe(false);
    expect(checkApp(repo, 'shell', { env: { TRAILSENSE_CONFIG: 'config/e2e.json' } })).toMatchObject({
      build: true,
      reason: 'sources changed since the last build',
    });
  });

  test('a build without a stamp (npm run build) is not trusted', () => {
    writeBuild('auth-remote');
    fs.rmSync(path.join(repo, 'auth-remote/dist', STAMP_FILE));
    expect(checkApp(repo, 'auth-remote', { env: {} })).toMatchObject({ build: true, reason: 'the existing build has no stamp' });
  });
});

test.each([
  [38.4, '38 ms'],
  [2_440, '2.4 s'],
  [9_949, '9.9 s'],
  [41_200, '41 s'],
  [59_600, '1 min 0 s'],
  [125_000, '2 min 5 s'],
])('%d ms reads "%s"', (ms, text) => {
  expect(formatDuration(ms)).toBe(text);
});

// The version of the shared package held to the code the shell provides remotes: on a small
// repository written to a temporary folder, and on this repository's own stamp.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, fingerprint, reachableFiles, SINGLETON_BY_PATH, sourceSharedEntries, stamp } from '../shared-version.mjs';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let repo;

function write(relative, text) {
  const file = path.join(repo, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
const setVersion = (version) =>
  write(
    'shared/package.json',
    JSON.stringify({ name: '@trailsense/shared', version, exports: { '.': './src/index.ts', './aws': './src/aws.ts', './quota': './src/quota.ts' } }),
  );

beforeEach(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-version-'));
  // The real federation check reads the host's module list from the shell's federation source.
  write('webpack/federation-check.js', fs.readFileSync(path.join(here, 'webpack', 'federation-check.js'), 'utf8'));
  write('webpack/shared-singletons.js', 'module.exports = { sharedVersions: () => ({}) };');
  write(
    'shell/src/remotes/federation.ts',
    "const modules: Record<string, ProvidedModule> = {\n  react: { lib: () => require('react') },\n  '@trailsense/shared': { lib: () => shared },\n  '@trailsense/shared/aws': { get: () => import('@trailsense/shared/aws') },\n};\n",
  );
  setVersion('1.0.0');
  write('shared/src/index.ts', "export { user } from './user/user';\n");
  write('shared/src/user/user.ts', "// Who is signed in.\nexport const user = () => import('./lazy');\n");
  write('shared/src/user/lazy.ts', 'export const lazy = 1;\n');
  write('shared/src/aws.ts', "export { configure } from './configure';\n");
  write('shared/src/configure.ts', 'export function configure(): void {}\n');
  write('shared/src/quota.ts', 'export const limit = 2500;\n');
  write('node_modules/@module-federation/enhanced/runtime.js', 'module.exports = { satisfy: () => true };');
  write('node_modules/@module-federation/enhanced/package.json', '{ "name": "@module-federation/enhanced" }');
});
afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

describe('the shared package version held to the provided code', () => {
  it('fingerprints every file the provided entries reach, static and dynamic imports alike, and nothing else', () => {
    expect(reachableFiles(repo)).toEqual([
      'shared/src/aws.ts',
      'shared/src/configure.ts',
      'shared/src/index.ts',
      'shared/src/user/lazy.ts',
      'shared/src/user/user.ts',
    ]);
  });

  it('ignores comments and formatting, and notices a change of code or types', () => {
    const before = fingerprint(repo);
    write('shared/src/user/user.ts', "/** Who is signed in, lazily. */\nexport const user = () =>\n  import('./lazy');\n");
    expect(fingerprint(repo)).toBe(before);
    write('shared/src/user/lazy.ts', 'export const lazy: number = 2;\n');
    expect(fingerprint(repo)).not.toBe(before);
  });

  it('a file no provided entry reaches (bundled by the app that uses it) does not change the version', () => {
    stamp(repo);
    write('shared/src/quota.ts', 'export const limit = 5000;\n');
    expect(check(repo)).toBeNull();
  });

  it('fails when the provided code changed under the same version, and passes once the version moved and was stamped', () => {
    stamp(repo);
    expect(check(repo)).toBeNull();
    write('shared/src/configure.ts', 'export function configure(): void { console.log(1); }\n');
    expect(check(repo)).toMatch(/changed since version 1\.0\.0 was stamped.*give shared\/package\.json a new version/);
    expect(() => stamp(repo)).toThrow('The provided code changed and @trailsense/shared is still 1.0.0: give shared/package.json a new version first.');
    setVersion('1.0.1');
    expect(check(repo)).toMatch(/changed since version 1\.0\.0/);
    stamp(repo);
    expect(check(repo)).toBeNull();
  });

  it('says so when the version moved but the stamp was not written', () => {
    stamp(repo);
    setVersion('1.1.0');
    expect(check(repo)).toBe('shared/provided-contract.json records version 1.0.0, shared/package.json says 1.1.0: run `npm run stamp:shared`.');
  });

  it('records the floor remotes built now require: a patch keeps it, a minor or a major moves it to the new version', () => {
    const since = () => JSON.parse(fs.readFileSync(path.join(repo, 'shared', 'provided-contract.json'), 'utf8')).since;
    expect(stamp(repo)).toMatchObject({ version: '1.0.0', since: '1.0.0' });
    write('shared/src/configure.ts', 'export function configure(): void { console.log(1); }\n');
    setVersion('1.0.1');
    stamp(repo);
    expect(since()).toBe('1.0.0');
    write('shared/src/configure.ts', 'export function configure(): void {}\nexport const more = 1;\n');
    setVersion('1.1.0');
    stamp(repo);
    expect(since()).toBe('1.1.0');
    write('shared/src/configure.ts', 'export const more = 1;\n');
    setVersion('2.0.0');
    stamp(repo);
    expect(since()).toBe('2.0.0');
    expect(check(repo)).toBeNull();
  });

  it('takes a lower floor when asked (a version that moved while what remotes run did not), never one of another major or above the version', () => {
    stamp(repo);
    setVersion('1.1.0');
    expect(() => stamp(repo, { since: '0.9.0' })).toThrow('Not stamped: since 0.9.0 is of another major than 1.1.0');
    expect(() => stamp(repo, { since: '1.2.0' })).toThrow('Not stamped: since 1.2.0 is above the version 1.1.0');
    expect(() => stamp(repo, { since: '' })).toThrow('Not stamped:  is not a version');
    expect(stamp(repo, { since: '1.0.0' })).toMatchObject({ version: '1.1.0', since: '1.0.0' });
    setVersion('1.1.1');
    expect(stamp(repo).since).toBe('1.0.0');
    const file = path.join(repo, 'shared', 'provided-contract.json');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), since: '1.2.0' }));
    expect(check(repo)).toBe('shared/provided-contract.json: since 1.2.0 is above the version 1.1.1: the shell would refuse its own remotes.');
  });

  it('fails when an entry the shell provides reaches a source-shared module, naming it and what brings it in', () => {
    stamp(repo);
    write('shared/src/index.ts', "export { user } from './user/user';\nexport type { Limit } from './quota';\n");
    expect(check(repo)).toMatch(
      /^The entries the shell provides from @trailsense\/shared reach source-shared code: shared\/src\/quota\.ts \(imported by shared\/src\/index\.ts\)\./,
    );
  });

  it("this repository's shared package carries the version of the code it provides", () => {
    expect(check(here)).toBeNull();
  });
});

describe("this repository's singleton holds no wire, event or schema", () => {
  /** This repository's shared package and the shell's list of what it provides, in the temporary folder. */
  function copyShared() {
    fs.rmSync(path.join(repo, 'shared'), { recursive: true, force: true });
    for (const file of ['shared/package.json', 'shared/provided-contract.json', 'shell/src/remotes/federation.ts']) {
      write(file, fs.readFileSync(path.join(here, file), 'utf8'));
    }
    fs.cpSync(path.join(here, 'shared', 'src'), path.join(repo, 'shared', 'src'), { recursive: true });
  }

  it('names as source-shared the events, the wire, the object key, the metadata, the quota and the headers', () => {
    expect(sourceSharedEntries(here)).toEqual(
      expect.arrayContaining(['./analytics-events', './monitoring', './uploads-wire', './object-key', './metadata-encoding', './quota', './security-headers']),
    );
    expect(SINGLETON_BY_PATH.every((entry) => !sourceSharedEntries(here).includes(entry))).toBe(true);
  });

  it('a change to an event type, the wire, the object key, the quota or a header leaves the version the shell provides as it is', () => {
    copyShared();
    expect(check(repo)).toBeNull();
    const before = fingerprint(repo);
    const events = path.join(repo, 'shared/src/analytics/events.ts');
    const withField = fs.readFileSync(events, 'utf8').replace(/(export interface BatchOutcomeEvent \{\n)/, '$1  /** A new field. */\n  newField?: number;\n');
    expect(withField).toContain('newField?: number;');
    fs.writeFileSync(events, withField);
    const own = new Set(reachableFiles(repo, SINGLETON_BY_PATH));
    const sourceShared = reachableFiles(repo, sourceSharedEntries(repo)).filter((file) => !own.has(file));
    expect(sourceShared).toEqual(
      expect.arrayContaining([
        'shared/src/analytics/events.ts',
        'shared/src/analytics/event-schema.ts',
        'shared/src/uploads/wire.ts',
        'shared/src/domain/quota.ts',
      ]),
    );
    sourceShared.forEach((file, i) => fs.appendFileSync(path.join(repo, file), `\nexport const added${i} = ${i};\n`));
    expect(fingerprint(repo)).toBe(before);
    expect(check(repo)).toBeNull();
  });

  it('fails once the root entry re-exports an event type again', () => {
    copyShared();
    fs.appendFileSync(path.join(repo, 'shared/src/index.ts'), "export type { BatchOutcomeEvent } from './analytics/events';\n");
    expect(check(repo)).toMatch(/reach source-shared code: shared\/src\/analytics\/events\.ts \(imported by shared\/src\/index\.ts\)/);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  checkFederation,
  hostDescription,
  hostLocation,
  hostModules,
  readHost,
  runtimeRange,
  runtimeVersion,
  HOST_SOURCE,
  outrankProblem,
  unprovided,
  versionProblem,
} from '@trailsense/webpack-config/federation-check';
import { providedModules } from '../src/remotes/federation';

const repoRoot = path.resolve(__dirname, '..', '..');
const hostSource = fs.readFileSync(path.join(repoRoot, HOST_SOURCE), 'utf8');
const made: string[] = [];
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** What a remote built in this repository states about the runtime it needs. */
const runtimeHere = { federationRuntime: { package: '@module-federation/runtime-core', requiredVersion: runtimeRange(runtimeVersion(repoRoot)) } };

type FakeManifest = { shared: Array<{ name: string; version?: string; requiredVersion?: string }>; metaData?: object };

/** A repository-shaped folder with the real host source and the given remote manifests. */
function fakeRepo(manifests: Record<string, FakeManifest | null>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'federation-check-'));
  made.push(root);
  fs.mkdirSync(path.join(root, path.dirname(HOST_SOURCE)), { recursive: true });
  fs.writeFileSync(path.join(root, HOST_SOURCE), hostSource);
  for (const [remote, manifest] of Object.entries(manifests)) {
    if (!manifest) continue;
    fs.mkdirSync(path.join(root, remote, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(root, remote, 'dist', 'mf-manifest.json'), JSON.stringify({ metaData: runtimeHere, ...manifest }));
  }
  return root;
}

describe('the build-time federation check', () => {
  it('reads from the host source exactly the modules the shell provides at run time', () => {
    expect(hostModules(hostSource)).toEqual([...providedModules]);
    expect(providedModules).toEqual(expect.arrayContaining(['react', '@aws-amplify/core', 'aws-amplify/storage']));
  });

  it('names what a remote shares and the host does not provide', () => {
    const manifest = { shared: [{ name: 'react' }, { name: '@aws-amplify/core/internals/new-path', version: '6.20.0' }] };
    expect(unprovided(['react', '@aws-amplify/core'], manifest)).toEqual([{ name: '@aws-amplify/core/internals/new-path', version: '6.20.0' }]);
  });

  it('fails a remote build that shares an Amplify path the shell lacks, and passes one that does not', () => {
    const root = fakeRepo({
      'auth-remote': { shared: [{ name: 'react' }, { name: '@aws-amplify/core/internals/new-path', version: '6.20.0' }] },
      'uploader-remote': { shared: providedModules.map((name) => ({ name })) },
    });
    const { problems, checked } = checkFederation({
      root,
      host: { ...hostDescription(repoRoot), modules: providedModules.map((name) => ({ name, version: null })) },
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^auth-remote shares @aws-amplify\/core\/internals\/new-path@6\.20\.0, which the shell does not provide/);
    expect(checked).toEqual(['auth-remote (2 shared modules)', `uploader-remote (${providedModules.length} shared modules)`]);
    expect(checkFederation({ root, remotes: ['uploader-remote'], host: hostDescription(repoRoot) }).problems).toEqual([]);
  });

  it('fails a remote built against a runtime range the shell does not provide, or that states none', () => {
    const root = fakeRepo({
      'auth-remote': { shared: [{ name: 'react' }], metaData: { federationRuntime: { requiredVersion: '^3.0.0' } } },
      'uploader-remote': { shared: [{ name: 'react' }], metaData: {} },
    });
    const host = { runtime: { package: '@module-federation/runtime-core', version: '2.9.2' }, modules: [{ name: 'react', version: '19.3.1' }] };
    const { problems } = checkFederation({ root, host });
    expect(problems).toEqual([
      expect.stringMatching(/^auth-remote was built against the federation runtime @module-federation\/runtime-core@\^3\.0\.0, and the shell provides 2\.9\.2/),
      expect.stringMatching(/^uploader-remote does not say which federation runtime it needs/),
    ]);
    // A shell whose runtime is in the range passes the same build.
    expect(checkFederation({ root, remotes: ['auth-remote'], host: { ...host, runtime: { ...host.runtime, version: '3.1.0' } } }).problems).toEqual([]);
  });

  it('checks against a deployed shell’s federation-host.json, and refuses a file that is not one', async () => {
    const root = fakeRepo({});
    const file = path.join(root, 'federation-host.json');
    fs.writeFileSync(file, JSON.stringify(hostDescription(repoRoot)));
    await expect(readHost(file)).resolves.toEqual(hostDescription(repoRoot));
    fs.writeFileSync(file, '<!doctype html><title>Not found</title>');
    await expect(readHost(file)).rejects.toThrow(`${file} is not JSON: it is not a shell's federation-host.json.`);
    fs.writeFileSync(file, JSON.stringify({ modules: [] }));
    await expect(readHost(file)).rejects.toThrow(/does not describe a shell/);
  });

  it('reads a site’s URL at its /federation-host.json, and takes a file’s URL or a path as given', () => {
    expect(hostLocation('https://www.example.com')).toBe('https://www.example.com/federation-host.json');
    expect(hostLocation('https://www.example.com/')).toBe('https://www.example.com/federation-host.json');
    expect(hostLocation('https://cdn.example.com/site')).toBe('https://cdn.example.com/site/federation-host.json');
    expect(hostLocation('https://www.example.com/releases/federation-host.json')).toBe('https://www.example.com/releases/federation-host.json');
    expect(hostLocation('shell/dist/federation-host.json')).toBe('shell/dist/federation-host.json');
  });

  it('describes the shell as its build publishes it: the runtime remotes are built against, and its modules', () => {
    const host = hostDescription(repoRoot);
    expect(host.modules.map((m) => m.name)).toEqual([...providedModules]);
    const shared = JSON.parse(fs.readFileSync(path.join(repoRoot, 'shared', 'package.json'), 'utf8')) as { version: string };
    expect(host.modules.find((m) => m.name === '@trailsense/shared/aws')?.version).toBe(shared.version);
    expect(host.modules.find((m) => m.name === 'react/jsx-runtime')?.version).toMatch(/^19\./);
    expect(host.runtime.version).toBe(runtimeVersion(path.join(repoRoot, 'auth-remote')));
  });

  it('fails a remote that needs a version of a provided module the shell does not have, and names both', () => {
    const root = fakeRepo({
      'uploader-remote': {
        shared: [
          { name: 'react', version: '19.3.1', requiredVersion: '^19.3.1' },
          { name: '@trailsense/shared/aws', version: '1.1.0', requiredVersion: '^1.1.0' },
        ],
      },
    });
    const host = {
      runtime: hostDescription(repoRoot).runtime,
      modules: [
        { name: 'react', version: '19.3.1' },
        { name: '@trailsense/shared/aws', version: '1.0.0' },
      ],
    };
    expect(checkFederation({ root, remotes: ['uploader-remote'], host }).problems).toEqual([
      'uploader-remote was built with @trailsense/shared/aws@1.1.0 and needs ^1.1.0; the shell provides 1.0.0: ' +
        "in the shell's page the remote would be refused. Build the remote against the shell's version, or release a shell that provides it first.",
    ]);
    // A later compatible shell, and a newer minor than needed, fit.
    host.modules[1] = { name: '@trailsense/shared/aws', version: '1.2.0' };
    expect(checkFederation({ root, remotes: ['uploader-remote'], host }).problems).toEqual([]);
    // A major step does not.
    expect(versionProblem('uploader-remote', { name: '@trailsense/shared', version: '1.0.0', requiredVersion: '^1.0.0' }, '2.0.0')).toMatch(
      /needs \^1\.0\.0; the shell provides 2\.0\.0/,
    );
  });

  it("fails a remote whose copy of a provided module stands for more than the lowest shell it accepts (it would outrank that shell's)", () => {
    const root = fakeRepo({
      'uploader-remote': { shared: [{ name: '@trailsense/shared/aws', version: '1.1.1', requiredVersion: '^1.0.0' }] },
    });
    const host = { runtime: hostDescription(repoRoot).runtime, modules: [{ name: '@trailsense/shared/aws', version: '1.0.0' }] };
    expect(checkFederation({ root, remotes: ['uploader-remote'], host }).problems).toEqual([
      'uploader-remote registers its copy of @trailsense/shared/aws as 1.1.1 and accepts a shell from ^1.0.0: beside a shell providing ' +
        "less than 1.1.1 the page would load the remote's copy, a second instance. Build the remote's shared options with " +
        'webpack/shared-singletons.js (a copy stands for the lowest version it accepts).',
    ]);
    expect(outrankProblem('uploader-remote', { name: '@trailsense/shared/aws', version: '1.0.0', requiredVersion: '^1.0.0' })).toBeNull();
  });

  it("reads an older shell's bare module list as provided at an unknown version, which a versioned need refuses", async () => {
    const root = fakeRepo({});
    const file = path.join(root, 'federation-host.json');
    fs.writeFileSync(file, JSON.stringify({ runtime: hostDescription(repoRoot).runtime, modules: ['react'] }));
    const host = await readHost(file);
    expect(host.modules).toEqual([{ name: 'react', version: null }]);
    expect(versionProblem('auth-remote', { name: 'react', version: '19.3.1', requiredVersion: '^19.3.1' }, null)).toMatch(
      /does not say which version it provides/,
    );
  });

  it('says so when a remote has no build to check', () => {
    const root = fakeRepo({ 'auth-remote': null });
    expect(checkFederation({ root, remotes: ['auth-remote'], host: hostDescription(repoRoot) }).problems).toEqual([
      'auth-remote: no build to check (auth-remote/dist/mf-manifest.json is missing; run `npm run build -w auth-remote`).',
    ]);
  });
});

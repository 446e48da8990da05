import fs from 'node:fs';
import path from 'node:path';
import { createInstance } from '@module-federation/enhanced/runtime';
import { sharedSingletons, sharedVersions } from '@trailsense/webpack-config/shared-singletons';
import { packageOf, sharedProvision } from '../src/remotes/shared-provision';

const versions = {
  react: { version: '19.3.1', requiredVersion: '^19.3.1' },
  '@aws-amplify/core': { version: '6.19.2', requiredVersion: '^6.19.2' },
};

describe('sharedProvision', () => {
  it('finds the package of an import path', () => {
    expect(packageOf('react/jsx-runtime')).toBe('react');
    expect(packageOf('@aws-amplify/core/internals/utils')).toBe('@aws-amplify/core');
    expect(packageOf('@trailsense/shared')).toBe('@trailsense/shared');
  });

  it('offers each module as a singleton at its package version', async () => {
    const react = { useState: () => null };
    const core = { Amplify: {} };
    const shared = sharedProvision({ react: { lib: () => react }, '@aws-amplify/core/internals/utils': { get: async () => core } }, versions);
    expect(shared.react).toMatchObject({
      version: '19.3.1',
      scope: 'default',
      strategy: 'loaded-first',
      shareConfig: { singleton: true, requiredVersion: '^19.3.1' },
    });
    expect((shared.react as { lib: () => unknown }).lib()).toBe(react);
    const lazy = shared['@aws-amplify/core/internals/utils'] as { version: string; get: () => Promise<() => unknown> };
    expect(lazy.version).toBe('6.19.2');
    expect((await lazy.get())()).toBe(core);
  });

  it('refuses a module outside the singleton list', () => {
    expect(() => sharedProvision({ 'react-router': { lib: () => ({}) } }, versions)).toThrow(/not in the shared singleton list/);
  });
});

describe("a remote built now runs on the shell's copy of the shared package", () => {
  const remoteShared = sharedSingletons();
  const entries = Object.keys(remoteShared).filter((key) => packageOf(key) === '@trailsense/shared');
  /** The oldest version whose provided contract this code keeps (scripts/shared-version.mjs). */
  const floor = (JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'shared', 'provided-contract.json'), 'utf8')) as { since: string }).since;
  const current = sharedVersions()['@trailsense/shared']!.version;

  /** What a page resolves for each shared-package entry a remote built here consumes, beside a shell providing `shellVersion`. */
  async function resolved(shellVersion: string): Promise<Record<string, unknown>> {
    const whose = (who: string) => ({ who });
    const shell = createInstance({
      name: `shell-${shellVersion}`,
      remotes: [],
      shared: sharedProvision(
        Object.fromEntries(entries.map((key) => [key, key === '@trailsense/shared' ? { lib: () => whose('shell') } : { get: async () => whose('shell') }])),
        { '@trailsense/shared': { version: shellVersion, requiredVersion: `^${shellVersion}` } },
      ),
    });
    // As the remote's build registers its own copies (webpack/index.js: sharedSingletons()).
    const remote = createInstance({
      name: `remote-${shellVersion}`,
      remotes: [],
      shared: Object.fromEntries(
        entries.map((key) => {
          const { version, requiredVersion } = remoteShared[key]!;
          return [key, { version, scope: 'default', shareConfig: { singleton: true, requiredVersion }, get: async () => () => whose('remote') }];
        }),
      ),
    });
    remote.initShareScopeMap('default', shell.shareScopeMap['default']!);
    await Promise.all(remote.initializeSharing('default'));
    const result: Record<string, unknown> = {};
    for (const key of entries) {
      const factory = await remote.loadShare<unknown>(key);
      result[key] = factory && factory();
    }
    return result;
  }

  it('registers its copies at the floor the stamp records, which no shell it accepts is below', () => {
    expect(entries).toEqual(['@trailsense/shared', '@trailsense/shared/aws', '@trailsense/shared/session']);
    for (const key of entries) expect(remoteShared[key]).toEqual({ singleton: true, version: floor, requiredVersion: `^${floor}` });
  });

  it.each([
    ['the floor version (a live shell built before this one)', floor],
    ["this repository's version", current],
  ])('beside a shell providing %s, every entry resolves to the shell’s copy (one instance on the page)', async (_, shellVersion) => {
    const all = await resolved(shellVersion);
    expect(all).toEqual(Object.fromEntries(entries.map((key) => [key, { who: 'shell' }])));
  });
});

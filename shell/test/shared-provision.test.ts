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

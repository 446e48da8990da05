import { satisfy } from '@module-federation/enhanced/runtime';
import type { ModuleFederation } from '@module-federation/enhanced/runtime';
import { RemoteRuntimeMismatch, RemoteSharedMismatch, runtimeContractPlugin, runtimeRefusal, sharedRefusal } from '../src/remotes/runtime-contract';
import { providedVersions } from '../src/remotes/shared-provision';

const stating = (requiredVersion: unknown) => ({ federationRuntime: { package: '@module-federation/runtime-core', requiredVersion } });

describe('the federation runtime contract at run time', () => {
  it('lets a remote run on a runtime in its range: the same minor, this patch or a later one', () => {
    expect(runtimeRefusal('auth', stating('~2.9.2'), '2.9.2', satisfy)).toBeNull();
    expect(runtimeRefusal('auth', stating('~2.9.2'), '2.9.7', satisfy)).toBeNull();
  });

  it('refuses a remote built for another minor or major, or a newer patch, and says which', () => {
    for (const provided of ['2.10.0', '3.0.0', '2.9.1']) {
      const refusal = runtimeRefusal('auth', stating('~2.9.2'), provided, satisfy);
      expect(refusal).toBeInstanceOf(RemoteRuntimeMismatch);
      expect(refusal?.message).toBe(`The remote auth needs the federation runtime ~2.9.2; this shell provides ${provided}.`);
    }
  });

  it('refuses a stated range it cannot read, rather than guessing', () => {
    expect(runtimeRefusal('uploader', stating(42), '2.9.2', satisfy)?.required).toBe('42');
    expect(runtimeRefusal('uploader', { federationRuntime: null }, '2.9.2', satisfy)).toBeInstanceOf(RemoteRuntimeMismatch);
    expect(runtimeRefusal('uploader', stating('not a range'), '2.9.2', satisfy)).toBeInstanceOf(RemoteRuntimeMismatch);
  });

  it('lets a remote that states no runtime (it carries its own, built before the contract) run as before', () => {
    expect(runtimeRefusal('uploader', { name: 'uploader' }, '2.9.2', satisfy)).toBeNull();
    expect(runtimeRefusal('uploader', undefined, '2.9.2', satisfy)).toBeNull();
  });

  it('refuses on the manifest and forgets it, so a Retry reads the remote afresh', () => {
    const url = 'https://auth.example/mf-manifest.json';
    const host = {
      version: '2.9.2',
      snapshotHandler: { manifestCache: new Map([[url, {}]]), manifestLoading: { [url]: Promise.resolve({}) } },
    };
    const plugin = runtimeContractPlugin(satisfy);
    plugin.apply?.(host as unknown as ModuleFederation);
    const args = (requiredVersion: string) => ({ moduleInfo: { name: 'auth' }, manifestUrl: url, manifestJson: { metaData: stating(requiredVersion) } });
    const hook = plugin.loadRemoteSnapshot as unknown as (a: ReturnType<typeof args>) => unknown;

    const fitting = args('~2.9.0');
    expect(hook(fitting)).toBe(fitting);
    expect(host.snapshotHandler.manifestCache.has(url)).toBe(true);

    expect(() => hook(args('^3.0.0'))).toThrow(RemoteRuntimeMismatch);
    expect(host.snapshotHandler.manifestCache.has(url)).toBe(false);
    expect(url in host.snapshotHandler.manifestLoading).toBe(false);
  });

  it('refuses a remote that needs a version of a provided module this shell does not have, and names it', () => {
    const provided = { react: '19.3.1', '@trailsense/shared/aws': '1.0.0' };
    const shared = [
      { name: 'react', version: '19.3.1', requiredVersion: '^19.3.1' },
      { name: '@trailsense/shared/aws', version: '1.1.0', requiredVersion: '^1.1.0' },
    ];
    const refusal = sharedRefusal('uploader', shared, provided, satisfy);
    expect(refusal).toBeInstanceOf(RemoteSharedMismatch);
    expect(refusal?.message).toBe('The remote uploader needs @trailsense/shared/aws ^1.1.0; this shell provides 1.0.0.');
    expect(sharedRefusal('uploader', shared, { ...provided, '@trailsense/shared/aws': '1.4.2' }, satisfy)).toBeNull();
    expect(sharedRefusal('uploader', shared, { ...provided, '@trailsense/shared/aws': '2.0.0' }, satisfy)).toBeInstanceOf(RemoteSharedMismatch);
  });

  it('leaves to the build check what the shell does not provide, and reads no range as any version', () => {
    const provided = { react: '19.3.1' };
    expect(
      sharedRefusal('auth', [{ name: 'left-pad', requiredVersion: '^9.0.0' }, { name: 'react' }, { name: 'react', requiredVersion: '*' }], provided, satisfy),
    ).toBeNull();
    expect(sharedRefusal('auth', 'not a list', provided, satisfy)).toBeNull();
    expect(sharedRefusal('auth', [{ name: 'react', requiredVersion: 'not a range' }], provided, satisfy)).toBeInstanceOf(RemoteSharedMismatch);
  });

  it('the page checks the modules by the versions the shell was built with', () => {
    const versions = { react: { version: '19.3.1', requiredVersion: '^19.3.1' }, '@trailsense/shared': { version: '1.0.0', requiredVersion: '^1.0.0' } };
    const modules = { react: { lib: () => ({}) }, 'react/jsx-runtime': { lib: () => ({}) }, '@trailsense/shared/aws': { get: async () => ({}) } };
    expect(providedVersions(modules, versions)).toEqual({ react: '19.3.1', 'react/jsx-runtime': '19.3.1', '@trailsense/shared/aws': '1.0.0' });
    const host = { version: '2.9.2', snapshotHandler: { manifestCache: new Map(), manifestLoading: {} } };
    const plugin = runtimeContractPlugin(satisfy, providedVersions(modules, versions));
    plugin.apply?.(host as unknown as ModuleFederation);
    const hook = plugin.loadRemoteSnapshot as unknown as (a: object) => unknown;
    const needing = (requiredVersion: string) => ({
      moduleInfo: { name: 'uploader' },
      manifestJson: { metaData: stating('~2.9.2'), shared: [{ name: '@trailsense/shared/aws', requiredVersion }] },
    });
    expect(() => hook(needing('^1.0.0'))).not.toThrow();
    expect(() => hook(needing('^1.1.0'))).toThrow(RemoteSharedMismatch);
  });
});

// The federation runtime of the shell, loaded only when a route needs a remote. The shell is a
// Module Federation host through @module-federation/enhanced's runtime API rather than its build
// plugin: the plugin puts its runtime (about 25 KiB gzip) into the entry of every page, and the
// marketing pages have a 100 KiB budget that React alone half fills. Remotes are still built with
// the plugin and find here the same singletons (webpack/shared-singletons.js) the plugin offered,
// and the federation runtime itself: a remote carries none of its own
// (docs/federation.md#one-federation-runtime).
import { createInstance, satisfy, type ModuleFederation } from '@module-federation/enhanced/runtime';
import provideRuntime from '@module-federation/inject-external-runtime-core-plugin';
import * as sharedLight from '@trailsense/shared';
import { remoteNames, type RuntimeConfig } from '@trailsense/shared';
import { providedVersions, sharedProvision, type ProvidedModule } from './shared-provision';
import { runtimeContractPlugin } from './runtime-contract';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return --
   `require` hands over a CommonJS package's exports object itself, as the build plugin does;
   `import * as` would give webpack's namespace wrapper instead. */
/**
 * What the shell offers remotes, by import path. React and the light shared package are already
 * on the page (the exact instances the shell renders with); Amplify and the API client arrive on
 * demand, from the same modules the shell's own lazy code uses, so each exists once per page.
 * `require` hands over a CommonJS package's exports object, as the build plugin does.
 */
const modules: Record<string, ProvidedModule> = {
  react: { lib: () => require('react') },
  'react/jsx-runtime': { lib: () => require('react/jsx-runtime') },
  'react-dom': { lib: () => require('react-dom') },
  'react-dom/client': { lib: () => require('react-dom/client') },
  '@trailsense/shared': { lib: () => sharedLight },
  '@trailsense/shared/aws': { get: () => import('@trailsense/shared/aws') },
  '@trailsense/shared/session': { get: () => import('@trailsense/shared/session') },
  'aws-amplify': { get: () => import('aws-amplify') },
  'aws-amplify/auth': { get: () => import('aws-amplify/auth') },
  'aws-amplify/utils': { get: () => import('aws-amplify/utils') },
  'aws-amplify/storage': { get: () => import('aws-amplify/storage') },
  'aws-amplify/analytics/kinesis-firehose': { get: () => import('aws-amplify/analytics/kinesis-firehose') },
  '@aws-amplify/core': { get: () => import('@aws-amplify/core') },
  '@aws-amplify/core/internals/utils': { get: () => import('@aws-amplify/core/internals/utils') },
  '@aws-amplify/core/internals/aws-client-utils': { get: () => import('@aws-amplify/core/internals/aws-client-utils') },
  '@aws-amplify/core/internals/aws-client-utils/composers': {
    get: () => import('@aws-amplify/core/internals/aws-client-utils/composers'),
  },
  '@aws-amplify/auth': { get: () => import('@aws-amplify/auth') },
};
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return */

/** The import paths the shell provides (webpack/federation-check.js checks remotes against them). */
export const providedModules: readonly string[] = Object.keys(modules);

let instance: ModuleFederation | null = null;

/** The page's federation instance: the remotes of the config, the shell's singletons. */
export function federation(config: RuntimeConfig): ModuleFederation {
  instance ??= createInstance({
    name: 'shell',
    remotes: [
      { name: remoteNames.auth, entry: config.remotes.auth },
      { name: remoteNames.uploader, entry: config.remotes.uploader },
    ],
    shared: sharedProvision(modules, __SHARED_VERSIONS__),
    // The page's one federation runtime, handed to the remotes (as the global their entries read),
    // and the checks that a remote was built for it and for the versions of the modules it is given.
    plugins: [provideRuntime(), runtimeContractPlugin(satisfy, providedVersions(modules, __SHARED_VERSIONS__))],
  });
  return instance;
}

// The federation runtime a remote's entry expects from its host (`externalRuntime`, see
// webpack/index.js), for the remote's own page, which has no shell to provide it. Loaded before
// the remote's entry by its standalone index.html; the shell's pages never load this file.
import * as runtimeCore from '@module-federation/runtime-core';

globalThis._FEDERATION_RUNTIME_CORE = runtimeCore;

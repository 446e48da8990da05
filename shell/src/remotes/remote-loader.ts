import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { ExposedModule, RemoteModuleId, RemoteModules, RuntimeConfig } from '@trailsense/shared';
import { nextTask } from '../app/next-task';
import { errorText, reportClientError } from '../monitoring/early-errors';

/** A remote's module could not be loaded (unreachable, or it did not export a component). */
export class RemoteLoadError extends Error {
  constructor(
    readonly moduleId: RemoteModuleId,
    cause?: unknown,
  ) {
    super(`The module ${moduleId} could not be loaded.`, { cause });
    this.name = 'RemoteLoadError';
  }
}

interface RemoteSetup {
  config: RuntimeConfig;
  /** Runs before the first remote loads (the shell configures Amplify there). */
  prepare: () => Promise<unknown>;
  /**
   * The page is hydrating a route's prerendered frame (/login): the first render must draw the
   * frame alone, as the prerender did, and the remote follows once the page is hydrated.
   */
  hydratingFrame?: boolean;
}

let setup: RemoteSetup | null = null;

/**
 * Tells the loader where the remotes are (the runtime config) and what must be ready before one
 * renders. Nothing is fetched here: the federation runtime and Amplify download with the first
 * route that needs a remote, never on the marketing pages.
 */
export function configureRemotes(value: RemoteSetup): void {
  setup = value;
}

/** Whether configureRemotes() has run: false only in the build-time prerender. */
export function remotesConfigured(): boolean {
  return setup !== null;
}

/** Whether the page's first render hydrates a prerendered frame (until frameHydrated()). */
export function hydratingFrame(): boolean {
  return setup?.hydratingFrame === true;
}

/** The prerendered frame is hydrated: remote routes render their remote from now on. */
export function frameHydrated(): void {
  if (setup) setup.hydratingFrame = false;
}

async function loadRemoteModule<Id extends RemoteModuleId>(id: Id): Promise<ExposedModule<Id> | null> {
  if (!setup) throw new Error('configureRemotes() was not called before a remote route rendered.');
  const { config, prepare } = setup;
  // Requesting a chunk appends a <script> element, about 2 ms each at 4× CPU on a phone, and the
  // federation runtime and Amplify are a dozen chunks: each batch is requested in a task of its
  // own, never inside the render that asked for the remote (preloadRemote is called while
  // hydrating /login), so no task on the way to the sign-in form exceeds 50 ms
  // (docs/federation.md#loading-remotes).
  await nextTask();
  const runtime = import('./federation');
  await nextTask();
  const [{ federation }] = await Promise.all([runtime, prepare()]);
  return federation(config).loadRemote<ExposedModule<Id>>(id);
}

/** A remote that did not load is a client error (docs/monitoring.md#clienterror): a broken release shows within minutes. */
function reported(error: RemoteLoadError): RemoteLoadError {
  reportClientError({ kind: 'remote-load', message: errorText(error.cause ?? error), module: error.moduleId });
  return error;
}

type RemoteComponent<Id extends RemoteModuleId> = LazyExoticComponent<ComponentType<RemoteModules[Id]>>;

// Module scope on purpose: a lazy component created during render is a new component each time,
// and a failing remote would then be fetched again on every render (docs/federation.md#loading-remotes).
const cache = new Map<string, RemoteComponent<RemoteModuleId>>();
/** Loads started before their lazy component rendered (preloadRemote), by module and attempt. */
const started = new Map<string, Promise<ExposedModule<RemoteModuleId> | null>>();

/**
 * Starts loading a remote module's first attempt without rendering it: a hydrating frame asks
 * for its remote at once, not only after hydration. The lazy component then uses this load.
 */
export function preloadRemote(id: RemoteModuleId): void {
  const key = `${id}#0`;
  if (cache.has(key) || started.has(key)) return;
  const load = loadRemoteModule(id);
  // Its failure is the lazy component's to report (through the route's error boundary).
  load.catch(() => {});
  started.set(key, load);
}

/**
 * The lazy component for a remote module. One per module and retry attempt: a Retry asks for
 * attempt + 1, which loads afresh (the federation runtime does not cache a failed manifest).
 */
export function lazyRemote<Id extends RemoteModuleId>(id: Id, attempt: number): RemoteComponent<Id> {
  const key = `${id}#${attempt}`;
  let component = cache.get(key) as RemoteComponent<Id> | undefined;
  if (!component) {
    component = lazy(async () => {
      let loaded: ExposedModule<Id> | null;
      const preloaded = started.get(key) as Promise<ExposedModule<Id> | null> | undefined;
      started.delete(key);
      try {
        loaded = await (preloaded ?? loadRemoteModule(id));
      } catch (error) {
        throw reported(new RemoteLoadError(id, error));
      }
      if (!loaded || typeof loaded.default !== 'function') throw reported(new RemoteLoadError(id));
      return loaded;
    });
    cache.set(key, component as RemoteComponent<RemoteModuleId>);
  }
  return component;
}

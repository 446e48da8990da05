import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import {
  hasStoredSession,
  lazySessionSource,
  loadRuntimeConfig,
  readSessionHint,
  sharedInstanceId,
  type RuntimeConfig,
  type UserState,
} from '@trailsense/shared';
import { App } from './app/app';
import { ConfigErrorPage } from './app/config-error-page';
import { preloadAllPages, preloadPage } from './app/route-element';
import { nextTask } from './app/next-task';
import { captureErrors } from './monitoring/early-errors';
import { configureRemotes } from './remotes/remote-loader';
import { frameVariant } from './remotes/route-frames';

/** localStorage, or null where the browser refuses it (privacy modes). */
function browserStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function initialUser(config: RuntimeConfig): UserState | undefined {
  const hint = readSessionHint(browserStorage(), config.auth.userPoolClientId);
  if (hint.kind === 'signed-in') return { status: 'authenticated', user: hint.user };
  if (hint.kind === 'signed-out') return { status: 'unauthenticated' };
  return undefined;
}

async function start() {
  // Errors from here on are reported once monitoring has started (docs/monitoring.md#clienterror).
  captureErrors(window);
  const container = document.getElementById('root')!;
  // Marketing pages arrive prerendered (scripts/prerender.mjs): hydrate them. A framed route
  // (/login, `data-frame`) arrives with its frame, hydrated too when this config draws the same
  // frame, else rendered afresh (the first render's fallback is that frame: nothing moves). App
  // routes arrive empty and render.
  const framed = container.dataset.frame;
  // Visible marker for tests and support: a remote showing another id has its own shared copy.
  document.documentElement.dataset.sharedInstance = sharedInstanceId;
  // The page's own code comes with the config, so hydration renders it at once.
  const [result] = await Promise.all([
    loadRuntimeConfig(),
    preloadPage(window.location.pathname).catch((error: unknown) => console.warn('The page could not be loaded ahead.', error)),
  ]);
  if (!result.ok) {
    console.error('TrailSense cannot start: /config.json has problems:\n- ' + result.problems.join('\n- '));
    container.replaceChildren();
    createRoot(container).render(<ConfigErrorPage problems={result.problems} />);
    return;
  }
  const { config } = result;
  const prerendered = container.firstElementChild !== null && (framed === undefined || framed === frameVariant(config));
  // Amplify downloads with the first need of a session; the rest of the aws half of the shared
  // package (API client, upload journal, analytics) only with a remote that uses it.
  const sessionSource = lazySessionSource(
    async () => {
      // Amplify's core, then its auth with our session module: each evaluated in a task of its
      // own (the chunk arrives once, with the first import), where together they were one task of
      // 80-100 ms at 4× CPU on every signed-in route.
      await import('@aws-amplify/core');
      await nextTask();
      const session = await import('@trailsense/shared/session');
      session.configureAmplifyOnce(config);
      return session.amplifySessionSource;
    },
    () => hasStoredSession(browserStorage()),
  );
  configureRemotes({ config, prepare: () => sessionSource.load(), hydratingFrame: prerendered && framed !== undefined });
  const app = <App config={config} sessionSource={sessionSource} initialUser={initialUser(config)} Router={BrowserRouter} />;
  if (prerendered) {
    // As a transition, hydration yields to the browser every few milliseconds instead of holding
    // the main thread for the whole page: taps and scrolls on a slow phone stay responsive.
    startTransition(() => {
      hydrateRoot(container, app, {
        onRecoverableError: (error) => console.error('TrailSense: the prerendered page did not hydrate cleanly.', error),
      });
    });
  } else {
    // Also as a transition: React renders the app in slices that yield to the browser, not in
    // one long task while the phone is still busy with the scripts that just arrived.
    const root = createRoot(container);
    startTransition(() => root.render(app));
  }
  // The other pages, once the browser has nothing better to do: the next click is instant.
  // Safari has no requestIdleCallback (TypeScript's DOM types say every browser has).
  const whenIdle: (callback: () => void) => void =
    typeof window.requestIdleCallback === 'function' ? (callback) => window.requestIdleCallback(callback) : (callback) => window.setTimeout(callback, 2000);
  const landingPath = window.location.pathname;
  const preloadRest = () =>
    whenIdle(() => {
      void preloadAllPages().catch(() => {});
      // Real-user metrics and error reports, after the page is up: no page waits for them.
      void import('./monitoring/start-monitoring')
        .then(({ startMonitoring }) =>
          startMonitoring({
            config,
            landingPath,
            currentPath: () => window.location.pathname,
          }),
        )
        .catch((error: unknown) => console.warn('Monitoring could not start.', error));
    });
  if (document.readyState === 'complete') preloadRest();
  else window.addEventListener('load', preloadRest, { once: true });
}

void start();

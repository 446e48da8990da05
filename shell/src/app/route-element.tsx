import { Suspense } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { guardDecision, RETURN_TO_PARAM, safeReturnPath, useUser } from '@trailsense/shared';
import { RemoteRoute } from '../remotes/remote-route';
import { lazyPage, type LazyPage } from './lazy-page';
import { LoadingState } from './loading-state';
import { findRoute, type RouteDefinition, type RouteView } from './route-table';

// Each marketing page (and its content) is its own chunk: a first visit downloads only its page.
const pages: Record<Extract<RouteView, { kind: 'page' }>['page'], LazyPage> = {
  home: lazyPage(async () => (await import('../pages/home-page')).HomePage),
  about: lazyPage(async () => (await import('../pages/about-page')).AboutPage),
  videos: lazyPage(async () => (await import('../pages/videos-page')).VideosPage),
  support: lazyPage(async () => (await import('../pages/support-page')).SupportPage),
  contact: lazyPage(async () => (await import('../pages/contact-page')).ContactPage),
};

/** Downloads the code of the page at `pathname`, if it is a marketing page (before hydrating it). */
export function preloadPage(pathname: string): Promise<void> {
  const view = findRoute(pathname)?.view;
  return view?.kind === 'page' ? pages[view.page].preload() : Promise.resolve();
}

/** Downloads every marketing page's code (the prerender; the browser when idle). */
export function preloadAllPages(): Promise<void> {
  return Promise.all(Object.values(pages).map((page) => page.preload())).then(() => undefined);
}

/** A route's content behind the guard: the page, or the remote module with its props. */
export function RouteElement({ route }: { route: RouteDefinition }) {
  const { status } = useUser();
  const location = useLocation();
  const decision = guardDecision(status, route.requiresAuth, `${location.pathname}${location.search}`);
  if (decision.kind === 'wait') return <LoadingState label="Checking your sign-in…" />;
  if (decision.kind === 'redirect') return <Navigate to={decision.to} replace />;

  const { view } = route;
  if (view.kind === 'page') {
    const Page = pages[view.page].Component;
    return (
      <Suspense fallback={<LoadingState label="Loading the page…" />}>
        <Page />
      </Suspense>
    );
  }
  if (view.module === 'auth/Login') {
    const returnTo = safeReturnPath(new URLSearchParams(location.search).get(RETURN_TO_PARAM));
    return <RemoteRoute module="auth/Login" props={returnTo ? { returnTo } : {}} />;
  }
  return <RemoteRoute module={view.module} props={{}} />;
}

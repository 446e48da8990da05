import type { ReactElement } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { guardDecision, RETURN_TO_PARAM, safeReturnPath, useUser } from '@trailsense/shared';
import { AboutPage } from '../pages/about-page';
import { ContactPage } from '../pages/contact-page';
import { HomePage } from '../pages/home-page';
import { SupportPage } from '../pages/support-page';
import { VideosPage } from '../pages/videos-page';
import { RemoteRoute } from '../remotes/remote-route';
import { LoadingState } from './loading-state';
import type { RouteDefinition, RouteView } from './route-table';

const pages: Record<Extract<RouteView, { kind: 'page' }>['page'], () => ReactElement> = {
  home: HomePage,
  about: AboutPage,
  videos: VideosPage,
  support: SupportPage,
  contact: ContactPage,
};

/** A route's content behind the guard: the page, or the remote module with its props. */
export function RouteElement({ route }: { route: RouteDefinition }) {
  const { status } = useUser();
  const location = useLocation();
  const decision = guardDecision(status, route.requiresAuth, `${location.pathname}${location.search}`);
  if (decision.kind === 'wait') return <LoadingState label="Checking your sign-in…" />;
  if (decision.kind === 'redirect') return <Navigate to={decision.to} replace />;

  const { view } = route;
  if (view.kind === 'page') {
    const Page = pages[view.page];
    return <Page />;
  }
  if (view.module === 'auth/Login') {
    const returnTo = safeReturnPath(new URLSearchParams(location.search).get(RETURN_TO_PARAM));
    return <RemoteRoute module="auth/Login" props={returnTo ? { returnTo } : {}} />;
  }
  return <RemoteRoute module={view.module} props={{}} />;
}

import { StrictMode, useEffect, useMemo, useRef, type ComponentType, type ReactNode } from 'react';
import { Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import {
  afterSignInPath,
  BrandProvider,
  ConfigProvider,
  LOGIN_PATH,
  loginPathFor,
  NavigationProvider,
  UserProvider,
  useUser,
  type Navigation,
  type RuntimeConfig,
  type SessionSource,
  type UserState,
} from '@trailsense/shared';
import { AppErrorBoundary } from './app-error-boundary';
import { NotFoundPage } from '../pages/not-found-page';
import { Footer } from './footer';
import { GetAppToolbar } from './get-app-toolbar';
import { Header } from './header';
import { RouteElement } from './route-element';
import { findRoute, routes } from './route-table';
import { useRouteHead } from './use-route-head';
import './theme.css';
import './layout.css';
// With the first load, not with each page's chunk: the prerendered pages need it to paint.
import '../pages/pages.css';

export interface AppProps {
  config: RuntimeConfig;
  sessionSource: SessionSource;
  /** The user state of the first render (from the stored-session hint). */
  initialUser?: UserState;
  /** The router: the browser's in the page, a static one (at a given path) when prerendering. */
  Router: ComponentType<{ children: ReactNode }>;
}

/**
 * The shell: providers every remote shares, the router, and the layout. The page and the
 * prerender render exactly this tree, so the prerendered HTML hydrates without a mismatch.
 */
export function App({ config, sessionSource, initialUser, Router }: AppProps) {
  return (
    <StrictMode>
      <AppErrorBoundary>
        <ConfigProvider value={config}>
          <BrandProvider value={config.brand}>
            <UserProvider source={sessionSource} {...(initialUser ? { initialState: initialUser } : {})}>
              <Router>
                <RouterNavigation>
                  <Layout />
                </RouterNavigation>
              </Router>
            </UserProvider>
          </BrandProvider>
        </ConfigProvider>
      </AppErrorBoundary>
    </StrictMode>
  );
}

/** Gives remotes the shell's client-side navigation through the shared package. */
function RouterNavigation({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const value = useMemo<Navigation>(() => ({ navigate: (to, options) => void navigate(to, options) }), [navigate]);
  return <NavigationProvider value={value}>{children}</NavigationProvider>;
}

function Layout() {
  const location = useLocation();
  const route = findRoute(location.pathname);
  useRouteHead(route);
  useAuthRedirects(location.pathname, location.search);
  const mainRef = useFocusMainOnNavigation(location.pathname);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      {(route?.showGetApp ?? true) && <GetAppToolbar />}
      <main id="main" ref={mainRef} tabIndex={-1}>
        <Routes>
          {routes.map((r) => (
            <Route key={r.path} path={r.path} element={<RouteElement route={r} />} />
          ))}
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </main>
      <Footer />
    </>
  );
}

/**
 * Auth-state routing (docs/product.md#after-sign-in-and-sign-out). On a sign-out the browser goes to /login — except after an
 * account deletion, which its own screen confirms. A session that ended by itself (a refresh the
 * pool refused) goes to /login?returnTo=<here>, so signing in again comes back to it (the
 * uploader's paused batch waits there). On start, a
 * user already signed in who opens the home or sign-in page goes on to the uploader (or the
 * profile, without a ranch); deep links to other pages are respected.
 */
function useAuthRedirects(pathname: string, search: string) {
  const user = useUser();
  const navigate = useNavigate();
  const previous = useRef(user.status);
  const startPath = useRef(pathname);
  const startHandled = useRef(false);
  const here = useRef(`${pathname}${search}`);
  // Effects run in order: the redirect below sees the path of the same commit.
  useEffect(() => {
    here.current = `${pathname}${search}`;
  });
  useEffect(() => {
    const was = previous.current;
    previous.current = user.status;
    if (was === 'authenticated' && user.status === 'unauthenticated' && user.reason !== 'account-deleted') {
      void navigate(user.reason === 'session-ended' ? loginPathFor(here.current) : LOGIN_PATH);
    } else if (user.status === 'authenticated' && startPath.current === '/' && !startHandled.current) {
      // At start only (the session may be known from the first render, or once it is read).
      startHandled.current = true;
      void navigate(afterSignInPath(user.user, null), { replace: true });
    }
    if (user.status !== 'configuring') startHandled.current = true;
  }, [user, navigate]);
}

/** After a client-side navigation, focus moves to the content so screen readers start there. */
function useFocusMainOnNavigation(pathname: string) {
  const ref = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    ref.current?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [pathname]);
  return ref;
}

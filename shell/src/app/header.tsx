import { useEffect, useSyncExternalStore, type MouseEvent } from 'react';
import { NavLink, Link } from 'react-router-dom';
import { confirmLeave, useBrand, useUser, type AuthStatus } from '@trailsense/shared';
import { headerLinks, type HeaderLink } from './route-table';

/**
 * Which auth links the header renders. Until the page has hydrated, and while the session is
 * unknown, it renders both sets and the stylesheet shows one by `<html data-session>`, which an
 * inline script sets from the stored session before first paint: the prerendered header is right
 * without JavaScript having run, and hydration sees the markup it rendered on the server.
 */
export type HeaderAuthLinks = 'signed-in' | 'signed-out' | 'by-stylesheet';

export function headerAuthLinks(hydrated: boolean, status: AuthStatus): HeaderAuthLinks {
  if (!hydrated || status === 'configuring') return 'by-stylesheet';
  return status === 'authenticated' ? 'signed-in' : 'signed-out';
}

/** Nothing to subscribe to: the hydration flag below never changes once the page is live. */
const noSubscription = () => () => {};

/** The site header: logo, page links, and the signed-in or signed-out links (docs/product.md#header-footer-and-get-app-toolbar). */
export function Header() {
  const brand = useBrand();
  const user = useUser();
  // false while hydrating the prerendered page (it must render as the build did), true after.
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const mode = headerAuthLinks(hydrated, user.status);
  useEffect(() => {
    // Keeps the stylesheet's switch in step with the session once it is known.
    if (user.status === 'authenticated' || user.status === 'unauthenticated') {
      document.documentElement.dataset.session = user.status === 'authenticated' ? 'signed-in' : 'signed-out';
    }
  }, [user.status]);

  // A screen with work in progress (an upload batch) may ask before the user navigates away.
  const guardLeave = (event: MouseEvent) => {
    if (!confirmLeave()) event.preventDefault();
  };
  const item = (link: HeaderLink, className?: string) => (
    <li key={link.to} className={className}>
      <NavLink to={link.to} onClick={guardLeave}>
        {link.label}
      </NavLink>
    </li>
  );
  const showSignedIn = mode !== 'signed-out';
  const showSignedOut = mode !== 'signed-in';
  const only = (set: 'in' | 'out') => (mode === 'by-stylesheet' ? `when-signed-${set}` : undefined);
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to="/" className="site-header__logo" onClick={guardLeave}>
          <img src="/logo.svg" alt={`${brand.productName} home`} width={40} height={40} />
          <span aria-hidden="true">{brand.productName}</span>
        </Link>
        <nav aria-label="Main">
          <ul className="site-nav">
            {headerLinks.pages.map((link) => item(link))}
            {showSignedOut && headerLinks.signedOut.map((link) => item(link, only('out')))}
            {showSignedIn && headerLinks.signedIn.map((link) => item(link, only('in')))}
            {showSignedIn && (
              <li className={only('in')}>
                <button type="button" className="site-nav__logout" onClick={() => confirmLeave() && void user.signOut()}>
                  Logout
                </button>
              </li>
            )}
          </ul>
        </nav>
      </div>
    </header>
  );
}

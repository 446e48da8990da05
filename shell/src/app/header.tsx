import { NavLink, Link } from 'react-router-dom';
import { confirmLeave, useBrand, useUser } from '@trailsense/shared';
import type { MouseEvent } from 'react';
import { headerLinks } from './route-table';

/** The site header: logo, page links, and the signed-in or signed-out links (SPEC.md §2). */
export function Header() {
  const brand = useBrand();
  const user = useUser();
  const signedIn = user.status === 'authenticated';
  // While the session is read, the auth links are left out rather than guessed.
  const links = headerLinks(signedIn).filter(
    (link) => user.status !== 'configuring' || !['/login', '/uploader', '/profile'].includes(link.to),
  );
  // A screen with work in progress (an upload batch) may ask before the user navigates away.
  const guardLeave = (event: MouseEvent) => {
    if (!confirmLeave()) event.preventDefault();
  };
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to="/" className="site-header__logo" onClick={guardLeave}>
          <img src="/logo.svg" alt={`${brand.productName} home`} width={40} height={40} />
          <span aria-hidden="true">{brand.productName}</span>
        </Link>
        <nav aria-label="Main">
          <ul className="site-nav">
            {links.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} onClick={guardLeave}>
                  {link.label}
                </NavLink>
              </li>
            ))}
            {signedIn && (
              <li>
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

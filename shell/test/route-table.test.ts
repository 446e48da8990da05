import { findRoute, headerLinks, notFoundRoute, routes } from '../src/app/route-table';

describe('routes', () => {
  it('has every route docs/product.md#screens-and-routes lists', () => {
    expect(routes.map((r) => r.path)).toEqual(['/', '/about', '/videos', '/support', '/contact', '/login', '/uploader', '/profile', '/delete']);
  });

  it('gives every route its own title and a meta description of useful length', () => {
    const titles = new Set(routes.map((r) => r.title));
    expect(titles.size).toBe(routes.length);
    for (const route of [...routes, notFoundRoute]) {
      expect(route.title).toContain('{product}');
      expect(route.description.length).toBeGreaterThanOrEqual(50);
      expect(route.description.length).toBeLessThanOrEqual(160);
    }
  });

  it('needs sign-in only for /uploader and /profile', () => {
    expect(routes.filter((r) => r.requiresAuth).map((r) => r.path)).toEqual(['/uploader', '/profile']);
  });

  it('hides the Get App toolbar on /login and on routes needing sign-in', () => {
    expect(routes.filter((r) => !r.showGetApp).map((r) => r.path)).toEqual(['/login', '/uploader', '/profile']);
    expect(notFoundRoute.showGetApp).toBe(true);
  });

  it('loads remotes only for the sign-in, profile, delete and uploader routes', () => {
    const remote = routes.filter((r) => r.view.kind === 'remote').map((r) => r.path);
    expect(remote).toEqual(['/login', '/uploader', '/profile', '/delete']);
  });
});

describe('findRoute', () => {
  it('finds a route, ignoring a trailing slash', () => {
    expect(findRoute('/support/')?.path).toBe('/support');
    expect(findRoute('/')?.path).toBe('/');
  });

  it('returns undefined for an unknown path (the 404 page)', () => {
    expect(findRoute('/no-such-page')).toBeUndefined();
  });
});

describe('headerLinks', () => {
  it('lists the pages for everyone, Login for a visitor', () => {
    expect([...headerLinks.pages, ...headerLinks.signedOut].map((l) => l.label)).toEqual(['About Us', 'Videos', 'FAQ', 'Contact', 'Login']);
    expect(headerLinks.signedOut).toEqual([{ to: '/login', label: 'Login' }]);
  });

  it('shows Upload and Profile to a signed-in user', () => {
    expect([...headerLinks.pages, ...headerLinks.signedIn]).toEqual([
      { to: '/about', label: 'About Us' },
      { to: '/videos', label: 'Videos' },
      { to: '/support', label: 'FAQ' },
      { to: '/contact', label: 'Contact' },
      { to: '/uploader', label: 'Upload' },
      { to: '/profile', label: 'Profile' },
    ]);
  });
});

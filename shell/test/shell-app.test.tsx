import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { UserProvider } from '@trailsense/shared';
import { Header } from '../src/app/header';
import { Footer } from '../src/app/footer';
import { preloadAllPages, RouteElement } from '../src/app/route-element';
import { findRoute } from '../src/app/route-table';
import { ConfigErrorPage } from '../src/app/config-error-page';
import { FakeSessionSource, subscriberUser } from '../../test-support/fake-session-source';

function Where() {
  const location = useLocation();
  return <p>at {`${location.pathname}${location.search}`}</p>;
}

function renderAt(path: string, source: FakeSessionSource) {
  return render(
    <UserProvider source={source}>
      <MemoryRouter initialEntries={[path]}>
        <Header />
        <Routes>
          <Route path="/profile" element={<RouteElement route={findRoute('/profile')!} />} />
          <Route path="/about" element={<RouteElement route={findRoute('/about')!} />} />
          <Route path="*" element={<Where />} />
        </Routes>
        <Footer />
      </MemoryRouter>
    </UserProvider>,
  );
}

// The pages' code is downloaded ahead, as the page does before hydrating (lazy-page.test.tsx
// covers the download itself).
beforeAll(() => preloadAllPages());

describe('route guard', () => {
  it('sends a visitor from a protected route to /login, remembering where they were going', async () => {
    renderAt('/profile', new FakeSessionSource(null));
    expect(await screen.findByText('at /login?returnTo=%2Fprofile')).toBeInTheDocument();
  });

  it('shows a loading state, not a redirect, while the session is read', () => {
    const source = new FakeSessionSource(subscriberUser);
    source.currentUser = () => new Promise(() => {});
    renderAt('/profile', source);
    expect(screen.getByRole('status')).toHaveTextContent('Checking your sign-in…');
  });

  it('lets anyone see a marketing page', async () => {
    renderAt('/about', new FakeSessionSource(null));
    expect(await screen.findByRole('heading', { level: 1 })).toBeInTheDocument();
  });
});

describe('Header', () => {
  it('offers Login to a visitor', async () => {
    renderAt('/about', new FakeSessionSource(null));
    const nav = screen.getByRole('navigation', { name: 'Main' });
    // While the session is read the header draws both sets (the stylesheet shows one): wait until
    // it is known, not for the first Login link.
    await waitFor(() => expect(within(nav).queryByRole('button', { name: 'Logout' })).not.toBeInTheDocument());
    expect(within(nav).getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('link', { name: 'TrailSense home' })).toHaveAttribute('href', '/');
  });

  it('offers Upload, Profile and Logout to a signed-in user, and Logout signs out', async () => {
    const source = new FakeSessionSource(subscriberUser);
    renderAt('/about', source);
    const nav = screen.getByRole('navigation', { name: 'Main' });
    await waitFor(() => expect(within(nav).queryByRole('link', { name: 'Login' })).not.toBeInTheDocument());
    expect(within(nav).getByRole('link', { name: 'Upload' })).toHaveAttribute('href', '/uploader');
    expect(within(nav).getByRole('link', { name: 'Profile' })).toHaveAttribute('href', '/profile');
    await userEvent.click(within(nav).getByRole('button', { name: 'Logout' }));
    expect(source.signOutCalls).toHaveLength(1);
    expect(await within(nav).findByRole('link', { name: 'Login' })).toBeInTheDocument();
  });
});

describe('Footer', () => {
  it('links both policies and carries the 2025 copyright', async () => {
    renderAt('/about', new FakeSessionSource(null));
    await screen.findByRole('link', { name: 'Login' });
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacypolicy.html');
    expect(within(footer).getByRole('link', { name: 'Terms & Conditions' })).toHaveAttribute('href', '/termsandconditions.html');
    expect(footer).toHaveTextContent('© 2025 TrailSense. All rights reserved.');
  });
});

describe('ConfigErrorPage', () => {
  it('lists every problem for the operators and tells visitors what to do', () => {
    render(<ConfigErrorPage problems={['"auth" is missing.', '"api.baseUrl" is missing.']} />);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('TrailSense can’t start right now');
    expect(screen.getByText(/has 2 problems/)).toBeInTheDocument();
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['"auth" is missing.', '"api.baseUrl" is missing.']);
  });
});

import type { RemoteModuleId } from '@trailsense/shared';

/** What a route renders: one of the shell's own pages, or a remote's exposed module. */
export type RouteView = { kind: 'page'; page: 'home' | 'about' | 'videos' | 'support' | 'contact' } | { kind: 'remote'; module: RemoteModuleId };

/** One entry of the route table: path, metadata for the head, and whether sign-in is needed.
 * `title` and `description` may contain {product}, filled from the brand. */
export interface RouteDefinition {
  path: string;
  title: string;
  description: string;
  requiresAuth: boolean;
  view: RouteView;
  /** Whether the Get App toolbar shows (hidden on /login and on routes needing sign-in). */
  showGetApp: boolean;
  /** Link text in the header, for routes the header lists. */
  navLabel?: string;
}

type Entry = Omit<RouteDefinition, 'showGetApp'>;

const entries: Entry[] = [
  {
    path: '/',
    title: '{product} — AI trail camera analysis for deer and hog hunters',
    description:
      '{product} identifies bucks, does and hogs in your trail-camera photos, adds date, time, location, weather and moon phase, and predicts the best time to hunt.',
    requiresAuth: false,
    view: { kind: 'page', page: 'home' },
  },
  {
    path: '/about',
    title: 'About Us | {product}',
    description: '{product} was founded in late 2020 by two brothers who hunt — the story behind the app.',
    requiresAuth: false,
    view: { kind: 'page', page: 'about' },
    navLabel: 'About Us',
  },
  {
    path: '/videos',
    title: 'Videos | {product}',
    description: 'Trail camera setup and hunting strategy videos from {product} are coming soon.',
    requiresAuth: false,
    view: { kind: 'page', page: 'videos' },
    navLabel: 'Videos',
  },
  {
    path: '/support',
    title: 'FAQ and Camera Setup Tips | {product}',
    description: 'Answers about cameras per account, photo upload limits and upload speed, plus seven trail camera setup tips from {product}.',
    requiresAuth: false,
    view: { kind: 'page', page: 'support' },
    navLabel: 'FAQ',
  },
  {
    path: '/contact',
    title: 'Contact | {product}',
    description: 'Contact {product} support by email, read the FAQ, or get the app for iPhone and Android.',
    requiresAuth: false,
    view: { kind: 'page', page: 'contact' },
    navLabel: 'Contact',
  },
  {
    path: '/login',
    title: 'Sign In | {product}',
    description: 'Sign in to {product} to upload trail camera photos in bulk for your ranch.',
    requiresAuth: false,
    view: { kind: 'remote', module: 'auth/Login' },
  },
  {
    path: '/uploader',
    title: 'Upload Photos | {product}',
    description: 'Upload trail camera photos from an SD card to {product} in bulk.',
    requiresAuth: true,
    view: { kind: 'remote', module: 'uploader/Uploader' },
  },
  {
    path: '/profile',
    title: 'Profile | {product}',
    description: 'Your {product} profile: name, phone number, ranch and password.',
    requiresAuth: true,
    view: { kind: 'remote', module: 'auth/Profile' },
  },
  {
    path: '/delete',
    title: 'Delete Your Account | {product}',
    description: 'How to delete your {product} account and what deleting it removes.',
    requiresAuth: false,
    view: { kind: 'remote', module: 'auth/DeleteAccount' },
  },
];

/** Every route of the site (docs/product.md#screens-and-routes), in header order. */
export const routes: readonly RouteDefinition[] = entries.map((entry) => ({
  ...entry,
  showGetApp: entry.path !== '/login' && !entry.requiresAuth,
}));

/** Metadata of the 404 page, shown for any path not in the table. */
export const notFoundRoute = {
  title: 'Page not found | {product}',
  description: 'The page you were looking for is not on the {product} site.',
  showGetApp: true,
} as const;

/** The route for a path (ignoring a trailing slash), or undefined for a 404. */
export function findRoute(pathname: string): RouteDefinition | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return routes.find((route) => route.path === path);
}

export interface HeaderLink {
  to: string;
  label: string;
}

/**
 * The header's links (docs/product.md#header-footer-and-get-app-toolbar): the pages everyone sees, then the visitor's or the
 * signed-in user's. Kept apart because the prerendered header carries both sets (header.tsx).
 */
export const headerLinks: { pages: readonly HeaderLink[]; signedOut: readonly HeaderLink[]; signedIn: readonly HeaderLink[] } = {
  pages: routes.filter((r) => r.navLabel).map((r) => ({ to: r.path, label: r.navLabel! })),
  signedOut: [{ to: '/login', label: 'Login' }],
  signedIn: [
    { to: '/uploader', label: 'Upload' },
    { to: '/profile', label: 'Profile' },
  ],
};

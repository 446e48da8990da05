// The prerender entry (run in Node by scripts/prerender.mjs at build time, never shipped): renders
// each marketing route with the very tree the page hydrates (App), at that path.
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router-dom';
import { hasStoredSession, type RuntimeConfig, type SessionSource } from '@trailsense/shared';

export { parseRuntimeConfig } from '@trailsense/shared';
import { App } from './app/app';
import { jsonLdScriptText } from './app/faq-json-ld';
import type { HeadData } from './app/head';
import { findRoute, routes, type RouteDefinition } from './app/route-table';
import { routeFrames } from './remotes/route-frames';
import { routeHead } from './app/use-route-head';

/** Nobody is signed in at build time; effects (where the session would be read) never run here. */
const buildTimeSession: SessionSource = {
  currentUser: () => Promise.resolve(null),
  signOut: async () => {},
  deleteAccount: async () => {},
  onAuthEvent: () => () => {},
};

/** The paths the build prerenders (marketing pages) and a path that renders the 404 page. */
export const prerenderedPaths = routes.filter((route) => route.view.kind === 'page').map((route) => route.path);
export const notFoundPath = '/__not-found__';
/**
 * Remote routes open to everyone that have a frame (/login): prerendered with the frame in place
 * of the remote. The page hydrates the frame (its first render draws the frame alone, as here)
 * when its config draws the same frame (`frameVariant`, written as the root's `data-frame`), else
 * renders afresh; the remote then takes the frame's place.
 */
export { frameVariant } from './remotes/route-frames';
const isFramed = (route: RouteDefinition) => route.view.kind === 'remote' && !route.requiresAuth && routeFrames[route.view.module] !== undefined;
export const framedPaths = routes.filter(isFramed).map((route) => route.path);
/** The remote each framed path loads first (its manifest is worth fetching with the HTML). */
export function framedRemote(pathname: string): 'auth' | 'uploader' | undefined {
  const view = findRoute(pathname)?.view;
  return view?.kind === 'remote' ? (view.module.split('/')[0] as 'auth' | 'uploader') : undefined;
}
/** Routes the browser renders itself (uploader, profile…): served the page without content. */
export const appPaths = routes.filter((route) => route.view.kind !== 'page' && !isFramed(route)).map((route) => route.path);

/** Every page's code must be loaded before rendering: renderToString cannot wait for a download. */
export { preloadAllPages } from './app/route-element';

export interface PrerenderedPage {
  /** The markup of `#root`. */
  html: string;
  head: HeadData;
  /** The head's JSON-LD as script text, if the route has structured data. */
  jsonLdText?: string;
}

export function prerender(pathname: string, config: RuntimeConfig): PrerenderedPage {
  const Router = ({ children }: { children: ReactNode }) => <StaticRouter location={pathname}>{children}</StaticRouter>;
  const html = renderToString(<App config={config} sessionSource={buildTimeSession} Router={Router} />);
  const head = routeHead(findRoute(pathname), config.brand);
  return { html, head, ...(head.jsonLd === undefined ? {} : { jsonLdText: jsonLdScriptText(head.jsonLd) }) };
}

/**
 * The inline script that sets `<html data-session="signed-in">` before first paint when the
 * browser holds a session, so the prerendered header shows the right links at once. It is the
 * shared package's own check, serialised (the function is self-contained for that reason).
 */
export function sessionScript(): string {
  return `try{if((${hasStoredSession.toString()})(window.localStorage))document.documentElement.dataset.session='signed-in'}catch(e){}`;
}

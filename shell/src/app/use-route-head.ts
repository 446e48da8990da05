import { useEffect } from 'react';
import { fillBrand, useBrand, type Brand } from '@trailsense/shared';
import { faq } from '../content/faq';
import { faqJsonLd, jsonLdScriptText } from './faq-json-ld';
import { applyHead, type HeadData } from './head';
import { notFoundRoute, type RouteDefinition } from './route-table';

/** A route's head (the 404 page's for no route): what the page sets and the prerender writes. */
export function routeHead(route: RouteDefinition | undefined, brand: Brand): HeadData {
  const meta = route ?? notFoundRoute;
  return {
    title: fillBrand(meta.title, brand),
    description: fillBrand(meta.description, brand),
    ...(route?.path === '/support' ? { jsonLd: faqJsonLd(faq) } : {}),
  };
}

/** Sets the title, meta description and structured data of the current route on every navigation. */
export function useRouteHead(route: RouteDefinition | undefined): void {
  const brand = useBrand();
  useEffect(() => {
    applyHead(document, routeHead(route, brand), jsonLdScriptText);
  }, [route, brand]);
}

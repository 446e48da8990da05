import { useEffect } from 'react';
import { fillBrand, useBrand } from '@trailsense/shared';
import { faq } from '../content/faq';
import { faqJsonLd, jsonLdScriptText } from './faq-json-ld';
import { applyHead } from './head';
import { notFoundRoute, type RouteDefinition } from './route-table';

/** Sets the title, meta description and structured data of the current route on every navigation. */
export function useRouteHead(route: RouteDefinition | undefined): void {
  const brand = useBrand();
  useEffect(() => {
    const meta = route ?? notFoundRoute;
    applyHead(
      document,
      {
        title: fillBrand(meta.title, brand),
        description: fillBrand(meta.description, brand),
        ...(route?.path === '/support' ? { jsonLd: faqJsonLd(faq) } : {}),
      },
      jsonLdScriptText,
    );
  }, [route, brand]);
}

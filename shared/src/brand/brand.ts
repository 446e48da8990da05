import type { Brand } from '../config/types';

/** The brand used wherever a text writes {product} or {email} (docs/product.md#brand); `/config.json` may override any field. */
export const defaultBrand: Brand = {
  productName: 'TrailSense',
  supportEmail: 'support@trailsense.example',
  appStoreUrl: 'https://apps.apple.com/us/app/trailsense/id6450000000',
  googlePlayUrl: 'https://play.google.com/store/apps/details?id=com.trailsense.app',
  qrTargetUrl: 'https://trailsense.example/app',
};

/**
 * The site's own pages every app links to (the shell serves them): paths on the site's origin,
 * so a remote inside the shell links to the shell's pages without knowing where they are kept.
 */
export interface BrandPages {
  privacyPolicyUrl: string;
  termsUrl: string;
}

export const defaultBrandPages: BrandPages = {
  privacyPolicyUrl: '/privacypolicy.html',
  termsUrl: '/termsandconditions.html',
};

/** A brand with the site's pages: the defaults, unless the brand names its own. */
export type SiteBrand = Brand & BrandPages;

/** Completes a brand with the site's pages; values the brand carries win. */
export function withBrandPages(brand: Brand & Partial<BrandPages>): SiteBrand {
  return { ...defaultBrandPages, ...brand };
}

/** The copyright year the footer shows (docs/product.md#brand). */
export const copyrightYear = 2025;

/** Replaces {product} and {email} in a template (docs/product.md#brand). */
export function fillBrand(template: string, brand: Brand): string {
  return template.replaceAll('{product}', brand.productName).replaceAll('{email}', brand.supportEmail);
}

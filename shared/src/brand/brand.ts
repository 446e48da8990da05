import type { Brand } from '../config/types';

/** The brand used wherever a text writes {product} or {email} (docs/product.md#brand); `/config.json` may override any field. */
export const defaultBrand: Brand = {
  productName: 'TrailSense',
  supportEmail: 'support@trailsense.example',
  appStoreUrl: 'https://apps.apple.com/us/app/trailsense/id6450000000',
  googlePlayUrl: 'https://play.google.com/store/apps/details?id=com.trailsense.app',
  qrTargetUrl: 'https://trailsense.example/app',
  privacyPolicyUrl: '/privacypolicy.html',
  termsUrl: '/termsandconditions.html',
};

/** The copyright year the footer shows (docs/product.md#brand). */
export const copyrightYear = 2025;

/** Replaces {product} and {email} in a template (docs/product.md#brand). */
export function fillBrand(template: string, brand: Brand): string {
  return template.replaceAll('{product}', brand.productName).replaceAll('{email}', brand.supportEmail);
}

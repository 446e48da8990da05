import { copyrightYear, useBrand } from '@trailsense/shared';

/** The site footer: policy links and the copyright line (docs/product.md#header-footer-and-get-app-toolbar). */
export function Footer() {
  const brand = useBrand();
  return (
    <footer className="site-footer">
      <nav aria-label="Legal">
        <ul>
          <li>
            <a href={brand.privacyPolicyUrl}>Privacy Policy</a>
          </li>
          <li>
            <a href={brand.termsUrl}>Terms &amp; Conditions</a>
          </li>
        </ul>
      </nav>
      <p>
        © {copyrightYear} {brand.productName}. All rights reserved.
      </p>
    </footer>
  );
}

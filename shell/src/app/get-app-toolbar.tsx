import { useEffect, useId, useRef, useState } from 'react';
import { useBrand } from '@trailsense/shared';

/** Size of the toolbar's images (docs/product.md#layout-constants). */
const BADGE = { width: 150, height: 50 };
const QR_SIZE = 100;

/**
 * The Get App toolbar: App Store badge, QR code and Google Play badge, separated by "OR".
 * At 768 px or less it collapses behind a "Get App" toggle; wider, the toggle is hidden by CSS
 * and the panel is always open, so the layout needs no JavaScript to be right.
 */
export interface GetAppToolbarProps {
  /** Makes the QR image's URL; by default the encoder chunk, loaded when the code is first on screen. */
  qrEncoder?: (text: string) => Promise<string>;
}

const loadQrEncoder = async (text: string) => (await import('./qr-code')).qrCodeDataUrl(text);

export function GetAppToolbar({ qrEncoder = loadQrEncoder }: GetAppToolbarProps) {
  const brand = useBrand();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  return (
    <aside className="get-app" aria-label={`Get the ${brand.productName} app`}>
      <button type="button" className="get-app__toggle" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
        Get App <span className="get-app__arrow" aria-hidden="true" />
      </button>
      <div id={panelId} className="get-app__panel" data-open={open}>
        <a href={brand.appStoreUrl} className="get-app__badge">
          <img src="/badges/app-store.svg" alt="Download on the App Store" width={BADGE.width} height={BADGE.height} />
        </a>
        <span className="get-app__or">OR</span>
        <QrCode url={brand.qrTargetUrl} encoder={qrEncoder} label={`QR code: scan with your phone to get the ${brand.productName} app`} />
        <span className="get-app__or">OR</span>
        <a href={brand.googlePlayUrl} className="get-app__badge">
          <img src="/badges/google-play.svg" alt="Get it on Google Play" width={BADGE.width} height={BADGE.height} />
        </a>
      </div>
    </aside>
  );
}

/**
 * The QR image, made once its box is on screen (the panel is collapsed on phones, and making the
 * code is the page's costliest task there); a failure is logged and leaves a blank box.
 */
function QrCode({ url, label, encoder }: { url: string; label: string; encoder: (text: string) => Promise<string> }) {
  const [src, setSrc] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const box = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element || typeof IntersectionObserver === 'undefined') {
      setShown(true);
      return;
    }
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        setShown(true);
        observer.disconnect();
      }
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    if (!shown) return;
    let live = true;
    encoder(url)
      .then((dataUrl) => {
        if (live) setSrc(dataUrl);
      })
      .catch((error: unknown) => console.error('The Get App QR code could not be generated.', error));
    return () => {
      live = false;
    };
  }, [shown, url, encoder]);
  // The box keeps its size while the code is made, so nothing shifts: `.get-app__qr` sizes it
  // (layout.css), never a style="" in the prerendered markup, which the Content-Security-Policy's
  // style-src refuses (infra/docs/server.md#security-headers).
  return src ? (
    <img className="get-app__qr" src={src} alt={label} width={QR_SIZE} height={QR_SIZE} />
  ) : (
    <span ref={box} className="get-app__qr" aria-hidden="true" />
  );
}

import qrcode from 'qrcode-generator';

/**
 * An SVG data URL of a QR code for `text`. Type 0 picks the smallest version that fits; level
 * M survives a smudged screen. Throws when the text cannot be encoded.
 */
export function qrCodeDataUrl(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const svg = qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

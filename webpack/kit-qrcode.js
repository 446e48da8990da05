// What the sign-in kit gets for `import QRCode from 'qrcode'` (webpack/index.js): the same
// `toDataURL`, with the library itself loaded on first use, in a chunk of its own. The kit draws a
// QR code only on its TOTP setup screen (our pool has MFA off), yet imported the library with the
// form: 22 KB of code evaluated on the way to a usable sign-in form on every phone.
export default {
  // eslint-disable-next-line import-x/no-extraneous-dependencies -- the kit's own dependency, which it would have imported
  toDataURL: (...args) => import('qrcode/lib/browser.js').then((qrcode) => (qrcode.default ?? qrcode).toDataURL(...args)),
};

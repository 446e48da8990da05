// The hashes the prerender lists in routes.json for the Content-Security-Policy's script-src.
import crypto from 'node:crypto';
import { cspHashSource, inlineScriptHashes } from '../prerender.mjs';

const sha256 = (text) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('cspHashSource', () => {
  test('is the base64 SHA-256 of the exact script text, quoted as a CSP source', () => {
    expect(cspHashSource('')).toBe("'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
    expect(cspHashSource('document.documentElement.dataset.session="signed-in"')).toBe(sha256('document.documentElement.dataset.session="signed-in"'));
  });

  test('hashes UTF-8 text (a non-ASCII character changes the bytes, not just the length)', () => {
    expect(cspHashSource('"’"')).toBe(sha256('"’"'));
    expect(cspHashSource('"’"')).not.toBe(cspHashSource('"\'"'));
  });
});

describe('inlineScriptHashes', () => {
  const page = (head) => `<!doctype html><html><head><meta charset="utf-8">${head}</head><body><div id="root"></div></body></html>`;

  test('lists every inline executable script, once', () => {
    const html = page('<script>a()</script><script type="module">b()</script><script type="text/javascript">a()</script><script>a()</script>');
    expect(inlineScriptHashes(html)).toEqual([sha256('a()'), sha256('b()')]);
  });

  test('skips scripts with src (allowed by origin) and data blocks such as JSON-LD', () => {
    const html = page(
      '<script defer="defer" src="/main.1234567890.js"></script><script src=/x.js></script>' +
        '<script type="application/ld+json" id="route-json-ld">{"@type":"FAQPage"}</script><script>s()</script>',
    );
    expect(inlineScriptHashes(html)).toEqual([sha256('s()')]);
  });

  test('a page without inline scripts needs no hash', () => {
    expect(inlineScriptHashes(page('<link rel="stylesheet" href="/a.css">'))).toEqual([]);
  });
});

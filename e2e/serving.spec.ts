import { expect, test, type APIRequestContext } from './support/test';

/**
 * How the local production server (scripts/static-server.mjs) serves the builds, as the CDN must:
 * the build's precompressed copies, entry files revalidated on every load (a release shows up on
 * the next visit), hashed chunks cached for a year.
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';

async function headersOf(request: APIRequestContext, url: string, encoding = 'br, gzip') {
  const response = await request.get(url, { headers: { 'Accept-Encoding': encoding } });
  expect(response.status(), url).toBe(200);
  return response.headers();
}

test('entry files are served no-cache, and precompressed', async ({ request }) => {
  for (const url of [
    'http://localhost:3000/',
    'http://localhost:3000/support',
    'http://localhost:3000/config.json',
    'http://localhost:3001/mf-manifest.json',
    'http://localhost:3001/remoteEntry.js',
    'http://localhost:3002/mf-manifest.json',
    'http://localhost:3002/remoteEntry.js',
  ]) {
    expect((await headersOf(request, url))['cache-control'], url).toBe('no-cache');
  }
  const entry = await headersOf(request, 'http://localhost:3002/remoteEntry.js');
  expect(entry['content-encoding']).toBe('br');
  // A remote's answer also depends on the request's Origin (CORS for the shell's origin alone).
  expect(entry['vary']).toBe('Accept-Encoding, Origin');
  expect((await headersOf(request, 'http://localhost:3000/'))['vary']).toBe('Accept-Encoding');
});

test("the shell's entry script is named by its hash and immutable; its page is not cached", async ({ request }) => {
  const page = await (await request.get('http://localhost:3000/')).text();
  const entry = /<script defer src="?(\/main\.[0-9a-f]{10}\.js)"?>/.exec(page)?.[1];
  expect(entry).toBeDefined();
  expect((await headersOf(request, `http://localhost:3000${entry}`))['cache-control']).toBe(IMMUTABLE);
});

test('hashed chunks are immutable, in brotli or gzip as the browser accepts', async ({ request }) => {
  const manifest = (await (await request.get('http://localhost:3002/mf-manifest.json')).json()) as {
    exposes: { assets: { js: { sync: string[]; async: string[] } } }[];
  };
  const chunks = manifest.exposes.flatMap((e) => [...e.assets.js.sync, ...e.assets.js.async]);
  const chunk = chunks.find((file) => /\.[0-9a-f]{10}\.js$/.test(file));
  expect(chunk).toBeDefined();
  const url = `http://localhost:3002/${chunk}`;
  const brotli = await headersOf(request, url, 'br');
  expect(brotli['cache-control']).toBe(IMMUTABLE);
  expect(brotli['content-encoding']).toBe('br');
  expect((await headersOf(request, url, 'gzip'))['content-encoding']).toBe('gzip');
  expect((await headersOf(request, url, 'identity'))['content-encoding']).toBeUndefined();
});

test('a browser gets compressed JavaScript for the home page, and the page works', async ({ page }) => {
  const reads: Promise<string>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script' && response.url().startsWith('http://localhost:3000/')) {
      reads.push(response.allHeaders().then((headers) => headers['content-encoding'] ?? 'none'));
    }
  });
  await page.goto('/', { waitUntil: 'networkidle' });
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  // Every script's headers, each read to the end: none is left out.
  const encodings = await Promise.all(reads);
  expect(encodings.length).toBeGreaterThan(0);
  // Tiny chunks (under 1 KiB) are not worth compressing; most scripts are brotli.
  expect(encodings.filter((e) => e === 'br').length).toBeGreaterThan(encodings.length / 2);
});

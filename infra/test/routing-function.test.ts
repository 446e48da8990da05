/**
 * The shell's CloudFront Function (src/hosting/routing-function.ts), run in a fresh node:vm context
 * on CloudFront-shaped events of both types: the answers must be scripts/static-server.mjs's
 * (prerendered page, app page, a file untouched, everything else the 404 page with status 404).
 */
import vm from 'node:vm';
import { CLOUDFRONT_FUNCTION_MAX_BYTES, routingFunctionCode } from '../src/hosting/routing-function';
import { checkShellRoutes, loadShellRoutes } from '../src/hosting/shell-routes';
import type { ShellRoutes } from '../src/hosting/shell-routes';
import { FIXTURE_ROUTES_FILE } from './support/example';

interface CfRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string; multiValue?: { value: string }[] }>;
  headers: Record<string, { value: string }>;
  cookies: Record<string, { value: string }>;
}
interface CfResponse {
  statusCode: number;
  statusDescription?: string;
  headers: Record<string, { value: string }>;
  cookies: Record<string, { value: string }>;
}

const routes = loadShellRoutes(FIXTURE_ROUTES_FILE);

/** The generated code's `handler`, evaluated as CloudFront would: a script defining a global function. */
function load(code: string): (event: unknown) => CfRequest | CfResponse {
  const context = vm.createContext({});
  vm.runInContext(code, context, { filename: 'routing-function.js' });
  return context.handler as (event: unknown) => CfRequest | CfResponse;
}

const handler = load(routingFunctionCode(routes));

function request(uri: string, querystring: CfRequest['querystring'] = {}): CfRequest {
  return { method: 'GET', uri, querystring, headers: { host: { value: 'trailsense.example' } }, cookies: {} };
}

function viewerRequest(uri: string, querystring?: CfRequest['querystring']): CfRequest {
  return handler({
    version: '1.0',
    context: { distributionDomainName: 'd111111abcdef8.cloudfront.net', distributionId: 'EDFDVBD6EXAMPLE', eventType: 'viewer-request', requestId: 'r1' },
    viewer: { ip: '198.51.100.11' },
    request: request(uri, querystring),
  }) as CfRequest;
}

function viewerResponse(requestUri: string, statusCode = 200): CfResponse {
  return handler({
    version: '1.0',
    context: { distributionDomainName: 'd111111abcdef8.cloudfront.net', distributionId: 'EDFDVBD6EXAMPLE', eventType: 'viewer-response', requestId: 'r1' },
    viewer: { ip: '198.51.100.11' },
    request: request(requestUri),
    response: { statusCode, statusDescription: statusCode === 200 ? 'OK' : 'Forbidden', headers: { 'content-type': { value: 'text/html' } }, cookies: {} },
  }) as CfResponse;
}

/** The full round trip: viewer request, then viewer response given the URI either CloudFront may hand it. */
function serve(uri: string): { file: string; statuses: number[] } {
  const rewritten = viewerRequest(uri).uri;
  return { file: rewritten, statuses: [viewerResponse(uri).statusCode, viewerResponse(rewritten).statusCode] };
}

describe('viewer request', () => {
  it.each([
    ['/', '/index.html'],
    ['/about', '/about.html'],
    ['/about/', '/about.html'],
    ['/videos', '/videos.html'],
    ['/support', '/support.html'],
    ['/contact/', '/contact.html'],
  ])('sends the prerendered path %s to its page %s', (uri, page) => {
    expect(viewerRequest(uri).uri).toBe(page);
  });

  it.each(['/login', '/uploader', '/profile', '/delete', '/uploader/'])('sends the app path %s to the bare app page', (uri) => {
    expect(viewerRequest(uri).uri).toBe('/app.html');
  });

  it.each([
    '/main.4f2a6c8e1b.js',
    '/105.5438cbda79.js',
    '/config.json',
    '/routes.json',
    '/privacypolicy.html',
    '/assets/logo.0123456789.svg',
    '/404.html',
    '/app.html',
  ])('leaves a path with a file extension untouched: %s', (uri) => {
    expect(viewerRequest(uri).uri).toBe(uri);
  });

  it.each(['/nope', '/About', '/uploader/extra', '/about/team', '/.well-known'])('sends anything else (%s) to the 404 page', (uri) => {
    expect(viewerRequest(uri).uri).toBe('/404.html');
  });

  it('reads a run of slashes as the root, as the local server does', () => {
    expect(viewerRequest('//').uri).toBe('/index.html');
  });

  it('decodes a percent-encoded path before matching, and a malformed one is not found', () => {
    expect(viewerRequest('/%61bout').uri).toBe('/about.html');
    expect(viewerRequest('/%E0%A4%A').uri).toBe('/404.html');
  });

  it('leaves the query string as it came', () => {
    const querystring = { returnTo: { value: '/uploader' }, utm_source: { value: 'qr', multiValue: [{ value: 'qr' }, { value: 'flyer' }] } };
    const out = viewerRequest('/login', querystring);
    expect(out.uri).toBe('/app.html');
    expect(out.querystring).toEqual(querystring);
    expect(out.headers).toEqual({ host: { value: 'trailsense.example' } });
  });
});

describe('viewer response', () => {
  it.each(['/nope', '/about/team', '/404.html'])('turns the 404 page of %s into status 404, whichever URI CloudFront hands it', (uri) => {
    const { file, statuses } = serve(uri);
    expect(file).toBe('/404.html');
    expect(statuses).toEqual([404, 404]);
    expect(viewerResponse(uri).statusDescription).toBe('Not Found');
  });

  it.each(['/', '/about', '/about/', '/login', '/uploader', '/main.4f2a6c8e1b.js', '/config.json'])('keeps 200 for %s', (uri) => {
    expect(serve(uri).statuses).toEqual([200, 200]);
  });

  it('leaves other statuses alone (a missing file already answered 404 by the error responses; a 304)', () => {
    expect(viewerResponse('/missing.0123456789.js', 404).statusCode).toBe(404);
    expect(viewerResponse('/nope', 304).statusCode).toBe(304);
    expect(viewerResponse('/about', 403).statusCode).toBe(403);
  });

  it('returns the response with its headers', () => {
    const response = viewerResponse('/nope');
    expect(response.headers).toEqual({ 'content-type': { value: 'text/html' } });
  });
});

describe('the generated code', () => {
  it('is within CloudFront Functions’ 10 KB and names every route of the build', () => {
    const code = routingFunctionCode(routes);
    expect(CLOUDFRONT_FUNCTION_MAX_BYTES).toBe(10240);
    expect(Buffer.byteLength(code)).toBeLessThan(CLOUDFRONT_FUNCTION_MAX_BYTES);
    for (const route of [...Object.keys(routes.pages), ...routes.appPaths]) expect(code).toContain(JSON.stringify(route));
  });

  it('follows a different build: another page, another 404 file', () => {
    const other: ShellRoutes = { ...routes, pages: { ...routes.pages, '/pricing': 'pricing.html' }, notFound: 'missing.html', app: 'shell.html' };
    const run = load(routingFunctionCode(other));
    const event = (uri: string) => ({ context: { eventType: 'viewer-request' }, request: request(uri) });
    expect((run(event('/pricing/')) as CfRequest).uri).toBe('/pricing.html');
    expect((run(event('/profile')) as CfRequest).uri).toBe('/shell.html');
    expect((run(event('/x')) as CfRequest).uri).toBe('/missing.html');
  });

  it('refuses a route list that would not fit, or that is contradictory', () => {
    const pages = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`/page-number-${i}`, `page-number-${i}.html`]));
    expect(() => routingFunctionCode({ ...routes, pages })).toThrow(/bytes; CloudFront Functions take at most 10240/);
    expect(() => routingFunctionCode({ ...routes, appPaths: ['/about'] })).toThrow(/both a prerendered page and an app path/);
  });
});

describe('routes.json', () => {
  it('fails a missing build with what to run', () => {
    expect(() => loadShellRoutes('/nonexistent/shell/dist/routes.json')).toThrow(/Run `npm run build -w shell` first/);
  });

  it('refuses a build without inline-script hashes, and malformed entries, naming the field', () => {
    const { inlineScriptHashes: _, ...older } = routes;
    expect(() => checkShellRoutes(older)).toThrow(/routes.json: lists no inlineScriptHashes/);
    expect(() => checkShellRoutes({ ...routes, pages: { about: 'about.html' } })).toThrow(/pages: "about" is not a route path/);
    expect(() => checkShellRoutes({ ...routes, pages: { '/about': '../about.html' } })).toThrow(/pages\["\/about"\] is not an .html file name/);
    expect(() => checkShellRoutes({ ...routes, notFound: 42 })).toThrow(/notFound must be an .html file name/);
  });
});

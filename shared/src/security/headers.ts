/**
 * The site's security headers, in one place for both servers that send them: the local production
 * server (scripts/static-server.mjs) and the CloudFront response-headers policy (infra/). The
 * Content-Security-Policy is generated from the `/config.json` the site is served with, so it
 * names exactly the endpoints the apps call (infra/docs/server.md#security-headers).
 *
 * Pure and framework-free: no DOM, no Node built-ins (the hash of an inline script is computed by
 * the build that writes the script, scripts/prerender.mjs, and handed in).
 */
import type { RuntimeConfig } from '../config/types';

export interface SecurityHeaderInputs {
  /** The runtime configuration (`/config.json`) the site is served with. */
  config: RuntimeConfig;
  /**
   * CSP hash sources (`'sha256-…'`) of the inline scripts the shell's pages carry (the stored
   * session check that runs before paint); the shell's build lists them in routes.json.
   */
  inlineScriptHashes: readonly string[];
}

/** Directive name → its sources, in the order they are written. */
export type CspDirectives = Record<string, readonly string[]>;

/**
 * CloudFront refuses a response-headers policy whose Content-Security-Policy is longer than this
 * (TooLongCSPInResponseHeadersPolicy; CloudFront quotas). The generator fails before a deploy would.
 */
export const CLOUDFRONT_CSP_MAX_LENGTH = 1783;

/** The origin (`scheme://host[:port]`) of a URL. Throws on a value that is not an absolute URL. */
function originOf(url: string): string {
  return new URL(url).origin;
}

/** A URL as a CSP source that allows that path and everything under it (`https://api.x/v1/`). */
function pathSource(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.endsWith('/') ? parsed.pathname : `${parsed.pathname}/`;
  return `${parsed.origin}${path}`;
}

/** Each distinct value once, first occurrence first. */
function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The origins the remotes are served from (their `mf-manifest.json` URLs' origins). */
export function remoteOrigins(config: RuntimeConfig): string[] {
  return unique([originOf(config.remotes.auth), originOf(config.remotes.uploader)]);
}

/**
 * Every endpoint the apps call, as CSP sources: the user pool, the identity pool, object storage
 * (the accelerated endpoint the uploader uses, or the sandbox's S3), the product API, the uploads API and the
 * analytics sink. The site's own origin ('self', for /config.json) and the remotes' origins (their
 * manifests) are added by `cspDirectives`.
 */
export function connectSources(config: RuntimeConfig): string[] {
  const { auth, storage, api, analytics } = config;
  const sources = [
    auth.userPoolEndpoint ? originOf(auth.userPoolEndpoint) : `https://cognito-idp.${auth.region}.amazonaws.com`,
    auth.identityPoolEndpoint ? originOf(auth.identityPoolEndpoint) : `https://cognito-identity.${auth.region}.amazonaws.com`,
    // Amplify's storage test switch sends to this fixed address (docs/architecture.md#auth-and-storage-with-amplify).
    storage.dangerouslyConnectToHttpEndpointForTesting ? 'http://localhost:20005' : `https://${storage.bucket}.s3-accelerate.amazonaws.com`,
    pathSource(api.baseUrl),
    pathSource(api.uploadsBaseUrl),
  ];
  if (analytics.provider === 'sandbox') sources.push(originOf(analytics.endpoint));
  if (analytics.provider === 'firehose') sources.push(`https://firehose.${analytics.region}.amazonaws.com`);
  return unique(sources);
}

/** Refuses anything but a CSP hash source (`'sha256-<base64>'`): a typo must not widen the policy. */
function checkHashSources(inlineScriptHashes: readonly string[]): void {
  for (const hash of inlineScriptHashes) {
    if (!/^'sha(256|384|512)-[A-Za-z0-9+/]+={0,2}'$/.test(hash)) throw new Error(`Not a CSP hash source: ${hash}`);
  }
}

/** The page directives, given the remotes' origins and the endpoints the apps call. */
function pageDirectives(inlineScriptHashes: readonly string[], remotes: readonly string[], endpoints: readonly string[]): CspDirectives {
  checkHashSources(inlineScriptHashes);
  return {
    'default-src': ["'none'"],
    // The shell's chunks, the remotes' entries and chunks, and the inline stored-session check.
    'script-src': ["'self'", ...remotes, ...inlineScriptHashes],
    // Extracted CSS files only (the shell's and each remote's); no inline <style>, no style="".
    'style-src': ["'self'", ...remotes],
    // A remote's images are inlined into its code as data: URLs (webpack/index.js), since they
    // show in the shell's page, where the remote's origin is no image source.
    'img-src': ["'self'", 'data:'],
    'connect-src': unique(["'self'", ...remotes, ...endpoints]),
    // The uploader starts its worker from a blob: URL when it runs inside the shell's page
    // (uploader-remote/src/features/upload/services/browser/cross-origin-worker.ts).
    'worker-src': ["'self'", 'blob:'],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
  };
}

/** The Content-Security-Policy's directives for the site's pages. */
export function cspDirectives({ config, inlineScriptHashes }: SecurityHeaderInputs): CspDirectives {
  return pageDirectives(inlineScriptHashes, remoteOrigins(config), connectSources(config));
}

/**
 * The directives for when `/config.json` is missing or invalid: then the shell shows its
 * config-error page, which needs the site's own scripts, styles and `/config.json`, and nothing
 * else (no remote, no endpoint can be named without a config).
 */
export function configErrorCspDirectives(inlineScriptHashes: readonly string[]): CspDirectives {
  return pageDirectives(inlineScriptHashes, [], []);
}

/** The directives as a header value. */
export function formatCsp(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/** The directives as a header value; throws if CloudFront could not carry it. */
function checkedCsp(directives: CspDirectives): string {
  const value = formatCsp(directives);
  if (value.length > CLOUDFRONT_CSP_MAX_LENGTH) {
    throw new Error(`The Content-Security-Policy is ${value.length} characters; CloudFront takes at most ${CLOUDFRONT_CSP_MAX_LENGTH}.`);
  }
  return value;
}

/** The Content-Security-Policy header value; throws if CloudFront could not carry it. */
export function contentSecurityPolicy(inputs: SecurityHeaderInputs): string {
  return checkedCsp(cspDirectives(inputs));
}

/** HSTS: two years, subdomains included (the site is HTTPS only; browsers ignore it on http://localhost). */
export const STRICT_TRANSPORT_SECURITY = { maxAgeSeconds: 63_072_000, includeSubdomains: true, preload: false } as const;

/** Powerful features no page of the site uses, switched off for it and anything it could embed. */
export const PERMISSIONS_POLICY = 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()';

export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

/**
 * The headers every response of the site's origin carries besides the CSP (which only pages need,
 * but is harmless on the rest): HSTS, no MIME sniffing, the referrer policy, the permissions
 * policy, and a browsing context group of its own (a window this site opens, or that opens it,
 * cannot reach into it).
 */
export function baseSecurityHeaders(): Record<string, string> {
  const hsts = STRICT_TRANSPORT_SECURITY;
  return {
    'Strict-Transport-Security': `max-age=${hsts.maxAgeSeconds}${hsts.includeSubdomains ? '; includeSubDomains' : ''}${hsts.preload ? '; preload' : ''}`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': REFERRER_POLICY,
    'Permissions-Policy': PERMISSIONS_POLICY,
    'Cross-Origin-Opener-Policy': 'same-origin',
    // frame-ancestors 'none' says the same to browsers that read the CSP; this, to those that do not.
    'X-Frame-Options': 'DENY',
  };
}

/** Every security header of the shell's responses (its pages and files). */
export function securityHeaders(inputs: SecurityHeaderInputs): Record<string, string> {
  return { 'Content-Security-Policy': contentSecurityPolicy(inputs), ...baseSecurityHeaders() };
}

/** The shell's security headers while its `/config.json` is missing or invalid (`configErrorCspDirectives`). */
export function configErrorSecurityHeaders({ inlineScriptHashes }: Pick<SecurityHeaderInputs, 'inlineScriptHashes'>): Record<string, string> {
  return { 'Content-Security-Policy': checkedCsp(configErrorCspDirectives(inlineScriptHashes)), ...baseSecurityHeaders() };
}

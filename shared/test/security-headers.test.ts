import {
  CLOUDFRONT_CSP_MAX_LENGTH,
  baseSecurityHeaders,
  configErrorSecurityHeaders,
  connectSources,
  contentSecurityPolicy,
  cspDirectives,
  remoteOrigins,
  securityHeaders,
} from '../src/security/headers';
import { remoteServerHeaders, shellServerHeaders } from '../src/security/server-headers';
import { parseRuntimeConfig } from '../src/config/validate';
import type { RuntimeConfig } from '../src/config/types';
import localConfig from '../../config/local.json';

const HASH = "'sha256-bydTEQUp1oL1RRnZ4q2RBWbGPo7GjHHHUfe/i0i2bvg='";

function parsed(raw: unknown): RuntimeConfig {
  const result = parseRuntimeConfig(raw);
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.config;
}

const local = () => parsed(localConfig);

/** A production-shaped config: AWS's own endpoints (none given), HTTPS everywhere, Firehose. */
const productionRaw = {
  auth: {
    region: 'us-east-2',
    userPoolId: 'us-east-2_AbC123xyz',
    userPoolClientId: 'prodclient0123456789',
    identityPoolId: 'us-east-2:1a2b3c4d-0000-4000-8000-000000000001',
  },
  storage: { bucket: 'trailsense-uploads', region: 'us-east-2' },
  api: { baseUrl: 'https://api.trailsense.example/v1/', uploadsBaseUrl: 'https://uploads-api.trailsense.example' },
  analytics: { provider: 'firehose', region: 'us-west-2', streamName: 'trailsense-events' },
  remotes: {
    auth: 'https://auth.trailsense.example/mf-manifest.json',
    uploader: 'https://cdn.trailsense.example/uploader/mf-manifest.json',
  },
};
const production = () => parsed(productionRaw);

describe('the Content-Security-Policy', () => {
  it('for the local config names exactly the sandbox’s endpoints', () => {
    expect(connectSources(local())).toEqual([
      'http://localhost:4100', // user pool and identity pool: the sandbox's gateway, once
      'http://localhost:20005', // Amplify's storage test endpoint
      'http://localhost:4103/', // the product API
      'http://localhost:4104', // the analytics sink
    ]);
    expect(contentSecurityPolicy({ config: local(), inlineScriptHashes: [HASH] })).toBe(
      [
        "default-src 'none'",
        `script-src 'self' http://localhost:3001 http://localhost:3002 ${HASH}`,
        "style-src 'self' http://localhost:3001 http://localhost:3002",
        "img-src 'self' data:",
        "connect-src 'self' http://localhost:3001 http://localhost:3002 http://localhost:4100 http://localhost:20005 http://localhost:4103/ http://localhost:4104",
        "worker-src 'self' blob:",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
      ].join('; '),
    );
  });

  it('for a production-shaped config names AWS’s regional endpoints, the accelerated bucket and the API’s base path', () => {
    expect(connectSources(production())).toEqual([
      'https://cognito-idp.us-east-2.amazonaws.com',
      'https://cognito-identity.us-east-2.amazonaws.com',
      'https://trailsense-uploads.s3-accelerate.amazonaws.com',
      'https://api.trailsense.example/v1/',
      'https://uploads-api.trailsense.example/',
      'https://firehose.us-west-2.amazonaws.com',
    ]);
    expect(contentSecurityPolicy({ config: production(), inlineScriptHashes: [HASH] })).not.toMatch(/localhost|http:/);
  });

  it('names no analytics endpoint when analytics is off', () => {
    const config = parsed({ ...productionRaw, analytics: { provider: 'none' } });
    expect(connectSources(config).some((source) => source.includes('firehose'))).toBe(false);
  });

  it('is the same whatever share of page views records its vitals: the monitoring events go to the analytics endpoint already named (docs/monitoring.md#csp)', () => {
    const rated = (rate: number) => parsed({ ...productionRaw, analytics: { ...productionRaw.analytics, vitalsSampleRate: rate } });
    const policy = contentSecurityPolicy({ config: production(), inlineScriptHashes: [HASH] });
    expect(contentSecurityPolicy({ config: rated(1), inlineScriptHashes: [HASH] })).toBe(policy);
    expect(contentSecurityPolicy({ config: rated(0), inlineScriptHashes: [HASH] })).toBe(policy);
    const sandbox = parsed({ ...localConfig, analytics: { ...localConfig.analytics, vitalsSampleRate: 0.5 } });
    expect(connectSources(sandbox)).toEqual(connectSources(local()));
  });

  it('allows the remotes’ origins (not their manifest paths) for scripts, styles and fetches, and nothing more', () => {
    const config = production();
    expect(remoteOrigins(config)).toEqual(['https://auth.trailsense.example', 'https://cdn.trailsense.example']);
    const directives = cspDirectives({ config, inlineScriptHashes: [HASH] });
    for (const name of ['script-src', 'style-src', 'connect-src']) {
      expect(directives[name]).toEqual(expect.arrayContaining(['https://auth.trailsense.example', 'https://cdn.trailsense.example']));
    }
    expect(directives['img-src']).toEqual(["'self'", 'data:']);
    expect(directives['default-src']).toEqual(["'none'"]);
    for (const name of ['frame-ancestors', 'object-src', 'base-uri']) expect(directives[name]).toEqual(["'none'"]);
  });

  it('lists a remote’s origin once when both remotes share it', () => {
    const config = parsed({
      ...productionRaw,
      remotes: { auth: 'https://cdn.trailsense.example/auth/mf-manifest.json', uploader: productionRaw.remotes.uploader },
    });
    expect(cspDirectives({ config, inlineScriptHashes: [] })['script-src']).toEqual(["'self'", 'https://cdn.trailsense.example']);
  });

  it('never allows inline code or eval, whatever the config', () => {
    for (const config of [local(), production()]) {
      expect(contentSecurityPolicy({ config, inlineScriptHashes: [HASH] })).not.toMatch(/unsafe|\*/);
    }
  });

  it('refuses anything but a hash source as an inline script’s allowance', () => {
    for (const bad of ["'unsafe-inline'", 'sha256-abc=', "'sha256-abc def='", "'sha1-abc='", "'sha256-abc'; script-src *", "'nonce-abc'"]) {
      expect(() => contentSecurityPolicy({ config: local(), inlineScriptHashes: [bad] })).toThrow(`Not a CSP hash source: ${bad}`);
    }
    expect(() => contentSecurityPolicy({ config: local(), inlineScriptHashes: ["'sha384-AbC+/9=='", "'sha512-x'"] })).not.toThrow();
  });

  it('fails when CloudFront could not carry it, and not before', () => {
    const base = contentSecurityPolicy({ config: production(), inlineScriptHashes: [] }).length;
    // Each added hash source is its length plus a separating space.
    const room = CLOUDFRONT_CSP_MAX_LENGTH - base;
    const hashOfLength = (length: number) => `'sha256-${'A'.repeat(length - "'sha256-'".length)}'`;
    expect(contentSecurityPolicy({ config: production(), inlineScriptHashes: [hashOfLength(room - 1)] })).toHaveLength(CLOUDFRONT_CSP_MAX_LENGTH);
    expect(() => contentSecurityPolicy({ config: production(), inlineScriptHashes: [hashOfLength(room)] })).toThrow(
      `The Content-Security-Policy is ${CLOUDFRONT_CSP_MAX_LENGTH + 1} characters; CloudFront takes at most ${CLOUDFRONT_CSP_MAX_LENGTH}.`,
    );
  });

  it('while the config is broken, names the site alone (the config-error page needs nothing else)', () => {
    const csp = configErrorSecurityHeaders({ inlineScriptHashes: [HASH] })['Content-Security-Policy'];
    expect(csp).toContain(`script-src 'self' ${HASH};`);
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("default-src 'none'");
    expect(() => configErrorSecurityHeaders({ inlineScriptHashes: ['bad'] })).toThrow('Not a CSP hash source');
  });
});

describe('the other security headers', () => {
  it('are HSTS, nosniff, the referrer policy, the permissions policy, COOP and X-Frame-Options', () => {
    expect(baseSecurityHeaders()).toEqual({
      'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'Permissions-Policy': 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    });
  });

  it('come with the CSP on the shell’s responses', () => {
    const headers = securityHeaders({ config: local(), inlineScriptHashes: [HASH] });
    expect(headers).toEqual({ 'Content-Security-Policy': contentSecurityPolicy({ config: local(), inlineScriptHashes: [HASH] }), ...baseSecurityHeaders() });
  });
});

describe('the local production server’s headers', () => {
  it('the shell’s follow the config file’s text', () => {
    const inputs = { inlineScriptHashes: [HASH] };
    expect(shellServerHeaders({ configText: JSON.stringify(localConfig), ...inputs })).toEqual(securityHeaders({ config: local(), ...inputs }));
    expect(shellServerHeaders({ configText: JSON.stringify(productionRaw), ...inputs })).toEqual(securityHeaders({ config: production(), ...inputs }));
  });

  it('the shell’s are the config-error policy when the config is missing, not JSON or invalid', () => {
    const fallback = configErrorSecurityHeaders({ inlineScriptHashes: [HASH] });
    for (const configText of [null, '{ "auth": ', JSON.stringify({ ...localConfig, auth: undefined }), '[]']) {
      expect(shellServerHeaders({ configText, inlineScriptHashes: [HASH] })).toEqual(fallback);
    }
  });

  it('a remote’s allow the shell’s origin alone, and say that the answer varies with Origin', () => {
    const shellOrigin = 'http://localhost:3000';
    expect(remoteServerHeaders({ requestOrigin: shellOrigin, shellOrigin })).toEqual({
      ...baseSecurityHeaders(),
      'Access-Control-Allow-Origin': shellOrigin,
      Vary: 'Origin',
    });
    for (const requestOrigin of [undefined, 'null', 'http://localhost:3001', 'http://localhost:3000/', 'http://127.0.0.1:3000', 'https://localhost:3000']) {
      const headers = remoteServerHeaders({ requestOrigin, shellOrigin });
      expect(headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect(headers.Vary).toBe('Origin');
      expect(headers['Content-Security-Policy']).toBeUndefined();
    }
  });
});

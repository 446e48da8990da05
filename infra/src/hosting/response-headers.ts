/**
 * The security headers of shared/src/security/headers.ts as a CloudFront response-headers policy
 * (infra/docs/server.md#security-headers): the headers CloudFront models (CSP, HSTS, nosniff,
 * Referrer-Policy, X-Frame-Options) go to its security-headers config, every other one
 * (Permissions-Policy, Cross-Origin-Opener-Policy) to its custom headers. Every header overrides
 * whatever the origin sent. A header value CloudFront cannot express fails synth, so the policy
 * never silently differs from the module.
 */
import { Duration } from 'aws-cdk-lib';
import { HeadersFrameOption, HeadersReferrerPolicy } from 'aws-cdk-lib/aws-cloudfront';
import type { ResponseCustomHeader, ResponseSecurityHeadersBehavior } from 'aws-cdk-lib/aws-cloudfront';

export interface ResponseHeaderBehaviors {
  securityHeadersBehavior: ResponseSecurityHeadersBehavior;
  customHeaders: ResponseCustomHeader[];
}

/** `max-age=N; includeSubDomains; preload` as CloudFront's HSTS settings. */
function parseHsts(value: string) {
  const parts = value.split(';').map((part) => part.trim().toLowerCase());
  const maxAge = /^max-age=(\d+)$/.exec(parts[0] ?? '');
  const flags = parts.slice(1);
  if (!maxAge || flags.some((flag) => flag !== 'includesubdomains' && flag !== 'preload')) {
    throw new Error(`Strict-Transport-Security "${value}" is not something CloudFront's HSTS setting can send.`);
  }
  return {
    accessControlMaxAge: Duration.seconds(Number(maxAge[1])),
    includeSubdomains: flags.includes('includesubdomains'),
    preload: flags.includes('preload'),
    override: true,
  };
}

function oneOf<T extends string>(values: Record<string, T>, value: string, header: string): T {
  const found = Object.values(values).find((v) => v.toLowerCase() === value.toLowerCase());
  if (!found) throw new Error(`${header} "${value}" is not a value CloudFront's ${header} setting takes.`);
  return found;
}

/** Header name → value (as the shared module makes them) → the policy's two behaviors. */
export function responseHeaderBehaviors(headers: Readonly<Record<string, string>>): ResponseHeaderBehaviors {
  const security: {
    -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K];
  } = {};
  const customHeaders: ResponseCustomHeader[] = [];
  for (const [header, value] of Object.entries(headers)) {
    switch (header.toLowerCase()) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'strict-transport-security':
        security.strictTransportSecurity = parseHsts(value);
        break;
      case 'x-content-type-options':
        if (value !== 'nosniff') throw new Error(`X-Content-Type-Options "${value}": CloudFront sends only nosniff.`);
        security.contentTypeOptions = { override: true };
        break;
      case 'referrer-policy':
        security.referrerPolicy = { referrerPolicy: oneOf(HeadersReferrerPolicy, value, header), override: true };
        break;
      case 'x-frame-options':
        security.frameOptions = { frameOption: oneOf(HeadersFrameOption, value, header), override: true };
        break;
      default:
        customHeaders.push({ header, value, override: true });
    }
  }
  return { securityHeadersBehavior: security, customHeaders };
}

import { defaultBrand } from '../brand/brand';
import type { AnalyticsConfig, Brand, RuntimeConfig } from './types';

/** The outcome of reading `/config.json`: the config, or every problem found in it. */
export type ConfigResult = { ok: true; config: RuntimeConfig } | { ok: false; problems: string[] };

/** Cognito user-pool id: `<region>_<alnum>`, at most 55 characters (SPEC.md §5). */
const USER_POOL_ID = /^[\w-]+_[0-9a-zA-Z]+$/;
const IDENTITY_POOL_ID = /^[\w-]+:[0-9a-f-]+$/;
const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const CLIENT_ID = /^[\w+]+$/;
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Collects problems while reading fields, so that one pass reports everything that is wrong
 * rather than stopping at the first bad value.
 */
class Reader {
  readonly problems: string[] = [];

  /** A section, or null when it is missing or not an object (reported once, not field by field). */
  section(root: Json, name: string): Json | null {
    const value = root[name];
    if (value === undefined) {
      this.problems.push(`"${name}" is missing.`);
      return null;
    }
    if (!isObject(value)) {
      this.problems.push(`"${name}" must be an object.`);
      return null;
    }
    return value;
  }

  string(
    obj: Json | null,
    path: string,
    key: string,
    check?: { test: (v: string) => boolean; expected: string },
    optional = false,
  ): string | undefined {
    if (!obj) return undefined;
    const value = obj[key];
    const where = `"${path}.${key}"`;
    if (value === undefined || value === '') {
      if (!optional) this.problems.push(`${where} is missing.`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.problems.push(`${where} must be a string.`);
      return undefined;
    }
    if (check && !check.test(value)) {
      this.problems.push(`${where} is "${value}", which is not ${check.expected}.`);
      return undefined;
    }
    return value;
  }

  boolean(obj: Json | null, path: string, key: string): boolean | undefined {
    if (!obj) return undefined;
    const value = obj[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.problems.push(`"${path}.${key}" must be true or false.`);
      return undefined;
    }
    return value;
  }
}

const url = { test: isHttpUrl, expected: 'an http(s) URL' };
const region = { test: (v: string) => REGION.test(v), expected: 'an AWS region such as us-east-2' };

function readBrand(r: Reader, root: Json): Brand {
  if (root.brand === undefined) return defaultBrand;
  const b = r.section(root, 'brand');
  return {
    productName: r.string(b, 'brand', 'productName', undefined, true) ?? defaultBrand.productName,
    supportEmail:
      r.string(b, 'brand', 'supportEmail', { test: (v) => EMAIL.test(v), expected: 'an email address' }, true) ??
      defaultBrand.supportEmail,
    appStoreUrl: r.string(b, 'brand', 'appStoreUrl', url, true) ?? defaultBrand.appStoreUrl,
    googlePlayUrl: r.string(b, 'brand', 'googlePlayUrl', url, true) ?? defaultBrand.googlePlayUrl,
    qrTargetUrl: r.string(b, 'brand', 'qrTargetUrl', url, true) ?? defaultBrand.qrTargetUrl,
  };
}

function readAnalytics(r: Reader, root: Json): AnalyticsConfig | undefined {
  const a = r.section(root, 'analytics');
  if (!a) return undefined;
  const provider = r.string(a, 'analytics', 'provider', {
    test: (v) => ['sandbox', 'firehose', 'none'].includes(v),
    expected: 'one of "sandbox", "firehose", "none"',
  });
  switch (provider) {
    case 'sandbox': {
      const endpoint = r.string(a, 'analytics', 'endpoint', url);
      return endpoint ? { provider, endpoint } : undefined;
    }
    case 'firehose': {
      const reg = r.string(a, 'analytics', 'region', region);
      const streamName = r.string(a, 'analytics', 'streamName');
      return reg && streamName ? { provider, region: reg, streamName } : undefined;
    }
    case 'none':
      return { provider };
    default:
      return undefined;
  }
}

/**
 * Validates the raw `/config.json` value. Pure: the same input always gives the same result,
 * listing every problem at once so one deploy fixes them all.
 */
export function parseRuntimeConfig(raw: unknown): ConfigResult {
  if (!isObject(raw)) {
    return { ok: false, problems: ['The configuration must be a JSON object.'] };
  }
  const r = new Reader();
  const brand = readBrand(r, raw);

  const a = r.section(raw, 'auth');
  const auth = {
    region: r.string(a, 'auth', 'region', region),
    userPoolId: r.string(a, 'auth', 'userPoolId', {
      test: (v) => v.length <= 55 && USER_POOL_ID.test(v),
      expected: 'a user pool id like us-east-2_AbC123 (at most 55 characters)',
    }),
    userPoolClientId: r.string(a, 'auth', 'userPoolClientId', {
      test: (v) => v.length <= 128 && CLIENT_ID.test(v),
      expected: 'an app client id (letters and digits)',
    }),
    identityPoolId: r.string(a, 'auth', 'identityPoolId', {
      test: (v) => IDENTITY_POOL_ID.test(v),
      expected: 'an identity pool id like us-east-2:1a2b3c4d-…',
    }),
    userPoolEndpoint: r.string(a, 'auth', 'userPoolEndpoint', url, true),
    identityPoolEndpoint: r.string(a, 'auth', 'identityPoolEndpoint', url, true),
    signUpEnabled: r.boolean(a, 'auth', 'signUpEnabled') ?? false,
  };

  const s = r.section(raw, 'storage');
  const storage = {
    bucket: r.string(s, 'storage', 'bucket', {
      test: (v) => BUCKET.test(v),
      expected: 'an S3 bucket name (lower case letters, digits, dots and hyphens)',
    }),
    region: r.string(s, 'storage', 'region', region),
    dangerouslyConnectToHttpEndpointForTesting: r.boolean(s, 'storage', 'dangerouslyConnectToHttpEndpointForTesting'),
  };

  const api = { baseUrl: r.string(r.section(raw, 'api'), 'api', 'baseUrl', url) };
  const analytics = readAnalytics(r, raw);

  const m = r.section(raw, 'remotes');
  const remotes = {
    auth: r.string(m, 'remotes', 'auth', url),
    uploader: r.string(m, 'remotes', 'uploader', url),
  };

  if (r.problems.length > 0) return { ok: false, problems: r.problems };
  // Every field was read without a problem, so every required value is present.
  return {
    ok: true,
    config: {
      brand,
      auth: {
        region: auth.region!,
        userPoolId: auth.userPoolId!,
        userPoolClientId: auth.userPoolClientId!,
        identityPoolId: auth.identityPoolId!,
        signUpEnabled: auth.signUpEnabled,
        ...(auth.userPoolEndpoint ? { userPoolEndpoint: auth.userPoolEndpoint.replace(/\/$/, '') } : {}),
        ...(auth.identityPoolEndpoint ? { identityPoolEndpoint: auth.identityPoolEndpoint.replace(/\/$/, '') } : {}),
      },
      storage: {
        bucket: storage.bucket!,
        region: storage.region!,
        ...(storage.dangerouslyConnectToHttpEndpointForTesting
          ? { dangerouslyConnectToHttpEndpointForTesting: true }
          : {}),
      },
      api: { baseUrl: api.baseUrl!.replace(/\/$/, '') },
      analytics: analytics!,
      remotes: { auth: remotes.auth!, uploader: remotes.uploader! },
    },
  };
}

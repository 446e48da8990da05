import {
  boolean,
  number,
  check,
  custom,
  getDotPath,
  literal,
  nonEmpty,
  object,
  optional,
  pipe,
  safeParse,
  string,
  transform,
  variant,
  type BaseIssue,
  type InferOutput,
  type ObjectEntries,
} from 'valibot';
import { defaultBrand } from '../brand/brand';
import type { Brand, RuntimeConfig } from './types';

/** The outcome of reading `/config.json`: the config, or every problem found in it. */
export type ConfigResult = { ok: true; config: RuntimeConfig } | { ok: false; problems: string[] };

/** Cognito user-pool id: `<region>_<alnum>`, at most 55 characters. */
const USER_POOL_ID = /^[\w-]+_[0-9a-zA-Z]+$/;
const IDENTITY_POOL_ID = /^[\w-]+:[0-9a-f-]+$/;
const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const CLIENT_ID = /^[\w+]+$/;
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isObject(value: unknown): value is Record<string, unknown> {
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

// Messages. Each issue's message is what follows the field's path in the problem shown
// ("auth.userPoolId" is "x", which is not …). A missing (or empty) value is reported as missing
// whatever the schema, see `describe`.

/** A value that has the right type but not the right form. */
const isNot = (expected: string) => (issue: BaseIssue<unknown>) => `is "${String(issue.input)}", which is not ${expected}.`;

/** An object, not an array or a scalar; then its fields (valibot's `object` alone accepts arrays). */
const section = <Entries extends ObjectEntries>(entries: Entries) =>
  pipe(custom<Record<string, unknown>>(isObject, 'must be an object.'), object(entries, 'must be an object.'));

/** A required, non-empty string, optionally of a given form. */
const text = (test: (value: string) => boolean = () => true, expected = '') => pipe(string('must be a string.'), nonEmpty(), check(test, isNot(expected)));

const matching = (pattern: RegExp, expected: string) => text((v) => pattern.test(v), expected);

const httpUrl = () => text(isHttpUrl, 'an http(s) URL');

/** An http(s) URL without a trailing slash (base URLs that paths are appended to). */
const baseUrl = () =>
  pipe(
    httpUrl(),
    transform((v) => v.replace(/\/$/, '')),
  );

/** An optional endpoint URL: absent or empty means "none" (AWS's own). */
const optionalEndpoint = () =>
  optional(
    pipe(
      string('must be a string.'),
      check((v) => v === '' || isHttpUrl(v), isNot('an http(s) URL')),
      transform((v) => v.replace(/\/$/, '') || undefined),
    ),
  );

const region = () => matching(REGION, 'an AWS region such as us-east-2');

const flag = () => boolean('must be true or false.');

/** An optional share from 0 to 1 (0.25 is a quarter). */
const share = () =>
  optional(
    pipe(
      number('must be a number from 0 to 1.'),
      check((v) => Number.isFinite(v) && v >= 0 && v <= 1, isNot('a number from 0 to 1')),
    ),
  );

/** A brand field: absent or empty takes the default brand's value, which the check accepts. */
const brandField = (key: keyof Brand, test?: (value: string) => boolean, expected?: string) =>
  optional(
    pipe(
      string('must be a string.'),
      transform((v) => v || defaultBrand[key]),
      check(test ?? (() => true), isNot(expected ?? '')),
    ),
    defaultBrand[key],
  );

const brandUrl = (key: keyof Brand) => brandField(key, isHttpUrl, 'an http(s) URL');
/** A page of the site (`/privacypolicy.html`) or an http(s) URL; never `//host` (another site). */
const brandPage = (key: keyof Brand) =>
  brandField(key, (v) => (v.startsWith('/') && !v.startsWith('//')) || isHttpUrl(v), 'a path on the site (/…) or an http(s) URL');

/** `/config.json`. Every field in the order problems are listed. */
const runtimeConfigSchema = section({
  brand: optional(
    section({
      productName: brandField('productName'),
      supportEmail: brandField('supportEmail', (v) => EMAIL.test(v), 'an email address'),
      appStoreUrl: brandUrl('appStoreUrl'),
      googlePlayUrl: brandUrl('googlePlayUrl'),
      qrTargetUrl: brandUrl('qrTargetUrl'),
      privacyPolicyUrl: brandPage('privacyPolicyUrl'),
      termsUrl: brandPage('termsUrl'),
    }),
    {},
  ),
  auth: section({
    region: region(),
    userPoolId: text((v) => v.length <= 55 && USER_POOL_ID.test(v), 'a user pool id like us-east-2_AbC123 (at most 55 characters)'),
    userPoolClientId: text((v) => v.length <= 128 && CLIENT_ID.test(v), 'an app client id (letters and digits)'),
    identityPoolId: matching(IDENTITY_POOL_ID, 'an identity pool id like us-east-2:1a2b3c4d-…'),
    userPoolEndpoint: optionalEndpoint(),
    identityPoolEndpoint: optionalEndpoint(),
    signUpEnabled: optional(flag(), false),
    passwordless: optional(section({ emailCode: optional(flag(), false), passkeys: optional(flag(), false) }), {}),
  }),
  storage: section({
    bucket: matching(BUCKET, 'an S3 bucket name (lower case letters, digits, dots and hyphens)'),
    region: region(),
    dangerouslyConnectToHttpEndpointForTesting: optional(flag()),
  }),
  api: section({ baseUrl: baseUrl(), uploadsBaseUrl: baseUrl() }),
  analytics: pipe(
    custom<Record<string, unknown>>(isObject, 'must be an object.'),
    variant(
      'provider',
      [
        object({ provider: literal('sandbox'), endpoint: httpUrl(), vitalsSampleRate: share() }),
        object({ provider: literal('firehose'), region: region(), streamName: text(), vitalsSampleRate: share() }),
        object({ provider: literal('none') }),
      ],
      isNot('one of "sandbox", "firehose", "none"'),
    ),
  ),
  remotes: section({ auth: httpUrl(), uploader: httpUrl() }),
});

/** What a problem says: the field's path and what is wrong with it. */
function describe(issue: BaseIssue<unknown>): string {
  const path = getDotPath(issue);
  if (!path) return 'The configuration must be a JSON object.';
  return `"${path}" ${issue.input === undefined || issue.input === '' ? 'is missing.' : issue.message}`;
}

/**
 * Validates the raw `/config.json` value. Pure: the same input always gives the same result,
 * listing every problem at once (one per field) so one deploy fixes them all.
 */
export function parseRuntimeConfig(raw: unknown): ConfigResult {
  // abortPipeEarly: a field's first problem only (an empty value is missing, not also malformed).
  const result = safeParse(runtimeConfigSchema, raw, { abortPipeEarly: true });
  return result.success ? { ok: true, config: result.output } : { ok: false, problems: result.issues.map(describe) };
}

/** Exactly the same type (not merely assignable: an optional field on one side only differs too). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
// Compile-time: the schema produces exactly `RuntimeConfig`, the type the apps read, so the two
// cannot drift apart.
true satisfies Same<InferOutput<typeof runtimeConfigSchema>, RuntimeConfig>;

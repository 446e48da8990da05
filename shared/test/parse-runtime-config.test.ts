import { parseRuntimeConfig } from '../src/config/validate';
import { defaultBrand } from '../src/brand/brand';
import localConfig from '../../config/local.json';

const valid = () => JSON.parse(JSON.stringify(localConfig)) as Record<string, Record<string, unknown>>;

function problemsOf(raw: unknown): string[] {
  const result = parseRuntimeConfig(raw);
  if (result.ok) throw new Error('expected problems, got a valid config');
  return result.problems;
}

describe('parseRuntimeConfig', () => {
  it('accepts the committed local config and fills the brand from the defaults', () => {
    const result = parseRuntimeConfig(valid());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.brand).toEqual(defaultBrand);
    expect(result.config.auth.userPoolEndpoint).toBe('http://localhost:4100');
    expect(result.config.remotes.uploader).toBe('http://localhost:3002/mf-manifest.json');
  });

  it('rejects a value that is not an object', () => {
    expect(problemsOf(null)).toEqual(['The configuration must be a JSON object.']);
    expect(problemsOf([1, 2])).toEqual(['The configuration must be a JSON object.']);
  });

  it('lists every missing section at once', () => {
    expect(problemsOf({})).toEqual(['"auth" is missing.', '"storage" is missing.', '"api" is missing.', '"analytics" is missing.', '"remotes" is missing.']);
  });

  it('reports a section of the wrong type', () => {
    const raw = valid();
    (raw as Record<string, unknown>).api = 'http://localhost:4103';
    expect(problemsOf(raw)).toEqual(['"api" must be an object.']);
    (raw as Record<string, unknown>).api = [{ baseUrl: 'http://localhost:4103' }];
    (raw as Record<string, unknown>).analytics = [];
    expect(problemsOf(raw)).toEqual(['"api" must be an object.', '"analytics" must be an object.']);
  });

  it('reports a missing required field and a field of the wrong type', () => {
    const raw = valid();
    delete raw.auth!.userPoolClientId;
    raw.storage!.bucket = 42;
    expect(problemsOf(raw)).toEqual(['"auth.userPoolClientId" is missing.', '"storage.bucket" must be a string.']);
  });

  it('checks the user pool id pattern and its 55-character limit', () => {
    const raw = valid();
    raw.auth!.userPoolId = 'no-underscore';
    expect(problemsOf(raw)[0]).toMatch(/^"auth.userPoolId" is "no-underscore", which is not a user pool id/);
    raw.auth!.userPoolId = `us-east-2_${'a'.repeat(46)}`;
    expect(problemsOf(raw)[0]).toMatch(/at most 55 characters/);
    raw.auth!.userPoolId = `us-east-2_${'a'.repeat(45)}`;
    expect(parseRuntimeConfig(raw).ok).toBe(true);
  });

  it('rejects URLs that are not http(s) and a malformed region', () => {
    const raw = valid();
    raw.remotes!.auth = 'ftp://example.com/mf-manifest.json';
    raw.api!.baseUrl = 'not a url';
    raw.storage!.region = 'Ohio';
    expect(problemsOf(raw)).toEqual([
      '"storage.region" is "Ohio", which is not an AWS region such as us-east-2.',
      '"api.baseUrl" is "not a url", which is not an http(s) URL.',
      '"remotes.auth" is "ftp://example.com/mf-manifest.json", which is not an http(s) URL.',
    ]);
  });

  it('requires the fields of the chosen analytics provider', () => {
    const raw = valid();
    raw.analytics = { provider: 'firehose', region: 'us-east-2' };
    expect(problemsOf(raw)).toEqual(['"analytics.streamName" is missing.']);
    raw.analytics = { provider: 'pinpoint' };
    expect(problemsOf(raw)[0]).toMatch(/"analytics.provider" is "pinpoint", which is not one of/);
  });

  it('takes the vitals sample rate as a share from 0 to 1, optional, its problem listed with the others', () => {
    const raw = valid();
    const ok = parseRuntimeConfig(raw);
    expect(ok.ok && ok.config.analytics).toMatchObject({ provider: 'sandbox', vitalsSampleRate: 1 });
    raw.analytics = { provider: 'firehose', region: 'us-east-2', streamName: 'events' };
    const absent = parseRuntimeConfig(raw);
    expect(absent.ok && absent.config.analytics).toEqual({ provider: 'firehose', region: 'us-east-2', streamName: 'events' });
    raw.analytics = { provider: 'firehose', region: 'us-east-2', streamName: 'events', vitalsSampleRate: 1.5 };
    raw.storage!.bucket = 'Bad_Bucket';
    expect(problemsOf(raw)).toEqual([
      '"storage.bucket" is "Bad_Bucket", which is not an S3 bucket name (lower case letters, digits, dots and hyphens).',
      '"analytics.vitalsSampleRate" is "1.5", which is not a number from 0 to 1.',
    ]);
    raw.storage!.bucket = 'trailsense-local-uploads';
    raw.analytics = { provider: 'sandbox', endpoint: 'http://localhost:4104/events', vitalsSampleRate: '25%' };
    expect(problemsOf(raw)).toEqual(['"analytics.vitalsSampleRate" must be a number from 0 to 1.']);
  });

  it('rejects a non-boolean switch', () => {
    const raw = valid();
    raw.auth!.signUpEnabled = 'yes';
    expect(problemsOf(raw)).toEqual(['"auth.signUpEnabled" must be true or false.']);
  });

  it('reads the sign-in choices beside the password, both off when absent, and refuses a non-boolean one', () => {
    const raw = valid();
    const on = parseRuntimeConfig(raw);
    expect(on.ok && on.config.auth.passwordless).toEqual({ emailCode: true, passkeys: true });
    delete raw.auth!.passwordless;
    const off = parseRuntimeConfig(raw);
    expect(off.ok && off.config.auth.passwordless).toEqual({ emailCode: false, passkeys: false });
    raw.auth!.passwordless = { emailCode: 'yes' };
    expect(problemsOf(raw)).toEqual(['"auth.passwordless.emailCode" must be true or false.']);
  });

  it('lets the brand override single fields and validates them', () => {
    const raw = valid() as Record<string, unknown>;
    raw.brand = { supportEmail: 'help@ranch.example' };
    const result = parseRuntimeConfig(raw);
    expect(result.ok && result.config.brand).toEqual({ ...defaultBrand, supportEmail: 'help@ranch.example' });
    raw.brand = { supportEmail: 'nobody' };
    expect(problemsOf(raw)).toEqual(['"brand.supportEmail" is "nobody", which is not an email address.']);
  });

  it('takes the policy pages from the brand: a path on the site or a URL, never another host by //', () => {
    const raw = valid() as Record<string, unknown>;
    raw.brand = { privacyPolicyUrl: 'https://ranch.example/privacy', termsUrl: '/legal/terms.html' };
    const result = parseRuntimeConfig(raw);
    expect(result.ok && result.config.brand).toEqual({ ...defaultBrand, privacyPolicyUrl: 'https://ranch.example/privacy', termsUrl: '/legal/terms.html' });
    raw.brand = { termsUrl: '//evil.example/terms' };
    expect(problemsOf(raw)).toEqual(['"brand.termsUrl" is "//evil.example/terms", which is not a path on the site (/…) or an http(s) URL.']);
  });

  it('drops a trailing slash from the API base URL and defaults sign-up to hidden', () => {
    const raw = valid();
    raw.api!.baseUrl = 'https://api.trailsense.example/';
    delete raw.auth!.signUpEnabled;
    const result = parseRuntimeConfig(raw);
    expect(result.ok && result.config.api.baseUrl).toBe('https://api.trailsense.example');
    expect(result.ok && result.config.auth.signUpEnabled).toBe(false);
  });
});

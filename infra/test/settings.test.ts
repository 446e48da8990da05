/**
 * Environment settings (src/settings.ts, src/environment.ts): the committed example and its runtime config are valid
 * (the runtime config by the very parser the site uses), and every problem is reported naming its
 * field, so a wrong file stops synth with what to fix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import { REPO_ROOT, settingsFileFor } from '../src/app';
import { checkRuntimeConfig, loadEnvironment } from '../src/environment';
import { checkSettings, SettingsError } from '../src/settings';
import type { Settings } from '../src/settings';

const exampleFile = settingsFileFor('example');
const exampleRaw = JSON.parse(fs.readFileSync(exampleFile, 'utf8')) as Record<string, unknown>;
const { settings, runtimeConfig } = loadEnvironment(exampleFile);

const uploadsApi = exampleRaw.uploadsApi as { domainName: string; certificateArn: string };

function problemsOf(raw: unknown): string[] {
  const result = checkSettings(raw);
  return result.ok ? [] : result.problems;
}

describe('the committed example', () => {
  it('is valid and names config/production.example.json', () => {
    expect(settings).toMatchObject({ name: 'example', region: 'us-east-2', analyticsStreamName: 'trailsense-example-events' });
    expect(settings.uploadsApi).toEqual({ domainName: 'uploads-api.trailsense.example', certificateArn: expect.stringMatching(/^arn:aws:acm:us-east-2:/) });
    expect(settings.alarms).toEqual({ emails: ['ops@trailsense.example'] });
    expect(settings.userPoolEmail).toEqual({ fromAddress: 'no-reply@trailsense.example', fromName: 'TrailSense', sesVerifiedDomain: 'trailsense.example' });
    expect(path.resolve(path.dirname(exampleFile), settings.runtimeConfig)).toBe(path.join(REPO_ROOT, 'config', 'production.example.json'));
  });

  it("has a production runtime config the site's own parser accepts: Firehose analytics, remotes at their domains, no sandbox endpoint", () => {
    const raw: unknown = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'config', 'production.example.json'), 'utf8'));
    const parsed = parseRuntimeConfig(raw);
    expect(parsed).toMatchObject({ ok: true });
    expect(runtimeConfig.analytics).toEqual({ provider: 'firehose', region: 'us-east-2', streamName: 'trailsense-example-events', vitalsSampleRate: 0.25 });
    expect(runtimeConfig.remotes).toEqual({
      auth: 'https://auth.trailsense.example/mf-manifest.json',
      uploader: 'https://uploader.trailsense.example/mf-manifest.json',
    });
    expect(JSON.stringify(raw)).not.toMatch(/localhost|Endpoint|dangerously/);
    expect(checkRuntimeConfig(settings, runtimeConfig)).toEqual([]);
  });
});

describe('a settings file with problems', () => {
  it('takes several alarm recipients, and refuses settings without any', () => {
    const emails = ['ops@trailsense.example', 'on-call+trailsense@ranch-ops.example'];
    const checked = checkSettings({ ...exampleRaw, alarms: { emails } });
    expect(checked.ok && checked.settings.alarms).toEqual({ emails });
    const { alarms: _omitted, ...withoutAlarms } = exampleRaw;
    expect(problemsOf(withoutAlarms)).toEqual([
      'alarms is missing (an object whose emails lists the e-mail addresses every alarm of the environment is sent to).',
    ]);
  });

  it('takes no uploadsApi: the API is then reached at its execute-api endpoint', () => {
    const { uploadsApi: _omitted, ...withoutDomain } = exampleRaw;
    const checked = checkSettings(withoutDomain);
    expect(checked.ok).toBe(true);
    expect(checked.ok && 'uploadsApi' in checked.settings).toBe(false);
  });

  it('lists every missing field by name', () => {
    const problems = problemsOf({});
    for (const field of ['name', 'region', 'certificateArn', 'runtimeConfig', 'ranchesTableName', 'analyticsStreamName', 'domains', 'siteOrigins', 'alarms']) {
      expect(problems.some((p) => p.startsWith(`${field} is missing`))).toBe(true);
    }
    expect(problemsOf([])).toEqual(['the settings must be a JSON object.']);
  });

  it.each([
    [{ region: 'Ohio' }, /^region is "Ohio", which is not an AWS region/],
    [{ account: '1234' }, /^account is "1234", which is not a 12-digit AWS account id/],
    [{ certificateArn: 'arn:aws:acm:us-east-2:123456789012:certificate/abc' }, /^certificateArn .* in us-east-1/],
    [
      { domains: { shell: 'https://trailsense.example', authRemote: 'auth.trailsense.example', uploaderRemote: 'up.trailsense.example' } },
      /^domains\.shell is "https:\/\/trailsense\.example", which is not a lower-case host name/,
    ],
    [{ domains: { shell: 'trailsense.example', authRemote: 'auth.trailsense.example' } }, /^domains\.uploaderRemote is missing/],
    [
      { domains: { shell: 'a.example', authRemote: 'a.example', uploaderRemote: 'b.example' }, siteOrigins: ['https://a.example'] },
      /^domains: .* three different hosts/,
    ],
    [
      { siteOrigins: ['https://trailsense.example', 'https://trailsense.example/'] },
      /^siteOrigins\[1\] is "https:\/\/trailsense\.example\/", which is not an https origin/,
    ],
    [{ siteOrigins: ['https://uploader.trailsense.example'] }, /^siteOrigins must include the shell's origin https:\/\/trailsense\.example/],
    [{ analyticsStreamName: 'events stream' }, /^analyticsStreamName is "events stream"/],
    [
      { identityPoolId: 'us-east-2:0b7c9d4e-2f1a-4c3b-8e5d-6a7b8c9d0e1f', authenticatedRoleArn: 'arn:aws:iam::123456789012:role/x' },
      /^identityPoolId needs userPoolId/,
    ],
    [
      { userPoolId: 'us-east-2_Abc', identityPoolId: 'us-east-2:0b7c9d4e-2f1a-4c3b-8e5d-6a7b8c9d0e1f', userPoolEmail: undefined },
      /^authenticatedRoleArn is missing/,
    ],
    [{ userPoolId: 'us-west-2_Abc', userPoolEmail: undefined }, /^userPoolId us-west-2_Abc is not in the region us-east-2/],
    [{ userPoolId: 'us-east-2_Abc' }, /^userPoolEmail is set with userPoolId: the stack does not change an existing pool's mail/],
    // A created pool mails its sign-in codes, which Cognito sends only through SES.
    [{ userPoolEmail: undefined }, /^userPoolEmail is missing: the created user pool sends sign-in codes by e-mail, which Cognito does only through SES/],
    [{ userPoolEmail: 'no-reply@trailsense.example' }, /^userPoolEmail is not an object \(fromAddress: the SES-verified address/],
    [{ userPoolEmail: { fromName: 'TrailSense' } }, /^userPoolEmail\.fromAddress is missing/],
    [
      { userPoolEmail: { fromAddress: 'TrailSense <no-reply@trailsense.example>' } },
      /^userPoolEmail\.fromAddress is "TrailSense <.*", which is not an e-mail address/,
    ],
    [{ userPoolEmail: { fromAddress: 'no-reply@trailsense.example', fromName: 'Trail"Sense' } }, /^userPoolEmail\.fromName is .*, which is not a sender name/],
    [
      { userPoolEmail: { fromAddress: 'no-reply@other.example', sesVerifiedDomain: 'trailsense.example' } },
      /^userPoolEmail\.fromAddress no-reply@other\.example is not at userPoolEmail\.sesVerifiedDomain trailsense\.example/,
    ],
    [
      { userPoolEmail: { fromAddress: 'no-reply@trailsense.example', sesVerifiedDomain: 'https://trailsense.example' } },
      /^userPoolEmail\.sesVerifiedDomain is .*, which is not a lower-case host name/,
    ],
    [{ userPoolEmail: { fromAddress: 'no-reply@trailsense.example', replyTo: 'ops@trailsense.example' } }, /^userPoolEmail\.replyTo is not a setting/],
    [{ authenticatedRoleArn: 'arn:aws:iam::123456789012:role/x' }, /^authenticatedRoleArn is set without identityPoolId/],
    [{ certificateArn: 'arn:aws:acm:us-east-1:999999999999:certificate/0f5e3c1a' }, /^certificateArn is in account 999999999999, not 123456789012/],
    [{ bucketName: 'x' }, /^bucketName is not a setting/],
    [{ uploadsApi: 'uploads-api.trailsense.example' }, /^uploadsApi is not an object/],
    [
      { uploadsApi: { ...uploadsApi, domainName: 'https://uploads-api.trailsense.example' } },
      /^uploadsApi\.domainName is "https:.*", which is not a lower-case host name/,
    ],
    [
      { uploadsApi: { ...uploadsApi, domainName: 'uploader.trailsense.example' } },
      /^uploadsApi\.domainName uploader\.trailsense\.example is one of the apps' domains/,
    ],
    [
      { uploadsApi: { domainName: 'uploads-api.trailsense.example' } },
      /^uploadsApi\.certificateArn is missing \(an ACM certificate ARN in the settings' region/,
    ],
    [
      { uploadsApi: { ...uploadsApi, certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0f5e3c1a' } },
      /^uploadsApi\.certificateArn is in us-east-1, not the settings' region us-east-2/,
    ],
    [
      { uploadsApi: { ...uploadsApi, certificateArn: 'arn:aws:acm:us-east-2:999999999999:certificate/0f5e3c1a' } },
      /^uploadsApi\.certificateArn is in account 999999999999, not 123456789012/,
    ],
    [{ uploadsApi: { ...uploadsApi, stage: 'v1' } }, /^uploadsApi\.stage is not a setting/],
    [{ alarms: ['ops@trailsense.example'] }, /^alarms is not an object \(emails: the e-mail addresses every alarm/],
    [{ alarms: {} }, /^alarms\.emails is missing \(a non-empty list of the e-mail addresses/],
    [{ alarms: { emails: [] } }, /^alarms\.emails is \[\], which is not a non-empty list/],
    [{ alarms: { emails: 'ops@trailsense.example' } }, /^alarms\.emails is "ops@trailsense\.example", which is not a non-empty list/],
    [
      { alarms: { emails: ['ops@trailsense.example', 'Ops <ops@trailsense.example>'] } },
      /^alarms\.emails\[1\] is "Ops <ops@trailsense\.example>", which is not an e-mail address/,
    ],
    [{ alarms: { emails: ['ops@trailsense'] } }, /^alarms\.emails\[0\] is "ops@trailsense", which is not an e-mail address/],
    [{ alarms: { emails: ['ops@trailsense.example', 'OPS@trailsense.example'] } }, /^alarms\.emails\[1\] OPS@trailsense\.example is alarms\.emails\[0\] again/],
    [{ alarms: { emails: ['ops@trailsense.example'], sms: ['+15550100'] } }, /^alarms\.sms is not a setting/],
  ])('%j → one problem naming the field', (change, message) => {
    const problems = problemsOf({ ...exampleRaw, ...change });
    expect(problems).toEqual([expect.stringMatching(message)]);
  });
});

describe('a runtime config that does not fit the settings', () => {
  const withConfig = (change: (config: RuntimeConfig) => RuntimeConfig, s: Settings = settings) =>
    checkRuntimeConfig(s, change(structuredClone(runtimeConfig)));

  it('refuses sandbox endpoints and another analytics provider', () => {
    expect(withConfig((c) => ({ ...c, auth: { ...c.auth, userPoolEndpoint: 'http://localhost:4100' } }))).toEqual([
      expect.stringMatching(/^auth\.userPoolEndpoint is set/),
    ]);
    expect(withConfig((c) => ({ ...c, storage: { ...c.storage, dangerouslyConnectToHttpEndpointForTesting: true } }))).toEqual([
      expect.stringMatching(/^storage\.dangerouslyConnectToHttpEndpointForTesting is set/),
    ]);
    expect(withConfig((c) => ({ ...c, analytics: { provider: 'none' } }))).toEqual([expect.stringMatching(/^analytics\.provider is none/)]);
  });

  it('refuses a stream other than the one the Analytics stack creates', () => {
    expect(withConfig((c) => ({ ...c, analytics: { provider: 'firehose', region: 'us-east-2', streamName: 'other' } }))).toEqual([
      "analytics.streamName is other, but the settings' analyticsStreamName (the stream the Analytics stack creates) is trailsense-example-events.",
    ]);
  });

  it("refuses remotes that are not at the remotes' domains, and other regions", () => {
    expect(withConfig((c) => ({ ...c, remotes: { ...c.remotes, uploader: 'https://cdn.example/uploader/mf-manifest.json' } }))).toEqual([
      'remotes.uploader is https://cdn.example/uploader/mf-manifest.json, but that remote is hosted at https://uploader.trailsense.example/mf-manifest.json.',
    ]);
    expect(withConfig((c) => ({ ...c, storage: { ...c.storage, region: 'us-west-2' } }))).toEqual([expect.stringMatching(/^storage\.region is us-west-2/)]);
  });

  it('refuses a bucket name Transfer Acceleration would not take, and pools other than the existing ones named', () => {
    expect(withConfig((c) => ({ ...c, storage: { ...c.storage, bucket: 'uploads.trailsense' } }))).toEqual([
      expect.stringMatching(/^storage\.bucket .* contains a dot/),
    ]);
    expect(withConfig((c) => c, { ...settings, userPoolId: 'us-east-2_Mobile' })).toEqual([
      expect.stringMatching(/^auth\.userPoolId is us-east-2_ExampleP00l, but the settings use the existing user pool us-east-2_Mobile/),
    ]);
  });
});

describe("the uploads API's URL in the runtime config", () => {
  const withUploadsBaseUrl = (url: string, s: Settings = settings) =>
    checkRuntimeConfig(s, { ...runtimeConfig, api: { ...runtimeConfig.api, uploadsBaseUrl: url } });
  const { uploadsApi: _omitted, ...settingsWithoutDomain } = settings;

  it('must be https://<uploadsApi.domainName> when the settings give the API a custom domain', () => {
    expect(runtimeConfig.api.uploadsBaseUrl).toBe('https://uploads-api.trailsense.example');
    expect(withUploadsBaseUrl('https://uploads-api.trailsense.example')).toEqual([]);
    expect(withUploadsBaseUrl('https://abc123.execute-api.us-east-2.amazonaws.com')).toEqual([
      "api.uploadsBaseUrl is https://abc123.execute-api.us-east-2.amazonaws.com, but the uploads API is served at its custom domain https://uploads-api.trailsense.example (the settings' uploadsApi.domainName).",
    ]);
    expect(withUploadsBaseUrl('http://uploads-api.trailsense.example')).toEqual([expect.stringMatching(/^api\.uploadsBaseUrl is http:\/\/uploads-api/)]);
    expect(withUploadsBaseUrl('https://uploads-api.trailsense.example/v1')).toEqual([
      expect.stringMatching(/^api\.uploadsBaseUrl is https:\/\/uploads-api\.trailsense\.example\/v1, but/),
    ]);
  });

  it('must be https without one (the execute-api endpoint, the UploadsApiEndpoint output)', () => {
    expect(withUploadsBaseUrl('https://abc123.execute-api.us-east-2.amazonaws.com', settingsWithoutDomain)).toEqual([]);
    expect(withUploadsBaseUrl('http://localhost:4103', settingsWithoutDomain)).toEqual(['api.uploadsBaseUrl http://localhost:4103 is not https.']);
  });
});

describe('loading an environment', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-settings-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, value: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };

  it('reports a missing file, bad JSON, and the runtime config parser’s problems with the file they are in', () => {
    expect(() => loadEnvironment(path.join(dir, 'absent.json'))).toThrow(/absent\.json has a problem:\n {2}- the settings file does not exist/);
    expect(() => loadEnvironment(write('broken.json', '{'))).toThrow(/broken\.json has a problem:\n {2}- the settings is not valid JSON/);
    const config = write('config.json', { ...runtimeConfig, auth: { ...runtimeConfig.auth, userPoolId: 'nope' } });
    const settingsFile = write('env.json', { ...exampleRaw, runtimeConfig: path.basename(config) });
    let error: unknown;
    try {
      loadEnvironment(settingsFile);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).file).toBe(config);
    expect((error as SettingsError).problems).toEqual([expect.stringMatching(/^"auth\.userPoolId" is "nope"/)]);
  });
});

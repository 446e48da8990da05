/**
 * An environment's settings (infra/config/<name>.json) and the runtime config it serves
 * (`/config.json`, docs/architecture.md#runtime-configuration), read and checked before any stack
 * is built: every problem is reported at once, each naming its field, and synth stops.
 *
 * The site's origins must be known at synth time (the Content-Security-Policy names the remotes'
 * origins, the remotes allow CORS for the shell's origin, the upload bucket for the site's), so the
 * custom domains are required. Names that tie stacks together come from here too, so the stacks
 * need no cross-stack references: the upload bucket is the runtime config's `storage.bucket`, the
 * analytics stream `analyticsStreamName` (which the runtime config must name as well), the uploads
 * API's user pool and web client the runtime config's `auth.userPoolId` and `auth.userPoolClientId`
 * (the Identity stack's outputs, copied there), its URL the runtime config's `api.uploadsBaseUrl`
 * (`https://<uploadsApi.domainName>` when the settings give the API a custom domain), and the
 * alarm topic every stack's alarms notify `trailsense-<name>-alarms` (src/stacks/alarms.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseRuntimeConfig } from '@trailsense/shared/config';
import type { RuntimeConfig } from '@trailsense/shared/config-types';

export interface Domains {
  /** The shell's host name, e.g. `trailsense.example` (the site). */
  shell: string;
  /** auth-remote's host name (where `remotes.auth` points). */
  authRemote: string;
  /** uploader-remote's host name (where `remotes.uploader` points). */
  uploaderRemote: string;
}

export interface Settings {
  /** The environment's name, part of every stack name (`TrailSense-<name>-<Part>`). */
  name: string;
  /** The AWS account (12 digits); absent: the stacks are account-agnostic (the CLI's account at deploy). */
  account?: string;
  /** The region of everything but CloudFront (global). */
  region: string;
  domains: Domains;
  /** An ACM certificate in us-east-1 covering the three domains (CloudFront takes no other region). */
  certificateArn: string;
  /** The runtime config (`/config.json`) this environment serves, relative to the settings file. */
  runtimeConfig: string;
  /** An existing user pool to use instead of creating one (the mobile apps' pool). */
  userPoolId?: string;
  /** An existing identity pool to use instead of creating one; needs `userPoolId` and `authenticatedRoleArn`. */
  identityPoolId?: string;
  /** The existing identity pool's authenticated role, to which the web's upload and analytics policy is attached. */
  authenticatedRoleArn?: string;
  /**
   * The created user pool's mail (codes for sign-up, reset, a changed email) through SES; absent:
   * Cognito's own sender, about 50 messages a day for the account — enough for a trial, not for
   * sign-ups. Not with `userPoolId`: an existing pool's mail is configured where the pool is.
   */
  userPoolEmail?: UserPoolEmailSettings;
  /** The product back end's ranch table (read by the object-created function). */
  ranchesTableName: string;
  /** The Firehose stream the analytics events go to; the runtime config's `analytics.streamName`. */
  analyticsStreamName: string;
  /** The origins (`https://host`) the browser uploads from: the upload bucket's CORS. */
  siteOrigins: string[];
  /** The uploads API's custom domain; absent: the API is reached at its execute-api endpoint. */
  uploadsApi?: UploadsApiDomain;
  /** Who hears of the environment's alarms (docs/operations.md#alarms). */
  alarms: AlarmSettings;
}

/** The user pool's SES sender. */
export interface UserPoolEmailSettings {
  /** The From address, verified in SES (itself, or its domain `sesVerifiedDomain`). */
  fromAddress: string;
  /** The sender's name shown with it. */
  fromName?: string;
  /** The SES identity that is a verified domain, when the address is not verified alone; the address must be at it. */
  sesVerifiedDomain?: string;
}

/** The alarm topic's recipients. */
export interface AlarmSettings {
  /** The e-mail addresses subscribed to the alarm topic (each confirms its subscription once). */
  emails: string[];
}

/** The uploads API's custom domain: a stable URL, known before the API exists. */
export interface UploadsApiDomain {
  /** The host name, e.g. `uploads-api.trailsense.example`; the runtime config's `api.uploadsBaseUrl` is `https://<it>`. */
  domainName: string;
  /** An ACM certificate covering it, **in the settings' region** (a regional API Gateway domain takes no other). */
  certificateArn: string;
}

/** An environment ready to be synthesized: its checked settings and runtime config. */
export interface Environment {
  settings: Settings;
  runtimeConfig: RuntimeConfig;
  /** The settings file it was read from. */
  settingsFile: string;
  /** The runtime config file (resolved). */
  runtimeConfigFile: string;
}

/** Thrown with every problem found; the message lists them one per line. */
export class SettingsError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

const ENV_NAME = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;
const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN = /^arn:aws:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]+$/;
const REGIONAL_CERTIFICATE_ARN = /^arn:aws:acm:([a-z]{2}(-gov)?-[a-z]+-\d):(\d{12}):certificate\/[0-9a-f-]+$/;
const USER_POOL_ID = /^[a-z]{2}(-gov)?-[a-z]+-\d_[0-9A-Za-z]+$/;
const IDENTITY_POOL_ID = /^[a-z]{2}(-gov)?-[a-z]+-\d:[0-9a-f-]{36}$/;
const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]+$/;
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const STREAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** An address SNS can mail: something@host.tld, no spaces, no display name. */
const EMAIL = /^[^\s@<>(),;:"]+@(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

const FIELDS = new Set([
  '$comment',
  'name',
  'account',
  'region',
  'domains',
  'certificateArn',
  'runtimeConfig',
  'userPoolId',
  'identityPoolId',
  'authenticatedRoleArn',
  'userPoolEmail',
  'ranchesTableName',
  'analyticsStreamName',
  'siteOrigins',
  'uploadsApi',
  'alarms',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `https://host` origin of a custom domain. */
export function httpsOrigin(host: string): string {
  return `https://${host}`;
}

/** Checks a settings file's parsed JSON: the settings, or every problem (each names its field). */
export function checkSettings(raw: unknown): { ok: true; settings: Settings } | { ok: false; problems: string[] } {
  if (!isObject(raw)) return { ok: false, problems: ['the settings must be a JSON object.'] };
  const problems: string[] = [];
  const str = (field: string, pattern: RegExp, expected: string, required = true): string | undefined => {
    const value = raw[field];
    if (value === undefined || value === '') {
      if (required) problems.push(`${field} is missing (${expected}).`);
      return undefined;
    }
    if (typeof value !== 'string' || !pattern.test(value)) {
      problems.push(`${field} is ${JSON.stringify(value)}, which is not ${expected}.`);
      return undefined;
    }
    return value;
  };

  for (const key of Object.keys(raw))
    if (!FIELDS.has(key)) problems.push(`${key} is not a setting (known: ${[...FIELDS].filter((f) => f !== '$comment').join(', ')}).`);

  const name = str('name', ENV_NAME, 'an environment name (a letter, then letters, digits or hyphens; at most 32)');
  const account = str('account', ACCOUNT, 'a 12-digit AWS account id', false);
  const region = str('region', REGION, 'an AWS region such as us-east-2');
  const certificateArn = str('certificateArn', CERTIFICATE_ARN, 'an ACM certificate ARN in us-east-1 (CloudFront takes no other region)');
  const runtimeConfig = str('runtimeConfig', /\.json$/, 'the path of a .json runtime config, relative to the settings file');
  const userPoolId = str('userPoolId', USER_POOL_ID, 'a user pool id like us-east-2_AbC123', false);
  const identityPoolId = str('identityPoolId', IDENTITY_POOL_ID, 'an identity pool id like us-east-2:1a2b3c4d-…', false);
  const authenticatedRoleArn = str('authenticatedRoleArn', ROLE_ARN, 'an IAM role ARN', false);
  const ranchesTableName = str('ranchesTableName', TABLE_NAME, 'a DynamoDB table name');
  const analyticsStreamName = str('analyticsStreamName', STREAM_NAME, 'a Firehose stream name (letters, digits, _ . -; at most 64)');

  let domains: Domains | undefined;
  if (!isObject(raw.domains)) {
    problems.push('domains is missing (an object with shell, authRemote and uploaderRemote host names).');
  } else {
    const found: Partial<Domains> = {};
    for (const key of ['shell', 'authRemote', 'uploaderRemote'] as const) {
      const value = raw.domains[key];
      if (typeof value !== 'string' || !HOST.test(value)) {
        problems.push(
          value === undefined
            ? `domains.${key} is missing (a host name such as ${key === 'shell' ? 'trailsense.example' : 'remote.trailsense.example'}).`
            : `domains.${key} is ${JSON.stringify(value)}, which is not a lower-case host name (no scheme, no path).`,
        );
      } else found[key] = value;
    }
    for (const key of Object.keys(raw.domains)) if (!['shell', 'authRemote', 'uploaderRemote'].includes(key)) problems.push(`domains.${key} is not a setting.`);
    if (found.shell && found.authRemote && found.uploaderRemote) {
      domains = found as Domains;
      if (new Set(Object.values(domains)).size !== 3)
        problems.push('domains: shell, authRemote and uploaderRemote must be three different hosts (each app is its own distribution).');
    }
  }

  let siteOrigins: string[] | undefined;
  if (!Array.isArray(raw.siteOrigins) || raw.siteOrigins.length === 0) {
    problems.push("siteOrigins is missing (a non-empty list of https origins the browser uploads from, at least the shell's).");
  } else {
    siteOrigins = [];
    raw.siteOrigins.forEach((value, index) => {
      let ok = false;
      if (typeof value === 'string') {
        try {
          const url = new URL(value);
          ok = url.protocol === 'https:' && url.origin === value;
        } catch {
          ok = false;
        }
      }
      if (ok) siteOrigins!.push(value as string);
      else problems.push(`siteOrigins[${index}] is ${JSON.stringify(value)}, which is not an https origin (https://host, no path, no trailing slash).`);
    });
    if (domains && !siteOrigins.includes(httpsOrigin(domains.shell))) {
      problems.push(`siteOrigins must include the shell's origin ${httpsOrigin(domains.shell)} (the uploader runs in the shell's page).`);
    }
  }

  let uploadsApi: UploadsApiDomain | undefined;
  if (raw.uploadsApi !== undefined) {
    if (!isObject(raw.uploadsApi)) {
      problems.push("uploadsApi is not an object (domainName and certificateArn of the uploads API's custom domain).");
    } else {
      const { domainName, certificateArn: apiCertificateArn } = raw.uploadsApi;
      let ok = true;
      for (const key of Object.keys(raw.uploadsApi)) if (!['domainName', 'certificateArn'].includes(key)) problems.push(`uploadsApi.${key} is not a setting.`);
      if (typeof domainName !== 'string' || !HOST.test(domainName)) {
        ok = false;
        problems.push(
          domainName === undefined
            ? 'uploadsApi.domainName is missing (a host name such as uploads-api.trailsense.example).'
            : `uploadsApi.domainName is ${JSON.stringify(domainName)}, which is not a lower-case host name (no scheme, no path).`,
        );
      } else if (domains && Object.values(domains).includes(domainName)) {
        ok = false;
        problems.push(`uploadsApi.domainName ${domainName} is one of the apps' domains: the API needs a host of its own.`);
      }
      const arn = typeof apiCertificateArn === 'string' ? REGIONAL_CERTIFICATE_ARN.exec(apiCertificateArn) : null;
      if (!arn) {
        ok = false;
        problems.push(
          apiCertificateArn === undefined
            ? "uploadsApi.certificateArn is missing (an ACM certificate ARN in the settings' region, covering uploadsApi.domainName)."
            : `uploadsApi.certificateArn is ${JSON.stringify(apiCertificateArn)}, which is not an ACM certificate ARN.`,
        );
      } else {
        if (region && arn[1] !== region) {
          ok = false;
          problems.push(
            `uploadsApi.certificateArn is in ${arn[1]}, not the settings' region ${region} (a regional API Gateway domain takes a certificate of its own region).`,
          );
        }
        if (account && arn[3] !== account) {
          ok = false;
          problems.push(`uploadsApi.certificateArn is in account ${arn[3]}, not ${account}.`);
        }
      }
      if (ok) uploadsApi = { domainName: domainName as string, certificateArn: apiCertificateArn as string };
    }
  }

  const alarms = checkAlarms(raw.alarms, problems);
  const userPoolEmail = checkUserPoolEmail(raw.userPoolEmail, problems);
  if (raw.userPoolEmail !== undefined && userPoolId)
    problems.push("userPoolEmail is set with userPoolId: the stack does not change an existing pool's mail (configure it where that pool is managed).");

  if (identityPoolId && !userPoolId) problems.push('identityPoolId needs userPoolId: an existing identity pool signs in with an existing user pool.');
  if (identityPoolId && !authenticatedRoleArn) {
    problems.push(
      'authenticatedRoleArn is missing: with an existing identityPoolId, name the role that pool gives authenticated identities (the upload policy is attached to it).',
    );
  }
  if (authenticatedRoleArn && !identityPoolId)
    problems.push('authenticatedRoleArn is set without identityPoolId: the stack creates the role when it creates the identity pool.');
  if (account && certificateArn && certificateArn.split(':')[4] !== account) {
    problems.push(`certificateArn is in account ${certificateArn.split(':')[4]}, not ${account}.`);
  }
  for (const [field, id] of [
    ['userPoolId', userPoolId],
    ['identityPoolId', identityPoolId],
  ] as const) {
    if (id && region && !id.startsWith(`${region}${field === 'userPoolId' ? '_' : ':'}`)) problems.push(`${field} ${id} is not in the region ${region}.`);
  }

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    settings: {
      name: name!,
      ...(account ? { account } : {}),
      region: region!,
      domains: domains!,
      certificateArn: certificateArn!,
      runtimeConfig: runtimeConfig!,
      ...(userPoolId ? { userPoolId } : {}),
      ...(identityPoolId ? { identityPoolId } : {}),
      ...(authenticatedRoleArn ? { authenticatedRoleArn } : {}),
      ...(userPoolEmail ? { userPoolEmail } : {}),
      ranchesTableName: ranchesTableName!,
      analyticsStreamName: analyticsStreamName!,
      siteOrigins: siteOrigins!,
      ...(uploadsApi ? { uploadsApi } : {}),
      alarms: alarms!,
    },
  };
}

/** The optional `userPoolEmail` setting; pushes its problems, and answers undefined when absent or when there is any. */
function checkUserPoolEmail(raw: unknown, problems: string[]): UserPoolEmailSettings | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) {
    problems.push('userPoolEmail is not an object (fromAddress: the SES-verified address the user pool mails its codes from).');
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(raw))
    if (!['fromAddress', 'fromName', 'sesVerifiedDomain'].includes(key)) problems.push(`userPoolEmail.${key} is not a setting.`);
  const { fromAddress, fromName, sesVerifiedDomain } = raw;
  if (typeof fromAddress !== 'string' || !EMAIL.test(fromAddress)) {
    problems.push(
      fromAddress === undefined
        ? 'userPoolEmail.fromAddress is missing (the SES-verified address the user pool mails its codes from).'
        : `userPoolEmail.fromAddress is ${JSON.stringify(fromAddress)}, which is not an e-mail address (name@host, nothing else).`,
    );
  }
  if (fromName !== undefined && (typeof fromName !== 'string' || fromName.trim() === '' || /[<>"\r\n]/.test(fromName)))
    problems.push(`userPoolEmail.fromName is ${JSON.stringify(fromName)}, which is not a sender name (text without < > " or line breaks).`);
  if (sesVerifiedDomain !== undefined) {
    if (typeof sesVerifiedDomain !== 'string' || !HOST.test(sesVerifiedDomain)) {
      problems.push(`userPoolEmail.sesVerifiedDomain is ${JSON.stringify(sesVerifiedDomain)}, which is not a lower-case host name.`);
    } else if (typeof fromAddress === 'string' && EMAIL.test(fromAddress)) {
      const host = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
      if (host !== sesVerifiedDomain && !host.endsWith(`.${sesVerifiedDomain}`))
        problems.push(
          `userPoolEmail.fromAddress ${fromAddress} is not at userPoolEmail.sesVerifiedDomain ${sesVerifiedDomain}: SES sends only from its verified domain.`,
        );
    }
  }
  if (problems.length > before) return undefined;
  return {
    fromAddress: fromAddress as string,
    ...(fromName !== undefined ? { fromName: fromName as string } : {}),
    ...(sesVerifiedDomain !== undefined ? { sesVerifiedDomain: sesVerifiedDomain as string } : {}),
  };
}

/**
 * The `alarms` setting, required: an environment nobody hears from is the silence alarms are for.
 * Pushes its problems; the settings, or undefined when there is any.
 */
function checkAlarms(raw: unknown, problems: string[]): AlarmSettings | undefined {
  const what = 'the e-mail addresses every alarm of the environment is sent to';
  if (raw === undefined) {
    problems.push(`alarms is missing (an object whose emails lists ${what}).`);
    return undefined;
  }
  if (!isObject(raw)) {
    problems.push(`alarms is not an object (emails: ${what}).`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(raw)) if (key !== 'emails') problems.push(`alarms.${key} is not a setting.`);
  const { emails } = raw;
  if (!Array.isArray(emails) || emails.length === 0) {
    problems.push(
      emails === undefined
        ? `alarms.emails is missing (a non-empty list of ${what}).`
        : `alarms.emails is ${JSON.stringify(emails)}, which is not a non-empty list of ${what}.`,
    );
    return undefined;
  }
  const seen = new Map<string, number>();
  emails.forEach((value, index) => {
    if (typeof value !== 'string' || !EMAIL.test(value)) {
      problems.push(`alarms.emails[${index}] is ${JSON.stringify(value)}, which is not an e-mail address (name@host, nothing else).`);
      return;
    }
    const first = seen.get(value.toLowerCase());
    if (first !== undefined) problems.push(`alarms.emails[${index}] ${value} is alarms.emails[${first}] again: list each address once.`);
    else seen.set(value.toLowerCase(), index);
  });
  return problems.length === before ? { emails: emails as string[] } : undefined;
}

/**
 * What a production runtime config must agree on with the settings: AWS endpoints only (no
 * sandbox), the settings' region, the Firehose stream the Analytics stack creates, the remotes at
 * their domains, the existing pools when the settings name them, a bucket name Transfer
 * Acceleration accepts (no dots), and the uploads API at its custom domain when the settings give
 * it one (https in any case). Fields are the runtime config's (`analytics.streamName`).
 */
export function checkRuntimeConfig(settings: Settings, config: RuntimeConfig): string[] {
  const problems: string[] = [];
  const { auth, storage, api, analytics, remotes } = config;
  if (auth.userPoolEndpoint) problems.push("auth.userPoolEndpoint is set: production uses AWS's endpoint (that field is for the sandbox).");
  if (auth.identityPoolEndpoint) problems.push("auth.identityPoolEndpoint is set: production uses AWS's endpoint (that field is for the sandbox).");
  if (storage.dangerouslyConnectToHttpEndpointForTesting) problems.push('storage.dangerouslyConnectToHttpEndpointForTesting is set: sandbox only.');
  if (auth.region !== settings.region) problems.push(`auth.region is ${auth.region}, but the settings' region is ${settings.region}.`);
  if (storage.region !== settings.region)
    problems.push(`storage.region is ${storage.region}, but the settings' region is ${settings.region} (the Uploads stack's).`);
  if (storage.bucket.includes('.')) problems.push(`storage.bucket ${storage.bucket} contains a dot, which Transfer Acceleration refuses.`);
  if (!api.baseUrl.startsWith('https://')) problems.push(`api.baseUrl ${api.baseUrl} is not https.`);
  if (settings.uploadsApi) {
    const url = httpsOrigin(settings.uploadsApi.domainName);
    if (api.uploadsBaseUrl !== url)
      problems.push(
        `api.uploadsBaseUrl is ${api.uploadsBaseUrl}, but the uploads API is served at its custom domain ${url} (the settings' uploadsApi.domainName).`,
      );
  } else if (!api.uploadsBaseUrl.startsWith('https://')) {
    problems.push(`api.uploadsBaseUrl ${api.uploadsBaseUrl} is not https.`);
  }
  if (analytics.provider !== 'firehose') {
    problems.push(`analytics.provider is ${analytics.provider}: production sends its events to the Analytics stack's Firehose stream ("firehose").`);
  } else {
    if (analytics.streamName !== settings.analyticsStreamName) {
      problems.push(
        `analytics.streamName is ${analytics.streamName}, but the settings' analyticsStreamName (the stream the Analytics stack creates) is ${settings.analyticsStreamName}.`,
      );
    }
    if (analytics.region !== settings.region) problems.push(`analytics.region is ${analytics.region}, but the settings' region is ${settings.region}.`);
  }
  const expected = { auth: settings.domains.authRemote, uploader: settings.domains.uploaderRemote };
  for (const key of ['auth', 'uploader'] as const) {
    const url = `${httpsOrigin(expected[key])}/mf-manifest.json`;
    if (remotes[key] !== url) problems.push(`remotes.${key} is ${remotes[key]}, but that remote is hosted at ${url}.`);
  }
  if (settings.userPoolId && auth.userPoolId !== settings.userPoolId) {
    problems.push(`auth.userPoolId is ${auth.userPoolId}, but the settings use the existing user pool ${settings.userPoolId}.`);
  }
  if (settings.identityPoolId && auth.identityPoolId !== settings.identityPoolId) {
    problems.push(`auth.identityPoolId is ${auth.identityPoolId}, but the settings use the existing identity pool ${settings.identityPoolId}.`);
  }
  return problems;
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new SettingsError(file, [`the ${what} file does not exist or cannot be read.`]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SettingsError(file, [`the ${what} is not valid JSON: ${(error as Error).message}`]);
  }
}

/** Reads and checks an environment's settings file and the runtime config it names; throws a `SettingsError`. */
export function loadEnvironment(settingsFile: string): Environment {
  const checked = checkSettings(readJson(settingsFile, 'settings'));
  if (!checked.ok) throw new SettingsError(settingsFile, checked.problems);
  const { settings } = checked;
  const runtimeConfigFile = path.resolve(path.dirname(settingsFile), settings.runtimeConfig);
  const parsed = parseRuntimeConfig(readJson(runtimeConfigFile, 'runtime config'));
  if (!parsed.ok) throw new SettingsError(runtimeConfigFile, parsed.problems);
  const problems = checkRuntimeConfig(settings, parsed.config);
  if (problems.length > 0) throw new SettingsError(runtimeConfigFile, problems);
  return { settings, runtimeConfig: parsed.config, settingsFile, runtimeConfigFile };
}

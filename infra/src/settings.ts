/**
 * An environment's settings (infra/config/<name>.json): their shape, and their check before any
 * stack is built — every problem reported at once, each naming its field. Reading them with the
 * runtime config they name, and checking that config against them: src/environment.ts.
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
   * The created user pool's mail (sign-in codes, and codes for sign-up, reset, a changed email)
   * through SES; required without `userPoolId`, since Cognito sends e-mail sign-in codes only
   * through SES (infra/docs/server.md#sign-in). Not with `userPoolId`: an existing pool's mail is
   * configured where the pool is.
   */
  userPoolEmail?: UserPoolEmailSettings;
  /** The product back end's ranch table (read by the object-created function). */
  ranchesTableName: string;
  /** The Firehose stream the analytics events go to; the runtime config's `analytics.streamName`. */
  analyticsStreamName: string;
  /** The origins (`https://host`) the browser uploads from: the upload bucket's CORS. */
  siteOrigins: string[];
  /**
   * The uploads API's custom domain (a regional API Gateway domain; its execute-api endpoint is then
   * disabled); absent: the API is reached at its execute-api endpoint. The firewall is on the API's
   * stage either way (infra/docs/server.md#the-uploads-apis-firewall).
   */
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
  for (const key of Object.keys(raw))
    if (!FIELDS.has(key)) problems.push(`${key} is not a setting (known: ${[...FIELDS].filter((f) => f !== '$comment').join(', ')}).`);
  const fields = checkStringFields(raw, problems);
  const domains = checkDomains(raw.domains, problems);
  const siteOrigins = checkSiteOrigins(raw.siteOrigins, domains, problems);
  const uploadsApi = checkUploadsApi(raw.uploadsApi, domains, fields, problems);
  const alarms = checkAlarms(raw.alarms, problems);
  const userPoolEmail = checkUserPoolEmail(raw.userPoolEmail, problems);
  checkAgreement(fields, { userPoolEmail: raw.userPoolEmail !== undefined, userPoolId: raw.userPoolId !== undefined && raw.userPoolId !== '' }, problems);

  if (problems.length > 0) return { ok: false, problems };
  const { name, account, region, certificateArn, runtimeConfig, userPoolId, identityPoolId, authenticatedRoleArn, ranchesTableName, analyticsStreamName } =
    fields;
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

/** The settings that are one string each, as far as they are well formed (undefined: missing or not). */
type StringFields = Partial<
  Pick<
    Settings,
    | 'name'
    | 'account'
    | 'region'
    | 'certificateArn'
    | 'runtimeConfig'
    | 'userPoolId'
    | 'identityPoolId'
    | 'authenticatedRoleArn'
    | 'ranchesTableName'
    | 'analyticsStreamName'
  >
>;

/** The settings that are one string each, checked against their patterns; pushes their problems. */
function checkStringFields(raw: Record<string, unknown>, problems: string[]): StringFields {
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
  return {
    name: str('name', ENV_NAME, 'an environment name (a letter, then letters, digits or hyphens; at most 32)'),
    account: str('account', ACCOUNT, 'a 12-digit AWS account id', false),
    region: str('region', REGION, 'an AWS region such as us-east-2'),
    certificateArn: str('certificateArn', CERTIFICATE_ARN, 'an ACM certificate ARN in us-east-1 (CloudFront takes no other region)'),
    runtimeConfig: str('runtimeConfig', /\.json$/, 'the path of a .json runtime config, relative to the settings file'),
    userPoolId: str('userPoolId', USER_POOL_ID, 'a user pool id like us-east-2_AbC123', false),
    identityPoolId: str('identityPoolId', IDENTITY_POOL_ID, 'an identity pool id like us-east-2:1a2b3c4d-…', false),
    authenticatedRoleArn: str('authenticatedRoleArn', ROLE_ARN, 'an IAM role ARN', false),
    ranchesTableName: str('ranchesTableName', TABLE_NAME, 'a DynamoDB table name'),
    analyticsStreamName: str('analyticsStreamName', STREAM_NAME, 'a Firehose stream name (letters, digits, _ . -; at most 64)'),
  };
}

/** The `domains` setting, required: three different host names. Pushes its problems; the domains, or undefined when any is wrong. */
function checkDomains(raw: unknown, problems: string[]): Domains | undefined {
  if (!isObject(raw)) {
    problems.push('domains is missing (an object with shell, authRemote and uploaderRemote host names).');
    return undefined;
  }
  const found: Partial<Domains> = {};
  for (const key of ['shell', 'authRemote', 'uploaderRemote'] as const) {
    const value = raw[key];
    if (typeof value !== 'string' || !HOST.test(value)) {
      problems.push(
        value === undefined
          ? `domains.${key} is missing (a host name such as ${key === 'shell' ? 'trailsense.example' : 'remote.trailsense.example'}).`
          : `domains.${key} is ${JSON.stringify(value)}, which is not a lower-case host name (no scheme, no path).`,
      );
    } else found[key] = value;
  }
  for (const key of Object.keys(raw)) if (!['shell', 'authRemote', 'uploaderRemote'].includes(key)) problems.push(`domains.${key} is not a setting.`);
  if (!found.shell || !found.authRemote || !found.uploaderRemote) return undefined;
  const domains = found as Domains;
  if (new Set(Object.values(domains)).size !== 3)
    problems.push('domains: shell, authRemote and uploaderRemote must be three different hosts (each app is its own distribution).');
  return domains;
}

/** The `siteOrigins` setting, required: https origins, the shell's among them. Pushes its problems. */
function checkSiteOrigins(raw: unknown, domains: Domains | undefined, problems: string[]): string[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push("siteOrigins is missing (a non-empty list of https origins the browser uploads from, at least the shell's).");
    return undefined;
  }
  const siteOrigins: string[] = [];
  raw.forEach((value, index) => {
    let ok = false;
    if (typeof value === 'string') {
      try {
        const url = new URL(value);
        ok = url.protocol === 'https:' && url.origin === value;
      } catch {
        ok = false;
      }
    }
    if (ok) siteOrigins.push(value as string);
    else problems.push(`siteOrigins[${index}] is ${JSON.stringify(value)}, which is not an https origin (https://host, no path, no trailing slash).`);
  });
  if (domains && !siteOrigins.includes(httpsOrigin(domains.shell))) {
    problems.push(`siteOrigins must include the shell's origin ${httpsOrigin(domains.shell)} (the uploader runs in the shell's page).`);
  }
  return siteOrigins;
}

/**
 * The optional `uploadsApi` setting: a host of its own and a certificate in the settings' region
 * and account. Pushes its problems; the domain, or undefined when absent or when there is any.
 */
function checkUploadsApi(raw: unknown, domains: Domains | undefined, fields: StringFields, problems: string[]): UploadsApiDomain | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) {
    problems.push("uploadsApi is not an object (domainName and certificateArn of the uploads API's custom domain).");
    return undefined;
  }
  const { region, account } = fields;
  const { domainName, certificateArn } = raw;
  let ok = true;
  for (const key of Object.keys(raw)) if (!['domainName', 'certificateArn'].includes(key)) problems.push(`uploadsApi.${key} is not a setting.`);
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
  const arn = typeof certificateArn === 'string' ? REGIONAL_CERTIFICATE_ARN.exec(certificateArn) : null;
  if (!arn) {
    ok = false;
    problems.push(
      certificateArn === undefined
        ? "uploadsApi.certificateArn is missing (an ACM certificate ARN in the settings' region, covering uploadsApi.domainName)."
        : `uploadsApi.certificateArn is ${JSON.stringify(certificateArn)}, which is not an ACM certificate ARN.`,
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
  return ok ? { domainName: domainName as string, certificateArn: certificateArn as string } : undefined;
}

/**
 * What the settings must agree on among themselves: the existing pools and role named together
 * (SES mail for a created user pool, none for an existing one), the certificate in the settings'
 * account, the pools in the settings' region. `given`: which optional settings the file has at all
 * (well formed or not). Pushes its problems.
 */
function checkAgreement(fields: StringFields, given: { userPoolEmail: boolean; userPoolId: boolean }, problems: string[]): void {
  const { account, region, certificateArn, userPoolId, identityPoolId, authenticatedRoleArn } = fields;
  if (given.userPoolEmail && userPoolId)
    problems.push("userPoolEmail is set with userPoolId: the stack does not change an existing pool's mail (configure it where that pool is managed).");
  if (!given.userPoolEmail && !given.userPoolId)
    problems.push(
      'userPoolEmail is missing: the created user pool sends sign-in codes by e-mail, which Cognito does only through SES (fromAddress: an SES-verified sender).',
    );

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

/**
 * The post-deploy check of the ranch binding (infra/README.md "Post-deploy check";
 * infra/docs/server.md#trust-on-the-server), as a pure core over a port: infra/bin/check-pool.ts
 * runs it on AWS (src/pool-check/aws.ts).
 *
 * The upload key's ranch is the `ranchid` principal tag, copied from the id token's
 * `custom:ranchid` (src/upload-access.ts). That claim is mutable, so the binding holds only while
 * no app client of the user pool lets a user write it — the web client's does not (the Identity
 * stack), but a shared pool has the mobile apps' clients too — and while the authenticated role
 * grants nothing on the upload bucket beyond the web's statement. Either failing lets a member
 * count against, or write into, any ranch; CloudFormation knows only the web client and the web's
 * policy, so only a look at the deployed pool and role can tell.
 */
import { RANCH_CLAIM, UPLOAD_ACTIONS, WRITABLE_KEY_PATTERNS } from '../upload-access';

/** An app client of the user pool, as DescribeUserPoolClient tells it. */
export interface PoolClient {
  clientId: string;
  clientName: string;
  /**
   * Its WriteAttributes. Cognito returns none when the client was given no list, and then
   * applies its default write access, so an empty list is no restriction.
   */
  writeAttributes: readonly string[];
}

/** A policy on the authenticated role: an inline one, or the default version of an attached one. */
export interface RolePolicy {
  /** `inline <name>` or `attached <arn>`: named in a problem. */
  source: string;
  document: PolicyDocument;
}

/** An IAM policy document as IAM returns it (URL-decoded JSON). */
export interface PolicyDocument {
  Statement?: PolicyStatementJson | PolicyStatementJson[];
}

export interface PolicyStatementJson {
  Sid?: string;
  Effect?: string;
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: unknown;
}

/** What the check reads from AWS. */
export interface PoolCheckPort {
  /** Every app client of the pool (ListUserPoolClients, then DescribeUserPoolClient for each). */
  clients(userPoolId: string): Promise<PoolClient[]>;
  /** Every policy on the role: inline (ListRolePolicies, GetRolePolicy) and attached (ListAttachedRolePolicies, GetPolicy, GetPolicyVersion). */
  rolePolicies(roleName: string): Promise<RolePolicy[]>;
}

export interface PoolCheckInput {
  userPoolId: string;
  /** The authenticated role's name or ARN (the Identity stack's AuthenticatedRoleArn). */
  role: string;
  /** The upload bucket's name (the runtime config's storage.bucket). */
  bucketName: string;
}

/** What the check found: every problem, each a sentence saying what to change; none means the binding holds. */
export interface PoolCheckResult {
  clients: number;
  policies: number;
  problems: string[];
}

const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const statementsOf = (document: PolicyDocument): PolicyStatementJson[] =>
  document.Statement === undefined ? [] : Array.isArray(document.Statement) ? document.Statement : [document.Statement];

/** A role ARN's name (`arn:aws:iam::123:role/path/Name` → `Name`), or the name as given. */
export function roleName(role: string): string {
  return role.startsWith('arn:') ? (role.split('/').pop() ?? role) : role;
}

/** Whether an app client lets a signed-in user write `custom:ranchid` (UpdateUserAttributes with its access token). */
export function clientWritesRanch(client: PoolClient): boolean {
  return client.writeAttributes.length === 0 || client.writeAttributes.includes(RANCH_CLAIM);
}

/** The literal part of an IAM pattern before its first wildcard or policy variable (which may stand for anything). */
function literalPrefix(pattern: string): { prefix: string; wild: boolean } {
  const at = pattern.search(/[*?]|\$\{/);
  return at === -1 ? { prefix: pattern, wild: false } : { prefix: pattern.slice(0, at), wild: true };
}

/** Whether an action pattern could name an S3 action (`s3:PutObject`, `s3:*`, `s*`, `*`). */
function couldBeS3Action(action: string): boolean {
  const { prefix, wild } = literalPrefix(action.toLowerCase());
  return prefix.startsWith('s3:') || (wild && 's3:'.startsWith(prefix));
}

/** Whether a resource pattern could name the bucket or an object in it (any partition). */
function couldBeInBucket(resource: string, bucketName: string): boolean {
  const normal = resource.replace(/^arn:aws[a-z-]*:/, 'arn:aws:');
  const bucketArn = `arn:aws:s3:::${bucketName}`;
  const { prefix, wild } = literalPrefix(normal);
  if (!wild) return normal === bucketArn || normal.startsWith(`${bucketArn}/`);
  return prefix.startsWith(`${bucketArn}/`) || bucketArn.startsWith(prefix) || `${bucketArn}/`.startsWith(prefix);
}

/** The web's grant on the bucket, exactly: src/upload-access.ts UPLOAD_ACTIONS on WRITABLE_KEY_PATTERNS. */
function webResources(bucketName: string): Set<string> {
  return new Set(WRITABLE_KEY_PATTERNS.map((pattern) => `arn:aws:s3:::${bucketName}/${pattern}`));
}

/** What one Allow statement grants on the bucket beyond the web's, as sentences (none: nothing beyond). */
export function grantsBeyondWeb(statement: PolicyStatementJson, bucketName: string): string[] {
  if (statement.Effect !== 'Allow') return [];
  const name = statement.Sid ? `statement ${statement.Sid}` : 'a statement without a Sid';
  const actions = list(statement.Action);
  const notActions = list(statement.NotAction);
  const resources = list(statement.Resource);
  const notResources = list(statement.NotResource);
  const s3Actions = notActions.length > 0 ? ['(every action but ' + notActions.join(', ') + ')'] : actions.filter(couldBeS3Action);
  if (s3Actions.length === 0) return [];
  if (notResources.length > 0) return [`${name} allows ${s3Actions.join(', ')} on every resource but ${notResources.join(', ')}, the upload bucket included`];
  const inBucket = resources.filter((r) => couldBeInBucket(r, bucketName));
  if (inBucket.length === 0) return [];
  const allowedActions = new Set(UPLOAD_ACTIONS.map((a) => a.toLowerCase()));
  const allowedResources = webResources(bucketName);
  const extraActions = notActions.length > 0 ? s3Actions : s3Actions.filter((a) => !allowedActions.has(a.toLowerCase()));
  const extraResources = inBucket.filter((r) => !allowedResources.has(r.replace(/^arn:aws[a-z-]*:/, 'arn:aws:')));
  const problems: string[] = [];
  if (extraActions.length > 0) problems.push(`${name} allows ${extraActions.join(', ')} on ${inBucket.join(', ')}`);
  if (extraResources.length > 0 && extraActions.length === 0)
    problems.push(`${name} allows ${s3Actions.join(', ')} on ${extraResources.join(', ')}, beyond the web's keys`);
  return problems;
}

/** Runs the check (see the file's comment); never throws for a finding, only for a failed read. */
export async function checkPool(input: PoolCheckInput, port: PoolCheckPort): Promise<PoolCheckResult> {
  const [clients, policies] = await Promise.all([port.clients(input.userPoolId), port.rolePolicies(roleName(input.role))]);
  const problems: string[] = [];
  for (const client of clients) {
    if (!clientWritesRanch(client)) continue;
    const why =
      client.writeAttributes.length === 0
        ? 'has no WriteAttributes list, so Cognito applies its default write access'
        : `lists ${RANCH_CLAIM} among its WriteAttributes`;
    problems.push(
      `App client ${client.clientName} (${client.clientId}) of ${input.userPoolId} ${why}: a user signed in through it can set ${RANCH_CLAIM} and join any ranch. Give it WriteAttributes without ${RANCH_CLAIM}.`,
    );
  }
  for (const policy of policies) {
    for (const statement of statementsOf(policy.document)) {
      for (const grant of grantsBeyondWeb(statement, input.bucketName)) {
        problems.push(
          `Role ${roleName(input.role)}, ${policy.source}: ${grant}. Signed-in users may do only ${UPLOAD_ACTIONS.join(', ')} under their own ranch's keys (infra/src/upload-access.ts); remove the grant.`,
        );
      }
    }
  }
  return { clients: clients.length, policies: policies.length, problems };
}

export const POOL_CHECK_USAGE = `Usage: npm run check-pool -w infra -- --user-pool <id> --role <arn|name> --bucket <name> [--region <region>]

  --user-pool <id>    the user pool (the runtime config's auth.userPoolId)
  --role <arn|name>   the identity pool's authenticated role (the Identity stack's AuthenticatedRoleArn
                      output, or the settings' authenticatedRoleArn for an existing identity pool)
  --bucket <name>     the upload bucket (the runtime config's storage.bucket)
  --region <region>   the user pool's region (default: the AWS chain's, e.g. AWS_REGION)`;

/** The command's arguments, or the sentence saying what is wrong with them. */
export function parsePoolCheckArgs(argv: readonly string[]): (PoolCheckInput & { region?: string }) | { error: string } {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--(user-pool|role|bucket|region)(?:=(.*))?$/.exec(arg);
    if (!match) return { error: `unknown argument ${JSON.stringify(arg)}` };
    const value = match[2] ?? argv[++i];
    if (!value || value.startsWith('--')) return { error: `--${match[1]} needs a value` };
    values[match[1]!] = value;
  }
  const missing = ['user-pool', 'role', 'bucket'].filter((name) => !values[name]);
  if (missing.length > 0) return { error: `missing ${missing.map((m) => `--${m}`).join(', ')}` };
  return {
    userPoolId: values['user-pool']!,
    role: values['role']!,
    bucketName: values['bucket']!,
    ...(values['region'] ? { region: values['region'] } : {}),
  };
}

/** The command's report: what was read, then every problem, or that the binding holds. */
export function formatPoolCheck(input: PoolCheckInput, result: PoolCheckResult): string {
  const read = `${result.clients} app client(s) of ${input.userPoolId}, ${result.policies} policy(ies) on ${roleName(input.role)}, bucket ${input.bucketName}`;
  if (result.problems.length === 0)
    return `check-pool: OK — no app client can write ${RANCH_CLAIM}, and the role grants nothing on the bucket beyond the web's (${read}).`;
  return [`check-pool: FAILED — ${result.problems.length} problem(s) (${read}):`, ...result.problems.map((p) => `  - ${p}`)].join('\n');
}

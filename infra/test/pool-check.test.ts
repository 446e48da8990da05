/**
 * The post-deploy check of the ranch binding (src/pool-check/check.ts) on a fake pool and role,
 * starting from what the Identity stack deploys (its web client's write attributes and the web's
 * policy, from the synthesized template), so the check passes exactly what the stack creates; its
 * AWS adapter (src/pool-check/aws.ts) on fake SDK clients; the command's arguments.
 */
import { DescribeUserPoolClientCommand, ListUserPoolClientsCommand } from '@aws-sdk/client-cognito-identity-provider';
import { GetPolicyCommand, GetPolicyVersionCommand, GetRolePolicyCommand, ListAttachedRolePoliciesCommand, ListRolePoliciesCommand } from '@aws-sdk/client-iam';
import { Template } from 'aws-cdk-lib/assertions';
import { awsPoolCheckPort } from '../src/pool-check/aws';
import { checkPool, formatPoolCheck, parsePoolCheckArgs } from '../src/pool-check/check';
import type { PolicyDocument, PolicyStatementJson, PoolCheckPort, PoolClient, RolePolicy } from '../src/pool-check/check';
import { IdentityStack } from '../src/stacks/identity-stack';
import { exampleEnv, exampleEnvironment, testApp } from './support/example';

const environment = exampleEnvironment();
const BUCKET = environment.runtimeConfig.storage.bucket;
const POOL = 'us-east-2_TrailPool1';
const ROLE = 'arn:aws:iam::123456789012:role/TrailSense-example-Identity-AuthenticatedRole1A2B';
const input = { userPoolId: POOL, role: ROLE, bucketName: BUCKET };

/** A synthesized value with its pseudo parameters resolved as a deployed one would be. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => String(resolve(part))).join(separator);
    }
    if ('Ref' in object) return { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-2', 'AWS::AccountId': '123456789012' }[object['Ref'] as string];
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolve(v)]));
  }
  return value;
}

let webClient: PoolClient;
let webPolicy: RolePolicy;
beforeAll(() => {
  const app = testApp();
  const stack = new IdentityStack(app, 'Identity', {
    env: exampleEnv(environment),
    settings: environment.settings,
    uploadBucketName: BUCKET,
    analyticsStreamName: environment.settings.analyticsStreamName,
  });
  const template = Template.fromStack(stack);
  const client = Object.values(template.findResources('AWS::Cognito::UserPoolClient'))[0]!;
  webClient = { clientId: 'web1234', clientName: 'trailsense-web-example', writeAttributes: client.Properties.WriteAttributes as string[] };
  const policy = Object.values(template.findResources('AWS::IAM::Policy')).find((p) => String(p.Properties.PolicyName).includes('WebAccess'))!;
  webPolicy = { source: `inline ${String(policy.Properties.PolicyName)}`, document: resolve(policy.Properties.PolicyDocument) as PolicyDocument };
});

/** A port answering with these clients and policies. */
const port = (clients: PoolClient[], policies: RolePolicy[]): PoolCheckPort => ({
  clients: async (id) => (id === POOL ? clients : []),
  rolePolicies: async (name) => (name === 'TrailSense-example-Identity-AuthenticatedRole1A2B' ? policies : []),
});
const statementPolicy = (source: string, ...Statement: PolicyStatementJson[]): RolePolicy => ({
  source,
  document: { Version: '2012-10-17', Statement } as PolicyDocument,
});

describe('checkPool', () => {
  it('passes what the Identity stack deploys: the web client and the web policy', async () => {
    expect(webClient.writeAttributes).toEqual(expect.arrayContaining(['email']));
    const result = await checkPool(input, port([webClient], [webPolicy]));
    expect(result).toEqual({ clients: 1, policies: 1, problems: [] });
    expect(formatPoolCheck(input, result)).toMatch(/^check-pool: OK/);
  });

  it('passes grants elsewhere: the analytics stream, another bucket, a deny on the bucket', async () => {
    const other = statementPolicy(
      'attached arn:aws:iam::123456789012:policy/mobile',
      { Effect: 'Allow', Action: ['firehose:PutRecord'], Resource: '*' },
      { Effect: 'Allow', Action: 's3:*', Resource: ['arn:aws:s3:::mobile-app-assets', 'arn:aws:s3:::mobile-app-assets/*'] },
      { Effect: 'Deny', Action: 's3:*', Resource: `arn:aws:s3:::${BUCKET}/*` },
    );
    expect((await checkPool(input, port([webClient], [webPolicy, other]))).problems).toEqual([]);
  });

  it('fails for a client that lists custom:ranchid among its WriteAttributes, naming it', async () => {
    const mobile = { clientId: 'mobile99', clientName: 'trailsense-ios', writeAttributes: ['email', 'custom:ranchid'] };
    const { problems } = await checkPool(input, port([webClient, mobile], [webPolicy]));
    expect(problems).toEqual([
      expect.stringMatching(/^App client trailsense-ios \(mobile99\) of us-east-2_TrailPool1 lists custom:ranchid among its WriteAttributes: .*join any ranch/),
    ]);
  });

  it('fails for a client with no WriteAttributes list (Cognito applies its default write access)', async () => {
    const legacy = { clientId: 'legacy1', clientName: 'admin-console', writeAttributes: [] };
    const { problems } = await checkPool(input, port([webClient, legacy], [webPolicy]));
    expect(problems).toEqual([expect.stringContaining('App client admin-console (legacy1) of us-east-2_TrailPool1 has no WriteAttributes list')]);
  });

  it.each<[string, PolicyStatementJson, RegExp]>([
    [
      's3:GetObject on the web keys',
      { Sid: 'Read', Effect: 'Allow', Action: 's3:GetObject', Resource: `arn:aws:s3:::${BUCKET}/public/*` },
      /statement Read allows s3:GetObject on/,
    ],
    ['s3:* on everything', { Effect: 'Allow', Action: 's3:*', Resource: '*' }, /a statement without a Sid allows s3:\* on \*/],
    ['* on the bucket', { Sid: 'All', Effect: 'Allow', Action: '*', Resource: `arn:aws:s3:::${BUCKET}` }, /statement All allows \* on/],
    [
      's3:List* on a prefix of the bucket name',
      { Sid: 'List', Effect: 'Allow', Action: 's3:List*', Resource: 'arn:aws:s3:::trailsense-*' },
      /statement List allows s3:List\*/,
    ],
    [
      'PutObject on every key of the bucket',
      { Sid: 'PutAnywhere', Effect: 'Allow', Action: 's3:PutObject', Resource: `arn:aws:s3:::${BUCKET}/*` },
      /statement PutAnywhere allows s3:PutObject on arn:aws:s3:::.*\/\*, beyond the web's keys/,
    ],
    ['NotAction', { Sid: 'Broad', Effect: 'Allow', NotAction: 'iam:*', Resource: '*' }, /statement Broad allows \(every action but iam:\*\)/],
    [
      'NotResource',
      { Sid: 'Except', Effect: 'Allow', Action: 's3:PutObject', NotResource: 'arn:aws:s3:::other/*' },
      /every resource but arn:aws:s3:::other\/\*/,
    ],
  ])('fails for a role grant beyond the web: %s', async (_label, statement, message) => {
    const extra = statementPolicy('attached arn:aws:iam::123456789012:policy/extra', statement);
    const { problems } = await checkPool(input, port([webClient], [webPolicy, extra]));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).toMatch(
      /^Role TrailSense-example-Identity-AuthenticatedRole1A2B, attached arn:aws:iam::123456789012:policy\/extra: .*remove the grant\.$/,
    );
  });

  it('lists every problem at once, clients and grants', async () => {
    const clients = [
      webClient,
      { clientId: 'a', clientName: 'a', writeAttributes: [] },
      { clientId: 'b', clientName: 'b', writeAttributes: ['custom:ranchid'] },
    ];
    const extra = statementPolicy('inline Extra', { Effect: 'Allow', Action: ['s3:DeleteObject', 's3:GetObject'], Resource: `arn:aws:s3:::${BUCKET}/*` });
    const result = await checkPool(input, port(clients, [webPolicy, extra]));
    expect(result.problems).toHaveLength(3);
    const report = formatPoolCheck(input, result);
    expect(report.split('\n')[0]).toBe(
      `check-pool: FAILED — 3 problem(s) (3 app client(s) of ${POOL}, 2 policy(ies) on TrailSense-example-Identity-AuthenticatedRole1A2B, bucket ${BUCKET}):`,
    );
    expect(report).toContain('s3:DeleteObject, s3:GetObject');
  });
});

describe('the AWS adapter', () => {
  it('reads every client (following pages) and every inline and attached policy, URL-decoding the documents', async () => {
    const document = encodeURIComponent(JSON.stringify({ Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: '*' }] }));
    const sent: string[] = [];
    const cognito = {
      send: async (command: object) => {
        if (command instanceof ListUserPoolClientsCommand) {
          sent.push(`list ${command.input.NextToken ?? ''}`);
          return command.input.NextToken ? { UserPoolClients: [{ ClientId: 'c2' }] } : { UserPoolClients: [{ ClientId: 'c1' }], NextToken: 'p2' };
        }
        if (command instanceof DescribeUserPoolClientCommand) {
          sent.push(`describe ${command.input.ClientId}`);
          return {
            UserPoolClient: { ClientName: `name-${command.input.ClientId}`, ...(command.input.ClientId === 'c1' ? { WriteAttributes: ['email'] } : {}) },
          };
        }
        throw new Error('unexpected command');
      },
    };
    const iam = {
      send: async (command: object) => {
        if (command instanceof ListRolePoliciesCommand) return { PolicyNames: ['Web'], IsTruncated: false };
        if (command instanceof GetRolePolicyCommand) return { PolicyDocument: document };
        if (command instanceof ListAttachedRolePoliciesCommand) return { AttachedPolicies: [{ PolicyArn: 'arn:aws:iam::1:policy/m' }], IsTruncated: false };
        if (command instanceof GetPolicyCommand) return { Policy: { DefaultVersionId: 'v3' } };
        if (command instanceof GetPolicyVersionCommand) {
          expect(command.input).toEqual({ PolicyArn: 'arn:aws:iam::1:policy/m', VersionId: 'v3' });
          return { PolicyVersion: { Document: document } };
        }
        throw new Error('unexpected command');
      },
    };
    const adapter = awsPoolCheckPort(cognito, iam);
    await expect(adapter.clients(POOL)).resolves.toEqual([
      { clientId: 'c1', clientName: 'name-c1', writeAttributes: ['email'] },
      { clientId: 'c2', clientName: 'name-c2', writeAttributes: [] },
    ]);
    expect(sent).toEqual(['list ', 'list p2', 'describe c1', 'describe c2']);
    const policies = await adapter.rolePolicies('role');
    expect(policies.map((p) => p.source)).toEqual(['inline Web', 'attached arn:aws:iam::1:policy/m']);
    expect(policies[0]!.document).toEqual({ Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: '*' }] });
  });
});

describe('parsePoolCheckArgs', () => {
  it('reads the pool, the role, the bucket and the region', () => {
    expect(parsePoolCheckArgs(['--user-pool', POOL, '--role', ROLE, '--bucket=b', '--region', 'us-east-2'])).toEqual({
      userPoolId: POOL,
      role: ROLE,
      bucketName: 'b',
      region: 'us-east-2',
    });
  });

  it('names what is missing or unknown', () => {
    expect(parsePoolCheckArgs(['--role', ROLE])).toEqual({ error: 'missing --user-pool, --bucket' });
    expect(parsePoolCheckArgs(['--user-pool'])).toEqual({ error: '--user-pool needs a value' });
    expect(parsePoolCheckArgs(['--pool', 'x'])).toEqual({ error: 'unknown argument "--pool"' });
  });
});

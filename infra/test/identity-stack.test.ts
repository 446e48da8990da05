/**
 * The Identity stack (src/stacks/identity-stack.ts): the user pool's rules and sign-in choices
 * (Essentials; password, e-mail code, passkey on the site's domain; mail through SES), the web
 * client's limits, the identity pool (authenticated only, `ranchid` principal tag from `custom:ranchid`) and
 * the authenticated role, which may put only where src/upload-access.ts says and send analytics
 * events — never get, list or delete. Also with the mobile apps' existing pools.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PRINCIPAL_TAGS, RANCH_CLAIM, UPLOAD_ACTIONS, WRITABLE_KEY_PATTERNS } from '../src/upload-access';
import { ANALYTICS_ACTIONS, IDENTITY_OUTPUTS, IdentityStack } from '../src/stacks/identity-stack';
import type { IdentityStackProps } from '../src/stacks/identity-stack';
import { actionsOf, allStatements, exampleEnv, exampleEnvironment, isWildcardPrincipal, testApp } from './support/example';
import type { Statement } from './support/example';
import { nagFindings } from './support/nag';

const environment = exampleEnvironment();
const { settings, runtimeConfig } = environment;
const bucket = runtimeConfig.storage.bucket;

const EXISTING = {
  userPoolId: 'us-east-2_MobilePool1',
  identityPoolId: 'us-east-2:0b7c9d4e-2f1a-4c3b-8e5d-6a7b8c9d0e1f',
  authenticatedRoleArn: 'arn:aws:iam::123456789012:role/trailsense-mobile-authenticated',
};

let created: Template;
let existingBoth: Template;
let existingUserPool: Template;
let app: ReturnType<typeof testApp>;

beforeAll(() => {
  app = testApp();
  const props = { env: exampleEnv(environment), uploadBucketName: bucket, analyticsStreamName: settings.analyticsStreamName };
  const stacks = {
    created: new IdentityStack(app, 'Identity', { ...props, settings }),
    existingBoth: new IdentityStack(app, 'IdentityExistingPools', { ...props, settings: { ...settings, ...EXISTING } }),
    existingUserPool: new IdentityStack(app, 'IdentityExistingUserPool', { ...props, settings: { ...settings, userPoolId: EXISTING.userPoolId } }),
  };
  created = Template.fromStack(stacks.created);
  existingBoth = Template.fromStack(stacks.existingBoth);
  existingUserPool = Template.fromStack(stacks.existingUserPool);
});

it('has no cdk-nag AwsSolutions finding left unacknowledged, in any of the three variants', () => {
  expect(nagFindings(app)).toEqual([]);
});

/** The ARN (as the template writes it) of a key pattern in the upload bucket. */
const objectArn = (pattern: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:s3:::${bucket}/${pattern}`]] });

/** Every Allow statement of the policies attached to roles (not trust policies). */
function rolePolicyAllows(template: Template): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
  );
}

describe('the user pool', () => {
  it("mails its codes through SES from the settings' sender (the example's), not Cognito's own", () => {
    created.hasResourceProperties('AWS::Cognito::UserPool', {
      EmailConfiguration: {
        EmailSendingAccount: 'DEVELOPER',
        From: 'TrailSense <no-reply@trailsense.example>',
        SourceArn: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ses:us-east-2:123456789012:identity/trailsense.example']] },
      },
    });
  });

  it("leaves an existing pool's mail alone", () => {
    expect(Object.keys(existingUserPool.findResources('AWS::Cognito::UserPool'))).toEqual([]);
  });

  it('is on the Essentials plan, and offers password, a code by e-mail and a passkey as first factors', () => {
    created.hasResourceProperties('AWS::Cognito::UserPool', {
      UserPoolTier: 'ESSENTIALS',
      Policies: Match.objectLike({ SignInPolicy: { AllowedFirstAuthFactors: ['PASSWORD', 'EMAIL_OTP', 'WEB_AUTHN'] } }),
    });
  });

  it("makes the site's domain the passkeys' relying party (never a remote's), with user verification required", () => {
    expect(settings.domains.shell).toBe('trailsense.example');
    created.hasResourceProperties('AWS::Cognito::UserPool', { WebAuthnRelyingPartyID: 'trailsense.example', WebAuthnUserVerification: 'required' });
  });

  it('refuses to create a pool without an SES sender (e-mail sign-in codes go through SES only)', () => {
    const { userPoolEmail: _omitted, ...withoutSender } = settings;
    const props: IdentityStackProps = {
      env: exampleEnv(environment),
      uploadBucketName: bucket,
      analyticsStreamName: settings.analyticsStreamName,
      settings: withoutSender,
    };
    expect(() => new IdentityStack(testApp(), 'IdentityWithoutSender', props)).toThrow(
      /needs userPoolEmail: sign-in codes by e-mail are sent through SES only/,
    );
  });

  it('keeps the original email until a new one is verified (keepOriginal)', () => {
    created.hasResourceProperties('AWS::Cognito::UserPool', {
      UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
    });
  });

  it('signs in by email, with a password of at least 8 and no required classes, MFA off', () => {
    created.hasResourceProperties('AWS::Cognito::UserPool', {
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      MfaConfiguration: 'OFF',
      Policies: { PasswordPolicy: { MinimumLength: 8, RequireLowercase: false, RequireUppercase: false, RequireNumbers: false, RequireSymbols: false } },
      Schema: Match.arrayWith([{ Name: 'ranchid', AttributeDataType: 'String', Mutable: true }]),
    });
  });

  it('outlives the stack (deletion protection, retained)', () => {
    created.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain', Properties: Match.objectLike({ DeletionProtection: 'ACTIVE' }) });
  });
});

describe('the web client', () => {
  const client = () => Object.values(created.findResources('AWS::Cognito::UserPoolClient'))[0]!.Properties as Record<string, unknown>;

  it('allows SRP, choice-based sign-in (USER_AUTH) and refresh, and nothing else; no secret, no OAuth', () => {
    expect(client().ExplicitAuthFlows).toEqual(['ALLOW_USER_SRP_AUTH', 'ALLOW_USER_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']);
    expect(client().GenerateSecret).toBe(false);
    expect(client().AllowedOAuthFlowsUserPoolClient).toBe(false);
    expect(client().AllowedOAuthFlows).toBeUndefined();
  });

  it('revokes tokens, hides whether a user exists, and issues short-lived id and access tokens', () => {
    expect(client()).toMatchObject({
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: 'ENABLED',
      IdTokenValidity: 15,
      AccessTokenValidity: 15,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes' },
    });
  });

  it('may write only name, phone_number and email — never custom:ranchid — and reads the ranch', () => {
    expect([...(client().WriteAttributes as string[])].sort()).toEqual(['email', 'name', 'phone_number']);
    expect(client().WriteAttributes).not.toContain(RANCH_CLAIM);
    expect(JSON.stringify(client().WriteAttributes)).not.toMatch(/custom:/);
    expect(client().ReadAttributes).toContain(RANCH_CLAIM);
  });
});

describe('the identity pool', () => {
  it('has no unauthenticated identities, no classic flow, and checks tokens with the user pool', () => {
    const [clientId] = Object.keys(created.findResources('AWS::Cognito::UserPoolClient'));
    const [poolId] = Object.keys(created.findResources('AWS::Cognito::UserPool'));
    created.hasResource('AWS::Cognito::IdentityPool', {
      DeletionPolicy: 'Retain',
      Properties: {
        IdentityPoolName: 'TrailSense example',
        AllowUnauthenticatedIdentities: false,
        AllowClassicFlow: false,
        CognitoIdentityProviders: [{ ClientId: { Ref: clientId }, ProviderName: { 'Fn::GetAtt': [poolId, 'ProviderName'] }, ServerSideTokenCheck: true }],
      },
    });
  });

  it('attaches the one role, for authenticated identities only', () => {
    const [roleId] = Object.keys(created.findResources('AWS::IAM::Role'));
    created.resourceCountIs('AWS::IAM::Role', 1);
    created.hasResourceProperties('AWS::Cognito::IdentityPoolRoleAttachment', {
      IdentityPoolId: { Ref: 'IdentityPool' },
      Roles: { authenticated: { 'Fn::GetAtt': [roleId, 'Arn'] } },
    });
  });

  it('maps custom:ranchid to the ranchid principal tag for the user-pool provider, without the default tags', () => {
    const [poolId] = Object.keys(created.findResources('AWS::Cognito::UserPool'));
    expect(PRINCIPAL_TAGS).toEqual({ ranchid: 'custom:ranchid' });
    created.hasResourceProperties('AWS::Cognito::IdentityPoolPrincipalTag', {
      IdentityPoolId: { Ref: 'IdentityPool' },
      IdentityProviderName: { 'Fn::GetAtt': [poolId, 'ProviderName'] },
      PrincipalTags: PRINCIPAL_TAGS,
      UseDefaults: false,
    });
  });

  it('names what the runtime config needs in its outputs', () => {
    for (const output of [
      IDENTITY_OUTPUTS.userPoolId,
      IDENTITY_OUTPUTS.userPoolClientId,
      IDENTITY_OUTPUTS.identityPoolId,
      IDENTITY_OUTPUTS.authenticatedRoleArn,
    ]) {
      expect(Object.keys(created.findOutputs(output))).toEqual([output]);
    }
  });
});

describe('the authenticated role', () => {
  it('trusts only authenticated identities of this identity pool, and may carry session tags', () => {
    const role = Object.values(created.findResources('AWS::IAM::Role'))[0]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: { Federated: 'cognito-identity.amazonaws.com' },
        Action: ['sts:AssumeRoleWithWebIdentity', 'sts:TagSession'],
        Condition: {
          StringEquals: { 'cognito-identity.amazonaws.com:aud': { Ref: 'IdentityPool' } },
          'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
        },
      },
    ]);
  });

  it('may put (and multipart) exactly under the keys of upload-access.ts, and send analytics events to the stream with a ranch tag only', () => {
    expect(rolePolicyAllows(created)).toEqual([
      { Sid: 'UploadUnderOwnRanch', Effect: 'Allow', Action: [...UPLOAD_ACTIONS], Resource: WRITABLE_KEY_PATTERNS.map(objectArn) },
      {
        Sid: 'SendAnalyticsEvents',
        Effect: 'Allow',
        Action: [...ANALYTICS_ACTIONS],
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:firehose:us-east-2:123456789012:deliverystream/${settings.analyticsStreamName}`]] },
        // A signed-in account without a ranch (anyone can sign up) puts nothing into the stream.
        Condition: { Null: { 'aws:PrincipalTag/ranchid': 'false' } },
      },
    ]);
    expect(WRITABLE_KEY_PATTERNS).toEqual([
      'public/${aws:PrincipalTag/ranchid}/*',
      'private/${cognito-identity.amazonaws.com:sub}/${aws:PrincipalTag/ranchid}/*',
    ]);
  });

  it.each(['created pools', 'existing pools', 'existing user pool'] as const)(
    'never gets, lists or deletes objects, and has no wildcard action, resource or principal (%s)',
    (variant) => {
      const template = { 'created pools': created, 'existing pools': existingBoth, 'existing user pool': existingUserPool }[variant];
      const actions = rolePolicyAllows(template).flatMap(actionsOf);
      for (const forbidden of [
        's3:GetObject',
        's3:ListBucket',
        's3:DeleteObject',
        's3:GetObjectTagging',
        's3:PutObjectTagging',
        's3:ListBucketMultipartUploads',
      ]) {
        expect(actions).not.toContain(forbidden);
      }
      expect(actions.filter((action) => action.includes('*'))).toEqual([]);
      expect(actions.every((action) => [...UPLOAD_ACTIONS, ...ANALYTICS_ACTIONS].includes(action))).toBe(true);
      expect(JSON.stringify(rolePolicyAllows(template).map((s) => s.Resource))).not.toMatch(/"\*"|:s3:::[^/"]+\/\*"/);
      expect(allStatements(template).filter((s) => isWildcardPrincipal(s.Principal))).toEqual([]);
    },
  );
});

describe('with the mobile apps’ existing pools', () => {
  it('creates neither pool, nor a role, nor a role attachment (the pool keeps its roles)', () => {
    for (const type of ['AWS::Cognito::UserPool', 'AWS::Cognito::IdentityPool', 'AWS::IAM::Role', 'AWS::Cognito::IdentityPoolRoleAttachment']) {
      existingBoth.resourceCountIs(type, 0);
    }
  });

  it('creates the web client in the existing user pool', () => {
    existingBoth.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      UserPoolId: EXISTING.userPoolId,
      ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_USER_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      WriteAttributes: ['email', 'name', 'phone_number'],
    });
  });

  it.each(['existing pools', 'existing user pool'] as const)(
    'changes nothing of the existing user pool: no plan, sign-in policy, passkey or mail settings, no call that could set them (%s)',
    (variant) => {
      const template = { 'existing pools': existingBoth, 'existing user pool': existingUserPool }[variant];
      const resources = Object.values(template.toJSON().Resources as Record<string, { Type: string }>);
      // The stack's only user-pool resource is the web client; no custom resource (an SDK call) either.
      expect(resources.filter((r) => r.Type.startsWith('AWS::Cognito::UserPool')).map((r) => r.Type)).toEqual(['AWS::Cognito::UserPoolClient']);
      expect(resources.filter((r) => r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource')).toEqual([]);
      expect(JSON.stringify(template.toJSON())).not.toMatch(/UserPoolTier|SignInPolicy|WebAuthn|EmailConfiguration/);
    },
  );

  it("attaches the web's policy to the existing authenticated role", () => {
    existingBoth.hasResourceProperties('AWS::IAM::Policy', {
      Roles: ['trailsense-mobile-authenticated'],
      PolicyDocument: { Statement: [Match.objectLike({ Action: [...UPLOAD_ACTIONS] }), Match.objectLike({ Action: [...ANALYTICS_ACTIONS] })] },
    });
  });

  it('maps the ranch principal tag on the existing pool, and keeps the mapping when the stack goes', () => {
    existingBoth.hasResource('AWS::Cognito::IdentityPoolPrincipalTag', {
      DeletionPolicy: 'Retain',
      Properties: {
        IdentityPoolId: EXISTING.identityPoolId,
        IdentityProviderName: { 'Fn::Join': ['', ['cognito-idp.us-east-2.', { Ref: 'AWS::URLSuffix' }, `/${EXISTING.userPoolId}`]] },
        PrincipalTags: PRINCIPAL_TAGS,
        UseDefaults: false,
      },
    });
    expect(existingBoth.findOutputs(IDENTITY_OUTPUTS.identityPoolId)[IDENTITY_OUTPUTS.identityPoolId]?.Value).toBe(EXISTING.identityPoolId);
  });

  it('with an existing user pool alone, creates the identity pool and role on it', () => {
    existingUserPool.resourceCountIs('AWS::Cognito::UserPool', 0);
    existingUserPool.resourceCountIs('AWS::Cognito::IdentityPool', 1);
    existingUserPool.hasResourceProperties('AWS::Cognito::IdentityPool', {
      CognitoIdentityProviders: [
        Match.objectLike({ ProviderName: { 'Fn::Join': ['', ['cognito-idp.us-east-2.', { Ref: 'AWS::URLSuffix' }, `/${EXISTING.userPoolId}`]] } }),
      ],
    });
    existingUserPool.resourceCountIs('AWS::IAM::Role', 1);
  });
});

/**
 * Identity: the user pool (or the mobile apps' existing one), the website's app client, the
 * identity pool (or an existing one) and what its authenticated identities may do
 * (infra/docs/server.md#trust-on-the-server):
 * - a created user pool is on the Essentials plan and offers three first factors — password (SRP),
 *   a code by e-mail (EMAIL_OTP, mailed through SES) and a passkey (WEB_AUTHN) whose relying party
 *   is the site's domain, with user verification required (infra/docs/server.md#sign-in);
 * - the web client signs in with SRP or with USER_AUTH (the choice of those factors) and refreshes,
 *   nothing else, has no secret, and may write only name, phone_number and email —
 *   `custom:ranchid` is written by the back end alone;
 * - the identity pool copies the id token's `custom:ranchid` into the `ranchid` principal tag, and
 *   has no unauthenticated identities;
 * - the authenticated role may put (and multipart) only under the keys of src/upload-access.ts —
 *   never get, list or delete — and, with a `ranchid` principal tag, PutRecord(Batch) to the
 *   analytics stream. Its trust policy
 *   allows sts:TagSession besides sts:AssumeRoleWithWebIdentity: without it, STS refuses the
 *   session the principal tags are attached to.
 *
 * The bucket and the stream are named by the settings (src/settings.ts), so this stack needs no
 * reference to the Uploads or Analytics stack and the stacks deploy in any order.
 *
 * With existing pools (settings `userPoolId`, `identityPoolId`), see infra/README.md: the client is
 * still created here, in the existing user pool, which is not changed — its plan, sign-in choices,
 * passkey and mail settings are the operator's (infra/README.md#existing-user-pool-and-identity-pool);
 * an existing identity pool keeps its roles, and the web's policy is attached to its authenticated
 * role (`authenticatedRoleArn`).
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnIdentityPool,
  CfnIdentityPoolPrincipalTag,
  CfnIdentityPoolRoleAttachment,
  ClientAttributes,
  FeaturePlan,
  Mfa,
  PasskeyUserVerification,
  StringAttribute,
  UserPool,
  UserPoolClient,
  UserPoolEmail,
} from 'aws-cdk-lib/aws-cognito';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import { Effect, FederatedPrincipal, Policy, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { PRINCIPAL_TAGS, RANCH_PRINCIPAL_TAG, UPLOAD_ACTIONS, WRITABLE_KEY_PATTERNS } from '../upload-access';
import type { Settings } from '../settings';
import { acknowledge } from './nag';

/** The outputs the runtime config (`auth.*`) is filled from. */
export const IDENTITY_OUTPUTS = {
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  identityPoolId: 'IdentityPoolId',
  authenticatedRoleArn: 'AuthenticatedRoleArn',
} as const;

/** The actions the authenticated role has on the analytics stream. */
export const ANALYTICS_ACTIONS = ['firehose:PutRecord', 'firehose:PutRecordBatch'] as const;

/**
 * How a created pool lets members sign in (infra/docs/server.md#sign-in): the first factors its
 * sign-in policy allows, and whether a passkey must verify its user (a PIN or biometric) — required,
 * since a passkey is a member's only factor here (MFA is off).
 */
export const SIGN_IN = {
  featurePlan: FeaturePlan.ESSENTIALS,
  firstFactors: { password: true, emailOtp: true, passkey: true },
  passkeyUserVerification: PasskeyUserVerification.REQUIRED,
} as const;

/** The id and access tokens' lifetime; the refresh token's. */
export const TOKEN_VALIDITY = { idAndAccess: Duration.minutes(15), refresh: Duration.days(30) } as const;

export interface IdentityStackProps extends StackProps {
  settings: Pick<Settings, 'name' | 'domains' | 'userPoolId' | 'identityPoolId' | 'authenticatedRoleArn' | 'userPoolEmail'>;
  /** The upload bucket's name (the runtime config's `storage.bucket`; the Uploads stack creates it). */
  uploadBucketName: string;
  /** The analytics stream's name (the Analytics stack creates it). */
  analyticsStreamName: string;
}

/** The statements of the web's policy on the authenticated role: uploads under its own keys, analytics events. */
export function webAccessStatements(stack: Stack, uploadBucketName: string, analyticsStreamName: string): PolicyStatement[] {
  const bucketArn = stack.formatArn({ service: 's3', region: '', account: '', resource: uploadBucketName });
  return [
    new PolicyStatement({
      sid: 'UploadUnderOwnRanch',
      effect: Effect.ALLOW,
      actions: [...UPLOAD_ACTIONS],
      resources: WRITABLE_KEY_PATTERNS.map((pattern) => `${bucketArn}/${pattern}`),
    }),
    // Only a member with a ranch sends events this way (the uploader's upload events; monitoring
    // goes through the uploads API's /events route, docs/monitoring.md#delivery): an account
    // anyone can sign up for, not yet placed on a ranch, may not put records into the stream.
    new PolicyStatement({
      sid: 'SendAnalyticsEvents',
      effect: Effect.ALLOW,
      actions: [...ANALYTICS_ACTIONS],
      resources: [stack.formatArn({ service: 'firehose', resource: 'deliverystream', resourceName: analyticsStreamName })],
      conditions: { Null: { [`aws:PrincipalTag/${RANCH_PRINCIPAL_TAG}`]: 'false' } },
    }),
  ];
}

export class IdentityStack extends Stack {
  readonly userPool: IUserPool;
  readonly userPoolClient: UserPoolClient;
  readonly identityPoolId: string;
  readonly authenticatedRole: IRole;

  constructor(scope: Construct, id: string, props: IdentityStackProps) {
    super(scope, id, props);
    const { settings } = props;

    // An existing pool is only referenced: nothing of it (plan, sign-in policy, passkeys, mail) changes here.
    this.userPool = settings.userPoolId ? UserPool.fromUserPoolId(this, 'UserPool', settings.userPoolId) : this.createUserPool(settings);

    this.userPoolClient = new UserPoolClient(this, 'WebClient', {
      userPool: this.userPool,
      userPoolClientName: `trailsense-web-${settings.name}`,
      generateSecret: false,
      // SRP sign-in, and USER_AUTH: the member picks password, e-mail code or passkey among what the
      // pool's sign-in policy allows (Amplify's signIn with authFlowType 'USER_AUTH'). CDK adds
      // ALLOW_REFRESH_TOKEN_AUTH (refresh) and nothing else. On an existing pool USER_AUTH offers
      // only the factors that pool allows.
      authFlows: { userSrp: true, user: true },
      disableOAuth: true,
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      idTokenValidity: TOKEN_VALIDITY.idAndAccess,
      accessTokenValidity: TOKEN_VALIDITY.idAndAccess,
      refreshTokenValidity: TOKEN_VALIDITY.refresh,
      readAttributes: new ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true, fullname: true, phoneNumber: true, phoneNumberVerified: true })
        .withCustomAttributes(RANCH_PRINCIPAL_TAG),
      // Never custom:ranchid: the ranch a user counts against is set by the back end.
      writeAttributes: new ClientAttributes().withStandardAttributes({ fullname: true, phoneNumber: true, email: true }),
    });

    const statements = webAccessStatements(this, props.uploadBucketName, props.analyticsStreamName);
    if (settings.identityPoolId) {
      // An existing pool keeps its role attachment (the mobile apps use it); the web's policy joins its authenticated role.
      this.identityPoolId = settings.identityPoolId;
      this.authenticatedRole = Role.fromRoleArn(this, 'AuthenticatedRole', settings.authenticatedRoleArn!, { mutable: true });
    } else {
      const pool = new CfnIdentityPool(this, 'IdentityPool', {
        identityPoolName: `TrailSense ${settings.name}`,
        allowUnauthenticatedIdentities: false,
        allowClassicFlow: false,
        cognitoIdentityProviders: [
          { clientId: this.userPoolClient.userPoolClientId, providerName: this.userPool.userPoolProviderName, serverSideTokenCheck: true },
        ],
      });
      // Identity ids name the private/<identity id>/ keys: a deleted pool would orphan them.
      pool.applyRemovalPolicy(RemovalPolicy.RETAIN);
      this.identityPoolId = pool.ref;
      const role = new Role(this, 'AuthenticatedRole', {
        description: `TrailSense ${settings.name}: signed-in web users (identity pool)`,
        assumedBy: new FederatedPrincipal(
          'cognito-identity.amazonaws.com',
          {
            StringEquals: { 'cognito-identity.amazonaws.com:aud': pool.ref },
            'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
          },
          'sts:AssumeRoleWithWebIdentity',
        ).withSessionTags(),
      });
      this.authenticatedRole = role;
      new CfnIdentityPoolRoleAttachment(this, 'RoleAttachment', {
        identityPoolId: pool.ref,
        roles: { authenticated: role.roleArn },
      });
      new CfnOutput(this, IDENTITY_OUTPUTS.authenticatedRoleArn, { value: role.roleArn });
    }
    const webAccess = new Policy(this, 'WebAccess', { statements, roles: [this.authenticatedRole] });
    const ownKeys =
      "Deliberate: the wildcard is the member's own key space, under the ranchid principal tag (and identity id) IAM fills in per session (src/upload-access.ts; pool-check checks it).";
    // cdk-nag names a finding by the resource as written, with `${…}` policy variables shown as `<…>`.
    const nagResource = (pattern: string) =>
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${props.uploadBucketName}/${pattern.replace(/\$\{([^}]+)\}/g, '<$1>')}]`;
    acknowledge(webAccess, Object.fromEntries(WRITABLE_KEY_PATTERNS.map((pattern) => [nagResource(pattern), ownKeys])));

    const principalTags = new CfnIdentityPoolPrincipalTag(this, 'RanchPrincipalTag', {
      identityPoolId: this.identityPoolId,
      identityProviderName: this.userPool.userPoolProviderName,
      principalTags: { ...PRINCIPAL_TAGS },
      useDefaults: false,
    });
    // On an existing pool the mapping outlives the stack (the mobile apps' identities carry it too).
    if (settings.identityPoolId) principalTags.applyRemovalPolicy(RemovalPolicy.RETAIN);

    new CfnOutput(this, IDENTITY_OUTPUTS.userPoolId, { value: this.userPool.userPoolId, description: 'auth.userPoolId' });
    new CfnOutput(this, IDENTITY_OUTPUTS.userPoolClientId, { value: this.userPoolClient.userPoolClientId, description: 'auth.userPoolClientId' });
    new CfnOutput(this, IDENTITY_OUTPUTS.identityPoolId, { value: this.identityPoolId, description: 'auth.identityPoolId' });
  }

  private createUserPool(settings: IdentityStackProps['settings']): UserPool {
    const email = settings.userPoolEmail;
    // src/settings.ts refuses a created pool without a sender; this says why if a caller skipped it.
    if (!email) throw new Error('A created user pool needs userPoolEmail: sign-in codes by e-mail are sent through SES only.');
    const pool = new UserPool(this, 'UserPool', {
      // Through SES: e-mail sign-in codes need it (Cognito's own sender does not carry them, and
      // sends about 50 a day per account).
      email: UserPoolEmail.withSES({
        fromEmail: email.fromAddress,
        ...(email.fromName ? { fromName: email.fromName } : {}),
        ...(email.sesVerifiedDomain ? { sesVerifiedDomain: email.sesVerifiedDomain } : {}),
      }),
      // Said outright, though new pools default to it: e-mail codes and passkeys need Essentials.
      featurePlan: SIGN_IN.featurePlan,
      signInPolicy: { allowedFirstAuthFactors: { ...SIGN_IN.firstFactors } },
      // Passkeys are made and used on the shell's pages (the auth remote's code runs there), so
      // their relying party is the shell's domain, never a remote's.
      passkeyRelyingPartyId: settings.domains.shell,
      passkeyUserVerification: SIGN_IN.passkeyUserVerification,
      // Accounts are made in the mobile apps (SignUp through their client); the web shows sign-up only when its config says so.
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      // A changed email takes effect only once its code is confirmed: until then the user keeps
      // signing in with, and receiving mail at, the verified one — not an address typed by
      // whoever holds the session.
      keepOriginal: { email: true },
      standardAttributes: {
        email: { required: true, mutable: true },
        fullname: { required: false, mutable: true },
        phoneNumber: { required: false, mutable: true },
      },
      customAttributes: { [RANCH_PRINCIPAL_TAG]: new StringAttribute({ mutable: true }) },
      // docs/product.md: at least 8 characters, no required character classes.
      passwordPolicy: { minLength: 8, requireLowercase: false, requireUppercase: false, requireDigits: false, requireSymbols: false },
      mfa: Mfa.OFF,
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(pool, {
      'AwsSolutions-COG1':
        'Deliberate (docs/product.md): at least 8 characters and no required character classes, the rule the mobile apps sign members up with.',
      'AwsSolutions-COG2':
        "Deliberate (docs/product.md): no MFA for members, as in the mobile apps that share the pool; a member can only add to their ranch's uploads.",
      'AwsSolutions-COG8':
        "Deliberate: the Essentials plan (e-mail codes and passkeys); Plus's threat protection is billed per active user and the pool's abuse is bounded elsewhere (docs/operations.md#sign-up-and-analytics-abuse).",
    });
    return pool;
  }
}

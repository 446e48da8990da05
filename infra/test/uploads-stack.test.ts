/**
 * The Uploads stack (src/stacks/uploads-stack.ts): the upload bucket's protections and CORS, the
 * ledger table, and the object-created function — bundled by the repository's esbuild (this test
 * synthesizes it for real), wired to object-created events under public/ and private/, with only
 * the access it needs. The stack's uploads API: uploads-api.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LEDGER_TABLE } from '../src/ledger/dynamo';
import {
  OBJECT_CREATED_LEDGER_ACTIONS,
  OBJECT_CREATED_RESERVED_CONCURRENCY,
  UPLOAD_PREFIXES,
  UploadsStack,
  uploadsStackProps,
} from '../src/stacks/uploads-stack';
import { actionsOf, allStatements, exampleEnv, exampleEnvironment, isWildcardPrincipal, testApp } from './support/example';
import type { Statement } from './support/example';

const environment = exampleEnvironment();
const { settings, runtimeConfig } = environment;

let template: Template;
let stack: UploadsStack;
let outdir: string;

beforeAll(() => {
  const app = testApp();
  stack = new UploadsStack(app, 'Uploads', {
    env: exampleEnv(environment),
    ...uploadsStackProps(settings, runtimeConfig),
  });
  template = Template.fromStack(stack);
  outdir = app.outdir;
});

const bucketId = () => Object.keys(template.findResources('AWS::S3::Bucket'))[0]!;
/** The object-created function's logical id (the uploads API's function is another `index.handler`). */
const functionId = () => stack.getLogicalId(stack.objectCreated.node.defaultChild as CfnFunction);
const ledgerId = () => Object.keys(template.findResources('AWS::DynamoDB::Table'))[0]!;

/** The statements of the object-created function's role policy. */
function functionStatements(): Statement[] {
  const roleArn = template.findResources('AWS::Lambda::Function')[functionId()]!.Properties.Role as { 'Fn::GetAtt': [string, string] };
  const roleId = roleArn['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

describe('the upload bucket', () => {
  it("is the runtime config's bucket: private, encrypted, accelerated", () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BucketName: 'trailsense-example-uploads',
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        AccelerateConfiguration: { AccelerationStatus: 'Enabled' },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      }),
    });
  });

  it('refuses any request not over TLS (1.2 or later)', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
        ]),
      },
    });
  });

  it('aborts incomplete multipart uploads after a day', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [{ Id: 'abort-incomplete-multipart-uploads', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
      },
    });
  });

  it("allows Amplify's uploads from the site's origins only, exposing ETag", () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedOrigins: ['https://trailsense.example', 'https://uploader.trailsense.example'],
            AllowedMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
            AllowedHeaders: ['*'],
            ExposedHeaders: Match.arrayWith(['ETag', 'Date']),
            MaxAge: 3000,
          },
        ],
      },
    });
    expect(JSON.stringify(template.findResources('AWS::S3::Bucket'))).not.toContain('"AllowedOrigins":["*"]');
  });

  it('denies an upload encrypted with a customer key (SSE-C), which no function could read', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'DenyCustomerKeyEncryption',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:PutObject',
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/*']] },
            Condition: { Null: { 's3:x-amz-server-side-encryption-customer-algorithm': 'false' } },
          },
        ]),
      },
    });
  });

  it('denies a PutObject or CompleteMultipartUpload without If-None-Match (no overwrites), the other multipart steps exempt', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'DenyOverwrites',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:PutObject',
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/*']] },
            Condition: { Null: { 's3:if-none-match': 'true' }, Bool: { 's3:ObjectCreationOperation': 'true' } },
          },
        ]),
      },
    });
  });

  it('denies a write that names a storage class other than STANDARD, and only one that names one', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'DenyOtherStorageClasses',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:PutObject',
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/*']] },
            // Both: StringNotEquals alone would also deny every write that names none, as the uploader's do.
            Condition: { Null: { 's3:x-amz-storage-class': 'false' }, StringNotEquals: { 's3:x-amz-storage-class': 'STANDARD' } },
          },
        ]),
      },
    });
  });

  it('grants nothing to a wildcard principal', () => {
    expect(allStatements(template).filter((s) => s.Effect === 'Allow' && isWildcardPrincipal(s.Principal))).toEqual([]);
  });
});

describe('the sweep', () => {
  const sweepId = () => stack.getLogicalId(stack.sweep.node.defaultChild as CfnFunction);

  it('runs the bundled sweep every hour, once per schedule, with the bucket and the ledger named', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Removes and records uploaded objects left untagged'),
      Runtime: 'nodejs24.x',
      Timeout: 600,
      Environment: { Variables: { BUCKET_NAME: { Ref: bucketId() }, LEDGER_TABLE_NAME: { Ref: ledgerId() }, NODE_OPTIONS: '--enable-source-maps' } },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweepId(), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
  });

  it('may list the bucket, read and set tags, delete objects, read counts and record refusals: nothing more', () => {
    const roleArn = template.findResources('AWS::Lambda::Function')[sweepId()]!.Properties.Role as { 'Fn::GetAtt': [string, string] };
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleArn['Fn::GetAtt'][0]))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    expect(statements).toEqual([
      { Sid: 'ListUploads', Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [bucketId(), 'Arn'] } },
      {
        Sid: 'ReadTagAndRemoveUploads',
        Effect: 'Allow',
        Action: ['s3:GetObjectTagging', 's3:PutObjectTagging', 's3:DeleteObject'],
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/*']] },
      },
      { Sid: 'ReadCountsRecordRefusals', Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Resource: { 'Fn::GetAtt': [ledgerId(), 'Arn'] } },
    ]);
  });
});

describe('the ledger', () => {
  it('is keyed by pk and sk (strings) as the function writes it, on demand, with point-in-time recovery and a time to live on `ttl`, retained', () => {
    expect(LEDGER_TABLE).toEqual({ partitionKey: 'pk', sortKey: 'sk', timeToLive: 'ttl' });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        // Retired reservations and refused objects expire (src/ledger/dynamo.ts RECORD_RETENTION_S).
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      }),
    });
  });
});

describe('the object-created function', () => {
  it('runs the bundled lambda.ts on Node 24 with the ledger and the ranch table named', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Counts, tags'),
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: { LEDGER_TABLE_NAME: { Ref: ledgerId() }, RANCHES_TABLE_NAME: settings.ranchesTableName, NODE_OPTIONS: '--enable-source-maps' },
      },
    });
  });

  it("was bundled locally by the repository's esbuild into one file exporting handler", () => {
    const code = template.findResources('AWS::Lambda::Function')[functionId()]!.Properties.Code as { S3Key: string };
    const assetHash = code.S3Key.replace(/\.zip$/, '');
    const bundle = path.join(outdir, `asset.${assetHash}`, 'index.js');
    expect(fs.existsSync(bundle)).toBe(true);
    const source = fs.readFileSync(bundle, 'utf8');
    expect(source).toContain('LEDGER_TABLE_NAME');
    expect(source).toMatch(/handler/);
    // The runtime's SDK stays outside the bundle; the shared package's key layout is inside it.
    expect(source).toMatch(/require\("@aws-sdk\/client-s3"\)/);
    expect(source).not.toContain('@trailsense/shared');
  });

  it('runs for every object created under public/ and under private/', () => {
    expect(UPLOAD_PREFIXES).toEqual(['public/', 'private/']);
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { Ref: bucketId() },
      NotificationConfiguration: {
        LambdaFunctionConfigurations: UPLOAD_PREFIXES.map((prefix) => ({
          Events: ['s3:ObjectCreated:*'],
          Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: prefix }] } },
          LambdaFunctionArn: { 'Fn::GetAtt': [functionId(), 'Arn'] },
        })),
      },
    });
  });

  it('reserves its concurrency: a flood of objects waits in the event queue instead of taking the account’s', () => {
    expect(OBJECT_CREATED_RESERVED_CONCURRENCY).toBe(25);
    expect(template.findResources('AWS::Lambda::Function')[functionId()]!.Properties.ReservedConcurrentExecutions).toBe(25);
  });

  it('retries a failed event twice, then keeps it in an encrypted queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 1_209_600 });
  });

  it("may head, tag and remove the bucket's objects (and see a missing one as missing), nothing more in S3", () => {
    const s3 = functionStatements().filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(s3).toEqual([
      expect.objectContaining({
        Action: ['s3:GetObject', 's3:PutObjectTagging', 's3:DeleteObject'],
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/*']] },
      }),
      expect.objectContaining({ Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [bucketId(), 'Arn'] } }),
    ]);
  });

  it('may only GetItem on the existing ranch table, and on the ledger only GetItem and BatchGetItem (photo forms), PutItem, UpdateItem and ConditionCheckItem (the transactions of a decision or an upgrade) and BatchWriteItem (retired reservations)', () => {
    const ranchesArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:us-east-2:123456789012:table/${settings.ranchesTableName}`]] };
    const dynamo = functionStatements().filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const ledgerActions = [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:BatchWriteItem',
    ];
    expect(OBJECT_CREATED_LEDGER_ACTIONS).toEqual(ledgerActions);
    expect(dynamo).toEqual([
      {
        Sid: 'CountInLedger',
        Effect: 'Allow',
        Action: ledgerActions,
        Resource: { 'Fn::GetAtt': [ledgerId(), 'Arn'] },
      },
      { Sid: 'ReadRanchCeilings', Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: ranchesArn },
    ]);
    expect(
      functionStatements()
        .flatMap(actionsOf)
        .filter((a) => a.endsWith(':*') || a === '*'),
    ).toEqual([]);
  });
});

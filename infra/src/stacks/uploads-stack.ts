/**
 * Uploads: the bucket the uploader writes to, the object-created function that counts and tags
 * every object (and removes one past its ranch's monthly limit), and the function's ledger
 * (docs/architecture.md#trust-on-the-server).
 *
 * The bucket: no public access, TLS only, encrypted (SSE-S3), Transfer Acceleration (the uploader
 * uses the accelerated endpoint), incomplete multipart uploads aborted after a day, and CORS for
 * the site's origins with what Amplify's uploads need (PUT/POST for single and multipart puts,
 * DELETE for an abort, GET for listing a multipart upload's parts; ETag exposed, which Amplify
 * reads to complete a multipart upload). Who may write which key is IAM's business (the Identity
 * stack, src/upload-access.ts); CORS only lets the browser make the calls.
 *
 * The function (src/object-created/lambda.ts) is bundled by the repository's own esbuild, never in
 * Docker, and runs on every object created under public/ and private/. It reads the ranch table of
 * the product's back end (an existing table, by name) and writes the ledger.
 */
import path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { LEDGER_TABLE } from '../object-created/aws';

/** The key prefixes of the two levels (shared/src/uploads/object-key.ts): the function runs for objects under them. */
export const UPLOAD_PREFIXES = ['public/', 'private/'] as const;

/** The upload bucket's CORS rule: Amplify's uploads from the site's origins. */
export const UPLOAD_CORS = {
  allowedMethods: [HttpMethods.GET, HttpMethods.HEAD, HttpMethods.PUT, HttpMethods.POST, HttpMethods.DELETE],
  // Amplify signs its requests (authorization, x-amz-date, x-amz-security-token, x-amz-content-sha256,
  // checksums) and sends metadata and cache control; which headers a preflight may name is not a
  // security boundary (IAM and the signature are).
  allowedHeaders: ['*'],
  exposedHeaders: ['ETag', 'x-amz-server-side-encryption', 'x-amz-request-id', 'x-amz-id-2'],
  maxAge: 3000,
} as const;

/** The object-created function's entry; `handler` is exported there. */
/**
 * The Node runtime of this repository's Lambda functions: the newest Lambda offers that this CDK
 * knows (nodejs24.x; Node 22 leaves Lambda's supported runtimes when its line ends, 2027-04-30).
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

const FUNCTION_ENTRY = path.join(__dirname, '..', 'object-created', 'lambda.ts');
/** The repository's root, whose package-lock.json and node_modules (with esbuild) the bundling uses. */
const REPO_ROOT = path.join(__dirname, '..', '..', '..');

export interface UploadsStackProps extends StackProps {
  /** The runtime config's `storage.bucket`. */
  bucketName: string;
  /** The https origins the browser uploads from. */
  siteOrigins: readonly string[];
  /** The product back end's ranch table (existing). */
  ranchesTableName: string;
}

export class UploadsStack extends Stack {
  readonly bucket: Bucket;
  readonly ledger: Table;
  readonly objectCreated: NodejsFunction;

  constructor(scope: Construct, id: string, props: UploadsStackProps) {
    super(scope, id, props);

    this.bucket = new Bucket(this, 'UploadBucket', {
      bucketName: props.bucketName,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      transferAcceleration: true,
      lifecycleRules: [{ id: 'abort-incomplete-multipart-uploads', enabled: true, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      cors: [
        {
          ...UPLOAD_CORS,
          allowedMethods: [...UPLOAD_CORS.allowedMethods],
          allowedHeaders: [...UPLOAD_CORS.allowedHeaders],
          exposedHeaders: [...UPLOAD_CORS.exposedHeaders],
          allowedOrigins: [...props.siteOrigins],
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.ledger = new Table(this, 'Ledger', {
      partitionKey: { name: LEDGER_TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: LEDGER_TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const ranches = Table.fromTableName(this, 'Ranches', props.ranchesTableName);

    // Events that still fail after Lambda's two retries land here, for a look and a replay.
    const failures = new Queue(this, 'ObjectCreatedFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.objectCreated = new NodejsFunction(this, 'ObjectCreated', {
      description: 'Counts, tags and (past the monthly limit) removes each uploaded object',
      entry: FUNCTION_ENTRY,
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: {
        LEDGER_TABLE_NAME: this.ledger.tableName,
        RANCHES_TABLE_NAME: props.ranchesTableName,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        // The repository's esbuild (a root devDependency), never a Docker image.
        forceDockerBundling: false,
        format: OutputFormat.CJS,
        // esbuild's target follows the runtime (nodejs24.x → node24).
        target: LAMBDA_RUNTIME.name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // The runtime's AWS SDK v3 (@aws-sdk/* stays external).
        bundleAwsSDK: false,
        logLevel: LogLevel.WARNING,
      },
      logGroup: new LogGroup(this, 'ObjectCreatedLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY }),
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(failures),
    });

    this.ledger.grantReadWriteData(this.objectCreated);
    ranches.grantReadData(this.objectCreated);
    this.objectCreated.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadTagAndRemoveUploads',
        effect: Effect.ALLOW,
        // HeadObject needs GetObject; the tag is set with PutObjectTagging; a refused object is deleted.
        actions: ['s3:GetObject', 's3:PutObjectTagging', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    this.objectCreated.addToRolePolicy(
      new PolicyStatement({
        sid: 'SeeMissingUploadsAs404',
        effect: Effect.ALLOW,
        // Without ListBucket, S3 answers HeadObject for a removed object 403, not 404, and the
        // function would retry an event for an object that is gone instead of skipping it.
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
      }),
    );
    for (const prefix of UPLOAD_PREFIXES) {
      this.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(this.objectCreated), { prefix });
    }

    new CfnOutput(this, 'UploadBucketName', { value: this.bucket.bucketName, description: 'storage.bucket' });
    new CfnOutput(this, 'LedgerTableName', { value: this.ledger.tableName });
    new CfnOutput(this, 'ObjectCreatedFailuresQueueUrl', { value: failures.queueUrl });
  }
}

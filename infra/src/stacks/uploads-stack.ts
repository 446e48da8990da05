/**
 * Uploads: the bucket the uploader writes to, the object-created function that counts and tags
 * every object (and removes one past its ranch's monthly limit), the ledger, and the uploads API
 * that reserves upload slots in it before the uploader sends (src/stacks/uploads-api.ts; why it
 * is part of this stack is said there) (infra/docs/server.md#trust-on-the-server).
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
 * the product's back end (an existing table, by name) and writes the ledger: GetItem on the ranch
 * table; GetItem, BatchGetItem (a photo's form), PutItem, UpdateItem, ConditionCheckItem and
 * BatchWriteItem on the ledger (src/ledger/dynamo.ts: a count is a TransactWriteItems of Puts, an
 * Update of its photo's item and a check, which need those actions on each item; an original's
 * upgrade of a copy a Put and an Update), nothing else. It reads the uploads (HeadObject, ranged
 * GetObject: an original is fingerprinted from its stored bytes). Its decision lines carry the
 * upload counts as metrics (src/object-created/metrics.ts).
 *
 * Alarms (src/stacks/alarms.ts): the function's failure queue not empty, its errors and throttles,
 * the uploads API's 5xx rate and p99 latency (API Gateway's metrics of the stage: ApiName, Stage).
 */
import path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { CfnElement, StackProps } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { LEDGER_TABLE } from '../ledger/dynamo';
import { UPLOAD_EXPOSED_HEADERS } from '../upload-access';
import { MAX_EVENT_AGE_S } from '../object-created/handler';
import { METRICS_ENVIRONMENT_VARIABLE } from '../object-created/metrics';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import type { Settings, UploadsApiDomain } from '../settings';
import { EnvironmentAlarms, percentOf } from './alarms';
import { acknowledge, acknowledgeBasicExecutionRole } from './nag';
import { bundledFunction } from './node-function';
import { UploadsApi } from './uploads-api';

export { LAMBDA_RUNTIME } from './node-function';

/** The key prefixes of the two levels (shared/src/uploads/object-key.ts): the function runs for objects under them. */
export const UPLOAD_PREFIXES = ['public/', 'private/'] as const;

/** The upload bucket's CORS rule: Amplify's uploads from the site's origins. */
export const UPLOAD_CORS = {
  allowedMethods: [HttpMethods.GET, HttpMethods.HEAD, HttpMethods.PUT, HttpMethods.POST, HttpMethods.DELETE],
  // Amplify signs its requests (authorization, x-amz-date, x-amz-security-token, x-amz-content-sha256,
  // checksums) and sends metadata and cache control; which headers a preflight may name is not a
  // security boundary (IAM and the signature are).
  allowedHeaders: ['*'],
  exposedHeaders: UPLOAD_EXPOSED_HEADERS,
  maxAge: 3000,
} as const;

/** The only actions the object-created function has on the ledger table, and on the ranch table. */
export const OBJECT_CREATED_LEDGER_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:BatchWriteItem',
] as const;
export const OBJECT_CREATED_RANCH_ACTIONS = ['dynamodb:GetItem'] as const;

/** The object-created function's entry; `handler` is exported there. */
const FUNCTION_ENTRY = path.join(__dirname, '..', 'object-created', 'lambda.ts');
/** The sweep's entry (src/sweep/). */
const SWEEP_ENTRY = path.join(__dirname, '..', 'sweep', 'lambda.ts');

/** How often the sweep runs. */
export const SWEEP_SCHEDULE = Duration.hours(1);

/**
 * The upload bucket's denials, for every principal, the account's own included: what the upload
 * role's IAM cannot say because it is about the request, not the key (infra/docs/server.md#trust-on-the-server).
 * - no SSE-C: an object encrypted with the uploader's own key cannot be read (HeadObject 400) by
 *   the object-created function, so it could never be checked or counted;
 * - no overwrites: PutObject and CompleteMultipartUpload must carry `If-None-Match` (S3 then
 *   refuses a key that exists, 412), since the ledger counts a key once and a replaced object would
 *   be a new photo never counted. The multipart steps that take no condition (CreateMultipartUpload,
 *   UploadPart: `s3:ObjectCreationOperation` false) are exempt.
 * src/upload-access.ts `bucketPolicyDenial` says the same for the sandbox.
 */
export function uploadBucketDenials(objectsArn: string): PolicyStatement[] {
  return [
    new PolicyStatement({
      sid: 'DenyCustomerKeyEncryption',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [objectsArn],
      conditions: { Null: { 's3:x-amz-server-side-encryption-customer-algorithm': 'false' } },
    }),
    new PolicyStatement({
      sid: 'DenyOverwrites',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [objectsArn],
      conditions: { Null: { 's3:if-none-match': 'true' }, Bool: { 's3:ObjectCreationOperation': 'true' } },
    }),
    // A storage class named and not STANDARD (Glacier, One Zone…): a photo must be readable at once and
    // at Standard's durability. A negated operator is true when the key is absent, so `Null: false`
    // keeps the uploader's writes, which name none (S3 stores them as STANDARD), out of it.
    new PolicyStatement({
      sid: 'DenyOtherStorageClasses',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [objectsArn],
      conditions: { Null: { 's3:x-amz-storage-class': 'false' }, StringNotEquals: { 's3:x-amz-storage-class': 'STANDARD' } },
    }),
  ];
}

export interface UploadsStackProps extends StackProps {
  /** The settings' `name`: the alarms' names and topic, the upload metrics' dimension. */
  environmentName: string;
  /** The runtime config's `storage.bucket`. */
  bucketName: string;
  /** The https origins the browser uploads from. */
  siteOrigins: readonly string[];
  /** The product back end's ranch table (existing). */
  ranchesTableName: string;
  /** The runtime config's `auth.userPoolId`: the uploads API accepts this pool's id tokens. */
  userPoolId: string;
  /** The runtime config's `auth.userPoolClientId`: the web client, the id tokens' audience. */
  userPoolClientId: string;
  /** The settings' `uploadsApi`: the uploads API's custom domain. */
  uploadsApiDomain?: UploadsApiDomain;
  /** The settings' `analyticsStreamName`: where the uploads API's collection route puts monitoring events. */
  analyticsStreamName: string;
}

/** The stack's props from an environment's checked settings and runtime config (src/settings.ts, src/environment.ts), without a cross-stack reference. */
export function uploadsStackProps(settings: Settings, runtimeConfig: RuntimeConfig): Omit<UploadsStackProps, keyof StackProps> {
  return {
    environmentName: settings.name,
    bucketName: runtimeConfig.storage.bucket,
    siteOrigins: settings.siteOrigins,
    ranchesTableName: settings.ranchesTableName,
    // The Identity stack's outputs, copied into the runtime config.
    userPoolId: runtimeConfig.auth.userPoolId,
    userPoolClientId: runtimeConfig.auth.userPoolClientId,
    uploadsApiDomain: settings.uploadsApi,
    analyticsStreamName: settings.analyticsStreamName,
  };
}

/**
 * The object-created function's reserved concurrency: an invocation takes ~100–300 ms (a head, a
 * ranged GET, one ledger transaction), so 25 at once decide ~100 photos a second, several times
 * the site's peak. Past it, Lambda throttles and keeps the events queued: counting waits, nothing
 * is lost.
 */
export const OBJECT_CREATED_RESERVED_CONCURRENCY = 25;

export class UploadsStack extends Stack {
  readonly bucket: Bucket;
  readonly ledger: Table;
  readonly objectCreated: NodejsFunction;
  /** The hourly sweep of untagged objects (src/sweep/). */
  readonly sweep: NodejsFunction;
  /** Where the object-created function's events go after its retries failed. */
  readonly objectCreatedFailures: Queue;
  /** The uploads API's stage (its metrics, by ApiName and Stage: metricServerError, metricLatency, …), and its function. */
  readonly uploadsApi: Stage;
  readonly uploadsApiFunction: NodejsFunction;
  /** The construct of both, with the REST API, the access log group, the firewall and the custom domain. */
  readonly uploadsApiParts: UploadsApi;

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

    for (const statement of uploadBucketDenials(this.bucket.arnForObjects('*'))) this.bucket.addToResourcePolicy(statement);
    acknowledge(this.bucket, {
      'AwsSolutions-S1':
        'No server access logs: every object created is recorded by the object-created function (its decision line) and the ledger, refusals included; a log bucket would add cost and a second copy of member keys.',
    });

    this.ledger = new Table(this, 'Ledger', {
      partitionKey: { name: LEDGER_TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: LEDGER_TABLE.sortKey, type: AttributeType.STRING },
      // Retired reservations and refused objects expire a month after their month closed (src/ledger/dynamo.ts).
      timeToLiveAttribute: LEDGER_TABLE.timeToLive,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const ranches = Table.fromTableName(this, 'Ranches', props.ranchesTableName);

    // Events that still fail after Lambda's two retries land here, for a look and a replay.
    const failures = (this.objectCreatedFailures = new Queue(this, 'ObjectCreatedFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    }));

    this.objectCreated = bundledFunction(this, 'ObjectCreated', {
      description: 'Counts, tags and (past the monthly limit) removes each uploaded object',
      entry: FUNCTION_ENTRY,
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: {
        LEDGER_TABLE_NAME: this.ledger.tableName,
        RANCHES_TABLE_NAME: props.ranchesTableName,
        [METRICS_ENVIRONMENT_VARIABLE]: props.environmentName,
        NODE_OPTIONS: '--enable-source-maps',
      },
      // A flood of crafted objects waits in Lambda's event queue (kept for maxEventAge) instead of
      // taking the account's concurrency from the uploads API (docs/operations.md#the-uploads-apis-firewall).
      reservedConcurrentExecutions: OBJECT_CREATED_RESERVED_CONCURRENCY,
      retryAttempts: 2,
      // The month's close believes an event's time no older than this (object-created/handler.ts storedTime).
      maxEventAge: Duration.seconds(MAX_EVENT_AGE_S),
      onFailure: new SqsDestination(failures),
    });

    this.objectCreated.addToRolePolicy(
      new PolicyStatement({
        sid: 'CountInLedger',
        effect: Effect.ALLOW,
        actions: [...OBJECT_CREATED_LEDGER_ACTIONS],
        resources: [this.ledger.tableArn],
      }),
    );
    this.objectCreated.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadRanchCeilings',
        effect: Effect.ALLOW,
        actions: [...OBJECT_CREATED_RANCH_ACTIONS],
        resources: [ranches.tableArn],
      }),
    );
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

    // The sweep (src/sweep/sweep.ts): untagged objects the function never decided, removed and recorded.
    this.sweep = bundledFunction(this, 'Sweep', {
      description: 'Removes and records uploaded objects left untagged (never counted) past every retry',
      entry: SWEEP_ENTRY,
      memorySize: 256,
      timeout: Duration.minutes(10),
      environment: { BUCKET_NAME: this.bucket.bucketName, LEDGER_TABLE_NAME: this.ledger.tableName, NODE_OPTIONS: '--enable-source-maps' },
      // The next run redoes what one failed to.
      retryAttempts: 0,
    });
    this.sweep.addToRolePolicy(
      new PolicyStatement({ sid: 'ListUploads', effect: Effect.ALLOW, actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    this.sweep.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadTagAndRemoveUploads',
        effect: Effect.ALLOW,
        actions: ['s3:GetObjectTagging', 's3:PutObjectTagging', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    this.sweep.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadCountsRecordRefusals',
        effect: Effect.ALLOW,
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [this.ledger.tableArn],
      }),
    );
    this.acknowledgeObjectAccess();
    new Rule(this, 'SweepSchedule', {
      description: 'Runs the upload sweep',
      schedule: Schedule.rate(SWEEP_SCHEDULE),
      targets: [new LambdaFunction(this.sweep, { retryAttempts: 0 })],
    });

    this.uploadsApiParts = new UploadsApi(this, 'UploadsApi', {
      environmentName: props.environmentName,
      ledger: this.ledger,
      ranches,
      siteOrigins: props.siteOrigins,
      userPoolId: props.userPoolId,
      userPoolClientId: props.userPoolClientId,
      domain: props.uploadsApiDomain,
      analyticsStreamName: props.analyticsStreamName,
    });
    this.uploadsApi = this.uploadsApiParts.stage;
    this.uploadsApiFunction = this.uploadsApiParts.function;

    const alarms = new EnvironmentAlarms(this, props.environmentName);
    alarms.add('ObjectCreatedFailures', (options) => failures.metricApproximateNumberOfMessagesVisible(options));
    alarms.add('ObjectCreatedErrors', (options) => this.objectCreated.metricErrors(options));
    alarms.add('ObjectCreatedThrottles', (options) => this.objectCreated.metricThrottles(options));
    alarms.add('UploadsApi5xxRate', (options) =>
      percentOf(this.uploadsApi.metricServerError(options), this.uploadsApi.metricCount(options), options.period!, '5xx, % of requests'),
    );
    alarms.add('UploadsApiLatencyP99', (options) => this.uploadsApi.metricLatency(options));

    new CfnOutput(this, 'UploadBucketName', { value: this.bucket.bucketName, description: 'storage.bucket' });
    new CfnOutput(this, 'LedgerTableName', { value: this.ledger.tableName });
    new CfnOutput(this, 'ObjectCreatedFailuresQueueUrl', { value: failures.queueUrl });
  }

  /** cdk-nag's findings on what acts on uploaded objects (the two functions, CDK's notifications handler) and on the failure queue. */
  private acknowledgeObjectAccess(): void {
    // cdk-nag names the finding by the bucket's logical id.
    const anyObject = `AwsSolutions-IAM5[Resource::<${this.getLogicalId(this.bucket.node.defaultChild as CfnElement)}.Arn>/*]`;
    for (const fn of [this.objectCreated, this.sweep]) {
      acknowledge(fn, {
        [anyObject]:
          'Deliberate: it reads, tags or removes whichever uploaded object its event (or the sweep) finds, under any key; its actions are only those it needs.',
      });
    }
    acknowledge(this.objectCreatedFailures, {
      'AwsSolutions-SQS3': "It is the dead-letter queue: the object-created function's on-failure destination, read by hand (docs/operations.md#alarms).",
    });
    // CDK's own function that writes the bucket's notification configuration.
    const notificationsHandler = this.node.children.find((child) => child.node.id.startsWith('BucketNotificationsHandler'));
    if (notificationsHandler) acknowledgeBasicExecutionRole(notificationsHandler, "CDK's bucket-notifications handler");
  }
}

/**
 * The uploads API (src/uploads-api/, docs/architecture.md#the-uploads-api): an API Gateway HTTP
 * API whose JWT authorizer checks the user pool's id token (the bearer the product API takes too)
 * and one function, src/uploads-api/lambda.ts, behind its five routes.
 *
 * A construct of the Uploads stack, not a stack of its own: the function reads and writes the
 * ledger table, whose name CloudFormation generates, so another stack could learn it only through
 * a cross-stack reference (an export), and the stacks reference none; naming the table instead
 * would replace a retained table that already holds the ledger. The user pool and its web client
 * come from the runtime config (`auth.userPoolId`, `auth.userPoolClientId`: the Identity stack's
 * outputs, copied there), again without a reference to the Identity stack.
 *
 * - The `$default` stage, so the function sees paths without a stage prefix, auto-deployed.
 * - Every route needs a valid id token: issuer `https://cognito-idp.<region>.amazonaws.com/<pool>`,
 *   audience the web client (an id token's `aud`), from the Authorization header. The function reads
 *   the verified `custom:ranchid` claim; any other path is API Gateway's 404, before the function.
 * - CORS for the site's origins (the upload bucket's `siteOrigins`): API Gateway answers the
 *   preflight itself, before the authorizer, and adds the CORS headers to every answer.
 * - Throttling on the stage (UPLOADS_API_THROTTLE) and JSON access logs (UPLOADS_API_ACCESS_LOG).
 * - With a custom domain (settings `uploadsApi`): a regional domain name and the stage mapped at
 *   its root, so `https://<domain>` is the runtime config's `api.uploadsBaseUrl`. The execute-api
 *   endpoint stays on (a check before DNS points at the domain); the authorizer guards it alike.
 * - The function may GetItem, PutItem and BatchGetItem on the ledger table, GetItem on the ranch
 *   table, and nothing else (src/ledger/dynamo.ts: ConsistentRead GetItem, conditional PutItem,
 *   BatchGetItem of photos; src/object-created/aws.ts: the ranch's ceiling).
 */
import path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  CorsHttpMethod,
  DomainName,
  EndpointType,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { UploadsApiDomain } from '../settings';
import { bundledFunction, FUNCTION_LOG_RETENTION } from './node-function';

/** The function's entry; `handler` is exported there. */
const FUNCTION_ENTRY = path.join(__dirname, '..', 'uploads-api', 'lambda.ts');

/** The API's routes (src/uploads-api/handler.ts), every one behind the JWT authorizer. */
export const UPLOADS_API_ROUTES = [
  { method: HttpMethod.GET, path: '/ranches/{ranchid}/upload-metrics' },
  { method: HttpMethod.POST, path: '/ranches/{ranchid}/photo-lookups' },
  { method: HttpMethod.POST, path: '/ranches/{ranchid}/reservations' },
  { method: HttpMethod.POST, path: '/ranches/{ranchid}/reservations/{id}/renew' },
  { method: HttpMethod.DELETE, path: '/ranches/{ranchid}/reservations/{id}' },
] as const;

/** What a browser on the site's origins may send (the preflight's answer). */
export const UPLOADS_API_CORS = {
  allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.DELETE, CorsHttpMethod.OPTIONS],
  allowHeaders: ['Authorization', 'Content-Type'],
  // A browser reuses the answer for an hour (Chromium caps it at two); renew and DELETE name a
  // reservation in their path, so they are preflighted per reservation anyway.
  maxAge: Duration.hours(1),
} as const;

/**
 * The stage's throttle (token bucket, for the whole stage). The uploader calls the API a few times
 * per upload session (the metrics, one reservation per batch of up to 500 photos, a renewal every
 * few minutes, a release): even every user at once is a few requests a second. 100 a second with
 * bursts of 200 leaves room for many times that, and keeps a runaway client or retry loop from
 * taking the account's regional API Gateway quota (10,000 a second, shared with every other API in
 * it), from scaling the function past ~a few dozen concurrent executions and from running up
 * DynamoDB's on-demand bill; past it API Gateway answers 429, which the uploader retries.
 */
export const UPLOADS_API_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

/**
 * One JSON line per request in the access log group; alarms and Logs Insights read these names.
 * Every value is a string ("-" when API Gateway has none, e.g. no integration on a 401).
 */
export const UPLOADS_API_ACCESS_LOG = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  error: '$context.error.message',
} as const;

/** The only actions the function has on the ledger table, and on the ranch table. */
export const UPLOADS_API_LEDGER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem'] as const;
export const UPLOADS_API_RANCH_ACTIONS = ['dynamodb:GetItem'] as const;

/** The user pool's issuer, as its tokens' `iss` claim names it (the pool id starts with its region). */
export function userPoolIssuer(userPoolId: string): string {
  const region = userPoolId.slice(0, userPoolId.indexOf('_'));
  return `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`;
}

/** The CfnOutputs of the API (the Uploads stack's). */
export const UPLOADS_API_OUTPUTS = {
  endpoint: 'UploadsApiEndpoint',
  domainTarget: 'UploadsApiDomainTarget',
  domainHostedZoneId: 'UploadsApiDomainHostedZoneId',
} as const;

export interface UploadsApiProps {
  /** The ledger table (the Uploads stack's). */
  ledger: ITable;
  /** The product back end's ranch table (existing). */
  ranches: ITable;
  /** The https origins the site runs on (CORS). */
  siteOrigins: readonly string[];
  /** The runtime config's `auth.userPoolId`: whose id tokens the authorizer accepts. */
  userPoolId: string;
  /** The runtime config's `auth.userPoolClientId`: the web client, the id tokens' audience. */
  userPoolClientId: string;
  /** The settings' `uploadsApi`: a custom domain for the API. */
  domain?: UploadsApiDomain;
}

export class UploadsApi extends Construct {
  readonly httpApi: HttpApi;
  /** The `$default` stage (throttled, access-logged). */
  readonly stage: HttpStage;
  readonly function: NodejsFunction;
  readonly accessLogs: LogGroup;
  /** The custom domain, when the settings name one. */
  readonly domainName?: DomainName;

  constructor(scope: Construct, id: string, props: UploadsApiProps) {
    super(scope, id);

    this.function = bundledFunction(this, 'Function', {
      description: 'The uploads API: upload metrics, photo lookups and reservations of upload slots',
      entry: FUNCTION_ENTRY,
      memorySize: 256,
      // Below the HTTP API's 30 s integration timeout; a call's DynamoDB retries (src/ledger/dynamo.ts) take a few seconds at worst.
      timeout: Duration.seconds(15),
      environment: {
        LEDGER_TABLE_NAME: props.ledger.tableName,
        RANCHES_TABLE_NAME: props.ranches.tableName,
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    this.function.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadAndWriteLedgerItems',
        effect: Effect.ALLOW,
        actions: [...UPLOADS_API_LEDGER_ACTIONS],
        resources: [props.ledger.tableArn],
      }),
    );
    this.function.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadRanchCeilings',
        effect: Effect.ALLOW,
        actions: [...UPLOADS_API_RANCH_ACTIONS],
        resources: [props.ranches.tableArn],
      }),
    );

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `${Stack.of(this).stackName}-uploads-api`,
      description: 'TrailSense uploads API: upload metrics, photo lookups and reservations (id token of the web client)',
      // The stage below: the default one takes no throttle or access log settings.
      createDefaultStage: false,
      defaultAuthorizer: new HttpJwtAuthorizer('CognitoIdToken', userPoolIssuer(props.userPoolId), {
        authorizerName: 'cognito-id-token',
        jwtAudience: [props.userPoolClientId],
        identitySource: ['$request.header.Authorization'],
      }),
      corsPreflight: {
        ...UPLOADS_API_CORS,
        allowMethods: [...UPLOADS_API_CORS.allowMethods],
        allowHeaders: [...UPLOADS_API_CORS.allowHeaders],
        allowOrigins: [...props.siteOrigins],
        allowCredentials: false,
      },
    });

    const integration = new HttpLambdaIntegration('Function', this.function);
    for (const route of UPLOADS_API_ROUTES) this.httpApi.addRoutes({ path: route.path, methods: [route.method], integration });

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: FUNCTION_LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { ...UPLOADS_API_THROTTLE },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(UPLOADS_API_ACCESS_LOG)),
      },
    });

    const stack = Stack.of(this);
    new CfnOutput(stack, UPLOADS_API_OUTPUTS.endpoint, {
      value: this.httpApi.apiEndpoint,
      description: props.domain ? `The execute-api endpoint; api.uploadsBaseUrl is https://${props.domain.domainName}` : 'api.uploadsBaseUrl',
    });

    if (props.domain) {
      this.domainName = new DomainName(this, 'DomainName', {
        domainName: props.domain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      // At the root: https://<domain>/ranches/… reaches the $default stage as /ranches/….
      new ApiMapping(this, 'ApiMapping', { api: this.httpApi, domainName: this.domainName, stage: this.stage });
      new CfnOutput(stack, UPLOADS_API_OUTPUTS.domainTarget, {
        value: this.domainName.regionalDomainName,
        description: `Point ${props.domain.domainName} here (CNAME, or an alias record with ${UPLOADS_API_OUTPUTS.domainHostedZoneId})`,
      });
      new CfnOutput(stack, UPLOADS_API_OUTPUTS.domainHostedZoneId, { value: this.domainName.regionalHostedZoneId });
    }
  }
}

/**
 * The uploads API (src/uploads-api/, infra/docs/server.md#the-uploads-api): an API Gateway REST API
 * (regional endpoint) whose Cognito user pool authorizer checks the user pool's id token (the
 * bearer the product API takes too) and one function, src/uploads-api/lambda.ts, behind its five
 * routes; the monitoring events' collection route with a function of its own, without the
 * authorizer (below); and the firewall, an AWS WAF web ACL on the stage (src/stacks/uploads-firewall.ts,
 * infra/docs/server.md#the-uploads-apis-firewall).
 *
 * A construct of the Uploads stack, not a stack of its own: the function reads and writes the
 * ledger table, whose name CloudFormation generates, so another stack could learn it only through
 * a cross-stack reference (an export), and the stacks reference none; naming the table instead
 * would replace a retained table that already holds the ledger. The user pool and its web client
 * come from the runtime config (`auth.userPoolId`, `auth.userPoolClientId`: the Identity stack's
 * outputs, copied there), again without a reference to the Identity stack.
 *
 * - One stage, UPLOADS_API_STAGE, redeployed by CloudFormation whenever a method changes.
 * - Every token route needs a valid id token of the user pool in the Authorization header (the
 *   authorizer); the function keeps the API to the web client's tokens (their `aud`: the
 *   authorizer takes any app client's) and reads the verified `custom:ranchid`. Any other path is
 *   API Gateway's 403 (no such resource) and never reaches the function.
 * - CORS for the site's origins (the upload bucket's `siteOrigins`): API Gateway answers the
 *   preflight itself (a mock integration, no authorizer); the functions add the allowed origin to
 *   their answers (a REST API adds no CORS header to a proxy integration's answer); API Gateway's
 *   own errors carry the firewall's answer headers (UPLOADS_EDGE_ANSWER_HEADERS: any origin), so
 *   the browser can read a 401 or a 429 too.
 * - Throttling on the stage (UPLOADS_API_THROTTLE) and on each method (UPLOADS_API_ROUTE_THROTTLE,
 *   EVENTS_ROUTE_THROTTLE), so a flood of one route leaves the others their budget; JSON access
 *   logs (UPLOADS_API_ACCESS_LOG). Each function's reserved concurrency bounds what it can cost.
 * - The firewall on the stage, with or without a custom domain.
 * - With a custom domain (settings `uploadsApi`): a regional domain name with the stage mapped at
 *   its root, so `https://<domain>` is the runtime config's `api.uploadsBaseUrl`, DNS pointing at
 *   the domain's target; the execute-api endpoint is disabled. (API Gateway's v2 domain and
 *   mapping resources: they take a REST API's stage as well as an HTTP API's.)
 * - The function may GetItem, PutItem and BatchGetItem on the ledger table, GetItem on the ranch
 *   table, and nothing else (src/ledger/dynamo.ts: ConsistentRead GetItem, conditional PutItem,
 *   BatchGetItem of photos; src/ledger/ranches.ts: the ranch's ceiling).
 * - `POST /events`, the monitoring events' collection route (src/uploads-api/events.ts,
 *   docs/monitoring.md#delivery), is the one route without the authorizer: every visitor's page
 *   sends its vitals and errors there, signed in or not. A function of its own
 *   (src/uploads-api/events-lambda.ts) that may only `firehose:PutRecordBatch` on the analytics
 *   stream, and a lower throttle of its own (EVENTS_ROUTE_THROTTLE).
 */
import path from 'node:path';
import { CfnOutput, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AuthorizationType,
  CognitoUserPoolsAuthorizer,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  RestApi,
  type Method,
  type MethodDeploymentOptions,
  type Stage,
} from 'aws-cdk-lib/aws-apigateway';
import { CfnApiMapping, DomainName, EndpointType as DomainEndpointType, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { UploadsApiDomain } from '../settings';
import { acknowledge } from './nag';
import { bundledFunction, FUNCTION_LOG_RETENTION } from './node-function';
import { accessLogFormat, addGatewayResponses, UPLOADS_API_CORS } from './uploads-api-gateway';
import { UploadsFirewall } from './uploads-firewall';

export { THROTTLED_RETRY_AFTER_SECONDS, UPLOADS_API_ACCESS_LOG, UPLOADS_API_CORS, UPLOADS_API_GATEWAY_RESPONSES } from './uploads-api-gateway';

/** The function's entry; `handler` is exported there. */
const FUNCTION_ENTRY = path.join(__dirname, '..', 'uploads-api', 'lambda.ts');
/** The collection route's function's entry. */
const EVENTS_FUNCTION_ENTRY = path.join(__dirname, '..', 'uploads-api', 'events-lambda.ts');

/** The API's one stage: mapped at the custom domain's root (no prefix there); the execute-api URL's first segment without one. */
export const UPLOADS_API_STAGE = 'api';

/** The monitoring events' collection route (src/uploads-api/events.ts): no authorizer. */
export const EVENTS_ROUTE = { method: 'POST', path: '/events' } as const;

/**
 * The collection route's throttle, below the stage's (UPLOADS_API_THROTTLE, which every other route
 * keeps). A page view sends a batch or two (its TTFB, then the rest as it is hidden), a quarter
 * of page views measured in production (docs/monitoring.md#sampling), plus rare errors: a few
 * requests a second even on a busy day. 25 a second with bursts of 50 is ample for that, while a
 * script flooding the route (it needs no token) spends at most that much of the function and of
 * Firehose's bill; beyond it API Gateway answers 429 and the events are dropped, which costs a
 * few samples, never a page.
 */
export const EVENTS_ROUTE_THROTTLE = { rateLimit: 25, burstLimit: 50 } as const;

/**
 * Each token route's own throttle (a method setting of the stage), so a flood of one route — the
 * authorizer answers 401 only after the request has spent its route's and stage's budget — leaves
 * the other routes theirs: a script hammering the metrics cannot stop reservations or renewals.
 * A fifth of the stage's each (five routes: together the stage's 100 a second), many times a
 * route's real traffic (a member's tab calls each route at most a few times a minute).
 */
export const UPLOADS_API_ROUTE_THROTTLE = { rateLimit: 20, burstLimit: 40 } as const;

/**
 * Concurrent executions reserved for (and the most allowed to) each function: what a flood that
 * got past the throttles can run at once, and so what it can cost. The uploads API's routes allow
 * 100 requests a second together, and a call takes ~50-150 ms (one or two DynamoDB requests), so
 * ~15 run at once at that rate; the collection route's 25 a second of ~100 ms Firehose puts, ~3.
 * Past them Lambda throttles (API Gateway answers 5xx, which the 5xx-rate alarm sees). Reserving
 * them also keeps the account's other functions from starving these. The account's concurrency
 * quota must leave 100 unreserved besides (a new account's quota may be lower: raise it first).
 */
export const UPLOADS_API_RESERVED_CONCURRENCY = 20;
export const EVENTS_RESERVED_CONCURRENCY = 5;

/** The only action the collection route's function has, on the analytics stream alone. */
export const EVENTS_FUNCTION_ACTIONS = ['firehose:PutRecordBatch'] as const;

/** The API's routes (src/uploads-api/handler.ts), every one behind the Cognito authorizer. */
export const UPLOADS_API_ROUTES = [
  { method: 'GET', path: '/ranches/{ranchid}/upload-metrics' },
  { method: 'POST', path: '/ranches/{ranchid}/photo-lookups' },
  { method: 'POST', path: '/ranches/{ranchid}/reservations' },
  { method: 'POST', path: '/ranches/{ranchid}/reservations/{id}/renew' },
  { method: 'DELETE', path: '/ranches/{ranchid}/reservations/{id}' },
] as const;

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

/** The only actions the function has on the ledger table, and on the ranch table. */
export const UPLOADS_API_LEDGER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'] as const;
export const UPLOADS_API_RANCH_ACTIONS = ['dynamodb:GetItem'] as const;

/** The user pool's issuer, as its tokens' `iss` claim names it (the pool id starts with its region). */
export function userPoolIssuer(userPoolId: string): string {
  return `https://cognito-idp.${userPoolRegion(userPoolId)}.amazonaws.com/${userPoolId}`;
}

/** The region a user pool id names (`us-east-2_AbC…` is in us-east-2). */
export function userPoolRegion(userPoolId: string): string {
  return userPoolId.slice(0, userPoolId.indexOf('_'));
}

/** A method's key in the stage's method settings (`<resource path>/<HTTP method>`). */
export const methodKey = (route: { method: string; path: string }): string => `${route.path}/${route.method}`;

/** The stage's per-method throttles: each token route's, and the collection route's. */
export function methodThrottles(): Record<string, MethodDeploymentOptions> {
  const throttle = (limits: { rateLimit: number; burstLimit: number }) => ({ throttlingRateLimit: limits.rateLimit, throttlingBurstLimit: limits.burstLimit });
  return {
    ...Object.fromEntries(UPLOADS_API_ROUTES.map((route) => [methodKey(route), throttle(UPLOADS_API_ROUTE_THROTTLE)])),
    [methodKey(EVENTS_ROUTE)]: throttle(EVENTS_ROUTE_THROTTLE),
  };
}

/** The CfnOutputs of the API (the Uploads stack's). */
export const UPLOADS_API_OUTPUTS = {
  endpoint: 'UploadsApiEndpoint',
  domainTarget: 'UploadsApiDomainTarget',
  webAclArn: 'UploadsApiWebAclArn',
} as const;

export interface UploadsApiProps {
  /** The settings' `name`: the firewall's name and metrics. */
  environmentName: string;
  /** The ledger table (the Uploads stack's). */
  ledger: ITable;
  /** The product back end's ranch table (existing). */
  ranches: ITable;
  /** The https origins the site runs on (CORS). */
  siteOrigins: readonly string[];
  /** The runtime config's `auth.userPoolId`: whose id tokens the authorizer accepts. */
  userPoolId: string;
  /** The runtime config's `auth.userPoolClientId`: the web client, the only audience the function accepts. */
  userPoolClientId: string;
  /** The settings' `uploadsApi`: a custom domain for the API. */
  domain?: UploadsApiDomain;
  /** The settings' `analyticsStreamName`: the Firehose stream (the Analytics stack's) the collection route puts events into. */
  analyticsStreamName: string;
}

export class UploadsApi extends Construct {
  readonly restApi: RestApi;
  /** The one stage (throttled, access-logged, behind the firewall). */
  readonly stage: Stage;
  readonly function: NodejsFunction;
  /** The collection route's function (`POST /events`). */
  readonly eventsFunction: NodejsFunction;
  readonly accessLogs: LogGroup;
  /** The web ACL on the stage. */
  readonly firewall: UploadsFirewall;
  /** The custom domain, when the settings name one. */
  readonly domainName?: DomainName;

  constructor(scope: Construct, id: string, props: UploadsApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.function = this.uploadsFunction(props);
    this.eventsFunction = this.collectionFunction(props);

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: FUNCTION_LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `${stack.stackName}-uploads-api`,
      description: 'TrailSense uploads API: upload metrics, photo lookups and reservations (id token of the web client)',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // With a custom domain that is the API's URL; the execute-api endpoint then answers 403.
      disableExecuteApiEndpoint: props.domain !== undefined,
      // A REST API's access logs need the account's API Gateway CloudWatch role (a regional
      // account setting): CDK makes one with AWS's push-to-CloudWatch policy and sets it, retained.
      cloudWatchRole: true,
      deployOptions: {
        stageName: UPLOADS_API_STAGE,
        throttlingRateLimit: UPLOADS_API_THROTTLE.rateLimit,
        throttlingBurstLimit: UPLOADS_API_THROTTLE.burstLimit,
        methodOptions: methodThrottles(),
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
      },
      defaultCorsPreflightOptions: {
        ...UPLOADS_API_CORS,
        allowMethods: [...UPLOADS_API_CORS.allowMethods],
        allowHeaders: [...UPLOADS_API_CORS.allowHeaders],
        allowOrigins: [...props.siteOrigins],
        allowCredentials: false,
      },
    });
    this.stage = this.restApi.deploymentStage;
    // CDK's own output of the stage's URL: the Uploads stack outputs the API's URL below, once.
    this.restApi.node.tryRemoveChild('Endpoint');
    addGatewayResponses(this.restApi);
    this.addRoutes(props);
    this.acknowledgeApi();

    this.firewall = new UploadsFirewall(this, 'Firewall', { environmentName: props.environmentName, stageArn: this.stage.stageArn });
    new CfnOutput(stack, UPLOADS_API_OUTPUTS.webAclArn, { value: this.firewall.webAcl.attrArn });

    if (!props.domain) {
      // The execute-api endpoint with the stage: api.uploadsBaseUrl without a custom domain (no trailing slash).
      const url = Fn.join('', ['https://', this.restApi.restApiId, '.execute-api.', stack.region, '.', stack.urlSuffix, '/', UPLOADS_API_STAGE]);
      new CfnOutput(stack, UPLOADS_API_OUTPUTS.endpoint, { value: url, description: 'api.uploadsBaseUrl' });
      return;
    }
    this.domainName = new DomainName(this, 'DomainName', {
      domainName: props.domain.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
      endpointType: DomainEndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    // At the root: https://<domain>/ranches/… reaches the stage as /ranches/…. Construct ids as
    // the HTTP API's mapping had (ApiMapping/Resource), so a deploy updates that mapping in place.
    const mapping = new CfnApiMapping(new Construct(this, 'ApiMapping'), 'Resource', {
      apiId: this.restApi.restApiId,
      domainName: this.domainName.name,
      stage: this.stage.stageName,
    });
    mapping.node.addDependency(this.domainName);
    new CfnOutput(stack, UPLOADS_API_OUTPUTS.domainTarget, {
      value: this.domainName.regionalDomainName,
      description: `Point ${props.domain.domainName} here (CNAME, or an alias record)`,
    });
  }

  /** The uploads API's function, and its grants on the two tables. */
  private uploadsFunction(props: UploadsApiProps): NodejsFunction {
    const fn = bundledFunction(this, 'Function', {
      description: 'The uploads API: upload metrics, photo lookups and reservations of upload slots',
      entry: FUNCTION_ENTRY,
      memorySize: 256,
      // Below API Gateway's 29 s integration timeout; a call's DynamoDB retries (src/ledger/dynamo.ts) take a few seconds at worst.
      timeout: Duration.seconds(15),
      reservedConcurrentExecutions: UPLOADS_API_RESERVED_CONCURRENCY,
      environment: {
        LEDGER_TABLE_NAME: props.ledger.tableName,
        RANCHES_TABLE_NAME: props.ranches.tableName,
        WEB_CLIENT_ID: props.userPoolClientId,
        SITE_ORIGINS: JSON.stringify(props.siteOrigins),
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadAndWriteLedgerItems',
        effect: Effect.ALLOW,
        actions: [...UPLOADS_API_LEDGER_ACTIONS],
        resources: [props.ledger.tableArn],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({ sid: 'ReadRanchCeilings', effect: Effect.ALLOW, actions: [...UPLOADS_API_RANCH_ACTIONS], resources: [props.ranches.tableArn] }),
    );
    return fn;
  }

  /** The collection route's function, which may only put records into the analytics stream. */
  private collectionFunction(props: UploadsApiProps): NodejsFunction {
    const fn = bundledFunction(this, 'EventsFunction', {
      description: 'The monitoring events collection route (POST /events): validated batches into the analytics stream',
      entry: EVENTS_FUNCTION_ENTRY,
      memorySize: 256,
      timeout: Duration.seconds(10),
      reservedConcurrentExecutions: EVENTS_RESERVED_CONCURRENCY,
      environment: {
        ANALYTICS_STREAM_NAME: props.analyticsStreamName,
        SITE_ORIGINS: JSON.stringify(props.siteOrigins),
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'PutMonitoringEvents',
        effect: Effect.ALLOW,
        actions: [...EVENTS_FUNCTION_ACTIONS],
        resources: [Stack.of(this).formatArn({ service: 'firehose', resource: 'deliverystream', resourceName: props.analyticsStreamName })],
      }),
    );
    return fn;
  }

  /** The five token routes behind the Cognito authorizer, and the collection route without it. */
  private addRoutes(props: UploadsApiProps): void {
    const region = userPoolRegion(props.userPoolId);
    const userPool = UserPool.fromUserPoolArn(
      this,
      'UserPool',
      Stack.of(this).formatArn({ service: 'cognito-idp', region, resource: 'userpool', resourceName: props.userPoolId }),
    );
    const authorizer = new CognitoUserPoolsAuthorizer(this, 'CognitoIdToken', {
      authorizerName: 'cognito-id-token',
      cognitoUserPools: [userPool],
      identitySource: 'method.request.header.Authorization',
      // No cache: each request's token is checked (a cached answer could outlive the token).
      resultsCacheTtl: Duration.seconds(0),
    });
    // Each method's own permission to invoke the function, for this stage's method only; no test-invoke grant.
    const integration = new LambdaIntegration(this.function, { allowTestInvoke: false });
    for (const route of UPLOADS_API_ROUTES) {
      this.restApi.root.resourceForPath(route.path).addMethod(route.method, integration, { authorizationType: AuthorizationType.COGNITO, authorizer });
    }
    const events: Method = this.restApi.root
      .resourceForPath(EVENTS_ROUTE.path)
      .addMethod(EVENTS_ROUTE.method, new LambdaIntegration(this.eventsFunction, { allowTestInvoke: false }), { authorizationType: AuthorizationType.NONE });
    const open =
      "Deliberate: every visitor's page reports its vitals and errors here, signed in or not (docs/monitoring.md#delivery); the function checks each batch, and the route's throttle, the firewall and reserved concurrency bound its cost.";
    acknowledge(events, { 'AwsSolutions-APIG4': open, 'AwsSolutions-COG4': open });
  }

  /** cdk-nag's findings on the API as a whole, each deliberate. */
  private acknowledgeApi(): void {
    acknowledge(this.restApi, {
      'AwsSolutions-APIG2':
        'No request validation in API Gateway: the functions validate every body and path themselves (src/uploads-api/handler.ts, events.ts) and answer 400 or 413 with what is wrong.',
      'AwsSolutions-APIG6':
        "No execution logs: the access log has a line per request (status, route, latencies, the authorizer's and integration's errors), and execution logs would go to a log group API Gateway makes without a retention.",
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]':
        "The account's API Gateway logging role: AWS's managed policy grants exactly the log-group and log-stream writes API Gateway needs for access logs.",
    });
  }
}

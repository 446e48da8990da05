/**
 * The uploads API (src/uploads-api/, infra/docs/server.md#the-uploads-api): an API Gateway HTTP
 * API whose JWT authorizer checks the user pool's id token (the bearer the product API takes too)
 * and one function, src/uploads-api/lambda.ts, behind its five routes; and the monitoring events'
 * collection route with a function of its own, without the authorizer (below).
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
 * - Throttling on the stage (UPLOADS_API_THROTTLE) and on each route (UPLOADS_API_ROUTE_THROTTLE,
 *   EVENTS_ROUTE_THROTTLE), so a flood of one route leaves the others their budget; JSON access
 *   logs (UPLOADS_API_ACCESS_LOG). Each function's reserved concurrency bounds what it can cost.
 * - With a custom domain (settings `uploadsApi`): a regional domain name and the stage mapped at
 *   its root, so `https://<domain>` is the runtime config's `api.uploadsBaseUrl`. The domain's
 *   target is the origin of the UploadsEdge stack's CloudFront distribution (its WAF web ACL limits
 *   each client's rate: src/stacks/uploads-edge-stack.ts), where DNS points the name, and the
 *   execute-api endpoint is disabled, so only that way in remains.
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
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  type CfnStage,
  CorsHttpMethod,
  DomainName,
  EndpointType,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
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
import { acknowledge } from './nag';
import { bundledFunction, FUNCTION_LOG_RETENTION } from './node-function';

/** The function's entry; `handler` is exported there. */
const FUNCTION_ENTRY = path.join(__dirname, '..', 'uploads-api', 'lambda.ts');
/** The collection route's function's entry. */
const EVENTS_FUNCTION_ENTRY = path.join(__dirname, '..', 'uploads-api', 'events-lambda.ts');

/** The monitoring events' collection route (src/uploads-api/events.ts): no authorizer. */
export const EVENTS_ROUTE = { method: HttpMethod.POST, path: '/events' } as const;

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
 * Each token route's own throttle (a route setting of the stage), so a flood of one route — the
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
export const UPLOADS_API_LEDGER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'] as const;
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
  /** The settings' `analyticsStreamName`: the Firehose stream (the Analytics stack's) the collection route puts events into. */
  analyticsStreamName: string;
}

export class UploadsApi extends Construct {
  readonly httpApi: HttpApi;
  /** The `$default` stage (throttled, access-logged). */
  readonly stage: HttpStage;
  readonly function: NodejsFunction;
  /** The collection route's function (`POST /events`). */
  readonly eventsFunction: NodejsFunction;
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
      reservedConcurrentExecutions: UPLOADS_API_RESERVED_CONCURRENCY,
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
      // With a custom domain, the way in is CloudFront (and its WAF) to that domain: the
      // execute-api endpoint would be a way around the per-client rate limit.
      disableExecuteApiEndpoint: props.domain !== undefined,
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
    const routes = UPLOADS_API_ROUTES.flatMap((route) => this.httpApi.addRoutes({ path: route.path, methods: [route.method], integration }));

    this.eventsFunction = bundledFunction(this, 'EventsFunction', {
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
    this.eventsFunction.addToRolePolicy(
      new PolicyStatement({
        sid: 'PutMonitoringEvents',
        effect: Effect.ALLOW,
        actions: [...EVENTS_FUNCTION_ACTIONS],
        resources: [Stack.of(this).formatArn({ service: 'firehose', resource: 'deliverystream', resourceName: props.analyticsStreamName })],
      }),
    );
    const [eventsRoute] = this.httpApi.addRoutes({
      path: EVENTS_ROUTE.path,
      methods: [EVENTS_ROUTE.method],
      integration: new HttpLambdaIntegration('EventsFunction', this.eventsFunction),
      authorizer: new HttpNoneAuthorizer(),
    });
    if (eventsRoute) {
      acknowledge(eventsRoute, {
        'AwsSolutions-APIG4':
          "Deliberate: every visitor's page reports its vitals and errors here, signed in or not (docs/monitoring.md#delivery); the function checks each batch, and the route's throttle and reserved concurrency bound its cost.",
      });
    }

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
    // Route settings are not in HttpStage's props; CloudFormation's stage takes them by route key,
    // a JSON map passed through as written (hence CloudFormation's capitalised names).
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    const throttle = (limits: { rateLimit: number; burstLimit: number }) => ({
      ThrottlingRateLimit: limits.rateLimit,
      ThrottlingBurstLimit: limits.burstLimit,
    });
    cfnStage.routeSettings = {
      ...Object.fromEntries(UPLOADS_API_ROUTES.map((route) => [`${route.method} ${route.path}`, throttle(UPLOADS_API_ROUTE_THROTTLE)])),
      [`${EVENTS_ROUTE.method} ${EVENTS_ROUTE.path}`]: throttle(EVENTS_ROUTE_THROTTLE),
    };
    // A stage's route settings name existing routes.
    for (const route of [...routes, eventsRoute]) if (route) cfnStage.node.addDependency(route);

    const stack = Stack.of(this);
    // The execute-api endpoint: api.uploadsBaseUrl without a custom domain; with one it is disabled.
    if (!props.domain) new CfnOutput(stack, UPLOADS_API_OUTPUTS.endpoint, { value: this.httpApi.apiEndpoint, description: 'api.uploadsBaseUrl' });

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
        description: `The UploadsEdge distribution's origin; DNS points ${props.domain.domainName} at that distribution, never here`,
      });
    }
  }
}

/**
 * The uploads API of the Uploads stack (src/stacks/uploads-api.ts): an HTTP API whose five routes
 * all need the web client's id token, CORS for the site's origins, the `$default` stage throttled
 * and access-logged, one function (bundled for real here) that may touch only the ledger's and
 * the ranch table's items it needs, and the custom domain when the settings name one; and the
 * monitoring events' collection route, without the authorizer, throttled lower, with a function
 * of its own that may only put records into the analytics stream.
 */
import fs from 'node:fs';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  EVENTS_FUNCTION_ACTIONS,
  EVENTS_ROUTE,
  EVENTS_RESERVED_CONCURRENCY,
  EVENTS_ROUTE_THROTTLE,
  UPLOADS_API_ACCESS_LOG,
  UPLOADS_API_LEDGER_ACTIONS,
  UPLOADS_API_OUTPUTS,
  UPLOADS_API_RANCH_ACTIONS,
  UPLOADS_API_RESERVED_CONCURRENCY,
  UPLOADS_API_ROUTE_THROTTLE,
  UPLOADS_API_ROUTES,
  UPLOADS_API_THROTTLE,
  userPoolIssuer,
} from '../src/stacks/uploads-api';
import { UploadsStack, uploadsStackProps } from '../src/stacks/uploads-stack';
import type { UploadsStackProps } from '../src/stacks/uploads-stack';
import { actionsOf, allStatements, exampleEnv, exampleEnvironment, isWildcardPrincipal, testApp } from './support/example';
import type { Statement } from './support/example';
import { nagFindings } from './support/nag';

const environment = exampleEnvironment();
const { settings, runtimeConfig } = environment;

const props = (): UploadsStackProps => ({
  env: exampleEnv(environment),
  ...uploadsStackProps(settings, runtimeConfig),
});

let stack: UploadsStack;
let template: Template;
let outdir: string;
/** The same stack without the custom domain (not bundled). */
let withoutDomain: Template;
let withoutDomainStack: UploadsStack;

beforeAll(() => {
  const app = testApp();
  stack = new UploadsStack(app, 'Uploads', props());
  template = Template.fromStack(stack);
  outdir = app.outdir;
  const unbundled = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
  withoutDomainStack = new UploadsStack(unbundled, 'UploadsWithoutDomain', { ...props(), uploadsApiDomain: undefined });
  withoutDomain = Template.fromStack(withoutDomainStack);
});

const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const apiId = () => idOf(stack.uploadsApi);
const functionId = () => idOf(stack.uploadsApiFunction);
const eventsFunctionId = () => idOf(stack.uploadsApiParts.eventsFunction);
const EVENTS_ROUTE_KEY = 'POST /events';
/** The routes behind the authorizer: every one but the collection route. */
const tokenRoutes = (t: Template) =>
  Object.values(t.findResources('AWS::ApiGatewayV2::Route'))
    .map((r) => r.Properties as Record<string, unknown>)
    .filter((r) => r.RouteKey !== EVENTS_ROUTE_KEY);
const ledgerId = () => idOf(stack.ledger);
const authorizerId = () => Object.keys(template.findResources('AWS::ApiGatewayV2::Authorizer'))[0]!;
const ranchesArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:us-east-2:123456789012:table/${settings.ranchesTableName}`]] };

describe('the HTTP API', () => {
  it('serves exactly the five routes besides the collection route, each behind the JWT authorizer, all to the function with payload 2.0', () => {
    const routes = tokenRoutes(template);
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(
      [
        'GET /ranches/{ranchid}/upload-metrics',
        'POST /ranches/{ranchid}/photo-lookups',
        'POST /ranches/{ranchid}/reservations',
        'POST /ranches/{ranchid}/reservations/{id}/renew',
        'DELETE /ranches/{ranchid}/reservations/{id}',
      ].sort(),
    );
    expect(UPLOADS_API_ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(routes.map((r) => r.RouteKey).sort());
    for (const route of routes) {
      expect(route).toMatchObject({ ApiId: { Ref: apiId() }, AuthorizationType: 'JWT', AuthorizerId: { Ref: authorizerId() } });
    }
    const integrations = Object.entries(template.findResources('AWS::ApiGatewayV2::Integration')).filter(
      ([, i]) => JSON.stringify(i.Properties.IntegrationUri) === JSON.stringify({ 'Fn::GetAtt': [functionId(), 'Arn'] }),
    );
    expect(integrations.map(([, i]) => i.Properties)).toEqual([
      { ApiId: { Ref: apiId() }, IntegrationType: 'AWS_PROXY', IntegrationUri: { 'Fn::GetAtt': [functionId(), 'Arn'] }, PayloadFormatVersion: '2.0' },
    ]);
    const [[integrationId]] = integrations as [[string, unknown]];
    for (const route of routes) expect(route.Target).toEqual({ 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] });
  });

  it("accepts only id tokens of the runtime config's user pool issued to the web client, from the Authorization header", () => {
    expect(userPoolIssuer('us-east-2_ExampleP00l')).toBe('https://cognito-idp.us-east-2.amazonaws.com/us-east-2_ExampleP00l');
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::Authorizer'))).toHaveLength(1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      ApiId: { Ref: apiId() },
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Issuer: `https://cognito-idp.us-east-2.amazonaws.com/${runtimeConfig.auth.userPoolId}`,
        Audience: [runtimeConfig.auth.userPoolClientId],
      },
    });
  });

  it("answers CORS preflights for the site's origins only: GET, POST, DELETE; Authorization and Content-Type", () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowOrigins: ['https://trailsense.example', 'https://uploader.trailsense.example'],
        AllowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        AllowHeaders: ['Authorization', 'Content-Type'],
        AllowCredentials: false,
        MaxAge: 3600,
      },
    });
    expect(settings.siteOrigins).toEqual(['https://trailsense.example', 'https://uploader.trailsense.example']);
  });

  it('has one stage, $default (no path prefix), auto-deployed and throttled', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    expect(UPLOADS_API_THROTTLE).toEqual({ rateLimit: 100, burstLimit: 200 });
    expect(stages[0]!.Properties).toMatchObject({
      ApiId: { Ref: apiId() },
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 200, ThrottlingRateLimit: 100 },
    });
  });

  it('throttles each route on its own, so a flood of one leaves the others their budget; the collection route lower', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(UPLOADS_API_ROUTE_THROTTLE).toEqual({ rateLimit: 20, burstLimit: 40 });
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => (r.Properties as { RouteKey: string }).RouteKey);
    expect(Object.keys(stage.Properties.RouteSettings as object).sort()).toEqual(routeKeys.sort());
    expect(stage.Properties.RouteSettings).toEqual({
      'GET /ranches/{ranchid}/upload-metrics': { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
      'POST /ranches/{ranchid}/photo-lookups': { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
      'POST /ranches/{ranchid}/reservations': { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
      'POST /ranches/{ranchid}/reservations/{id}/renew': { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
      'DELETE /ranches/{ranchid}/reservations/{id}': { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
      [EVENTS_ROUTE_KEY]: { ThrottlingBurstLimit: 50, ThrottlingRateLimit: 25 },
    });
    // Together no more than the stage's.
    expect(UPLOADS_API_ROUTE_THROTTLE.rateLimit * UPLOADS_API_ROUTES.length).toBeLessThanOrEqual(UPLOADS_API_THROTTLE.rateLimit);
    // A route setting names an existing route: the stage waits for every route.
    const routeIds = Object.keys(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  it("bounds each function's concurrency, and so its cost, by a reservation", () => {
    expect([UPLOADS_API_RESERVED_CONCURRENCY, EVENTS_RESERVED_CONCURRENCY]).toEqual([20, 5]);
    const functions = template.findResources('AWS::Lambda::Function');
    expect(functions[functionId()]!.Properties.ReservedConcurrentExecutions).toBe(20);
    expect(functions[eventsFunctionId()]!.Properties.ReservedConcurrentExecutions).toBe(5);
  });

  it('has no cdk-nag AwsSolutions finding left unacknowledged, without the custom domain too', () => {
    expect(nagFindings(withoutDomainStack)).toEqual([]);
  });

  it('writes a JSON access log line per request, with the fields the alarms read, to a log group with a retention', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    const { DestinationArn, Format } = stage.Properties.AccessLogSettings as { DestinationArn: { 'Fn::GetAtt': [string, string] }; Format: string };
    const line = JSON.parse(Format) as Record<string, string>;
    expect(line).toEqual(UPLOADS_API_ACCESS_LOG);
    expect(line).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
    });
    const logGroup = template.findResources('AWS::Logs::LogGroup')[DestinationArn['Fn::GetAtt'][0]]!;
    expect(logGroup.Properties).toEqual({ RetentionInDays: 90 });
  });

  it('exposes the metrics the alarms need: 5xx and latency of the API, errors of the function', () => {
    const stackOf = (value: unknown) => Stack.of(stack).resolve(value) as unknown;
    const serverErrors = stack.uploadsApi.metricServerError();
    expect([serverErrors.namespace, serverErrors.metricName]).toEqual(['AWS/ApiGateway', '5xx']);
    expect(stackOf(serverErrors.dimensions)).toEqual({ ApiId: { Ref: apiId() } });
    expect(stack.uploadsApi.metricLatency().metricName).toBe('Latency');
    const errors = stack.uploadsApiFunction.metricErrors();
    expect([errors.namespace, errors.metricName]).toEqual(['AWS/Lambda', 'Errors']);
    expect(stackOf(errors.dimensions)).toEqual({ FunctionName: { Ref: functionId() } });
  });
});

describe('the function', () => {
  it('runs the bundled uploads-api/lambda.ts on Node 24 (arm64) with the ledger and the ranch table named', () => {
    const fn = template.findResources('AWS::Lambda::Function')[functionId()]!;
    expect(fn.Properties).toMatchObject({
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: { LEDGER_TABLE_NAME: { Ref: ledgerId() }, RANCHES_TABLE_NAME: settings.ranchesTableName, NODE_OPTIONS: '--enable-source-maps' },
      },
      LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/^UploadsApiFunctionLogs/) as unknown } },
    });
    // Below the HTTP API's 30 s integration timeout.
    expect(fn.Properties.Timeout).toBeLessThan(30);
  });

  it("was bundled locally by the repository's esbuild into one file exporting handler", () => {
    const code = template.findResources('AWS::Lambda::Function')[functionId()]!.Properties.Code as { S3Key: string };
    const bundle = path.join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`, 'index.js');
    expect(fs.existsSync(bundle)).toBe(true);
    const source = fs.readFileSync(bundle, 'utf8');
    expect(source).toContain('LEDGER_TABLE_NAME');
    expect(source).toContain('custom:ranchid');
    expect(source).toMatch(/handler/);
    // The runtime's SDK stays outside the bundle; the shared package (the quota) is inside it.
    expect(source).toMatch(/require\("@aws-sdk\/client-dynamodb"\)/);
    expect(source).not.toContain('@trailsense/shared');
  });

  it('may only GetItem, PutItem, BatchGetItem and BatchWriteItem on the ledger table and GetItem on the ranch table', () => {
    const fn = template.findResources('AWS::Lambda::Function')[functionId()]!;
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    expect(UPLOADS_API_LEDGER_ACTIONS).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem']);
    expect(UPLOADS_API_RANCH_ACTIONS).toEqual(['dynamodb:GetItem']);
    expect(statements).toEqual([
      {
        Sid: 'ReadAndWriteLedgerItems',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'],
        Resource: { 'Fn::GetAtt': [ledgerId(), 'Arn'] },
      },
      { Sid: 'ReadRanchCeilings', Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: ranchesArn },
    ]);
    // Its role has no inline policies, and only the basic execution role's logging as a managed one.
    const role = template.findResources('AWS::IAM::Role')[roleId]!;
    expect(role.Properties.Policies).toBeUndefined();
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(
      /^\[\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole"\]\]\}\]$/,
    );
    expect(statements.flatMap(actionsOf).filter((a) => a.includes('*'))).toEqual([]);
  });

  it('may be invoked by API Gateway for this API only', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (p) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId(), 'Arn'] }),
    );
    expect(permissions).toHaveLength(UPLOADS_API_ROUTES.length);
    for (const permission of permissions) {
      expect(permission.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(`":execute-api:us-east-2:123456789012:",{"Ref":"${apiId()}"},"/*/*/ranches/`);
    }
  });

  it('grants nothing to a wildcard principal', () => {
    expect(allStatements(template).filter((s) => s.Effect === 'Allow' && isWildcardPrincipal(s.Principal))).toEqual([]);
  });
});

describe('the custom domain', () => {
  it("with settings uploadsApi: a regional domain (TLS 1.2) with the region's certificate, $default mapped at its root", () => {
    expect(settings.uploadsApi).toEqual({
      domainName: 'uploads-api.trailsense.example',
      certificateArn: expect.stringMatching(/^arn:aws:acm:us-east-2:123456789012:certificate\//) as unknown,
    });
    const domains = template.findResources('AWS::ApiGatewayV2::DomainName');
    expect(Object.values(domains).map((d) => d.Properties)).toEqual([
      {
        DomainName: 'uploads-api.trailsense.example',
        DomainNameConfigurations: [{ CertificateArn: settings.uploadsApi!.certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
      },
    ]);
    const [domainId] = Object.keys(domains);
    const stageId = Object.keys(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    const mappings = Object.values(template.findResources('AWS::ApiGatewayV2::ApiMapping'));
    expect(mappings).toEqual([
      expect.objectContaining({ Properties: { ApiId: { Ref: apiId() }, DomainName: { Ref: domainId }, Stage: '$default' }, DependsOn: [stageId] }),
    ]);
  });

  it('disables the execute-api endpoint: the way in is the custom domain, behind the edge', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    expect(Object.keys(template.findOutputs('*'))).not.toContain(UPLOADS_API_OUTPUTS.endpoint);
    expect(stack.uploadsApiParts.domainName).toBeDefined();
  });

  it("outputs the domain's target, the edge distribution's origin (not where DNS points)", () => {
    const [domainId] = Object.keys(template.findResources('AWS::ApiGatewayV2::DomainName'));
    template.hasOutput(UPLOADS_API_OUTPUTS.domainTarget, {
      Value: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
      Description: Match.stringLikeRegexp('^The UploadsEdge distribution.s origin; DNS points uploads-api\\.trailsense\\.example at that distribution'),
    });
  });

  it('without settings uploadsApi: no domain, no mapping, no domain outputs; the endpoint is api.uploadsBaseUrl', () => {
    withoutDomain.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    withoutDomain.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    withoutDomain.resourceCountIs('AWS::ApiGatewayV2::Route', UPLOADS_API_ROUTES.length + 1);
    expect(tokenRoutes(withoutDomain).every((r) => r.AuthorizationType === 'JWT')).toBe(true);
    const outputs = withoutDomain.findOutputs('*');
    expect(Object.keys(outputs)).not.toContain(UPLOADS_API_OUTPUTS.domainTarget);
    expect(outputs[UPLOADS_API_OUTPUTS.endpoint]).toMatchObject({ Description: 'api.uploadsBaseUrl' });
    // No edge in front: the execute-api endpoint is the API's URL and stays on.
    expect(Object.values(withoutDomain.findResources('AWS::ApiGatewayV2::Api'))[0]!.Properties.DisableExecuteApiEndpoint).toBe(false);
  });
});

describe('the collection route of monitoring events', () => {
  const eventsRoute = () =>
    Object.entries(template.findResources('AWS::ApiGatewayV2::Route')).find(([, r]) => (r.Properties as { RouteKey: string }).RouteKey === EVENTS_ROUTE_KEY)!;

  it('is POST /events without the authorizer, to a function of its own', () => {
    expect(`${EVENTS_ROUTE.method} ${EVENTS_ROUTE.path}`).toBe(EVENTS_ROUTE_KEY);
    const [, route] = eventsRoute();
    expect(route.Properties).toMatchObject({ ApiId: { Ref: apiId() }, AuthorizationType: 'NONE' });
    expect(route.Properties.AuthorizerId).toBeUndefined();
    const integrationId = (route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] })['Fn::Join'][1][1].Ref;
    expect(template.findResources('AWS::ApiGatewayV2::Integration')[integrationId]!.Properties).toEqual({
      ApiId: { Ref: apiId() },
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: { 'Fn::GetAtt': [eventsFunctionId(), 'Arn'] },
      PayloadFormatVersion: '2.0',
    });
  });

  it('is throttled lower than the stage, after the route exists', () => {
    expect(EVENTS_ROUTE_THROTTLE).toEqual({ rateLimit: 25, burstLimit: 50 });
    expect(EVENTS_ROUTE_THROTTLE.rateLimit).toBeLessThan(UPLOADS_API_THROTTLE.rateLimit);
    const [stageId, stage] = Object.entries(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(stage.DependsOn).toContain(eventsRoute()[0]);
    expect(stageId).toBeTruthy();
  });

  it('runs the bundled uploads-api/events-lambda.ts with the stream and the site origins named', () => {
    const fn = template.findResources('AWS::Lambda::Function')[eventsFunctionId()]!;
    expect(fn.Properties).toMatchObject({
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: {
          ANALYTICS_STREAM_NAME: settings.analyticsStreamName,
          SITE_ORIGINS: JSON.stringify(settings.siteOrigins),
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
    const code = fn.Properties.Code as { S3Key: string };
    const source = fs.readFileSync(path.join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`, 'index.js'), 'utf8');
    expect(source).toMatch(/require\("@aws-sdk\/client-firehose"\)/);
    expect(source).not.toContain('@aws-sdk/client-dynamodb');
    expect(source).toContain('events[');
  });

  it('may only firehose:PutRecordBatch on the analytics stream: nothing else, no ledger', () => {
    const fn = template.findResources('AWS::Lambda::Function')[eventsFunctionId()]!;
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    expect(EVENTS_FUNCTION_ACTIONS).toEqual(['firehose:PutRecordBatch']);
    expect(statements).toEqual([
      {
        Sid: 'PutMonitoringEvents',
        Effect: 'Allow',
        Action: 'firehose:PutRecordBatch',
        Resource: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:firehose:us-east-2:123456789012:deliverystream/${settings.analyticsStreamName}`]],
        },
      },
    ]);
    const role = template.findResources('AWS::IAM::Role')[roleId]!;
    expect(role.Properties.Policies).toBeUndefined();
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(/AWSLambdaBasicExecutionRole"\]\]\}\]$/);
    // And the uploads API's own function has no Firehose grant.
    const uploadsRole = (template.findResources('AWS::Lambda::Function')[functionId()]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const uploadsActions = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === uploadsRole))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .flatMap(actionsOf);
    expect(uploadsActions.filter((a) => a.startsWith('firehose:'))).toEqual([]);
  });

  it('may be invoked by API Gateway for POST /events only', () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (p) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [eventsFunctionId(), 'Arn'] }),
    );
    expect(permissions).toHaveLength(1);
    expect(permissions[0]!.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
    expect(JSON.stringify(permissions[0]!.Properties.SourceArn)).toContain(`{"Ref":"${apiId()}"},"/*/*/events"`);
  });
});

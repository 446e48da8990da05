/**
 * The uploads API of the Uploads stack (src/stacks/uploads-api.ts): a regional REST API whose five
 * token routes need an id token of the user pool (a Cognito user pool authorizer), CORS for the
 * site's origins, one stage throttled per stage and per method and access-logged, API Gateway's
 * own errors answered with the firewall's headers, one function (bundled for real here) that may
 * touch only the ledger's and the ranch table's items it needs, and the custom domain when the
 * settings name one; and the monitoring events' collection route, without the authorizer,
 * throttled lower, with a function of its own that may only put records into the analytics
 * stream. The firewall on the stage: uploads-firewall.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { UPLOADS_EDGE_ANSWER_HEADERS } from '@trailsense/shared/uploads-wire';
import {
  EVENTS_FUNCTION_ACTIONS,
  EVENTS_ROUTE,
  EVENTS_RESERVED_CONCURRENCY,
  EVENTS_ROUTE_THROTTLE,
  THROTTLED_RETRY_AFTER_SECONDS,
  UPLOADS_API_ACCESS_LOG,
  UPLOADS_API_LEDGER_ACTIONS,
  UPLOADS_API_OUTPUTS,
  UPLOADS_API_RANCH_ACTIONS,
  UPLOADS_API_RESERVED_CONCURRENCY,
  UPLOADS_API_ROUTE_THROTTLE,
  UPLOADS_API_ROUTES,
  UPLOADS_API_STAGE,
  UPLOADS_API_THROTTLE,
  userPoolIssuer,
} from '../src/stacks/uploads-api';
import { UploadsStack, uploadsStackProps } from '../src/stacks/uploads-stack';
import type { UploadsStackProps } from '../src/stacks/uploads-stack';
import { actionsOf, allStatements, exampleEnv, exampleEnvironment, isWildcardPrincipal, testApp } from './support/example';
import type { Statement } from './support/example';
import { nagFindings } from './support/nag';
import { methodsOf, restApiPaths } from './support/rest-api';

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
const apiId = () => idOf(stack.uploadsApiParts.restApi);
const stageId = () => idOf(stack.uploadsApi);
const functionId = () => idOf(stack.uploadsApiFunction);
const eventsFunctionId = () => idOf(stack.uploadsApiParts.eventsFunction);
const EVENTS_ROUTE_KEY = 'POST /events';
const ledgerId = () => idOf(stack.ledger);
const authorizerId = () => Object.keys(template.findResources('AWS::ApiGateway::Authorizer'))[0]!;
const ranchesArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:us-east-2:123456789012:table/${settings.ranchesTableName}`]] };
const invokes = (fnId: string) => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':apigateway:us-east-2:lambda:path/2015-03-31/functions/', { 'Fn::GetAtt': [fnId, 'Arn'] }, '/invocations'],
  ],
});
/** The stage (one). */
const stageOf = (t: Template) => {
  const stages = Object.values(t.findResources('AWS::ApiGateway::Stage'));
  expect(stages).toHaveLength(1);
  return stages[0]!.Properties as Record<string, unknown>;
};

describe('the REST API', () => {
  it('is a regional REST API named after the stack', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'Uploads-uploads-api', EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it('serves exactly the five token routes, each behind the Cognito authorizer, to the function by proxy', () => {
    const methods = methodsOf(template).filter((m) => m.key !== EVENTS_ROUTE_KEY && m.method !== 'OPTIONS');
    expect(methods.map((m) => m.key).sort()).toEqual(
      [
        'GET /ranches/{ranchid}/upload-metrics',
        'POST /ranches/{ranchid}/photo-lookups',
        'POST /ranches/{ranchid}/reservations',
        'POST /ranches/{ranchid}/reservations/{id}/renew',
        'DELETE /ranches/{ranchid}/reservations/{id}',
      ].sort(),
    );
    expect(UPLOADS_API_ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(methods.map((m) => m.key).sort());
    for (const { properties } of methods) {
      expect(properties).toMatchObject({
        RestApiId: { Ref: apiId() },
        AuthorizationType: 'COGNITO_USER_POOLS',
        AuthorizerId: { Ref: authorizerId() },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST', Uri: invokes(functionId()) },
      });
      expect(properties.AuthorizationScopes).toBeUndefined();
    }
  });

  it('takes id tokens of the runtime config’s user pool from the Authorization header, checking each (no cache)', () => {
    expect(userPoolIssuer('us-east-2_ExampleP00l')).toBe('https://cognito-idp.us-east-2.amazonaws.com/us-east-2_ExampleP00l');
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      RestApiId: { Ref: apiId() },
      Type: 'COGNITO_USER_POOLS',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 0,
      ProviderARNs: [
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:cognito-idp:us-east-2:123456789012:userpool/${runtimeConfig.auth.userPoolId}`]] },
      ],
    });
  });

  it("answers CORS preflights itself, for the site's origins only: GET, POST, DELETE; Authorization and Content-Type", () => {
    expect(settings.siteOrigins).toEqual(['https://trailsense.example', 'https://uploader.trailsense.example']);
    const preflights = methodsOf(template).filter((m) => m.method === 'OPTIONS');
    // One per resource: every route's path, and the resources above them.
    expect(preflights.map((m) => m.path)).toEqual(expect.arrayContaining([...UPLOADS_API_ROUTES.map((r) => r.path), EVENTS_ROUTE.path]));
    for (const { properties } of preflights) {
      expect(properties).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
      const [response] = (
        properties.Integration as { IntegrationResponses: { ResponseParameters: Record<string, string>; ResponseTemplates: Record<string, string> }[] }
      ).IntegrationResponses;
      expect(response!.ResponseParameters).toEqual({
        'method.response.header.Access-Control-Allow-Headers': "'Authorization,Content-Type'",
        'method.response.header.Access-Control-Allow-Origin': "'https://trailsense.example'",
        'method.response.header.Vary': "'Origin'",
        'method.response.header.Access-Control-Allow-Methods': "'GET,POST,DELETE,OPTIONS'",
        'method.response.header.Access-Control-Max-Age': "'3600'",
      });
      // The second origin is echoed when it is the request's; no other.
      expect(response!.ResponseTemplates['application/json']).toContain('#if($origin == "https://uploader.trailsense.example")');
    }
  });

  it('has one stage, throttled as a whole and per method: each token route its own budget, the collection route lower', () => {
    expect(UPLOADS_API_THROTTLE).toEqual({ rateLimit: 100, burstLimit: 200 });
    expect(UPLOADS_API_ROUTE_THROTTLE).toEqual({ rateLimit: 20, burstLimit: 40 });
    const stage = stageOf(template);
    expect(stage).toMatchObject({ RestApiId: { Ref: apiId() }, StageName: UPLOADS_API_STAGE });
    const settingsOf = (stage.MethodSettings as { HttpMethod: string; ResourcePath: string; ThrottlingRateLimit: number; ThrottlingBurstLimit: number }[]).map(
      (s) => [`${s.HttpMethod} ${s.ResourcePath.replace(/~1/g, '/').replace(/^\/\//, '/')}`, [s.ThrottlingRateLimit, s.ThrottlingBurstLimit]],
    );
    expect(Object.fromEntries(settingsOf)).toEqual({
      '* /*': [100, 200],
      'GET /ranches/{ranchid}/upload-metrics': [20, 40],
      'POST /ranches/{ranchid}/photo-lookups': [20, 40],
      'POST /ranches/{ranchid}/reservations': [20, 40],
      'POST /ranches/{ranchid}/reservations/{id}/renew': [20, 40],
      'DELETE /ranches/{ranchid}/reservations/{id}': [20, 40],
      [EVENTS_ROUTE_KEY]: [25, 50],
    });
    // Together no more than the stage's.
    expect(UPLOADS_API_ROUTE_THROTTLE.rateLimit * UPLOADS_API_ROUTES.length).toBeLessThanOrEqual(UPLOADS_API_THROTTLE.rateLimit);
  });

  it("answers API Gateway's own 4xx and 5xx with the firewall's headers, so the browser can read them; a throttle's with Retry-After", () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((r) => r.Properties as Record<string, unknown>);
    const quoted = (headers: Record<string, string>) =>
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`]));
    const byType: Record<string, Record<string, unknown>> = Object.fromEntries(responses.map((r) => [r.ResponseType as string, r]));
    expect(Object.keys(byType).sort()).toEqual(['DEFAULT_4XX', 'DEFAULT_5XX', 'THROTTLED']);
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      expect(byType[type]).toEqual({ RestApiId: { Ref: apiId() }, ResponseType: type, ResponseParameters: quoted(UPLOADS_EDGE_ANSWER_HEADERS) });
    }
    expect(THROTTLED_RETRY_AFTER_SECONDS).toBe(5);
    expect(byType['THROTTLED']!.ResponseParameters).toEqual(quoted({ ...UPLOADS_EDGE_ANSWER_HEADERS, 'Retry-After': '5' }));
    // Bodies and status codes stay API Gateway's ({ "message": … }, 401, 403, 429, …).
    for (const response of responses) expect([response.StatusCode, response.ResponseTemplates]).toEqual([undefined, undefined]);
  });

  it("bounds each function's concurrency, and so its cost, by a reservation", () => {
    expect([UPLOADS_API_RESERVED_CONCURRENCY, EVENTS_RESERVED_CONCURRENCY]).toEqual([20, 5]);
    const functions = template.findResources('AWS::Lambda::Function');
    expect(functions[functionId()]!.Properties.ReservedConcurrentExecutions).toBe(20);
    expect(functions[eventsFunctionId()]!.Properties.ReservedConcurrentExecutions).toBe(5);
  });

  it('has no cdk-nag AwsSolutions finding left unacknowledged, without the custom domain too', () => {
    expect(nagFindings(stack)).toEqual([]);
    expect(nagFindings(withoutDomainStack)).toEqual([]);
  });

  it('writes a JSON access log line per request, with the HTTP API’s field names, to a log group with a retention', () => {
    const { DestinationArn, Format } = stageOf(template).AccessLogSetting as { DestinationArn: { 'Fn::GetAtt': [string, string] }; Format: string };
    const line = JSON.parse(Format) as Record<string, string>;
    expect(line).toEqual(UPLOADS_API_ACCESS_LOG);
    expect(line).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.httpMethod $context.resourcePath',
      status: '$context.status',
      latency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationError: '$context.integrationErrorMessage',
      authorizerError: '$context.authorizer.error',
      waf: '$context.wafResponseCode',
    });
    const logGroup = template.findResources('AWS::Logs::LogGroup')[DestinationArn['Fn::GetAtt'][0]]!;
    expect(logGroup.Properties).toEqual({ RetentionInDays: 90 });
    // A REST API's access logs need the account's API Gateway CloudWatch role.
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
  });

  it("exposes the stage's metrics for the alarms (ApiName and Stage), and the function's errors", () => {
    const resolve = (value: unknown) => Stack.of(stack).resolve(value) as unknown;
    const serverErrors = stack.uploadsApi.metricServerError();
    expect([serverErrors.namespace, serverErrors.metricName]).toEqual(['AWS/ApiGateway', '5XXError']);
    expect(resolve(serverErrors.dimensions)).toEqual({ ApiName: 'Uploads-uploads-api', Stage: { Ref: stageId() } });
    expect(stack.uploadsApi.metricLatency().metricName).toBe('Latency');
    const errors = stack.uploadsApiFunction.metricErrors();
    expect([errors.namespace, errors.metricName]).toEqual(['AWS/Lambda', 'Errors']);
    expect(resolve(errors.dimensions)).toEqual({ FunctionName: { Ref: functionId() } });
  });
});

describe('the function', () => {
  it('runs the bundled uploads-api/lambda.ts on Node 24 (arm64) with the tables, the web client and the site origins named', () => {
    const fn = template.findResources('AWS::Lambda::Function')[functionId()]!;
    expect(fn.Properties).toMatchObject({
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: {
          LEDGER_TABLE_NAME: { Ref: ledgerId() },
          RANCHES_TABLE_NAME: settings.ranchesTableName,
          WEB_CLIENT_ID: runtimeConfig.auth.userPoolClientId,
          SITE_ORIGINS: JSON.stringify(settings.siteOrigins),
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
      LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/^UploadsApiFunctionLogs/) as unknown } },
    });
    // Below API Gateway's 29 s integration timeout.
    expect(fn.Properties.Timeout).toBeLessThan(29);
  });

  it("was bundled locally by the repository's esbuild into one file exporting handler", () => {
    const code = template.findResources('AWS::Lambda::Function')[functionId()]!.Properties.Code as { S3Key: string };
    const bundle = path.join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`, 'index.js');
    expect(fs.existsSync(bundle)).toBe(true);
    const source = fs.readFileSync(bundle, 'utf8');
    expect(source).toContain('LEDGER_TABLE_NAME');
    expect(source).toContain('custom:ranchid');
    expect(source).toContain('WEB_CLIENT_ID');
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

  it("may be invoked by API Gateway for this API's stage and each route's method only (no test invocation)", () => {
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter(
      (p) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId(), 'Arn'] }),
    );
    expect(permissions).toHaveLength(UPLOADS_API_ROUTES.length);
    const arns = permissions.map((permission) => {
      expect(permission.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      const [, parts] = (permission.Properties.SourceArn as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      expect(parts.slice(2, 6)).toEqual([':execute-api:us-east-2:123456789012:', { Ref: apiId() }, '/', { Ref: stageId() }]);
      return parts[6];
    });
    expect(arns.sort()).toEqual(
      [
        '/GET/ranches/*/upload-metrics',
        '/POST/ranches/*/photo-lookups',
        '/POST/ranches/*/reservations',
        '/POST/ranches/*/reservations/*/renew',
        '/DELETE/ranches/*/reservations/*',
      ].sort(),
    );
  });

  it('grants nothing to a wildcard principal', () => {
    expect(allStatements(template).filter((s) => s.Effect === 'Allow' && isWildcardPrincipal(s.Principal))).toEqual([]);
  });
});

describe('the custom domain', () => {
  it("with settings uploadsApi: a regional domain (TLS 1.2) with the region's certificate, the stage mapped at its root", () => {
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
    const mappings = Object.values(template.findResources('AWS::ApiGatewayV2::ApiMapping'));
    expect(mappings).toEqual([
      expect.objectContaining({ Properties: { ApiId: { Ref: apiId() }, DomainName: { Ref: domainId }, Stage: { Ref: stageId() } }, DependsOn: [domainId] }),
    ]);
  });

  it("keeps the domain's and the mapping's logical ids, so a deploy from the HTTP API updates them in place (the domain's target stays)", () => {
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::DomainName'))).toEqual(['UploadsApiDomainNameB6276FC8']);
    expect(Object.keys(template.findResources('AWS::ApiGatewayV2::ApiMapping'))).toEqual(['UploadsApiApiMapping0961D124']);
  });

  it('disables the execute-api endpoint: the way in is the custom domain (the firewall is on the stage either way)', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true });
    expect(Object.keys(template.findOutputs('*'))).not.toContain(UPLOADS_API_OUTPUTS.endpoint);
    expect(stack.uploadsApiParts.domainName).toBeDefined();
  });

  it("outputs the domain's target, where DNS points the name", () => {
    const [domainId] = Object.keys(template.findResources('AWS::ApiGatewayV2::DomainName'));
    template.hasOutput(UPLOADS_API_OUTPUTS.domainTarget, {
      Value: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
      Description: 'Point uploads-api.trailsense.example here (CNAME, or an alias record)',
    });
  });

  it('without settings uploadsApi: no domain, no mapping, no domain outputs; the endpoint with the stage is api.uploadsBaseUrl', () => {
    withoutDomain.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    withoutDomain.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    expect(methodsOf(withoutDomain).filter((m) => m.method !== 'OPTIONS')).toHaveLength(UPLOADS_API_ROUTES.length + 1);
    const outputs = withoutDomain.findOutputs('*');
    expect(Object.keys(outputs)).not.toContain(UPLOADS_API_OUTPUTS.domainTarget);
    const api = Object.keys(withoutDomain.findResources('AWS::ApiGateway::RestApi'))[0]!;
    expect(outputs[UPLOADS_API_OUTPUTS.endpoint]).toEqual({
      Description: 'api.uploadsBaseUrl',
      Value: { 'Fn::Join': ['', ['https://', { Ref: api }, '.execute-api.us-east-2.', { Ref: 'AWS::URLSuffix' }, '/api']] },
    });
    // No CDK output of its own besides (the stage URL, with a trailing slash).
    expect(Object.keys(outputs).filter((name) => name.includes('RestApi'))).toEqual([]);
    // The execute-api endpoint is the API's URL and stays on.
    expect(Object.values(withoutDomain.findResources('AWS::ApiGateway::RestApi'))[0]!.Properties.DisableExecuteApiEndpoint).toBe(false);
  });
});

describe('the collection route of monitoring events', () => {
  const eventsMethod = () => methodsOf(template).find((m) => m.key === EVENTS_ROUTE_KEY)!;

  it('is POST /events without the authorizer, to a function of its own', () => {
    expect(`${EVENTS_ROUTE.method} ${EVENTS_ROUTE.path}`).toBe(EVENTS_ROUTE_KEY);
    expect(restApiPaths(template)).toContain('/events');
    expect(eventsMethod().properties).toMatchObject({
      RestApiId: { Ref: apiId() },
      AuthorizationType: 'NONE',
      Integration: { Type: 'AWS_PROXY', Uri: invokes(eventsFunctionId()) },
    });
    expect(eventsMethod().properties.AuthorizerId).toBeUndefined();
  });

  it('is throttled lower than the stage', () => {
    expect(EVENTS_ROUTE_THROTTLE).toEqual({ rateLimit: 25, burstLimit: 50 });
    expect(EVENTS_ROUTE_THROTTLE.rateLimit).toBeLessThan(UPLOADS_API_THROTTLE.rateLimit);
    expect(stageOf(template).MethodSettings).toContainEqual(
      expect.objectContaining({ HttpMethod: 'POST', ResourcePath: '/~1events', ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 }),
    );
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
    expect(JSON.stringify(permissions[0]!.Properties.SourceArn)).toContain(`{"Ref":"${apiId()}"},"/",{"Ref":"${stageId()}"},"/POST/events"`);
  });
});

/**
 * The hosting stacks (src/stacks/hosting-stack.ts): a private bucket read by CloudFront through
 * origin access control, HTTPS only at the app's domain, the objects' own Cache-Control honoured;
 * the shell with the security headers of shared/src/security/headers.ts and its routing function;
 * the remotes with CORS for the shell's origin alone.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { baseSecurityHeaders, CLOUDFRONT_CSP_MAX_LENGTH, contentSecurityPolicy, securityHeaders } from '@trailsense/shared/security-headers';
import { responseHeaderBehaviors } from '../src/hosting/response-headers';
import { routingFunctionCode } from '../src/hosting/routing-function';
import { httpsOrigin } from '../src/settings';
import { HOSTING_OUTPUTS, RemoteHostingStack, ShellHostingStack } from '../src/stacks/hosting-stack';
import { allStatements, exampleEnv, exampleEnvironment, fixtureRoutes, isWildcardPrincipal, testApp } from './support/example';

const environment = exampleEnvironment();
const { settings, runtimeConfig } = environment;
const routes = fixtureRoutes();
const shellOrigin = httpsOrigin(settings.domains.shell);

/** A CloudFormation string (Fn::Join of strings and Refs) as text, each Ref as `${LogicalId}`. */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(joined).join(join[0]);
  const ref = (value as { Ref?: string }).Ref;
  if (ref) return `\${${ref}}`;
  throw new Error(`not a string: ${JSON.stringify(value)}`);
}

let shell: Template;
let remote: Template;

beforeAll(() => {
  const app = testApp();
  const env = exampleEnv(environment);
  const shellStack = new ShellHostingStack(app, 'Shell', {
    env,
    environmentName: settings.name,
    domainName: settings.domains.shell,
    certificateArn: settings.certificateArn,
    runtimeConfig,
    routes,
  });
  const remoteStack = new RemoteHostingStack(app, 'UploaderRemote', {
    env,
    environmentName: settings.name,
    app: 'uploader-remote',
    domainName: settings.domains.uploaderRemote,
    certificateArn: settings.certificateArn,
    shellOrigin,
  });
  shell = Template.fromStack(shellStack);
  remote = Template.fromStack(remoteStack);
});

describe.each(['shell', 'remote'] as const)('every hosting stack (%s)', (which) => {
  const template = () => (which === 'shell' ? shell : remote);
  const domain = () => (which === 'shell' ? settings.domains.shell : settings.domains.uploaderRemote);
  const part = () => (which === 'shell' ? 'Shell' : 'UploaderRemote');

  it('keeps its files in a private, encrypted, TLS-only bucket', () => {
    template().hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    template().hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('lets only its own distribution read the bucket, through origin access control', () => {
    template().hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
    });
    template().hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: {
        Origins: [Match.objectLike({ OriginAccessControlId: Match.anyValue(), S3OriginConfig: { OriginAccessIdentity: '' } })],
      },
    });
    const allows = allStatements(template()).filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
      }),
      // The distribution alarm's custom resource (below): this one alarm in us-east-1, nothing else.
      expect.objectContaining({
        Action: ['cloudwatch:PutMetricAlarm', 'cloudwatch:DeleteAlarms'],
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:cloudwatch:us-east-1:123456789012:alarm:TrailSense-example-${part()}5xxRate`]] },
      }),
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
    ]);
    expect(allStatements(template()).filter((s) => s.Effect === 'Allow' && isWildcardPrincipal(s.Principal))).toEqual([]);
  });

  it("never serves the deploy command's release records, entry-file copies or lock (_releases/)", () => {
    const denied = allStatements(template()).filter((s) => s.Effect === 'Deny' && (s.Principal as { Service?: string }).Service === 'cloudfront.amazonaws.com');
    expect(denied).toEqual([
      {
        Sid: 'DeployRecordsNotServed',
        Effect: 'Deny',
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^SiteBucket/), 'Arn'] }, '/_releases/*']] },
      },
    ]);
    // The bucket the distribution reads is that bucket.
    const [bucketId] = Object.keys(template().findResources('AWS::S3::Bucket'));
    expect((denied[0]!.Resource as { 'Fn::Join': [string, [{ 'Fn::GetAtt': string[] }]] })['Fn::Join'][1][0]['Fn::GetAtt'][0]).toBe(bucketId);
  });

  it('has the 5xx-rate alarm of its distribution in us-east-1, notifying the us-east-1 alarm topic', () => {
    const alarms = Object.values(template().findResources('Custom::CloudFrontAlarm'));
    expect(alarms).toHaveLength(1);
    const call = (which: 'Create' | 'Update' | 'Delete') => JSON.parse(joined(alarms[0]!.Properties[which])) as Record<string, unknown>;
    const [distributionId] = Object.keys(template().findResources('AWS::CloudFront::Distribution'));
    const topic = 'arn:${AWS::Partition}:sns:us-east-1:123456789012:trailsense-example-alarms';
    const name = `TrailSense-example-${part()}5xxRate`;
    expect(call('Create')).toEqual({
      service: 'CloudWatch',
      action: 'PutMetricAlarm',
      region: 'us-east-1',
      parameters: {
        AlarmName: name,
        AlarmDescription: expect.stringContaining('docs/operations.md#alarms'),
        ActionsEnabled: true,
        AlarmActions: [topic],
        OKActions: [topic],
        Namespace: 'AWS/CloudFront',
        MetricName: '5xxErrorRate',
        Dimensions: [
          { Name: 'DistributionId', Value: `\${${distributionId}}` },
          { Name: 'Region', Value: 'Global' },
        ],
        Statistic: 'Average',
        Period: 300,
        Threshold: 5,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        TreatMissingData: 'notBreaching',
      },
      physicalResourceId: { id: name },
    });
    // A replaced distribution's new id reaches the alarm; a deleted stack takes its alarm along.
    expect(call('Update')).toEqual(call('Create'));
    expect(call('Delete')).toMatchObject({ action: 'DeleteAlarms', region: 'us-east-1', parameters: { AlarmNames: [name] } });
  });

  it('serves HTTPS only, at its domain, with the certificate from us-east-1', () => {
    template().hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: [domain()],
        ViewerCertificate: { AcmCertificateArn: settings.certificateArn, SslSupportMethod: 'sni-only', MinimumProtocolVersion: 'TLSv1.2_2021' },
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'], Compress: true }),
      }),
    });
  });

  it("honours the objects' own Cache-Control: no minimum or default TTL, a year at most, nothing else in the key", () => {
    template().hasResourceProperties('AWS::CloudFront::CachePolicy', {
      CachePolicyConfig: {
        MinTTL: 0,
        DefaultTTL: 0,
        MaxTTL: 31_536_000,
        ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
          EnableAcceptEncodingBrotli: true,
          EnableAcceptEncodingGzip: true,
          QueryStringsConfig: { QueryStringBehavior: 'none' },
          HeadersConfig: { HeaderBehavior: 'none' },
          CookiesConfig: { CookieBehavior: 'none' },
        }),
      },
    });
  });

  it('tells the deploy command where to upload and what to invalidate', () => {
    for (const output of Object.values(HOSTING_OUTPUTS)) expect(Object.keys(template().findOutputs(output))).toEqual([output]);
    expect(template().findOutputs(HOSTING_OUTPUTS.siteUrl)[HOSTING_OUTPUTS.siteUrl]?.Value).toBe(httpsOrigin(domain()));
  });
});

describe('the shell', () => {
  const policy = () => {
    const policies = shell.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    expect(Object.keys(policies)).toHaveLength(1);
    return Object.values(policies)[0]!.Properties.ResponseHeadersPolicyConfig as {
      SecurityHeadersConfig: Record<string, Record<string, unknown>>;
      CustomHeadersConfig: { Items: { Header: string; Value: string; Override: boolean }[] };
      CorsConfig?: unknown;
    };
  };

  it("sends the Content-Security-Policy generated from the runtime config and the build's inline-script hashes", () => {
    const csp = contentSecurityPolicy({ config: runtimeConfig, inlineScriptHashes: routes.inlineScriptHashes });
    expect(policy().SecurityHeadersConfig.ContentSecurityPolicy).toEqual({ ContentSecurityPolicy: csp, Override: true });
    expect(csp).toContain(routes.inlineScriptHashes[0]);
    expect(csp).toContain("script-src 'self' https://auth.trailsense.example https://uploader.trailsense.example 'sha256-");
    expect(csp).toContain(`https://${runtimeConfig.storage.bucket}.s3-accelerate.amazonaws.com`);
    expect(csp).toContain('https://firehose.us-east-2.amazonaws.com');
    expect(csp).not.toMatch(/localhost|http:/);
    expect(csp.length).toBeLessThanOrEqual(CLOUDFRONT_CSP_MAX_LENGTH);
  });

  it('sends HSTS, nosniff, the referrer policy and frame options DENY as CloudFront security headers', () => {
    expect(policy().SecurityHeadersConfig).toMatchObject({
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Preload: false, Override: true },
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
    });
  });

  it('sends Permissions-Policy and Cross-Origin-Opener-Policy as custom headers', () => {
    const headers = securityHeaders({ config: runtimeConfig, inlineScriptHashes: routes.inlineScriptHashes });
    expect(policy().CustomHeadersConfig.Items).toEqual([
      { Header: 'Permissions-Policy', Value: headers['Permissions-Policy'], Override: true },
      { Header: 'Cross-Origin-Opener-Policy', Value: 'same-origin', Override: true },
    ]);
    expect(policy().CorsConfig).toBeUndefined();
  });

  it('routes by the build with one CloudFront Function (runtime 2.0) on viewer request and viewer response', () => {
    shell.hasResourceProperties('AWS::CloudFront::Function', {
      AutoPublish: true,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      FunctionCode: routingFunctionCode(routes),
    });
    const [functionId] = Object.keys(shell.findResources('AWS::CloudFront::Function'));
    shell.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          FunctionAssociations: [
            { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
            { EventType: 'viewer-response', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
          ],
        }),
      }),
    });
  });

  it('answers a file S3 does not have (403 or 404) with the 404 page and status 404', () => {
    shell.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        CustomErrorResponses: [
          { ErrorCode: 403, ResponseCode: 404, ResponsePagePath: '/404.html', ErrorCachingMinTTL: 10 },
          { ErrorCode: 404, ResponseCode: 404, ResponsePagePath: '/404.html', ErrorCachingMinTTL: 10 },
        ],
        DefaultRootObject: 'index.html',
      }),
    });
  });
});

describe('a remote', () => {
  const config = () =>
    Object.values(remote.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0]!.Properties.ResponseHeadersPolicyConfig as {
      CorsConfig: Record<string, unknown>;
      SecurityHeadersConfig: Record<string, unknown>;
      CustomHeadersConfig: { Items: { Header: string; Value: string }[] };
    };

  it("allows CORS for the shell's origin alone, GET and HEAD, overriding the origin", () => {
    expect(config().CorsConfig).toEqual({
      AccessControlAllowOrigins: { Items: [shellOrigin] },
      AccessControlAllowMethods: { Items: ['GET', 'HEAD'] },
      AccessControlAllowHeaders: { Items: ['*'] },
      AccessControlAllowCredentials: false,
      AccessControlMaxAgeSec: 86_400,
      OriginOverride: true,
    });
  });

  it('sends the base security headers and no CSP (its code runs under the shell’s)', () => {
    expect(config().SecurityHeadersConfig.ContentSecurityPolicy).toBeUndefined();
    expect(config().SecurityHeadersConfig).toMatchObject({ FrameOptions: { FrameOption: 'DENY' }, ContentTypeOptions: { Override: true } });
    expect(config().CustomHeadersConfig.Items.map((h) => h.Header)).toEqual(['Permissions-Policy', 'Cross-Origin-Opener-Policy']);
  });

  it('has no routing function and no error pages', () => {
    remote.resourceCountIs('AWS::CloudFront::Function', 0);
    const distribution = Object.values(remote.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig as Record<string, unknown>;
    expect(distribution.CustomErrorResponses).toBeUndefined();
  });
});

describe('the security headers as a response-headers policy', () => {
  it('carries every header the shared module makes, with its value', () => {
    for (const headers of [securityHeaders({ config: runtimeConfig, inlineScriptHashes: routes.inlineScriptHashes }), baseSecurityHeaders()]) {
      const { securityHeadersBehavior: s, customHeaders } = responseHeaderBehaviors(headers);
      const sent: Record<string, string> = Object.fromEntries(customHeaders.map((h) => [h.header, h.value]));
      if (s.contentSecurityPolicy) sent['Content-Security-Policy'] = s.contentSecurityPolicy.contentSecurityPolicy;
      const hsts = s.strictTransportSecurity!;
      sent['Strict-Transport-Security'] =
        `max-age=${hsts.accessControlMaxAge.toSeconds()}${hsts.includeSubdomains ? '; includeSubDomains' : ''}${hsts.preload ? '; preload' : ''}`;
      sent['X-Content-Type-Options'] = 'nosniff';
      sent['Referrer-Policy'] = s.referrerPolicy!.referrerPolicy;
      sent['X-Frame-Options'] = s.frameOptions!.frameOption;
      expect(sent).toEqual(headers);
    }
  });

  it('refuses a value CloudFront cannot send, rather than send another', () => {
    expect(() => responseHeaderBehaviors({ 'X-Frame-Options': 'ALLOW-FROM https://x' })).toThrow(/X-Frame-Options/);
    expect(() => responseHeaderBehaviors({ 'Referrer-Policy': 'no-referrer, origin' })).toThrow(/Referrer-Policy/);
    expect(() => responseHeaderBehaviors({ 'Strict-Transport-Security': 'max-age=10; foo' })).toThrow(/Strict-Transport-Security/);
    expect(() => responseHeaderBehaviors({ 'X-Content-Type-Options': 'sniff' })).toThrow(/nosniff/);
  });

  it('overrides whatever the origin sends, in both kinds of stack', () => {
    for (const template of [shell, remote]) {
      const json = JSON.stringify(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
      expect(json).toContain('"Override":true');
      expect(json).not.toContain('"Override":false');
    }
  });
});

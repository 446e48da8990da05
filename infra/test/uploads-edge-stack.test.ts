/**
 * The uploads API's edge (src/stacks/uploads-edge-stack.ts), in us-east-1: a WAF web ACL of scope
 * CLOUDFRONT with a rate-based rule per client IP (answered 429) after AWS's IP-reputation and
 * known-bad-inputs groups, on a CloudFront distribution at the API's custom domain whose origin
 * is the API's regional domain target, HTTPS only, nothing cached, every viewer header forwarded.
 * The stack is built alone here, its origin a plain name (app.test.ts builds it with the
 * cross-region reference).
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import {
  MANAGED_RULE_GROUPS,
  RATE_LIMIT_PER_IP,
  RATE_LIMITED_STATUS,
  RATE_WINDOW_SECONDS,
  UPLOADS_EDGE_OUTPUTS,
  UploadsEdgeStack,
} from '../src/stacks/uploads-edge-stack';
import { exampleEnvironment } from './support/example';
import { nagFindings } from './support/nag';

const { settings } = exampleEnvironment();
const ORIGIN = 'd-abc123defg.execute-api.us-east-2.amazonaws.com';

let stack: UploadsEdgeStack;
let template: Template;

beforeAll(() => {
  stack = new UploadsEdgeStack(new App({ builtinCloudFormationValidation: false }), 'UploadsEdge', {
    env: { account: settings.account, region: 'us-east-1' },
    environmentName: settings.name,
    domainName: settings.uploadsApi!.domainName,
    certificateArn: settings.certificateArn,
    originDomainName: ORIGIN,
  });
  template = Template.fromStack(stack);
});

const webAcl = () => Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Record<string, unknown>;
const rules = () => webAcl().Rules as { Name: string; Priority: number; Statement: Record<string, unknown>; Action?: unknown; OverrideAction?: unknown }[];
const distribution = () =>
  (Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties as { DistributionConfig: Record<string, unknown> }).DistributionConfig;

describe('the web ACL', () => {
  it('is of scope CLOUDFRONT, in us-east-1, allowing what no rule blocks', () => {
    expect(stack.region).toBe('us-east-1');
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    expect(webAcl()).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} }, Name: 'trailsense-example-uploads-api' });
  });

  it('blocks a client IP past 600 requests in 5 minutes, answering 429', () => {
    expect([RATE_LIMIT_PER_IP, RATE_WINDOW_SECONDS, RATE_LIMITED_STATUS]).toEqual([600, 300, 429]);
    const rate = rules().find((r) => r.Name === 'RatePerClientIp')!;
    expect(rate).toMatchObject({
      Statement: { RateBasedStatement: { Limit: 600, EvaluationWindowSec: 300, AggregateKeyType: 'IP' } },
      Action: { Block: { CustomResponse: { ResponseCode: 429 } } },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true, MetricName: 'trailsense-example-rate-per-ip' },
    });
    // No scope-down: every request counts, preflights and /events included.
    expect(Object.keys((rate.Statement as { RateBasedStatement: object }).RateBasedStatement).sort()).toEqual([
      'AggregateKeyType',
      'EvaluationWindowSec',
      'Limit',
    ]);
  });

  it("runs AWS's IP-reputation and known-bad-inputs groups first (not the core set, whose 8 KB body limit would block photo lookups)", () => {
    expect(MANAGED_RULE_GROUPS).toEqual(['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesKnownBadInputsRuleSet']);
    expect(rules().map((r) => [r.Priority, r.Name])).toEqual([
      [0, 'AWSManagedRulesAmazonIpReputationList'],
      [1, 'AWSManagedRulesKnownBadInputsRuleSet'],
      [2, 'RatePerClientIp'],
    ]);
    for (const rule of rules().slice(0, 2)) {
      expect(rule).toMatchObject({ Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: rule.Name } }, OverrideAction: { None: {} } });
    }
    expect(rules().map((r) => r.Name)).not.toContain('AWSManagedRulesCommonRuleSet');
  });
});

describe('the distribution', () => {
  it("is at the API's custom domain, with the us-east-1 certificate, TLS 1.2, and the web ACL", () => {
    const config = distribution();
    expect(config).toMatchObject({
      Aliases: ['uploads-api.trailsense.example'],
      ViewerCertificate: { AcmCertificateArn: settings.certificateArn, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
      WebACLId: { 'Fn::GetAtt': [stack.getLogicalId(stack.webAcl), 'Arn'] },
      Enabled: true,
    });
  });

  it("sends everything to the API's regional domain target over HTTPS, uncached, with every viewer header (Host, Authorization, Origin)", () => {
    const config = distribution();
    expect(config.Origins).toEqual([
      expect.objectContaining({
        DomainName: ORIGIN,
        CustomOriginConfig: expect.objectContaining({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] }) as unknown,
      }),
    ]);
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // CloudFront's managed policies: CachingDisabled, AllViewer.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: '216adef6-5c7f-47e4-b989-5492eafa07d3',
    });
  });

  it('outputs where DNS points the domain, the distribution and the web ACL', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(Object.values(UPLOADS_EDGE_OUTPUTS).sort());
    expect(template.findOutputs(UPLOADS_EDGE_OUTPUTS.distributionDomainName)[UPLOADS_EDGE_OUTPUTS.distributionDomainName]!.Description).toMatch(
      /^Point uploads-api\.trailsense\.example here/,
    );
  });

  it('has no cdk-nag AwsSolutions finding left unacknowledged', () => {
    expect(nagFindings(stack)).toEqual([]);
  });
});

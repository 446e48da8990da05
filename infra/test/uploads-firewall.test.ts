/**
 * The uploads API's firewall (src/stacks/uploads-firewall.ts): a REGIONAL WAF web ACL in the
 * Uploads stack's region, associated with the REST API's stage (so every request that reaches the
 * stage meets it, whichever way it came), with or without a custom domain: AWS's managed groups
 * counting and labelling, a rule refusing their labels with the shared 403, then the per-IP rate
 * rule answering the shared 429 with Retry-After. The answers are the shared contract
 * (shared/src/uploads/wire.ts), read from it here, never copied.
 */
import { App } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { UPLOADS_EDGE_ANSWER_HEADERS, UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';
import { UPLOADS_API_OUTPUTS } from '../src/stacks/uploads-api';
import {
  FIREWALL_RESPONSE_BODIES,
  MANAGED_RULE_GROUPS,
  MANAGED_RULE_LABEL_NAMESPACES,
  RATE_LIMIT_PER_IP,
  RATE_WINDOW_SECONDS,
} from '../src/stacks/uploads-firewall';
import { UploadsStack, uploadsStackProps } from '../src/stacks/uploads-stack';
import { exampleEnv, exampleEnvironment } from './support/example';

const environment = exampleEnvironment();
const { settings, runtimeConfig } = environment;
const unbundled = () => new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });

let stack: UploadsStack;
let template: Template;
let withoutDomain: Template;

beforeAll(() => {
  const props = { env: exampleEnv(environment), ...uploadsStackProps(settings, runtimeConfig) };
  stack = new UploadsStack(unbundled(), 'Uploads', props);
  template = Template.fromStack(stack);
  withoutDomain = Template.fromStack(new UploadsStack(unbundled(), 'UploadsWithoutDomain', { ...props, uploadsApiDomain: undefined }));
});

type Rule = { Name: string; Priority: number; Statement: Record<string, unknown>; Action?: Record<string, unknown>; OverrideAction?: unknown };
const webAclOf = (t: Template) => Object.values(t.findResources('AWS::WAFv2::WebACL'))[0]!.Properties as Record<string, unknown>;
const rules = () => (webAclOf(template).Rules as Rule[]).slice().sort((a, b) => a.Priority - b.Priority);
const customResponseOf = (rule: Rule) =>
  (rule.Action as { Block: { CustomResponse: { ResponseCode: number; CustomResponseBodyKey: string; ResponseHeaders: { Name: string; Value: string }[] } } })
    .Block.CustomResponse;
/** The shared answer headers as WAF takes them: all but Content-Type (the body's content type). */
const sharedHeadersWithoutContentType = () =>
  Object.entries(UPLOADS_EDGE_ANSWER_HEADERS)
    .filter(([name]) => name !== 'Content-Type')
    .map(([Name, Value]) => ({ Name, Value }));

const PREFLIGHT = {
  ByteMatchStatement: {
    FieldToMatch: { Method: {} },
    PositionalConstraint: 'EXACTLY',
    SearchString: 'OPTIONS',
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
};
const NOT_PREFLIGHT = { NotStatement: { Statement: PREFLIGHT } };

describe('the web ACL', () => {
  it('is of scope REGIONAL, in the Uploads stack’s region, allowing what no rule blocks; with and without a custom domain', () => {
    expect(stack.region).toBe(settings.region);
    for (const t of [template, withoutDomain]) {
      t.resourceCountIs('AWS::WAFv2::WebACL', 1);
      t.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    }
    expect(webAclOf(template)).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} }, Name: 'trailsense-example-uploads-api' });
    expect(webAclOf(withoutDomain)).toMatchObject({ Scope: 'REGIONAL' });
    template.hasOutput(UPLOADS_API_OUTPUTS.webAclArn, { Value: { 'Fn::GetAtt': [Object.keys(template.findResources('AWS::WAFv2::WebACL'))[0], 'Arn'] } });
  });

  it("is associated with the REST API's stage, by the stage's ARN", () => {
    const apiId = stack.getLogicalId(stack.uploadsApiParts.restApi.node.defaultChild as CfnElement);
    const stageId = stack.getLogicalId(stack.uploadsApi.node.defaultChild as CfnElement);
    const [webAclId] = Object.keys(template.findResources('AWS::WAFv2::WebACL'));
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [webAclId, 'Arn'] },
      ResourceArn: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':apigateway:us-east-2::/restapis/', { Ref: apiId }, '/stages/', { Ref: stageId }]] },
    });
  });

  it('runs the managed groups first, counting: they label, they do not block', () => {
    expect(MANAGED_RULE_GROUPS).toEqual(['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesKnownBadInputsRuleSet']);
    expect(rules().map((r) => r.Name)).toEqual([...MANAGED_RULE_GROUPS, 'RefuseManagedMatches', 'RatePerClientIp', 'RatePreflightsPerClientIp']);
    for (const [index, name] of MANAGED_RULE_GROUPS.entries()) {
      expect(rules()[index]).toMatchObject({
        Priority: index,
        Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: name } },
        OverrideAction: { Count: {} },
      });
      expect(rules()[index]!.Action).toBeUndefined();
    }
  });

  it("refuses a request carrying either group's labels with the shared 403, its JSON body and headers", () => {
    expect(MANAGED_RULE_LABEL_NAMESPACES).toEqual({
      AWSManagedRulesAmazonIpReputationList: 'awswaf:managed:aws:amazon-ip-list:',
      AWSManagedRulesKnownBadInputsRuleSet: 'awswaf:managed:aws:known-bad-inputs:',
    });
    const refuse = rules()[2]!;
    expect(refuse.Statement).toEqual({
      AndStatement: {
        Statements: [
          NOT_PREFLIGHT,
          {
            OrStatement: {
              Statements: [
                { LabelMatchStatement: { Scope: 'NAMESPACE', Key: 'awswaf:managed:aws:amazon-ip-list:' } },
                { LabelMatchStatement: { Scope: 'NAMESPACE', Key: 'awswaf:managed:aws:known-bad-inputs:' } },
              ],
            },
          },
        ],
      },
    });
    expect(customResponseOf(refuse)).toEqual({
      ResponseCode: UPLOADS_EDGE_ANSWERS.refused.status,
      CustomResponseBodyKey: 'refused',
      ResponseHeaders: sharedHeadersWithoutContentType(),
    });
  });

  it('blocks a client IP past 600 requests in 5 minutes with the shared 429: JSON body, headers and Retry-After', () => {
    expect([RATE_LIMIT_PER_IP, RATE_WINDOW_SECONDS]).toEqual([600, 300]);
    const rate = rules()[3]!;
    expect(rate).toMatchObject({
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true, MetricName: 'trailsense-example-rate-per-ip' },
    });
    // Every request but a preflight counts, /events included.
    expect(rate.Statement).toEqual({ RateBasedStatement: { Limit: 600, EvaluationWindowSec: 300, AggregateKeyType: 'IP', ScopeDownStatement: NOT_PREFLIGHT } });
    expect(customResponseOf(rate)).toEqual({
      ResponseCode: UPLOADS_EDGE_ANSWERS.rateLimited.status,
      CustomResponseBodyKey: 'rate-limited',
      ResponseHeaders: [...sharedHeadersWithoutContentType(), { Name: 'Retry-After', Value: String(UPLOADS_EDGE_ANSWERS.rateLimited.retryAfterSeconds) }],
    });
  });

  it('leaves CORS preflights to a rate rule of their own, so the page can read the refusal of the request after it', () => {
    // A preflight answered 403 or 429 is a network error to the browser: rules 3 and 4 skip them (above).
    const preflights = rules()[4]!;
    expect(preflights).toMatchObject({
      Name: 'RatePreflightsPerClientIp',
      Statement: {
        RateBasedStatement: { Limit: RATE_LIMIT_PER_IP, EvaluationWindowSec: RATE_WINDOW_SECONDS, AggregateKeyType: 'IP', ScopeDownStatement: PREFLIGHT },
      },
      Action: { Block: {} },
    });
    expect(rules()).toHaveLength(5);
  });

  it("answers with the shared messages as JSON (WAF's content type, since it takes no Content-Type header)", () => {
    expect(UPLOADS_EDGE_ANSWER_HEADERS['Content-Type']).toBe('application/json');
    const bodies = webAclOf(template).CustomResponseBodies as Record<string, { ContentType: string; Content: string }>;
    expect(Object.keys(bodies).sort()).toEqual(Object.keys(FIREWALL_RESPONSE_BODIES).sort());
    expect(bodies['rate-limited']!.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(bodies['rate-limited']!.Content)).toEqual({ message: UPLOADS_EDGE_ANSWERS.rateLimited.message });
    expect(bodies['refused']!.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(bodies['refused']!.Content)).toEqual({ message: UPLOADS_EDGE_ANSWERS.refused.message });
    // No custom header is Content-Type, in any case.
    for (const rule of rules().filter((r) => (r.Action as { Block?: { CustomResponse?: unknown } } | undefined)?.Block?.CustomResponse)) {
      expect(customResponseOf(rule).ResponseHeaders.map((h) => h.Name.toLowerCase())).not.toContain('content-type');
    }
  });

  it('publishes each rule’s metrics and samples, named after the environment', () => {
    expect(rules().map((r) => (r as unknown as { VisibilityConfig: { MetricName: string } }).VisibilityConfig.MetricName)).toEqual([
      'trailsense-example-AWSManagedRulesAmazonIpReputationList',
      'trailsense-example-AWSManagedRulesKnownBadInputsRuleSet',
      'trailsense-example-refused',
      'trailsense-example-rate-per-ip',
      'trailsense-example-preflights-per-ip',
    ]);
  });
});

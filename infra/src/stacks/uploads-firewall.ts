/**
 * The uploads API's firewall (infra/docs/server.md#the-uploads-apis-firewall): an AWS WAF web ACL
 * of scope REGIONAL, in the Uploads stack's region, associated with the REST API's stage. WAF on a
 * stage sees every request that reaches the stage, whichever way it came (the custom domain, the
 * region's API Gateway front end with any SNI or Host, the execute-api endpoint), and evaluates it
 * before the resource policy and the authorizer run: there is no way in around it.
 *
 * Rules, in order:
 * 1. and 2. AWS's managed groups MANAGED_RULE_GROUPS, their actions overridden to count: they only
 *    label what they match (`awswaf:managed:aws:<group>:<rule>`).
 * 3. `RefuseManagedMatches`: a request carrying one of their labels (MANAGED_RULE_LABEL_NAMESPACES)
 *    is blocked with UPLOADS_EDGE_ANSWERS.refused (403). Blocking here rather than in the groups is
 *    what lets the answer be ours: a JSON body and the CORS headers the uploader needs to read it.
 * 4. `RatePerClientIp`: an address past RATE_LIMIT_PER_IP requests in RATE_WINDOW_SECONDS is
 *    blocked with UPLOADS_EDGE_ANSWERS.rateLimited (429, `Retry-After`) until its rate drops.
 * 5. `RatePreflightsPerClientIp`: the same limit for CORS preflights (OPTIONS), counted apart.
 * Rules 3 and 4 leave preflights alone: a browser treats a preflight answered 403 or 429 as a
 * network error, so the page could not read the answer it is owed; the preflight goes on to API
 * Gateway, and the request after it gets the readable refusal. A flood of preflights meets rule 5
 * (its block is WAF's plain 403: no page is waiting to read it).
 * Anything else is allowed and goes on to API Gateway's throttles and authorizer.
 *
 * The answers are the shared contract (shared/src/uploads/wire.ts, which the uploader and the
 * sandbox read too). WAF takes a custom response's headers as named (the `x-amzn-waf-` prefix is
 * for headers it inserts into an allowed request), but never `Content-Type`: that is the response
 * body's content type, APPLICATION_JSON here.
 */
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { UPLOADS_EDGE_ANSWER_HEADERS, UPLOADS_EDGE_ANSWERS } from '@trailsense/shared/uploads-wire';

/**
 * Requests one client IP may make in RATE_WINDOW_SECONDS before WAF blocks it (until its rate
 * falls back under the limit). A member's uploader makes a few calls a minute per tab — the
 * metrics, a reservation per slice of up to 500 photos, a photo lookup per 256 photos checked, a
 * renewal every few minutes, a release, a CORS preflight per reservation path, a monitoring batch
 * or two per page view — so a busy tab is at most ~10 a minute, ~50 in five minutes. 600 lets a
 * dozen busy tabs share one address (a ranch office's NAT, a carrier's CGNAT), while one host
 * sending junk is cut off after ~2 requests a second on average, a fiftieth of the stage's budget.
 */
export const RATE_LIMIT_PER_IP = 600;
/** The window WAF counts each IP's requests over (WAF takes 60, 120, 300 or 600 s). */
export const RATE_WINDOW_SECONDS = 300;

/**
 * AWS managed rule groups in front of the rate rule: addresses Amazon's threat intelligence lists
 * (bots, scanners) and request patterns of known exploits. Not the Core rule set: its
 * SizeRestrictions_BODY blocks bodies over 8 KB, which a photo lookup of 256 fingerprints exceeds.
 */
export const MANAGED_RULE_GROUPS = ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesKnownBadInputsRuleSet'] as const;

/** The label namespace each managed group's rules label a matching request with (AWS's `awswaf:managed:aws:<group>:`). */
export const MANAGED_RULE_LABEL_NAMESPACES: Readonly<Record<(typeof MANAGED_RULE_GROUPS)[number], string>> = {
  AWSManagedRulesAmazonIpReputationList: 'awswaf:managed:aws:amazon-ip-list:',
  AWSManagedRulesKnownBadInputsRuleSet: 'awswaf:managed:aws:known-bad-inputs:',
};

/** The web ACL's response bodies (its `customResponseBodies`), by key: the shared answers' messages. */
export const FIREWALL_RESPONSE_BODIES = {
  'rate-limited': { contentType: 'APPLICATION_JSON', content: JSON.stringify({ message: UPLOADS_EDGE_ANSWERS.rateLimited.message }) },
  refused: { contentType: 'APPLICATION_JSON', content: JSON.stringify({ message: UPLOADS_EDGE_ANSWERS.refused.message }) },
} as const;

/** The shared answer headers as WAF's custom response headers: all but `Content-Type` (the body's content type says it). */
export function firewallAnswerHeaders(extra: Readonly<Record<string, string>> = {}): CfnWebACL.CustomHTTPHeaderProperty[] {
  return Object.entries({ ...UPLOADS_EDGE_ANSWER_HEADERS, ...extra })
    .filter(([name]) => name.toLowerCase() !== 'content-type')
    .map(([name, value]) => ({ name, value }));
}

/** A request whose method is OPTIONS (a CORS preflight). */
const PREFLIGHT: CfnWebACL.StatementProperty = {
  byteMatchStatement: {
    fieldToMatch: { method: {} },
    positionalConstraint: 'EXACTLY',
    searchString: 'OPTIONS',
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
};
const NOT_PREFLIGHT: CfnWebACL.StatementProperty = { notStatement: { statement: PREFLIGHT } };

export interface UploadsFirewallProps {
  /** The settings' `name`: the web ACL's name and its metrics'. */
  environmentName: string;
  /** The REST API stage's ARN (`arn:aws:apigateway:<region>::/restapis/<id>/stages/<stage>`). */
  stageArn: string;
}

export class UploadsFirewall extends Construct {
  readonly webAcl: CfnWebACL;
  readonly association: CfnWebACLAssociation;

  constructor(scope: Construct, id: string, props: UploadsFirewallProps) {
    super(scope, id);
    const metric = (name: string) => ({
      metricName: `trailsense-${props.environmentName}-${name}`,
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
    });

    const managed = MANAGED_RULE_GROUPS.map((name, index): CfnWebACL.RuleProperty => ({
      name,
      priority: index,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
      overrideAction: { count: {} },
      visibilityConfig: metric(name),
    }));
    const { rateLimited, refused } = UPLOADS_EDGE_ANSWERS;
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `trailsense-${props.environmentName}-uploads-api`,
      description: 'TrailSense uploads API: AWS managed rules and a per-client rate limit, on the REST API stage',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric('uploads-api'),
      customResponseBodies: FIREWALL_RESPONSE_BODIES,
      rules: [
        ...managed,
        {
          name: 'RefuseManagedMatches',
          priority: managed.length,
          statement: {
            andStatement: {
              statements: [
                NOT_PREFLIGHT,
                {
                  orStatement: {
                    statements: MANAGED_RULE_GROUPS.map((group) => ({
                      labelMatchStatement: { scope: 'NAMESPACE', key: MANAGED_RULE_LABEL_NAMESPACES[group] },
                    })),
                  },
                },
              ],
            },
          },
          action: { block: { customResponse: { responseCode: refused.status, customResponseBodyKey: 'refused', responseHeaders: firewallAnswerHeaders() } } },
          visibilityConfig: metric('refused'),
        },
        {
          name: 'RatePerClientIp',
          priority: managed.length + 1,
          statement: {
            rateBasedStatement: {
              limit: RATE_LIMIT_PER_IP,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
              scopeDownStatement: NOT_PREFLIGHT,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: rateLimited.status,
                customResponseBodyKey: 'rate-limited',
                responseHeaders: firewallAnswerHeaders({ 'Retry-After': String(rateLimited.retryAfterSeconds) }),
              },
            },
          },
          visibilityConfig: metric('rate-per-ip'),
        },
        {
          name: 'RatePreflightsPerClientIp',
          priority: managed.length + 2,
          statement: {
            rateBasedStatement: { limit: RATE_LIMIT_PER_IP, evaluationWindowSec: RATE_WINDOW_SECONDS, aggregateKeyType: 'IP', scopeDownStatement: PREFLIGHT },
          },
          action: { block: {} },
          visibilityConfig: metric('preflights-per-ip'),
        },
      ],
    });

    // The ARN names the stage by its Ref, so the association waits for the stage.
    this.association = new CfnWebACLAssociation(this, 'StageAssociation', { resourceArn: props.stageArn, webAclArn: this.webAcl.attrArn });
  }
}

/**
 * The uploads API's front door (docs/operations.md#the-uploads-apis-edge), in us-east-1: a
 * CloudFront distribution at the API's custom domain (the settings' `uploadsApi.domainName`, the
 * runtime config's `api.uploadsBaseUrl`) and the AWS WAF web ACL it carries. A web ACL of scope
 * CLOUDFRONT must be created in us-east-1, and a distribution takes it by ARN, so both live here;
 * CloudFront's metrics are in us-east-1 too.
 *
 * Why: the API is an API Gateway HTTP API, which takes no WAF and throttles per stage and route,
 * never per client, and counts a request against its throttle before its authorizer answers 401.
 * Without a gate in front, one host sending junk tokens spends the budget every member's uploader
 * shares. Here WAF counts requests per client IP and blocks a client past RATE_LIMIT_PER_IP before
 * CloudFront forwards anything, so a stranger's flood never reaches API Gateway's throttle.
 *
 * The origin is the API's regional custom domain's own target (`d-….execute-api.<region>.amazonaws.com`,
 * the Uploads stack's `DomainName.regionalDomainName`, read through a cross-region reference),
 * and CloudFront forwards the viewer's Host header (the custom domain's name), which is what
 * API Gateway routes a custom domain by. The API's default execute-api endpoint is disabled
 * (src/stacks/uploads-api.ts), and DNS points the name here, never at that target: the only other
 * way in is that AWS-generated name, which nothing publishes (not DNS, not certificate logs).
 * docs/operations.md says what that leaves open and how to close it further.
 */
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { acknowledge } from './nag';

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
 * What a client past the limit is answered: 429, which the uploader already treats as "retry
 * later" (WAF's default is 403, which it would treat as refused).
 */
export const RATE_LIMITED_STATUS = 429;

/**
 * AWS managed rule groups in front of the rate rule: addresses Amazon's threat intelligence lists
 * (bots, scanners) and request patterns of known exploits. Not the Core rule set: its
 * SizeRestrictions_BODY blocks bodies over 8 KB, which a photo lookup of 256 fingerprints exceeds.
 */
export const MANAGED_RULE_GROUPS = ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesKnownBadInputsRuleSet'] as const;

export const UPLOADS_EDGE_OUTPUTS = {
  distributionId: 'UploadsApiDistributionId',
  distributionDomainName: 'UploadsApiDistributionDomainName',
  webAclArn: 'UploadsApiWebAclArn',
} as const;

export interface UploadsEdgeStackProps extends StackProps {
  /** The settings' `name`: the web ACL's name and metrics. */
  environmentName: string;
  /** The settings' `uploadsApi.domainName`: members' URL of the API. */
  domainName: string;
  /** An ACM certificate in us-east-1 covering `domainName` (the settings' `certificateArn`). */
  certificateArn: string;
  /** The API's regional custom domain's target (the Uploads stack's), CloudFront's origin. */
  originDomainName: string;
}

export class UploadsEdgeStack extends Stack {
  readonly webAcl: CfnWebACL;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: UploadsEdgeStackProps) {
    super(scope, id, props);
    const metric = (name: string) => ({
      metricName: `trailsense-${props.environmentName}-${name}`,
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
    });

    const managed = MANAGED_RULE_GROUPS.map((name, index): CfnWebACL.RuleProperty => ({
      name,
      priority: index,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
      overrideAction: { none: {} },
      visibilityConfig: metric(name),
    }));
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `trailsense-${props.environmentName}-uploads-api`,
      description: 'TrailSense uploads API: per-client rate limit and AWS managed rules, in front of the HTTP API',
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: metric('uploads-api'),
      rules: [
        ...managed,
        {
          name: 'RatePerClientIp',
          priority: managed.length,
          statement: { rateBasedStatement: { limit: RATE_LIMIT_PER_IP, evaluationWindowSec: RATE_WINDOW_SECONDS, aggregateKeyType: 'IP' } },
          action: { block: { customResponse: { responseCode: RATE_LIMITED_STATUS } } },
          visibilityConfig: metric('rate-per-ip'),
        },
      ],
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'TrailSense uploads API (WAF in front of the HTTP API)',
      domainNames: [props.domainName],
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      webAclId: this.webAcl.attrArn,
      defaultBehavior: {
        origin: new HttpOrigin(props.originDomainName, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY, originSslProtocols: [OriginSslPolicy.TLS_V1_2] }),
        // An API: nothing over http, not even a redirect (a redirected POST loses its body).
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        // GET, POST, DELETE and the CORS preflight's OPTIONS, which API Gateway answers.
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Every viewer header, Host and Authorization included: API Gateway finds the custom
        // domain by Host, and the JWT authorizer reads Authorization; Origin for CORS.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER,
      },
    });
    acknowledge(this.distribution, {
      'AwsSolutions-CFR1': 'No geo restriction: members upload from wherever their ranch and their phone are; the rate rule, not geography, limits strangers.',
      'AwsSolutions-CFR3':
        "No CloudFront access logs: the API stage's access log has a line per forwarded request, and WAF's metrics and sampled requests show what was blocked.",
    });

    new CfnOutput(this, UPLOADS_EDGE_OUTPUTS.distributionDomainName, {
      value: this.distribution.distributionDomainName,
      description: `Point ${props.domainName} here (CNAME, or an alias record), not at the API's regional target`,
    });
    new CfnOutput(this, UPLOADS_EDGE_OUTPUTS.distributionId, { value: this.distribution.distributionId });
    new CfnOutput(this, UPLOADS_EDGE_OUTPUTS.webAclArn, { value: this.webAcl.attrArn });
  }
}

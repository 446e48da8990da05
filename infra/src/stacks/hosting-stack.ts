/**
 * Hosting, one stack per app (shell, auth-remote, uploader-remote), so each team deploys its own
 * app alone: a private bucket that only its CloudFront distribution may read (origin access
 * control), HTTPS only, at the app's custom domain.
 *
 * Caching follows the objects' own Cache-Control, which the deploy command sets per object
 * (hashed files immutable for a year, entry files no-cache): the cache policy's minimum TTL is 0,
 * so `no-cache` is honoured at the edge as in browsers, and its default TTL (for an object without
 * Cache-Control) is 0 as well. CloudFront compresses (Brotli, gzip) by Accept-Encoding.
 *
 * - The shell's distribution sends every security header, the Content-Security-Policy generated
 *   from the runtime config it serves and the inline-script hashes of its build
 *   (infra/docs/server.md#security-headers), and routes paths by its build's routes.json with a
 *   CloudFront Function (src/hosting/routing-function.ts); a file S3 does not have gets the 404
 *   page with status 404.
 * - A remote's distribution allows CORS for the shell's origin alone (its code runs in the shell's
 *   page, under the shell's policy) and sends the other security headers.
 *
 * The bucket's `_releases/` (the deploy command's records, entry-file copies and lock) is denied to
 * CloudFront. Each distribution has its 5xx-rate alarm, in us-east-1 where CloudFront's metrics are
 * (src/stacks/alarms.ts `distributionAlarm`).
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CacheQueryStringBehavior,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import type { ErrorResponse, FunctionAssociation, IResponseHeadersPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { RuntimeConfig } from '@trailsense/shared/config-types';
import { baseSecurityHeaders, securityHeaders } from '@trailsense/shared/security-headers';
import { responseHeaderBehaviors } from '../hosting/response-headers';
import { routingFunctionCode } from '../hosting/routing-function';
import { RELEASES_PREFIX } from '../deploy/plan';
import type { ShellRoutes } from '../hosting/shell-routes';
import { httpsOrigin } from '../settings';
import { distributionAlarm, HOSTED_APPS } from './alarms';
import { acknowledge } from './nag';
import type { HostedAppPart } from './alarms';

/** The outputs every hosting stack has; the deploy command reads them (bucket to upload to, distribution to invalidate). */
export const HOSTING_OUTPUTS = {
  bucketName: 'BucketName',
  distributionId: 'DistributionId',
  distributionDomainName: 'DistributionDomainName',
  siteUrl: 'SiteUrl',
} as const;

interface StaticSiteProps {
  /** The settings' `name` and the app's stack part: its distribution's alarm. */
  environmentName: string;
  part: HostedAppPart;
  /** The app's host name. */
  domainName: string;
  certificateArn: string;
  responseHeadersPolicy: IResponseHeadersPolicy;
  functionAssociations?: FunctionAssociation[];
  errorResponses?: ErrorResponse[];
  /** What the distribution serves, for its comment. */
  description: string;
}

/** A private bucket behind a CloudFront distribution at a custom domain, HTTPS only. */
export class StaticSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: StaticSiteProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // A deleted stack leaves the released files; each deploy overwrites what it releases.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // The deploy command's own objects (release records, entry-file copies, the lock:
    // src/deploy/plan.ts) are the team's, not the site's: CloudFront may not read them, whatever
    // path a viewer asks for (S3 then answers 403, the shell's distribution its 404 page).
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'DeployRecordsNotServed',
        effect: Effect.DENY,
        principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${RELEASES_PREFIX}*`)],
      }),
    );
    const cachePolicy = new CachePolicy(this, 'CachePolicy', {
      comment: `${props.description}: the objects' own Cache-Control, no query strings, headers or cookies in the key`,
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.days(365),
      enableAcceptEncodingBrotli: true,
      enableAcceptEncodingGzip: true,
      queryStringBehavior: CacheQueryStringBehavior.none(),
      headerBehavior: CacheHeaderBehavior.none(),
      cookieBehavior: CacheCookieBehavior.none(),
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: props.description,
      domainNames: [props.domainName],
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultRootObject: 'index.html',
      errorResponses: props.errorResponses,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        // Nothing is served over http: a viewer that asks there is sent to https (HSTS then keeps it there).
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        compress: true,
        cachePolicy,
        responseHeadersPolicy: props.responseHeadersPolicy,
        functionAssociations: props.functionAssociations,
      },
    });
    distributionAlarm(this, props.environmentName, props.part, this.distribution);
    acknowledge(this.bucket, {
      'AwsSolutions-S1':
        'No server access logs: only its distribution reads it (origin access control) and only the deploy command writes it, which keeps a release record of every write.',
    });
    acknowledge(this.distribution, {
      'AwsSolutions-CFR1': 'No geo restriction: public pages for members wherever they are.',
      'AwsSolutions-CFR2':
        'No WAF: static files served from the cache; a flood costs CloudFront requests, never a member their uploads (the uploads API, which can be starved, has its WAF: src/stacks/uploads-firewall.ts).',
      'AwsSolutions-CFR3': "No access logs (infra/README.md, Not covered here): the 5xx-rate alarm and CloudFront's own metrics watch it.",
    });
  }
}

function outputs(stack: Stack, site: StaticSite, domainName: string): void {
  new CfnOutput(stack, HOSTING_OUTPUTS.bucketName, { value: site.bucket.bucketName, description: 'The bucket the deploy command uploads the build to' });
  new CfnOutput(stack, HOSTING_OUTPUTS.distributionId, {
    value: site.distribution.distributionId,
    description: 'The distribution the deploy command invalidates',
  });
  new CfnOutput(stack, HOSTING_OUTPUTS.distributionDomainName, {
    value: site.distribution.distributionDomainName,
    description: `Point ${domainName} here (CNAME, or an alias record)`,
  });
  new CfnOutput(stack, HOSTING_OUTPUTS.siteUrl, { value: httpsOrigin(domainName) });
}

export interface ShellHostingStackProps extends StackProps {
  /** The settings' `name`: the distribution's alarm. */
  environmentName: string;
  domainName: string;
  certificateArn: string;
  /** The runtime config the shell serves (`/config.json`): the CSP is generated from it. */
  runtimeConfig: RuntimeConfig;
  /** The shell build's routes.json. */
  routes: ShellRoutes;
}

export class ShellHostingStack extends Stack {
  readonly site: StaticSite;

  constructor(scope: Construct, id: string, props: ShellHostingStackProps) {
    super(scope, id, props);
    const headers = responseHeaderBehaviors(securityHeaders({ config: props.runtimeConfig, inlineScriptHashes: props.routes.inlineScriptHashes }));
    const responseHeadersPolicy = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'TrailSense shell: shared/src/security/headers.ts, CSP from the runtime config',
      securityHeadersBehavior: headers.securityHeadersBehavior,
      customHeadersBehavior: { customHeaders: headers.customHeaders },
    });
    const routing = new CloudFrontFunction(this, 'Routing', {
      comment: 'The shell routes.json: prerendered page, app page, or the 404 page with status 404',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(routingFunctionCode(props.routes)),
    });
    const notFound = `/${props.routes.notFound}`;
    this.site = new StaticSite(this, 'Site', {
      environmentName: props.environmentName,
      part: 'Shell',
      description: 'TrailSense shell',
      domainName: props.domainName,
      certificateArn: props.certificateArn,
      responseHeadersPolicy,
      functionAssociations: [
        { function: routing, eventType: FunctionEventType.VIEWER_REQUEST },
        { function: routing, eventType: FunctionEventType.VIEWER_RESPONSE },
      ],
      // S3 answers a missing object with 403 (the distribution may not list the bucket), or 404.
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 404,
        responsePagePath: notFound,
        ttl: Duration.seconds(10),
      })),
    });
    outputs(this, this.site, props.domainName);
  }
}

export interface RemoteHostingStackProps extends StackProps {
  /** The settings' `name`: the distribution's alarm. */
  environmentName: string;
  /** `auth-remote` or `uploader-remote`: descriptions, the alarm's name. */
  app: (typeof HOSTED_APPS)['AuthRemote' | 'UploaderRemote'];
  domainName: string;
  certificateArn: string;
  /** The shell's origin (`https://host`), the one origin allowed to read the remote's files. */
  shellOrigin: string;
}

export class RemoteHostingStack extends Stack {
  readonly site: StaticSite;

  constructor(scope: Construct, id: string, props: RemoteHostingStackProps) {
    super(scope, id, props);
    const headers = responseHeaderBehaviors(baseSecurityHeaders());
    const responseHeadersPolicy = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: `TrailSense ${props.app}: CORS for the shell's origin, shared/src/security/headers.ts`,
      corsBehavior: {
        accessControlAllowOrigins: [props.shellOrigin],
        accessControlAllowMethods: ['GET', 'HEAD'],
        // The shell reads a remote with simple requests only, and OPTIONS is not an allowed method,
        // so no preflight succeeds and this list is inert; CloudFront requires one entry.
        accessControlAllowHeaders: ['*'],
        accessControlAllowCredentials: false,
        accessControlMaxAge: Duration.days(1),
        originOverride: true,
      },
      securityHeadersBehavior: headers.securityHeadersBehavior,
      customHeadersBehavior: { customHeaders: headers.customHeaders },
    });
    this.site = new StaticSite(this, 'Site', {
      environmentName: props.environmentName,
      part: props.app === HOSTED_APPS.AuthRemote ? 'AuthRemote' : 'UploaderRemote',
      description: `TrailSense ${props.app}`,
      domainName: props.domainName,
      certificateArn: props.certificateArn,
      responseHeadersPolicy,
    });
    outputs(this, this.site, props.domainName);
  }
}

/**
 * What API Gateway itself says about the uploads API's requests (src/stacks/uploads-api.ts): the
 * CORS preflight's answer, the stage's access log line, and the gateway responses — API Gateway's
 * own answers (a 401 of the authorizer, a 403 of an unknown path, a 429 of a throttle, a 5xx),
 * given the headers of the firewall's answers (UPLOADS_EDGE_ANSWER_HEADERS: CORS for any origin,
 * `Retry-After` exposed), so the browser can read them instead of seeing a network error.
 */
import { Duration } from 'aws-cdk-lib';
import { AccessLogField, AccessLogFormat, ResponseType } from 'aws-cdk-lib/aws-apigateway';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { UPLOADS_EDGE_ANSWER_HEADERS } from '@trailsense/shared/uploads-wire';

/** What a browser on the site's origins may send (the preflight's answer). */
export const UPLOADS_API_CORS = {
  allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type'],
  // A browser reuses the answer for an hour (Chromium caps it at two); renew and DELETE name a
  // reservation in their path, so they are preflighted per reservation anyway.
  maxAge: Duration.hours(1),
} as const;

/**
 * One JSON line per request in the access log group; Logs Insights queries and the docs read these
 * names (they are the HTTP API's, kept: `routeKey` is the method and resource path, as an HTTP API's
 * route key was). Every value is a string ("-" when API Gateway has none, e.g. no integration on a
 * 401). `waf` is WAF's verdict (WAF_ALLOW, WAF_BLOCK), `errorType` the gateway response's type
 * (UNAUTHORIZED, THROTTLED, …).
 */
export const UPLOADS_API_ACCESS_LOG = {
  requestId: AccessLogField.contextRequestId(),
  requestTime: AccessLogField.contextRequestTime(),
  ip: AccessLogField.contextIdentitySourceIp(),
  httpMethod: AccessLogField.contextHttpMethod(),
  path: AccessLogField.contextPath(),
  routeKey: `${AccessLogField.contextHttpMethod()} ${AccessLogField.contextResourcePath()}`,
  status: AccessLogField.contextStatus(),
  protocol: AccessLogField.contextProtocol(),
  responseLength: AccessLogField.contextResponseLength(),
  latency: AccessLogField.contextResponseLatency(),
  integrationLatency: AccessLogField.contextIntegrationLatency(),
  integrationStatus: AccessLogField.contextIntegrationStatus(),
  integrationError: AccessLogField.contextIntegrationErrorMessage(),
  authorizerError: AccessLogField.contextAuthorizerError(),
  waf: AccessLogField.contextWafResponseCode(),
  errorType: AccessLogField.contextErrorResponseType(),
  error: AccessLogField.contextErrorMessage(),
} as const;

/** The stage's access log format: UPLOADS_API_ACCESS_LOG as one JSON line. */
export function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(JSON.stringify(UPLOADS_API_ACCESS_LOG));
}

/**
 * What a request API Gateway's throttle refused is told to wait. The stage's bucket refills at 100
 * a second (its burst of 200 in two seconds), so a few seconds is enough once a burst has passed,
 * and long enough that every tab's retries do not arrive in the same second.
 */
export const THROTTLED_RETRY_AFTER_SECONDS = 5;

/** The gateway responses given headers, by construct id: their type and headers (the shared ones, and `Retry-After` on THROTTLED). */
export const UPLOADS_API_GATEWAY_RESPONSES = {
  Default4xx: { type: ResponseType.DEFAULT_4XX, headers: { ...UPLOADS_EDGE_ANSWER_HEADERS } },
  Default5xx: { type: ResponseType.DEFAULT_5XX, headers: { ...UPLOADS_EDGE_ANSWER_HEADERS } },
  // Without its own, THROTTLED would take DEFAULT_4XX's headers; its own says when to come back.
  Throttled: { type: ResponseType.THROTTLED, headers: { ...UPLOADS_EDGE_ANSWER_HEADERS, 'Retry-After': String(THROTTLED_RETRY_AFTER_SECONDS) } },
} as const;

/** A header value as a gateway response takes a static one: a quoted literal (`'*'`), not a mapping expression. */
export const quotedLiteral = (value: string): string => `'${value}'`;

/** Adds UPLOADS_API_GATEWAY_RESPONSES to the API (their bodies stay API Gateway's `{ "message": … }`). */
export function addGatewayResponses(api: RestApi): void {
  for (const [id, { type, headers }] of Object.entries(UPLOADS_API_GATEWAY_RESPONSES)) {
    api.addGatewayResponse(id, { type, responseHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, quotedLiteral(value)])) });
  }
}

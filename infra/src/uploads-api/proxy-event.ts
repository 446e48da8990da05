/**
 * What the two Lambda entries (lambda.ts, events-lambda.ts) share behind the uploads API's REST API
 * (src/stacks/uploads-api.ts): reading a Lambda proxy integration's event (payload 1.0) and
 * answering it as JSON with the CORS headers of the site's origins.
 *
 * A REST API's proxy integration passes the function's answer through as it is: unlike an HTTP
 * API it adds no CORS header, so the function names the allowed origin itself (the preflight's
 * answer is API Gateway's own, and API Gateway's own errors carry the gateway responses' headers).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { UploadsApiResponse } from './response';

/** The parts of a proxy event the entries read. */
export type ProxyEventParts = Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded' | 'headers'>;

/** The request body as text (API Gateway base64-encodes a body it takes for binary), or null without one. */
export function bodyOf(event: Pick<ProxyEventParts, 'body' | 'isBase64Encoded'>): string | null {
  if (event.body === null || event.body === undefined) return null;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** A request header by name, whatever its case (payload 1.0 keeps the names as the client sent them). */
export function headerOf(event: Pick<ProxyEventParts, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === wanted && value !== undefined) return value;
  return undefined;
}

/**
 * The CORS headers of an answer to `origin`: the origin itself when it is one of the site's (the
 * answer then varies by Origin, which `Vary` tells caches), nothing else; a foreign page's script
 * cannot read the answer.
 */
export function corsHeaders(origin: string | undefined, siteOrigins: readonly string[]): Record<string, string> {
  return origin !== undefined && siteOrigins.includes(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' };
}

/** The proxy integration's answer: JSON, never cached, with the CORS headers for the request's Origin. */
export function jsonAnswer(response: UploadsApiResponse, event: Pick<ProxyEventParts, 'headers'>, siteOrigins: readonly string[]): APIGatewayProxyResult {
  return {
    statusCode: response.status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...corsHeaders(headerOf(event, 'origin'), siteOrigins) },
    body: JSON.stringify(response.body),
  };
}

/**
 * The Cognito gateway: one HTTP endpoint for the user pool and the identity pool, as Amplify's
 * `userPoolEndpoint` / `identityPoolEndpoint` expect (POST / with `X-Amz-Target`), plus the pool's
 * JWKS and openid-configuration with the issuer the tokens carry.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { applyCors, BodyTooLargeError, parseJsonObject, readBody, sendJson } from '../http-util';
import { CognitoFault, MISSING_AUTHENTICATION, UNRECOGNIZED_CLIENT } from './errors';

const AMZ_JSON = 'application/x-amz-json-1.1';

export interface GatewayDeps {
  userPoolId: string;
  issuer: string;
  publicJwk: Record<string, unknown>;
  userPool: (operation: string, body: Record<string, unknown>) => Promise<unknown>;
  identityPool: (operation: string, body: Record<string, unknown>) => Promise<unknown>;
  log: (line: string) => void;
}

/**
 * A header value can carry only Latin-1 without control characters (Node throws otherwise), but a
 * message may quote the caller's input (a ClientId with "€" or a newline): such characters become
 * "?" in the header; the JSON body keeps the message as it is.
 */
export function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

function sendFault(res: ServerResponse, fault: CognitoFault): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.setHeader('x-amzn-errortype', headerSafe(fault.type));
  res.setHeader('x-amzn-errormessage', headerSafe(fault.message));
  sendJson(res, fault.status, { __type: fault.type, message: fault.message }, AMZ_JSON);
}

export function createGateway(deps: GatewayDeps): RequestListener {
  const wellKnown = `/${deps.userPoolId}/.well-known/`;

  async function handlePost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.headers['x-amz-target'];
    const match = typeof target === 'string' ? /^(AWSCognitoIdentityProviderService|AWSCognitoIdentityService)\.(\w+)$/.exec(target) : null;
    if (!match) throw new CognitoFault('UnknownOperationException', `Unknown or missing X-Amz-Target: ${String(target ?? '')}`);
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw new CognitoFault('SerializationException', 'Request body too large', 413);
      throw err;
    }
    const body = parseJsonObject(raw);
    if (!body) throw new CognitoFault('SerializationException', 'The request body is not a JSON object');
    const [, service, operation] = match as unknown as [string, string, string];
    let result: unknown;
    try {
      result = service === 'AWSCognitoIdentityService' ? await deps.identityPool(operation, body) : await deps.userPool(operation, body);
    } catch (err) {
      if (err === MISSING_AUTHENTICATION && req.headers.authorization !== undefined) throw UNRECOGNIZED_CLIENT;
      throw err;
    }
    const text = JSON.stringify(result ?? {}, (_key, value: unknown) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : value));
    res.writeHead(200, { 'Content-Type': AMZ_JSON, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  return (req, res) => {
    if (applyCors(req, res, 'POST, GET, OPTIONS')) return;
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === `${wellKnown}jwks.json`) return sendJson(res, 200, { keys: [deps.publicJwk] });
    if (req.method === 'GET' && url === `${wellKnown}openid-configuration`) {
      return sendJson(res, 200, {
        issuer: deps.issuer,
        jwks_uri: `${deps.issuer}/.well-known/jwks.json`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
    if (req.method === 'GET' && url === '/health') return sendJson(res, 200, { ok: true });
    if (req.method !== 'POST' || url.split('?')[0] !== '/') {
      return sendFault(res, new CognitoFault('UnknownOperationException', `No such endpoint: ${req.method ?? ''} ${url}`, 404));
    }
    handlePost(req, res)
      .catch((err: unknown) => {
        if (err instanceof CognitoFault) return sendFault(res, err);
        deps.log(`[cognito] internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        sendFault(res, new CognitoFault('InternalErrorException', 'Internal error in the sandbox gateway', 500));
      })
      // Whatever happens while answering, no request may take the gateway (and the sandbox) down.
      .catch((err: unknown) => {
        deps.log(`[cognito] could not answer: ${err instanceof Error ? err.message : String(err)}`);
        res.destroy();
      });
  };
}

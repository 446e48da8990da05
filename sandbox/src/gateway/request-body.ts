/**
 * Reading a user-pool request's JSON body as the gateway's operations need it (user-pool.ts):
 * required and optional fields, and the attributes the web client may write.
 */
import { CognitoFault } from './errors';

export type Body = Record<string, unknown>;

/** A non-empty string field, or undefined. */
export function str(body: Body, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** An object field (AuthParameters, ChallengeResponses), or {} when it is anything else. */
export function record(body: Body, key: string): Body {
  const value = body[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : {};
}

/** A string field Cognito requires: InvalidParameterException without it. */
export function required(body: Body, key: string): string {
  const value = str(body, key);
  if (!value) throw new CognitoFault('InvalidParameterException', `Missing required parameter ${key}`);
  return value;
}

/** The `sub` of a token the gateway has verified already (checkAccessToken), read from its payload. */
export function verifiedSub(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;
}

/** The attributes the web app client may write (its WriteAttributes); the rest are the operator's. */
export const CLIENT_WRITE_ATTRIBUTES = new Set(['name', 'phone_number', 'email']);
export const UNAUTHORIZED_ATTRIBUTE = 'A client attempted to write unauthorized attribute';

/** Refuses a UserAttributes list naming an attribute outside the client's write attributes. */
export function assertWritableAttributes(body: Body, key: string): { Name: string; Value?: unknown }[] {
  const list = body[key];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new CognitoFault('InvalidParameterException', `${key} must be a list`);
  const attributes = list as { Name?: unknown; Value?: unknown }[];
  for (const a of attributes) {
    if (a === null || typeof a !== 'object' || typeof a.Name !== 'string') throw new CognitoFault('InvalidParameterException', `${key} entries need a Name`);
    if (!CLIENT_WRITE_ATTRIBUTES.has(a.Name)) throw new CognitoFault('NotAuthorizedException', UNAUTHORIZED_ATTRIBUTE);
  }
  return attributes as { Name: string; Value?: unknown }[];
}

/** Refuses a DeleteUserAttributes name list naming an attribute outside the client's write attributes. */
export function assertDeletableAttributes(names: unknown): void {
  if (Array.isArray(names) && names.some((n) => typeof n !== 'string' || !CLIENT_WRITE_ATTRIBUTES.has(n))) {
    throw new CognitoFault('NotAuthorizedException', UNAUTHORIZED_ATTRIBUTE);
  }
}

/**
 * The upload reservation protocol for tests (infra/src/uploads-api/handler.ts,
 * infra/src/object-created/handler.ts): an object is counted only under a reservation the uploads
 * API granted to its ranch, so a test that stores a photo first reserves a slot over HTTP, with
 * the user's id token, as the uploader does, and sends the reservation and the photo's fingerprint
 * as object metadata. Also the ledger's control endpoints (`/_sandbox/ledger-clock`,
 * `/_sandbox/ranch-usage`) and the identity pool's credentials for a user's own S3 requests.
 */
import { randomBytes } from 'node:crypto';
import { fingerprintOf } from '../../../test-support/fingerprint';
import { CognitoIdentityClient, GetCredentialsForIdentityCommand, GetIdCommand } from '@aws-sdk/client-cognito-identity';
import type { ReservationResponse as ReservationAnswer, UploadMetrics as MetricsAnswer } from '@trailsense/shared/uploads-wire';
import type { RuntimeConfig, Sandbox } from '../../src/index';
import type { Credentials } from './sign';

/** An answer of the uploads API: its status and JSON body. */
export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  json: T;
}

/** The uploads API's answers: the shared contract (shared/src/uploads/wire.ts). */
export type { ReservationAnswer, MetricsAnswer };

export { fingerprintOf };

/** `n` well-formed fingerprints of photos no one has sent (each distinct). */
export function newFingerprints(n: number): string[] {
  return Array.from({ length: n }, () => `v1-${100_000 + Math.floor(Math.random() * 1_000_000)}-${randomBytes(16).toString('hex')}`);
}

/** One call to the uploads API (`config.api.uploadsBaseUrl`), with `token` as the bearer when given. */
export async function uploadsApi<T = Record<string, unknown>>(
  config: RuntimeConfig,
  method: string,
  pathname: string,
  token?: string,
  body?: unknown,
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${config.api.uploadsBaseUrl}${pathname}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as T };
}

/** Asks the uploads API for slots for `fingerprints` (and `yearmo` when given): the whole answer. */
export function askReservation(
  config: RuntimeConfig,
  idToken: string,
  ranchId: string,
  fingerprints: readonly string[],
  yearmo?: string,
): Promise<ApiAnswer<ReservationAnswer>> {
  return uploadsApi<ReservationAnswer>(config, 'POST', `/ranches/${ranchId}/reservations`, idToken, {
    fingerprints,
    ...(yearmo === undefined ? {} : { yearmo }),
  });
}

/**
 * Reserves a slot for each of `fingerprints` for the user's ranch and returns the reservation id;
 * throws unless every one was granted (a test that means to be refused asks with `askReservation`).
 */
export async function reserve(config: RuntimeConfig, idToken: string, ranchId: string, fingerprints: readonly string[]): Promise<string> {
  const { status, json } = await askReservation(config, idToken, ranchId, fingerprints);
  if (status !== 200 || json.reservation === null || json.granted.length !== fingerprints.length) {
    throw new Error(`reservation for ${ranchId} not granted in full: ${status} ${JSON.stringify(json)}`);
  }
  return json.reservation;
}

/** The object metadata the uploader sends for the ledger (as user metadata: `x-amz-meta-reservation`, `x-amz-meta-fingerprint`). */
export function ledgerMetadata(reservation: string, fingerprint: string): { reservation: string; fingerprint: string } {
  return { reservation, fingerprint };
}

/** The same as `x-amz-meta-*` headers, for a raw PUT. */
export function ledgerHeaders(reservation: string, fingerprint: string): Record<string, string> {
  return { 'x-amz-meta-reservation': reservation, 'x-amz-meta-fingerprint': fingerprint };
}

/** Reserves one slot for `bytes` (its fingerprint) and answers the metadata to send them with. */
export async function reservedMetadata(
  config: RuntimeConfig,
  idToken: string,
  ranchId: string,
  bytes: Buffer,
): Promise<{ reservation: string; fingerprint: string }> {
  const fingerprint = fingerprintOf(bytes);
  return ledgerMetadata(await reserve(config, idToken, ranchId, [fingerprint]), fingerprint);
}

/** The ranch's upload-metrics for `yearmo`; throws unless answered 200. */
export async function uploadMetrics(config: RuntimeConfig, idToken: string, ranchId: string, yearmo: string): Promise<MetricsAnswer> {
  const { status, json } = await uploadsApi<MetricsAnswer>(config, 'GET', `/ranches/${ranchId}/upload-metrics?yearmo=${yearmo}`, idToken);
  if (status !== 200) throw new Error(`upload-metrics for ${ranchId} ${yearmo}: ${status} ${JSON.stringify(json)}`);
  return json;
}

const controlUrl = (sandbox: Sandbox, name: string) => `http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/${name}`;

/** `PUT /_sandbox/<name>` on the analytics port, as a test process (no Origin). */
export async function putControl(sandbox: Sandbox, name: string, body: string, headers: Record<string, string> = {}): Promise<ApiAnswer> {
  const res = await fetch(controlUrl(sandbox, name), { method: 'PUT', body, headers });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The ledger clock (`/_sandbox/ledger-clock`): an ISO 8601 time it reads from now on, or '' for the real time. */
export async function setLedgerClock(sandbox: Sandbox, iso: string): Promise<void> {
  const { status, json } = await putControl(sandbox, 'ledger-clock', iso);
  if (status !== 200) throw new Error(`ledger clock ${JSON.stringify(iso)}: ${status} ${JSON.stringify(json)}`);
}

export async function ledgerClock(sandbox: Sandbox): Promise<{ now: string; offsetMs: number }> {
  return (await (await fetch(controlUrl(sandbox, 'ledger-clock'))).json()) as { now: string; offsetMs: number };
}

/** Sets the ranch's count for the ledger clock's month and drops its reservations (`/_sandbox/ranch-usage`). */
export async function setRanchUsage(sandbox: Sandbox, ranchId: string, total: number): Promise<void> {
  const { status, json } = await putControl(sandbox, 'ranch-usage', JSON.stringify({ ranchId, total }), { 'Content-Type': 'application/json' });
  if (status !== 200) throw new Error(`ranch usage ${ranchId} ${total}: ${status} ${JSON.stringify(json)}`);
}

/** The identity pool's temporary credentials for a signed-in user (GetId, then GetCredentialsForIdentity), as the SDK gets them. */
export async function identityCredentials(config: RuntimeConfig, idToken: string): Promise<{ identityId: string; credentials: Credentials }> {
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss: string };
  const logins = { [claims.iss.replace(/^\w+:\/\//, '')]: idToken };
  const client = new CognitoIdentityClient({ region: config.auth.region, endpoint: config.auth.identityPoolEndpoint });
  const { IdentityId } = await client.send(new GetIdCommand({ IdentityPoolId: config.auth.identityPoolId, Logins: logins }));
  const { Credentials: c } = await client.send(new GetCredentialsForIdentityCommand({ IdentityId, Logins: logins }));
  return { identityId: IdentityId!, credentials: { accessKeyId: c!.AccessKeyId!, secretAccessKey: c!.SecretKey!, sessionToken: c!.SessionToken! } };
}

/**
 * Helpers for the uploader's browser tests: generated JPEG files, the sandbox's bucket (read from
 * its data directory, as playwright.config.ts starts it with `--data-dir .sandbox-data/e2e`), its
 * analytics sink, and its switches (the sandbox control endpoints): S3 PUT faults and stalls,
 * product API faults, the firewall, the ledger's clock and a ranch's count.
 *
 * Each switch helper names the ranch it switches (a tenant's: ./tenant.ts), and the sandbox applies
 * it to that ranch's requests only (sandbox/src/ranch-scope.ts: its objects' keys, its API paths,
 * its members' tokens), so a worker never switches another's. Bucket reads are one ranch's too.
 */
import type { Page } from '@playwright/test';
import { CognitoIdentityClient, GetCredentialsForIdentityCommand, GetIdCommand } from '@aws-sdk/client-cognito-identity';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jpegBytes } from '../../test-support/jpeg';
import localConfig from '../../config/local.json';
import { repo } from './servers';

export const E2E_DATA_DIR = path.join(repo, '.sandbox-data/e2e');
export const bucketDir = () => path.join(E2E_DATA_DIR, 's3', localConfig.storage.bucket);
const analyticsBase = new URL(localConfig.analytics.endpoint).origin;

/** A small valid JPEG (test-support/jpeg.ts): what the object-created function accepts as a photo. */
export { jpegBytes };

/** A temp directory to write test files into (real files: stable names, sizes and mtimes). */
export function tempDir(prefix = 'uploader-e2e-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes `count` distinct JPEGs (IMG_0001.JPG …) into `dir`; returns their paths. */
export function writeJpegs(dir: string, count: number, options: { prefix?: string; padding?: number } = {}): string[] {
  fs.mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const name = `${options.prefix ?? 'IMG_'}${String(i + 1).padStart(4, '0')}.JPG`;
    const file = path.join(dir, name);
    fs.writeFileSync(file, jpegBytes(`${dir}/${name}/${crypto.randomUUID()}`, options.padding ?? 0));
    return file;
  });
}

export interface StoredObject {
  key: string;
  metadata: Record<string, string>;
  tagging: string | undefined;
}

/** Every object of `ranch` in the sandbox bucket (`public/<ranch>/…`, `private/<identity id>/<ranch>/…`; keys relative to the bucket). */
export function bucketObjects(ranch: string): StoredObject[] {
  const root = bucketDir();
  const found: StoredObject[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('._S3rver_object')) {
        const base = full.slice(0, -'._S3rver_object'.length);
        const metaFile = `${base}._S3rver_metadata.json`;
        const tagFile = `${base}._S3rver_tagging.xml`;
        found.push({
          key: path.relative(root, base).split(path.sep).join('/'),
          metadata: fs.existsSync(metaFile) ? (JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, string>) : {},
          tagging: fs.existsSync(tagFile) ? fs.readFileSync(tagFile, 'utf8') : undefined,
        });
      }
    }
  };
  walk(path.join(root, 'public', ranch));
  const identities = path.join(root, 'private');
  if (fs.existsSync(identities)) for (const identity of fs.readdirSync(identities)) walk(path.join(identities, identity, ranch));
  return found;
}

/** Objects of `ranch` that were not in `before` (a test's own uploads). */
export function newObjects(ranch: string, before: readonly StoredObject[]): StoredObject[] {
  const seen = new Set(before.map((o) => o.key));
  return bucketObjects(ranch).filter((o) => !seen.has(o.key));
}

export interface SinkEvent {
  name: string;
  ranchid: string;
  key?: string;
  uploadCount?: number;
  failureCount?: number;
}

/** The analytics sink's events for a ranch. */
export async function analyticsEvents(ranchid: string): Promise<SinkEvent[]> {
  const res = await fetch(`${analyticsBase}/events?ranchid=${encodeURIComponent(ranchid)}`);
  const body = (await res.json()) as { events: SinkEvent[] };
  return body.events;
}

/** `PUT /_sandbox/<name>?ranch=<ranch>`: one ranch's own switch (the sandbox's answer, or a throw saying why not). */
async function switchRanch(name: string, ranch: string, body: string): Promise<unknown> {
  const res = await fetch(`${analyticsBase}/_sandbox/${name}?ranch=${encodeURIComponent(ranch)}`, { method: 'PUT', body });
  if (!res.ok) throw new Error(`the ${name} switch of ${ranch} refused ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** `GET /_sandbox/<name>?ranch=<ranch>`: the switch `ranch`'s requests meet. */
async function ranchSwitch<T>(name: string, ranch: string): Promise<T> {
  const res = await fetch(`${analyticsBase}/_sandbox/${name}?ranch=${encodeURIComponent(ranch)}`);
  if (!res.ok) throw new Error(`the ${name} switch of ${ranch}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Sets the S3 PUT fault switch of `ranch`'s objects ("0.3:503", "1:403", "1:400:ExpiredToken", "0"). */
export async function setPutFault(ranch: string, spec: string): Promise<void> {
  await switchRanch('s3-put-fault', ranch, spec);
}

/** How many PUTs of `ranch`'s objects the fault switch has failed so far. */
export async function injectedFaults(ranch: string): Promise<number> {
  return (await ranchSwitch<{ injected: number }>('s3-put-fault', ranch)).injected;
}

/** Holds the next `count` object PUTs of `ranch` unanswered until the browser gives up (0 holds no more). */
export async function setPutStall(ranch: string, count: number): Promise<void> {
  await switchRanch('s3-put-stall', ranch, String(count));
}

/** How many object PUTs of `ranch` the stall switch has held so far. */
export async function heldPuts(ranch: string): Promise<number> {
  return (await ranchSwitch<{ held: number }>('s3-put-stall', ranch)).held;
}

/** Sets the product API fault switch of `ranch`'s requests ("upload-metrics:500,ranch:503", "0" for none). */
export async function setApiFault(ranch: string, spec: string): Promise<void> {
  await switchRanch('api-fault', ranch, spec);
}

/** Sets the uploads API's firewall for `ranch`'s requests ("429:3", "403", "off"; sandbox/src/firewall.ts). */
export async function setFirewall(ranch: string, spec: string): Promise<void> {
  await switchRanch('firewall', ranch, spec);
}

/** Sets `ranch`'s upload-ledger clock (an ISO time; "" for the real time). Tokens and signatures keep the real time. */
export async function setLedgerClock(ranch: string, iso: string): Promise<void> {
  await switchRanch('ledger-clock', ranch, iso);
}

async function ranchUsage(body: { ranchId: string; total?: number }): Promise<void> {
  const res = await fetch(`${analyticsBase}/_sandbox/ranch-usage`, { method: 'PUT', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`ranch usage ${JSON.stringify(body)} refused: ${res.status} ${await res.text()}`);
}

/** Sets the ranch's count for its ledger clock's month and drops its reservations (a test's starting point). */
export async function setRanchUsage(ranchId: string, total: number): Promise<void> {
  await ranchUsage({ ranchId, total });
}

/**
 * Drops the ranch's reservations for its ledger clock's month, its count kept: slots a test left
 * held (an upload it stalled, a page it closed mid-batch) would otherwise be held 15 minutes more,
 * and the next test's allowance would count them.
 */
export async function dropReservations(ranchId: string): Promise<void> {
  await ranchUsage({ ranchId });
}

/** The signed-in page's id token (what the site sends the APIs as its bearer). */
export async function idTokenOf(page: Page): Promise<string> {
  const idToken = await page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i)!;
      if (key.startsWith('CognitoIdentityServiceProvider.') && key.endsWith('.idToken')) return localStorage.getItem(key);
    }
    return null;
  });
  if (!idToken) throw new Error('no id token in the page');
  return idToken;
}

/** The uploads API's upload-metrics for a ranch and month, asked with the page's token. */
export async function uploadMetrics(page: Page, ranchId: string, yearmo: string): Promise<{ total: string; reserved: number; month: string }> {
  const res = await fetch(`${localConfig.api.uploadsBaseUrl}/ranches/${ranchId}/upload-metrics?yearmo=${yearmo}`, {
    headers: { Authorization: `Bearer ${await idTokenOf(page)}` },
  });
  if (!res.ok) throw new Error(`upload-metrics: ${res.status} ${await res.text()}`);
  return (await res.json()) as { total: string; reserved: number; month: string };
}

/**
 * A crafted client: the page's user puts an object under their own ranch with the AWS SDK and
 * the user's own identity-pool credentials, but without asking the uploads API for a slot.
 */
export async function craftedPut(page: Page, ranchId: string, key: string, body: Buffer): Promise<void> {
  const idToken = await idTokenOf(page);
  const endpoint = localConfig.auth.identityPoolEndpoint;
  const logins = { [`${endpoint.replace(/^\w+:\/\//, '')}/${localConfig.auth.userPoolId}`]: idToken };
  const identity = new CognitoIdentityClient({ region: localConfig.auth.region, endpoint });
  const { IdentityId } = await identity.send(new GetIdCommand({ IdentityPoolId: localConfig.auth.identityPoolId, Logins: logins }));
  const { Credentials: c } = await identity.send(new GetCredentialsForIdentityCommand({ IdentityId, Logins: logins }));
  const s3 = new S3Client({
    region: localConfig.storage.region,
    endpoint: 'http://localhost:20005',
    forcePathStyle: true,
    credentials: { accessKeyId: c!.AccessKeyId!, secretAccessKey: c!.SecretKey!, sessionToken: c!.SessionToken! },
  });
  await s3.send(
    new PutObjectCommand({
      Bucket: localConfig.storage.bucket,
      Key: `public/${ranchId}/${key}`,
      Body: body,
      ContentType: 'image/jpg',
      // The bucket denies writes that could overwrite (infra/src/upload-access.ts bucketPolicyDenial).
      IfNoneMatch: '*',
      Metadata: { ranchid: ranchId, camera_name: '' },
    }),
  );
}

/** The signed-in page's identity id, asked of the sandbox's identity pool with the page's id token. */
export async function identityIdOf(page: Page): Promise<string> {
  const idToken = await idTokenOf(page);
  const endpoint = localConfig.auth.identityPoolEndpoint;
  const provider = `${endpoint.replace(/^\w+:\/\//, '')}/${localConfig.auth.userPoolId}`;
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityService.GetId' },
    body: JSON.stringify({ IdentityPoolId: localConfig.auth.identityPoolId, Logins: { [provider]: idToken } }),
  });
  const body = (await res.json()) as { IdentityId?: string };
  if (!body.IdentityId) throw new Error(`GetId failed: ${JSON.stringify(body)}`);
  return body.IdentityId;
}

/**
 * The committed local contract (`config/local.json`: ids, bucket, ports) and the RuntimeConfig the
 * site needs for a sandbox on given ports. Only these values differ from production.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultBrand } from '@trailsense/shared/brand';
import type { RuntimeConfig } from '@trailsense/shared/config-types';

/** Repository root (sandbox/src/.. /..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const LOCAL_CONFIG_FILE = path.join(REPO_ROOT, 'config', 'local.json');

/**
 * Amplify's `Storage.S3.dangerouslyConnectToHttpEndpointForTesting` always sends to
 * http://localhost:20005 (path style), so this is S3's port for the site (`npm start`, the browser
 * tests). Node clients (the AWS SDK, the sandbox's own tests) can reach S3 on any port.
 */
export const S3_PORT = 20005;

/** The ports the sandbox's HTTP pieces listen on. 0 asks the OS for a free port. */
export interface SandboxPorts {
  /** Cognito gateway: user pool and identity pool endpoint. */
  gateway: number;
  /** Product API (docs/product.md#product-api). */
  api: number;
  /** Analytics sink (POST /events). */
  analytics: number;
  /** S3 (s3rver, or the link emulator in front of it): S3_PORT for a browser's Amplify. */
  s3: number;
}

/** The contract as committed (config/local.json has no brand: the site's brand module fills it). */
export type LocalContract = Omit<RuntimeConfig, 'brand'> & Partial<Pick<RuntimeConfig, 'brand'>>;

export function readLocalContract(file = LOCAL_CONFIG_FILE): LocalContract {
  return JSON.parse(readFileSync(file, 'utf8')) as LocalContract;
}

function portOf(url: string | undefined, what: string): number {
  const port = url ? Number(new URL(url).port) : NaN;
  if (!Number.isInteger(port) || port <= 0) throw new Error(`config/local.json: ${what} has no explicit port (${url ?? 'missing'})`);
  return port;
}

/**
 * The ports config/local.json promises the site: its endpoints' and, for storage, Amplify's fixed
 * test endpoint (S3_PORT), which the contract turns on.
 */
export function contractPorts(contract: LocalContract): SandboxPorts {
  return {
    gateway: portOf(contract.auth.userPoolEndpoint, 'auth.userPoolEndpoint'),
    api: portOf(contract.api.baseUrl, 'api.baseUrl'),
    analytics: portOf(contract.analytics.provider === 'sandbox' ? contract.analytics.endpoint : undefined, 'analytics.endpoint'),
    s3: S3_PORT,
  };
}

/**
 * The RuntimeConfig for a sandbox listening on `ports`: the contract with its endpoints moved there.
 * Storage has no endpoint to move: Amplify's test endpoint is always S3_PORT's.
 */
export function runtimeConfigFor(contract: LocalContract, ports: Omit<SandboxPorts, 's3'>): RuntimeConfig {
  const gateway = `http://localhost:${ports.gateway}`;
  return {
    brand: contract.brand ?? defaultBrand,
    auth: { ...contract.auth, userPoolEndpoint: gateway, identityPoolEndpoint: gateway },
    storage: { ...contract.storage, dangerouslyConnectToHttpEndpointForTesting: true },
    api: { baseUrl: `http://localhost:${ports.api}`, uploadsBaseUrl: `http://localhost:${ports.api}` },
    analytics: { provider: 'sandbox', endpoint: `http://localhost:${ports.analytics}/events`, vitalsSampleRate: 1 },
    remotes: contract.remotes,
  };
}

/** The user pool's issuer, as both the tokens and the product API's verifier say it. */
export function issuerFor(config: RuntimeConfig): string {
  return `${config.auth.userPoolEndpoint}/${config.auth.userPoolId}`;
}

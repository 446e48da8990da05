/**
 * Starting sandboxes for tests (temp data dir, every port a free one, S3's too, so test files run
 * in parallel) and configuring Amplify for them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Amplify } from 'aws-amplify';
import { PASSWORD_AUTH_TEST_CLIENT_ID } from '../../src/gateway/user-pool';
import { SEED_USERS, startSandbox } from '../../src/index';
import type { RuntimeConfig, Sandbox, SandboxOptions, SandboxPorts } from '../../src/index';

/** Every piece on a port the OS picks: a test's sandbox never needs a fixed one, not even S3's. */
export const FREE_PORTS: SandboxPorts = { gateway: 0, api: 0, analytics: 0, s3: 0 };

/** The sandbox's S3 endpoint (path style), on the port it bound. */
export const s3Endpoint = (sandbox: Pick<Sandbox, 'ports'>): string => `http://localhost:${sandbox.ports.s3}`;

/** A seed user by email (not by position: SEED_USERS grows). */
export function seedUser(email: string): (typeof SEED_USERS)[number] {
  const user = SEED_USERS.find((u) => u.email === email);
  if (!user) throw new Error(`no seed user ${email}`);
  return user;
}

export function tempDataDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'trailsense-sandbox-'));
}

/** Starts a quiet sandbox on free ports. */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ dataDir: tempDataDir(), quiet: true, ports: FREE_PORTS, ...options });
}

export async function stopTestSandbox(sandbox: Sandbox | undefined, removeData = true): Promise<void> {
  if (sandbox) {
    await sandbox.stop();
    if (removeData) rmSync(sandbox.dataDir, { recursive: true, force: true });
  }
}

/**
 * What the site's shared package does with /config.json, minus the browser, for this sandbox: its
 * storage calls go to the sandbox's S3 port (amplifyS3TestEndpoint).
 */
export function configureAmplify(sandbox: Pick<Sandbox, 'config' | 'ports'>): void {
  // Amplify warns (correctly) that the endpoints are custom; that is the point here.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('custom Amazon')) warn(...args);
  };
  try {
    configure(sandbox.config);
  } finally {
    console.warn = warn;
  }
  amplifyS3TestEndpoint(s3Endpoint(sandbox));
}

/**
 * Points Amplify's storage test endpoint at `endpoint` in this test file's module registry.
 * With `dangerouslyConnectToHttpEndpointForTesting` Amplify sends every storage call to its
 * constant `LOCAL_TESTING_S3_ENDPOINT` (http://localhost:20005, @aws-amplify/storage's
 * providers/s3/utils/constants; patches/@aws-amplify+storage+6.17.0.patch shows where it is
 * compared), read at each call, before the request is signed: changed here, the request goes to,
 * and is signed for, the test's sandbox. The browser keeps 20005 (config.ts S3_PORT).
 */
function amplifyS3TestEndpoint(endpoint: string): void {
  const constants = path.join(path.dirname(require.resolve('@aws-amplify/storage')), 'providers', 's3', 'utils', 'constants.js');
  const amplify = jest.requireActual<{ LOCAL_TESTING_S3_ENDPOINT: string }>(constants);
  if (typeof amplify.LOCAL_TESTING_S3_ENDPOINT !== 'string') throw new Error(`${constants} no longer exports LOCAL_TESTING_S3_ENDPOINT: Amplify changed`);
  amplify.LOCAL_TESTING_S3_ENDPOINT = endpoint;
}

function configure(config: RuntimeConfig): void {
  Amplify.configure({
    Auth: {
      Cognito: {
        userPoolId: config.auth.userPoolId,
        userPoolClientId: config.auth.userPoolClientId,
        identityPoolId: config.auth.identityPoolId,
        userPoolEndpoint: config.auth.userPoolEndpoint,
        identityPoolEndpoint: config.auth.identityPoolEndpoint,
        loginWith: { email: true },
        signUpVerificationMethod: 'code',
      },
    },
    Storage: {
      S3: {
        bucket: config.storage.bucket,
        region: config.storage.region,
        dangerouslyConnectToHttpEndpointForTesting: config.storage.dangerouslyConnectToHttpEndpointForTesting ? 'true' : undefined,
      },
    },
  });
}

/** A raw Cognito call through the gateway, as Amplify would send it. */
export async function cognitoCall(config: RuntimeConfig, target: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(config.auth.userPoolEndpoint as string, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': target },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** Tokens by USER_PASSWORD_AUTH through the test client (quicker than SRP when the test is about something else). */
export async function passwordTokens(
  config: RuntimeConfig,
  email: string,
  password: string,
): Promise<{ IdToken: string; AccessToken: string; RefreshToken: string }> {
  const { status, json } = await cognitoCall(config, 'AWSCognitoIdentityProviderService.InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    // The web client allows SRP only, as in production; the gateway has a test client for this.
    ClientId: PASSWORD_AUTH_TEST_CLIENT_ID,
    AuthParameters: { USERNAME: email, PASSWORD: password },
  });
  if (status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(json)}`);
  return json['AuthenticationResult'] as { IdToken: string; AccessToken: string; RefreshToken: string };
}

export async function apiGet(config: RuntimeConfig, pathname: string, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${config.api.baseUrl}${pathname}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/**
 * A restart keeps users, objects, counts, reservations and revoked tokens; --reset reseeds.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { jpegBytes } from '../../test-support/jpeg';
import { fetchAuthSession, signIn, signOut, signUp, confirmSignUp } from 'aws-amplify/auth';
import { uploadData } from 'aws-amplify/storage';
import type { Sandbox } from '../src/index';
import { PortInUseError, startSandbox, countingMonth } from '../src/index';
import { apiGet, cognitoCall, configureAmplify, FREE_PORTS, passwordTokens, s3Endpoint, seedUser, tempDataDir } from './support/sandbox';
import { operatorFetch } from './support/sign';
import { fingerprintOf, newFingerprints, reserve, uploadsApi } from './support/uploads';

const subscriber = seedUser('subscriber@trailsense.example');
const dataDir = tempDataDir();
const email = 'returning@trailsense.example';
const key = `public/cedar-creek/${randomUUID()}.jpg`;
let sandbox: Sandbox | undefined;

/**
 * The gateway's port is kept across restarts: the issuer names it, and a restarted sandbox must
 * accept the same tokens, as it does on the developer's machine. Below Linux's ephemeral range
 * (32768–60999): a port in it may be held at that moment as the local end of some other test's
 * outgoing connection, and listening on it then fails. Picked at random there, again while taken
 * (another jest run of this file, a developer's program), so no fixed port is shared. The other
 * ports are named in nothing kept: any free ones, each start (Amplify is pointed at S3's).
 */
let gatewayPort: number | undefined;
const lowPort = () => 20_000 + Math.floor(Math.random() * 12_000);

async function start(reset = false): Promise<Sandbox> {
  for (let attempt = 1; ; attempt++) {
    const gateway = gatewayPort ?? lowPort();
    try {
      const started = await startSandbox({ dataDir, reset, quiet: true, ports: { ...FREE_PORTS, gateway } });
      gatewayPort = gateway;
      configureAmplify(started);
      return started;
    } catch (err) {
      if (gatewayPort !== undefined || !(err instanceof PortInUseError) || attempt === 20) throw err;
    }
  }
}

/** The object's metadata as the operator reads it (its own key pair: the user's role may not read). */
async function storedMetadata(): Promise<Record<string, string> | 'not found'> {
  const res = await operatorFetch(`${s3Endpoint(sandbox!)}/${sandbox!.config.storage.bucket}/${key}`, { method: 'HEAD' });
  if (res.status === 404) return 'not found';
  return Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('x-amz-meta-')));
}

/** Whether the reservation is still held (live: it can be renewed); 'unknown' when the month has no such reservation. */
async function held(reservation: string): Promise<boolean | 'unknown'> {
  const token = (await fetchAuthSession()).tokens!.idToken!.toString();
  const { status } = await uploadsApi(sandbox!.config, 'POST', `/ranches/cedar-creek/reservations/${reservation}/renew`, token);
  return status === 404 ? 'unknown' : status === 200;
}

async function metrics(): Promise<{ total: string; reserved: number }> {
  const token = (await fetchAuthSession()).tokens!.idToken!.toString();
  return (await apiGet(sandbox!.config, `/ranches/cedar-creek/upload-metrics?yearmo=${countingMonth(new Date())}`, token)).json as {
    total: string;
    reserved: number;
  };
}

afterAll(async () => {
  await signOut().catch(() => undefined);
  await sandbox?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps users, objects and counts across a restart, and forgets them on reset', async () => {
  sandbox = await start();
  await signUp({ username: email, password: 'remember me', options: { userAttributes: { email } } });
  await confirmSignUp({ username: email, confirmationCode: sandbox.lastCode(email)! });
  await signIn({ username: subscriber.email, password: subscriber.password });
  // Two slots reserved, one used: the other is still held after the restart.
  const kept = jpegBytes('kept');
  const fingerprint = fingerprintOf(kept);
  const token = (await fetchAuthSession()).tokens!.idToken!.toString();
  const reservation = await reserve(sandbox.config, token, 'cedar-creek', [fingerprint, ...newFingerprints(1)]);
  const metadata = { ranchid: 'cedar-creek', reservation, fingerprint };
  await uploadData({ path: key, data: kept, options: { contentType: 'image/jpg', preventOverwrite: true, metadata } }).result;
  expect(await metrics()).toMatchObject({ total: '1' });
  expect(await held(reservation)).toBe(true);
  await signOut();
  await sandbox.stop();

  sandbox = await start();
  expect((await signIn({ username: email, password: 'remember me' })).isSignedIn).toBe(true);
  await signOut();
  await signIn({ username: subscriber.email, password: subscriber.password });
  expect(await storedMetadata()).toEqual({ 'x-amz-meta-ranchid': 'cedar-creek', 'x-amz-meta-reservation': reservation, 'x-amz-meta-fingerprint': fingerprint });
  expect(await metrics()).toMatchObject({ total: '1' });
  expect(await held(reservation)).toBe(true);
  await signOut();
  await sandbox.stop();

  sandbox = await start(true);
  await expect(signIn({ username: email, password: 'remember me' })).rejects.toMatchObject({ name: 'NotAuthorizedException' });
  await signIn({ username: subscriber.email, password: subscriber.password });
  expect(await metrics()).toMatchObject({ total: '', reserved: 0 });
  expect(await held(reservation)).toBe('unknown');
  expect(await storedMetadata()).toBe('not found');
});

it('keeps refusing a revoked refresh token, and the access tokens it issued, after a restart', async () => {
  sandbox ??= await start();
  const call = (operation: string, body: unknown) => cognitoCall(sandbox!.config, `AWSCognitoIdentityProviderService.${operation}`, body);
  const clientId = sandbox.config.auth.userPoolClientId;
  const tokens = await passwordTokens(sandbox.config, subscriber.email, subscriber.password);
  expect(await call('RevokeToken', { ClientId: clientId, Token: tokens.RefreshToken })).toEqual({ status: 200, json: {} });
  await sandbox.stop();

  sandbox = await start();
  expect(await call('GetTokensFromRefreshToken', { ClientId: clientId, RefreshToken: tokens.RefreshToken })).toEqual({
    status: 400,
    json: { __type: 'NotAuthorizedException', message: 'Refresh Token has been revoked' },
  });
  expect(await call('GetUser', { AccessToken: tokens.AccessToken })).toEqual({
    status: 400,
    json: { __type: 'NotAuthorizedException', message: 'Access Token has been revoked' },
  });
  // Another sign-in is not affected.
  const again = await passwordTokens(sandbox.config, subscriber.email, subscriber.password);
  expect((await call('GetUser', { AccessToken: again.AccessToken })).status).toBe(200);
});

/**
 * Conformance with clients no one here wrote: the AWS SDK for JavaScript v3 (Cognito user pools,
 * Cognito identity, S3) and amazon-cognito-identity-js (its own SRP implementation) drive the
 * sandbox through the flows the product relies on. If the sandbox answered only what aws-amplify
 * happens to send, these would fail (sandbox/README.md, "Cognito gateway" and "S3").
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CognitoIdentityClient, GetCredentialsForIdentityCommand, GetIdCommand } from '@aws-sdk/client-cognito-identity';
import {
  ChangePasswordCommand,
  CognitoIdentityProviderClient,
  GetUserCommand,
  GlobalSignOutCommand,
  InitiateAuthCommand,
  UpdateUserAttributesCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { CompleteMultipartUploadCommand, CreateMultipartUploadCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { AuthenticationDetails, CognitoUser, CognitoUserPool } from 'amazon-cognito-identity-js';
import type { CognitoUserSession } from 'amazon-cognito-identity-js';
import { S3_PORT } from '../src/config';
import type { Sandbox } from '../src/index';
import { SEED_USERS } from '../src/index';
import { startTestSandbox, stopTestSandbox } from './support/sandbox';

type SeedUser = (typeof SEED_USERS)[number];
const [subscriber, free, lapsed] = SEED_USERS as [SeedUser, SeedUser, SeedUser];
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => stopTestSandbox(sandbox));

const region = () => sandbox.config.auth.region;
const userPools = () => new CognitoIdentityProviderClient({ region: region(), endpoint: sandbox.config.auth.userPoolEndpoint });
const identities = () => new CognitoIdentityClient({ region: region(), endpoint: sandbox.config.auth.identityPoolEndpoint });

/** Sign-in with amazon-cognito-identity-js's own SRP (USER_SRP_AUTH), as its users do. */
function srpSignIn(email: string, password: string): Promise<CognitoUserSession> {
  const pool = new CognitoUserPool({ UserPoolId: sandbox.config.auth.userPoolId, ClientId: sandbox.config.auth.userPoolClientId, endpoint: sandbox.config.auth.userPoolEndpoint });
  const user = new CognitoUser({ Username: email, Pool: pool });
  return new Promise((resolve, reject) => {
    user.authenticateUser(new AuthenticationDetails({ Username: email, Password: password }), {
      onSuccess: resolve,
      onFailure: (error: unknown) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
    });
  });
}

/** What an SDK call was refused with: its error name. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as Error).name;
  }
  return 'not refused';
}

const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

/** The identity pool's credentials for a signed-in user (GetId, then GetCredentialsForIdentity). */
async function identityCredentials(idToken: string) {
  const providerName = String(claims(idToken)['iss']).replace(/^\w+:\/\//, '');
  const logins = { [providerName]: idToken };
  const { IdentityId } = await identities().send(new GetIdCommand({ IdentityPoolId: sandbox.config.auth.identityPoolId, Logins: logins }));
  const answer = await identities().send(new GetCredentialsForIdentityCommand({ IdentityId, Logins: logins }));
  const c = answer.Credentials!;
  return { identityId: IdentityId!, credentials: { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretKey!, sessionToken: c.SessionToken!, expiration: c.Expiration } };
}

/** An S3 client as any SDK user would make one for the sandbox's endpoint (path style). */
function s3For(credentials: Awaited<ReturnType<typeof identityCredentials>>['credentials']): S3Client {
  return new S3Client({
    region: sandbox.config.storage.region,
    endpoint: `http://localhost:${S3_PORT}`,
    forcePathStyle: true,
    credentials,
    // The SDK's default since 2025 sends a CRC32 trailer in an aws-chunked body; the product's
    // uploads (Amplify) send plain bodies, which is what the sandbox stores.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

const objectFile = (key: string, suffix = '._S3rver_object') => path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}${suffix}`);

describe('user pool, with the AWS SDK v3 and amazon-cognito-identity-js', () => {
  it('signs in with an independent SRP implementation, and the id token carries the ranch', async () => {
    const session = await srpSignIn(subscriber.email, subscriber.password);
    const id = claims(session.getIdToken().getJwtToken());
    expect(id).toEqual(expect.objectContaining({ email: subscriber.email, 'custom:ranchid': 'cedar-creek', token_use: 'id' }));
    expect(claims(session.getAccessToken().getJwtToken())).toEqual(expect.objectContaining({ token_use: 'access', client_id: sandbox.config.auth.userPoolClientId }));
  });

  it('refuses a wrong password to that SRP client as Cognito does', async () => {
    const error = await srpSignIn(subscriber.email, 'not-the-password-1').catch((e: unknown) => e as { code?: string; name?: string; message?: string });
    expect(error).toEqual(expect.objectContaining({ message: 'Incorrect username or password.' }));
  });

  it('refreshes with REFRESH_TOKEN_AUTH through the SDK', async () => {
    const session = await srpSignIn(subscriber.email, subscriber.password);
    const answer = await userPools().send(
      new InitiateAuthCommand({ AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: sandbox.config.auth.userPoolClientId, AuthParameters: { REFRESH_TOKEN: session.getRefreshToken().getToken() } }),
    );
    expect(claims(answer.AuthenticationResult!.AccessToken!)).toEqual(expect.objectContaining({ username: claims(session.getAccessToken().getJwtToken())['username'] }));
    expect(claims(answer.AuthenticationResult!.IdToken!)['custom:ranchid']).toBe('cedar-creek');
  });

  it('reads and writes the attributes the web client may write', async () => {
    const access = (await srpSignIn(free.email, free.password)).getAccessToken().getJwtToken();
    await userPools().send(new UpdateUserAttributesCommand({ AccessToken: access, UserAttributes: [{ Name: 'name', Value: 'Mesquite Conformance' }] }));
    const user = await userPools().send(new GetUserCommand({ AccessToken: access }));
    const attributes = Object.fromEntries((user.UserAttributes ?? []).map((a) => [a.Name, a.Value]));
    expect(attributes).toEqual(expect.objectContaining({ email: free.email, name: 'Mesquite Conformance', 'custom:ranchid': 'mesquite-flats' }));
  });

  it('changes the password: the new one signs in, the old one no longer does', async () => {
    const access = (await srpSignIn(lapsed.email, lapsed.password)).getAccessToken().getJwtToken();
    await userPools().send(new ChangePasswordCommand({ AccessToken: access, PreviousPassword: lapsed.password, ProposedPassword: 'PineHollow2026new' }));
    await expect(srpSignIn(lapsed.email, 'PineHollow2026new')).resolves.toBeDefined();
    await expect(srpSignIn(lapsed.email, lapsed.password)).rejects.toEqual(expect.objectContaining({ message: 'Incorrect username or password.' }));
  });

  it('signs out everywhere: the access token and the refresh token stop working', async () => {
    const session = await srpSignIn(subscriber.email, subscriber.password);
    const access = session.getAccessToken().getJwtToken();
    await userPools().send(new GlobalSignOutCommand({ AccessToken: access }));
    expect(await refusal(userPools().send(new GetUserCommand({ AccessToken: access })))).toBe('NotAuthorizedException');
    expect(
      await refusal(
        userPools().send(new InitiateAuthCommand({ AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: sandbox.config.auth.userPoolClientId, AuthParameters: { REFRESH_TOKEN: session.getRefreshToken().getToken() } })),
      ),
    ).toBe('NotAuthorizedException');
  });
});

describe('identity pool and S3, with the AWS SDK v3', () => {
  it('gives a signed-in user an identity and temporary credentials, and none without a login', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const { identityId, credentials } = await identityCredentials(idToken);
    expect(identityId).toMatch(/^us-east-2:[0-9a-f-]{36}$/);
    expect(credentials).toEqual(expect.objectContaining({ accessKeyId: expect.any(String), secretAccessKey: expect.any(String), sessionToken: expect.any(String) }));
    expect(credentials.expiration!.getTime()).toBeGreaterThan(Date.now());
    expect(await refusal(identities().send(new GetIdCommand({ IdentityPoolId: sandbox.config.auth.identityPoolId })))).toBe('NotAuthorizedException');
  });

  it('stores a put with metadata under the caller’s ranch, and the object-created function tags it', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const key = `public/mesquite-flats/${randomUUID()}.jpg`;
    await s3.send(new PutObjectCommand({ Bucket: sandbox.config.storage.bucket, Key: key, Body: Buffer.from('sdk jpeg'), ContentType: 'image/jpg', CacheControl: 'no-cache', Metadata: { ranchid: 'mesquite-flats', camera_name: 'North feeder' } }));
    expect(readFileSync(objectFile(key), 'utf8')).toBe('sdk jpeg');
    const metadata = JSON.parse(readFileSync(objectFile(key, '._S3rver_metadata.json'), 'utf8')) as Record<string, string>;
    expect(metadata).toEqual(expect.objectContaining({ 'x-amz-meta-ranchid': 'mesquite-flats', 'x-amz-meta-camera_name': 'North feeder', 'content-type': 'image/jpg' }));
    expect(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8')).toMatch(/<Key>ranchid<\/Key>\s*<Value>mesquite-flats<\/Value>/);
  });

  it('stores a multipart put (two parts) under the caller’s private ranch folder', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const { identityId, credentials } = await identityCredentials(idToken);
    const s3 = s3For(credentials);
    const Bucket = sandbox.config.storage.bucket;
    const Key = `private/${identityId}/mesquite-flats/${randomUUID()}.jpg`;
    const first = Buffer.alloc(5 * 1024 * 1024, 1);
    const second = Buffer.from('the rest of the photo');
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'image/jpg', Metadata: { ranchid: 'mesquite-flats', camera_name: '' } }));
    const parts = [];
    for (const [index, body] of [first, second].entries()) {
      const { ETag } = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: index + 1, Body: body }));
      parts.push({ ETag, PartNumber: index + 1 });
    }
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
    expect(existsSync(objectFile(Key))).toBe(true);
    expect(readFileSync(objectFile(Key)).length).toBe(first.length + second.length);
    expect(readFileSync(objectFile(Key, '._S3rver_tagging.xml'), 'utf8')).toMatch(/<Value>mesquite-flats<\/Value>/);
  });

  it('refuses the same SDK put under another ranch (AccessDenied), storing nothing', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const put = s3.send(new PutObjectCommand({ Bucket: sandbox.config.storage.bucket, Key: key, Body: Buffer.from('x'), Metadata: { ranchid: 'cedar-creek', camera_name: '' } }));
    expect(await refusal(put)).toBe('AccessDenied');
    expect(existsSync(objectFile(key))).toBe(false);
  });
});

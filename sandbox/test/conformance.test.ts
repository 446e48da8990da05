/**
 * Conformance with clients no one here wrote: the AWS SDK for JavaScript v3 (Cognito user pools,
 * Cognito identity, S3) and amazon-cognito-identity-js (its own SRP implementation) drive the
 * sandbox through the flows the product relies on, and through each request it must refuse as
 * AWS refuses it. If the sandbox answered only what aws-amplify happens to send, or took what AWS
 * would not, these would fail (sandbox/README.md, "Cognito gateway" and "S3").
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jpegBytes } from '../../test-support/jpeg';
import { CognitoIdentityClient, GetCredentialsForIdentityCommand, GetIdCommand } from '@aws-sdk/client-cognito-identity';
import {
  AdminSetUserPasswordCommand,
  AdminUpdateUserAttributesCommand,
  ChangePasswordCommand,
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  GetUserCommand,
  GlobalSignOutCommand,
  InitiateAuthCommand,
  ListUsersCommand,
  RespondToAuthChallengeCommand,
  SignUpCommand,
  UpdateUserAttributesCommand,
  UpdateUserPoolClientCommand,
  VerifyUserAttributeCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { StorageClass } from '@aws-sdk/client-s3';
import { AuthenticationDetails, CognitoUser, CognitoUserPool } from 'amazon-cognito-identity-js';
import type { CognitoUserSession } from 'amazon-cognito-identity-js';
import type { Sandbox } from '../src/index';
import { s3Endpoint, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorS3 } from './support/sign';
import { reservedMetadata } from './support/uploads';

const subscriber = seedUser('subscriber@trailsense.example');
const free = seedUser('free@trailsense.example');
const lapsed = seedUser('lapsed@trailsense.example');
let sandbox: Sandbox;
/** While set, the user pool's clock stands still here: a lockout cannot lapse between two calls on a slow machine. */
let heldAt: number | undefined;

beforeAll(async () => {
  sandbox = await startTestSandbox({ authClock: () => heldAt ?? Date.now() });
});
afterAll(() => stopTestSandbox(sandbox));

const region = () => sandbox.config.auth.region;
const userPools = () => new CognitoIdentityProviderClient({ region: region(), endpoint: sandbox.config.auth.userPoolEndpoint });
const identities = () => new CognitoIdentityClient({ region: region(), endpoint: sandbox.config.auth.identityPoolEndpoint });

/** Sign-in with amazon-cognito-identity-js's own SRP (USER_SRP_AUTH), as its users do. */
function srpSignIn(email: string, password: string): Promise<CognitoUserSession> {
  const pool = new CognitoUserPool({
    UserPoolId: sandbox.config.auth.userPoolId,
    ClientId: sandbox.config.auth.userPoolClientId,
    endpoint: sandbox.config.auth.userPoolEndpoint,
  });
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
  return {
    identityId: IdentityId!,
    credentials: { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretKey!, sessionToken: c.SessionToken!, expiration: c.Expiration },
  };
}

/** An S3 client as any SDK user would make one for the sandbox's endpoint (path style). */
function s3For(credentials: Awaited<ReturnType<typeof identityCredentials>>['credentials']): S3Client {
  return new S3Client({
    region: sandbox.config.storage.region,
    endpoint: s3Endpoint(sandbox),
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
    expect(claims(session.getAccessToken().getJwtToken())).toEqual(
      expect.objectContaining({ token_use: 'access', client_id: sandbox.config.auth.userPoolClientId }),
    );
  });

  it('refuses a wrong password to that SRP client as Cognito does', async () => {
    const error = await srpSignIn(subscriber.email, 'not-the-password-1').catch((e: unknown) => e as { code?: string; name?: string; message?: string });
    expect(error).toEqual(expect.objectContaining({ message: 'Incorrect username or password.' }));
  });

  it('refreshes with REFRESH_TOKEN_AUTH through the SDK', async () => {
    const session = await srpSignIn(subscriber.email, subscriber.password);
    const answer = await userPools().send(
      new InitiateAuthCommand({
        AuthFlow: 'REFRESH_TOKEN_AUTH',
        ClientId: sandbox.config.auth.userPoolClientId,
        AuthParameters: { REFRESH_TOKEN: session.getRefreshToken().getToken() },
      }),
    );
    expect(claims(answer.AuthenticationResult!.AccessToken!)).toEqual(
      expect.objectContaining({ username: claims(session.getAccessToken().getJwtToken())['username'] }),
    );
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
        userPools().send(
          new InitiateAuthCommand({
            AuthFlow: 'REFRESH_TOKEN_AUTH',
            ClientId: sandbox.config.auth.userPoolClientId,
            AuthParameters: { REFRESH_TOKEN: session.getRefreshToken().getToken() },
          }),
        ),
      ),
    ).toBe('NotAuthorizedException');
  });
});

describe('identity pool and S3, with the AWS SDK v3', () => {
  it('gives a signed-in user an identity and temporary credentials, and none without a login', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const { identityId, credentials } = await identityCredentials(idToken);
    expect(identityId).toMatch(/^us-east-2:[0-9a-f-]{36}$/);
    expect(credentials).toEqual(
      expect.objectContaining({ accessKeyId: expect.any(String), secretAccessKey: expect.any(String), sessionToken: expect.any(String) }),
    );
    expect(credentials.expiration!.getTime()).toBeGreaterThan(Date.now());
    expect(await refusal(identities().send(new GetIdCommand({ IdentityPoolId: sandbox.config.auth.identityPoolId })))).toBe('NotAuthorizedException');
  });

  it('stores a put with metadata under the caller’s ranch, and the object-created function tags it', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const key = `public/mesquite-flats/${randomUUID()}.jpg`;
    // Under a slot the uploads API reserved for it, as the uploader sends it; else it is removed.
    const photo = jpegBytes(`sdk jpeg ${key}`);
    const ledger = await reservedMetadata(sandbox.config, idToken, 'mesquite-flats', photo);
    await s3.send(
      new PutObjectCommand({
        Bucket: sandbox.config.storage.bucket,
        Key: key,
        Body: photo,
        ContentType: 'image/jpg',
        CacheControl: 'no-cache',
        // The bucket denies writes that could overwrite (infra/src/upload-access.ts bucketPolicyDenial).
        IfNoneMatch: '*',
        Metadata: { ranchid: 'mesquite-flats', camera_name: 'North feeder', ...ledger },
      }),
    );
    expect(readFileSync(objectFile(key))).toEqual(photo);
    const metadata = JSON.parse(readFileSync(objectFile(key, '._S3rver_metadata.json'), 'utf8')) as Record<string, string>;
    expect(metadata).toEqual(
      expect.objectContaining({ 'x-amz-meta-ranchid': 'mesquite-flats', 'x-amz-meta-camera_name': 'North feeder', 'content-type': 'image/jpg' }),
    );
    expect(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8')).toMatch(/<Key>ranchid<\/Key>\s*<Value>mesquite-flats<\/Value>/);
  });

  it('stores a multipart put (two parts) under the caller’s private ranch folder', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const { identityId, credentials } = await identityCredentials(idToken);
    const s3 = s3For(credentials);
    const Bucket = sandbox.config.storage.bucket;
    const Key = `private/${identityId}/mesquite-flats/${randomUUID()}.jpg`;
    // A part but the last is at least 5 MB; the photo starts as a JPEG does.
    const first = jpegBytes(`multipart ${Key}`, 5 * 1024 * 1024);
    const second = Buffer.from('the rest of the photo');
    const ledger = await reservedMetadata(sandbox.config, idToken, 'mesquite-flats', Buffer.concat([first, second]));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'image/jpg', Metadata: { ranchid: 'mesquite-flats', camera_name: '', ...ledger } }),
    );
    const parts = [];
    for (const [index, body] of [first, second].entries()) {
      const { ETag } = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: index + 1, Body: body }));
      parts.push({ ETag, PartNumber: index + 1 });
    }
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, IfNoneMatch: '*', MultipartUpload: { Parts: parts } }));
    expect(existsSync(objectFile(Key))).toBe(true);
    expect(readFileSync(objectFile(Key)).length).toBe(first.length + second.length);
    expect(readFileSync(objectFile(Key, '._S3rver_tagging.xml'), 'utf8')).toMatch(/<Value>mesquite-flats<\/Value>/);
  });

  it('refuses a put without If-None-Match (the bucket denies overwrites), and a second put of a stored key (412)', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const Bucket = sandbox.config.storage.bucket;
    const Key = `public/mesquite-flats/${randomUUID()}.jpg`;
    const photos: Record<string, Buffer> = { 'first photo': jpegBytes(`first photo ${Key}`), 'another photo': jpegBytes(`another photo ${Key}`) };
    const ledger = await reservedMetadata(sandbox.config, idToken, 'mesquite-flats', photos['first photo']!);
    const put = (body: string, conditional: boolean) =>
      s3.send(
        new PutObjectCommand({
          Bucket,
          Key,
          Body: photos[body],
          ContentType: 'image/jpg',
          ...(conditional ? { IfNoneMatch: '*' } : {}),
          Metadata: { ranchid: 'mesquite-flats', camera_name: '', ...ledger },
        }),
      );
    expect(await refusal(put('first photo', false))).toBe('AccessDenied');
    expect(existsSync(objectFile(Key))).toBe(false);
    await put('first photo', true);
    expect(await refusal(put('another photo', true))).toBe('PreconditionFailed');
    expect(await refusal(put('another photo', false))).toBe('AccessDenied');
    expect(readFileSync(objectFile(Key))).toEqual(photos['first photo']);
  });

  it('refuses a multipart upload completed without If-None-Match; its parts need none', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const Bucket = sandbox.config.storage.bucket;
    const Key = `public/mesquite-flats/${randomUUID()}.jpg`;
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key, Metadata: { ranchid: 'mesquite-flats', camera_name: '' } }));
    const { ETag } = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: Buffer.from('only part') }));
    const complete = s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: [{ ETag, PartNumber: 1 }] } }));
    expect(await refusal(complete)).toBe('AccessDenied');
    expect(existsSync(objectFile(Key))).toBe(false);
  });

  it('refuses a put that names a storage class other than STANDARD (the bucket policy); STANDARD is stored', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const Bucket = sandbox.config.storage.bucket;
    const put = async (StorageClass: StorageClass) => {
      const Key = `public/mesquite-flats/${randomUUID()}.jpg`;
      const photo = jpegBytes(Key);
      const ledger = await reservedMetadata(sandbox.config, idToken, 'mesquite-flats', photo);
      const Metadata = { ranchid: 'mesquite-flats', camera_name: '', ...ledger };
      const answer = await refusal(
        s3.send(new PutObjectCommand({ Bucket, Key, Body: photo, ContentType: 'image/jpg', IfNoneMatch: '*', StorageClass, Metadata })),
      );
      return [StorageClass, answer, existsSync(objectFile(Key))];
    };
    expect(await put('GLACIER')).toEqual(['GLACIER', 'AccessDenied', false]);
    expect(await put('ONEZONE_IA')).toEqual(['ONEZONE_IA', 'AccessDenied', false]);
    expect(await put('STANDARD')).toEqual(['STANDARD', 'not refused', true]);
    // CreateMultipartUpload names the class of the object to be.
    const create = s3.send(new CreateMultipartUploadCommand({ Bucket, Key: `public/mesquite-flats/${randomUUID()}.jpg`, StorageClass: 'DEEP_ARCHIVE' }));
    expect(await refusal(create)).toBe('AccessDenied');
  });

  it('refuses the same SDK put under another ranch (AccessDenied), storing nothing', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const put = s3.send(
      new PutObjectCommand({ Bucket: sandbox.config.storage.bucket, Key: key, Body: Buffer.from('x'), Metadata: { ranchid: 'cedar-creek', camera_name: '' } }),
    );
    expect(await refusal(put)).toBe('AccessDenied');
    expect(existsSync(objectFile(key))).toBe(false);
  });
});

/** The message an SDK call was refused with, after its error name. */
async function refusalWithMessage(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return 'not refused';
}

/** Signs up and confirms a user of its own through the SDK (the code comes from the sandbox's log). */
async function sdkFreshUser(password = 'long enough'): Promise<string> {
  const email = `conformance.${randomUUID().slice(0, 8)}@trailsense.example`;
  const ClientId = sandbox.config.auth.userPoolClientId;
  await userPools().send(new SignUpCommand({ ClientId, Username: email, Password: password, UserAttributes: [{ Name: 'email', Value: email }] }));
  await userPools().send(new ConfirmSignUpCommand({ ClientId, Username: email, ConfirmationCode: sandbox.lastCode(email)! }));
  return email;
}

describe('what the user pool refuses, as the SDK and amazon-cognito-identity-js see it', () => {
  const clientId = () => sandbox.config.auth.userPoolClientId;

  it('refuses an SMS_MFA answer to a session it never issued: no tokens without a password', async () => {
    const answer = userPools().send(
      new RespondToAuthChallengeCommand({
        ClientId: clientId(),
        ChallengeName: 'SMS_MFA',
        Session: 'made-up',
        ChallengeResponses: { USERNAME: subscriber.email, SMS_MFA_CODE: '123456' },
      }),
    );
    expect(await refusalWithMessage(answer)).toBe('NotAuthorizedException: Invalid session for the user.');
  });

  it('refuses a NEW_PASSWORD_REQUIRED answer to a session it never issued', async () => {
    const answer = userPools().send(
      new RespondToAuthChallengeCommand({
        ClientId: clientId(),
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session: 'made-up',
        ChallengeResponses: { USERNAME: subscriber.email, NEW_PASSWORD: 'taken over!' },
      }),
    );
    expect(await refusalWithMessage(answer)).toBe('NotAuthorizedException: Invalid session for the user.');
    await expect(srpSignIn(subscriber.email, 'taken over!')).rejects.toEqual(expect.objectContaining({ message: 'Incorrect username or password.' }));
  });

  it('refuses ConfirmForgotPassword without a code, and the password stays', async () => {
    const email = await sdkFreshUser();
    const reset = userPools().send(new ConfirmForgotPasswordCommand({ ClientId: clientId(), Username: email, Password: 'taken over!' } as never));
    expect(await refusalWithMessage(reset)).toBe('InvalidParameterException: Missing required parameter ConfirmationCode');
    await expect(srpSignIn(email, 'long enough')).resolves.toBeDefined();
  });

  it('refuses VerifyUserAttribute without a code', async () => {
    const access = (await srpSignIn(await sdkFreshUser(), 'long enough')).getAccessToken().getJwtToken();
    const verify = userPools().send(new VerifyUserAttributeCommand({ AccessToken: access, AttributeName: 'email' } as never));
    expect(await refusalWithMessage(verify)).toBe('InvalidParameterException: Missing required parameter Code');
  });

  it('refuses the operations that need IAM credentials (the SDK signs them; no key is recognised)', async () => {
    const admin = new CognitoIdentityProviderClient({
      region: region(),
      endpoint: sandbox.config.auth.userPoolEndpoint,
      credentials: { accessKeyId: 'AKIAEXAMPLEOPERATOR0', secretAccessKey: 'made-up' },
    });
    const UserPoolId = sandbox.config.auth.userPoolId;
    const unrecognized = 'UnrecognizedClientException: The security token included in the request is invalid.';
    expect(await refusalWithMessage(admin.send(new ListUsersCommand({ UserPoolId })))).toBe(unrecognized);
    expect(
      await refusalWithMessage(admin.send(new AdminSetUserPasswordCommand({ UserPoolId, Username: free.email, Password: 'taken over!', Permanent: true }))),
    ).toBe(unrecognized);
    expect(
      await refusalWithMessage(
        admin.send(
          new AdminUpdateUserAttributesCommand({ UserPoolId, Username: free.email, UserAttributes: [{ Name: 'custom:ranchid', Value: 'cedar-creek' }] }),
        ),
      ),
    ).toBe(unrecognized);
    expect(
      await refusalWithMessage(
        admin.send(new UpdateUserPoolClientCommand({ UserPoolId, ClientId: clientId(), ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'] })),
      ),
    ).toBe(unrecognized);
    const id = claims((await srpSignIn(free.email, free.password)).getIdToken().getJwtToken());
    expect(id['custom:ranchid']).toBe('mesquite-flats');
  });

  it('refuses a user writing custom:ranchid on themselves', async () => {
    const session = await srpSignIn(await sdkFreshUser(), 'long enough');
    const write = userPools().send(
      new UpdateUserAttributesCommand({
        AccessToken: session.getAccessToken().getJwtToken(),
        UserAttributes: [{ Name: 'custom:ranchid', Value: 'cedar-creek' }],
      }),
    );
    expect(await refusalWithMessage(write)).toBe('NotAuthorizedException: A client attempted to write unauthorized attribute');
    const user = await userPools().send(new GetUserCommand({ AccessToken: session.getAccessToken().getJwtToken() }));
    expect((user.UserAttributes ?? []).some((a) => a.Name === 'custom:ranchid')).toBe(false);
  });

  it('refuses a sign-up that chooses its sub, email_verified or custom:ranchid', async () => {
    for (const extra of [
      { Name: 'sub', Value: '00000000-0000-0000-0000-000000000000' },
      { Name: 'email_verified', Value: 'true' },
      { Name: 'custom:ranchid', Value: 'cedar-creek' },
    ]) {
      const email = `chooser.${randomUUID().slice(0, 8)}@trailsense.example`;
      const up = userPools().send(
        new SignUpCommand({ ClientId: clientId(), Username: email, Password: 'long enough', UserAttributes: [{ Name: 'email', Value: email }, extra] }),
      );
      expect([extra.Name, await refusalWithMessage(up)]).toEqual([extra.Name, 'NotAuthorizedException: A client attempted to write unauthorized attribute']);
    }
  });

  it('leaves a changed email unverified', async () => {
    const access = (await srpSignIn(await sdkFreshUser(), 'long enough')).getAccessToken().getJwtToken();
    const moved = `moved.${randomUUID().slice(0, 8)}@trailsense.example`;
    await userPools().send(new UpdateUserAttributesCommand({ AccessToken: access, UserAttributes: [{ Name: 'email', Value: moved }] }));
    const user = await userPools().send(new GetUserCommand({ AccessToken: access }));
    expect(Object.fromEntries((user.UserAttributes ?? []).map((a) => [a.Name, a.Value]))).toEqual(
      expect.objectContaining({ email: moved, email_verified: 'false' }),
    );
  });

  it('refuses USER_PASSWORD_AUTH on the web client, which allows SRP and refresh only', async () => {
    const answer = userPools().send(
      new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: clientId(), AuthParameters: { USERNAME: free.email, PASSWORD: free.password } }),
    );
    expect(await refusalWithMessage(answer)).toBe('InvalidParameterException: USER_PASSWORD_AUTH flow not enabled for this client');
  });

  it('locks a user out after 5 wrong passwords to an independent SRP client', async () => {
    const email = await sdkFreshUser();
    heldAt = Date.now();
    try {
      for (let i = 0; i < 5; i++) {
        await expect(srpSignIn(email, `wrong password ${i}`)).rejects.toEqual(expect.objectContaining({ message: 'Incorrect username or password.' }));
      }
      // The right password now gets the lockout (it lasts a second of the held clock: lockout.test.ts times it).
      await expect(srpSignIn(email, 'long enough')).rejects.toEqual(expect.objectContaining({ message: 'Password attempts exceeded' }));
    } finally {
      heldAt = undefined;
    }
  });

  it('answers a ClientId no header can carry (above U+00FF, a newline) and goes on answering', async () => {
    for (const ClientId of ['caf\u20ac', 'line\nbreak']) {
      const answer = userPools().send(new InitiateAuthCommand({ AuthFlow: 'USER_SRP_AUTH', ClientId, AuthParameters: { USERNAME: free.email, SRP_A: '1' } }));
      expect(await refusalWithMessage(answer)).toBe(`ResourceNotFoundException: User pool client ${ClientId} does not exist.`);
    }
    await expect(srpSignIn(free.email, free.password)).resolves.toBeDefined();
  });

  it('ends the refresh token when amazon-cognito-identity-js signs out (RevokeToken, named by origin_jti)', async () => {
    const pool = new CognitoUserPool({ UserPoolId: sandbox.config.auth.userPoolId, ClientId: clientId(), endpoint: sandbox.config.auth.userPoolEndpoint });
    const user = new CognitoUser({ Username: subscriber.email, Pool: pool });
    const session = await new Promise<CognitoUserSession>((resolve, reject) =>
      user.authenticateUser(new AuthenticationDetails({ Username: subscriber.email, Password: subscriber.password }), {
        onSuccess: resolve,
        onFailure: reject,
      }),
    );
    expect(claims(session.getAccessToken().getJwtToken())['origin_jti']).toEqual(expect.any(String));
    const refreshToken = session.getRefreshToken().getToken();
    // signOut revokes only a session whose access token carries origin_jti; it calls back when done.
    await new Promise<void>((resolve) => user.signOut(resolve));
    const refresh = userPools().send(
      new InitiateAuthCommand({ AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: clientId(), AuthParameters: { REFRESH_TOKEN: refreshToken } }),
    );
    expect(await refusalWithMessage(refresh)).toBe('NotAuthorizedException: Refresh Token has been revoked');
  });
});

describe('what S3 refuses, as the SDK sees it', () => {
  const Bucket = () => sandbox.config.storage.bucket;
  /** An S3 client that sends its requests unsigned, as anyone on the network can. */
  const anonymous = () =>
    new S3Client({
      region: sandbox.config.storage.region,
      endpoint: s3Endpoint(sandbox),
      forcePathStyle: true,
      credentials: { accessKeyId: 'unused', secretAccessKey: 'unused' },
      signer: { sign: (request) => Promise.resolve(request) },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
  let privateKey: string;

  beforeAll(async () => {
    // A photo in the subscriber's private folder, put there by the operator.
    const idToken = (await srpSignIn(subscriber.email, subscriber.password)).getIdToken().getJwtToken();
    const { identityId } = await identityCredentials(idToken);
    privateKey = `private/${identityId}/cedar-creek/${randomUUID()}.jpg`;
    // Under a slot reserved by the subscriber: the object-created function keeps it.
    const photo = jpegBytes(`private photo ${privateKey}`);
    const ledger = await reservedMetadata(sandbox.config, idToken, 'cedar-creek', photo);
    await operatorS3(s3Endpoint(sandbox), sandbox.config.storage.region).send(
      new PutObjectCommand({
        Bucket: Bucket(),
        Key: privateKey,
        Body: photo,
        ContentType: 'image/jpg',
        Metadata: { ranchid: 'cedar-creek', camera_name: '', ...ledger },
      }),
    );
    expect(existsSync(objectFile(privateKey))).toBe(true);
  });

  it('refuses an anonymous listing of private/', async () => {
    expect(await refusal(anonymous().send(new ListObjectsV2Command({ Bucket: Bucket(), Prefix: 'private/' })))).toBe('AccessDenied');
  });

  it('refuses an anonymous read of a user’s private photo', async () => {
    expect(await refusal(anonymous().send(new GetObjectCommand({ Bucket: Bucket(), Key: privateKey })))).toBe('AccessDenied');
  });

  it('refuses an anonymous put under a ranch, with that ranch’s metadata', async () => {
    const key = `public/cedar-creek/${randomUUID()}.jpg`;
    const put = anonymous().send(
      new PutObjectCommand({ Bucket: Bucket(), Key: key, Body: Buffer.from('x'), Metadata: { ranchid: 'cedar-creek', camera_name: '' } }),
    );
    expect(await refusal(put)).toBe('AccessDenied');
    expect(existsSync(objectFile(key))).toBe(false);
  });

  it('refuses an anonymous delete, and the photo stays', async () => {
    expect(await refusal(anonymous().send(new DeleteObjectCommand({ Bucket: Bucket(), Key: privateKey })))).toBe('AccessDenied');
    expect(existsSync(objectFile(privateKey))).toBe(true);
  });

  it('refuses a signed-in user any list, read or delete, even of their own photo', async () => {
    const idToken = (await srpSignIn(subscriber.email, subscriber.password)).getIdToken().getJwtToken();
    const s3 = s3For((await identityCredentials(idToken)).credentials);
    expect(await refusal(s3.send(new ListObjectsV2Command({ Bucket: Bucket(), Prefix: 'private/' })))).toBe('AccessDenied');
    expect(await refusal(s3.send(new GetObjectCommand({ Bucket: Bucket(), Key: privateKey })))).toBe('AccessDenied');
    expect(await refusal(s3.send(new DeleteObjectCommand({ Bucket: Bucket(), Key: privateKey })))).toBe('AccessDenied');
    expect(existsSync(objectFile(privateKey))).toBe(true);
  });

  it('refuses a request whose signature is not the session secret’s (SignatureDoesNotMatch)', async () => {
    const idToken = (await srpSignIn(free.email, free.password)).getIdToken().getJwtToken();
    const { credentials } = await identityCredentials(idToken);
    const s3 = s3For({ ...credentials, secretAccessKey: `${credentials.secretAccessKey}x` });
    const key = `public/mesquite-flats/${randomUUID()}.jpg`;
    expect(await refusal(s3.send(new PutObjectCommand({ Bucket: Bucket(), Key: key, Body: Buffer.from('x'), Metadata: { ranchid: 'mesquite-flats' } })))).toBe(
      'SignatureDoesNotMatch',
    );
    expect(existsSync(objectFile(key))).toBe(false);
  });
});

/**
 * Bad input never crashes the sandbox; a busy port stops start-up naming the piece; a piece that
 * dies takes the whole sandbox down cleanly.
 */
import { rmSync } from 'node:fs';
import net from 'node:net';
import type { Sandbox } from '../src/index';
import { PortInUseError, startSandbox } from '../src/index';
import { cognitoCall, FREE_PORTS, s3Endpoint, startTestSandbox, stopTestSandbox, tempDataDir } from './support/sandbox';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => stopTestSandbox(sandbox));

const USER_POOL = 'AWSCognitoIdentityProviderService';

describe('bad input', () => {
  it('answers malformed bodies and unknown operations with Cognito-shaped 4xx errors', async () => {
    const c = sandbox.config;
    expect(await cognitoCall(c, `${USER_POOL}.InitiateAuth`, '{not json')).toEqual({
      status: 400,
      json: { __type: 'SerializationException', message: 'The request body is not a JSON object' },
    });
    expect((await cognitoCall(c, `${USER_POOL}.InitiateAuth`, '[1,2]')).json['__type']).toBe('SerializationException');
    expect((await cognitoCall(c, `${USER_POOL}.FlyToTheMoon`, {})).json['__type']).toBe('MissingAuthenticationTokenException');
    expect((await cognitoCall(c, 'Nonsense', {})).json['__type']).toBe('UnknownOperationException');
    expect((await cognitoCall(c, `${USER_POOL}.InitiateAuth`, { ClientId: 'someone-else', AuthFlow: 'USER_SRP_AUTH' })).json['__type']).toBe(
      'ResourceNotFoundException',
    );
    const noParams = await cognitoCall(c, `${USER_POOL}.InitiateAuth`, { ClientId: c.auth.userPoolClientId, AuthFlow: 'USER_SRP_AUTH' });
    expect(noParams).toMatchObject({ status: 400, json: { __type: 'InvalidParameterException' } });
    const badA = await cognitoCall(c, `${USER_POOL}.InitiateAuth`, {
      ClientId: c.auth.userPoolClientId,
      AuthFlow: 'USER_SRP_AUTH',
      AuthParameters: { USERNAME: 'x@y.example', SRP_A: '0' },
    });
    expect(badA.json['__type']).toBe('InvalidParameterException');
    const forged = await cognitoCall(c, `${USER_POOL}.RespondToAuthChallenge`, {
      ClientId: c.auth.userPoolClientId,
      ChallengeName: 'PASSWORD_VERIFIER',
      ChallengeResponses: { PASSWORD_CLAIM_SECRET_BLOCK: 'AAAA', PASSWORD_CLAIM_SIGNATURE: 'AAAA', TIMESTAMP: 'now', USERNAME: 'x' },
    });
    expect(forged).toEqual({ status: 400, json: { __type: 'NotAuthorizedException', message: 'Incorrect username or password.' } });
    const getUser = await cognitoCall(c, `${USER_POOL}.GetUser`, { AccessToken: 'garbage' });
    expect(getUser).toEqual({ status: 400, json: { __type: 'NotAuthorizedException', message: 'Invalid Access Token' } });
    const signUpNoName = await cognitoCall(c, `${USER_POOL}.SignUp`, { ClientId: c.auth.userPoolClientId, Password: 'long enough' });
    expect(signUpNoName.status).toBe(400);
    const guest = await cognitoCall(c, 'AWSCognitoIdentityService.GetId', { IdentityPoolId: c.auth.identityPoolId });
    expect(guest.json).toEqual({ __type: 'NotAuthorizedException', message: 'Unauthenticated access is not supported for this identity pool.' });
    const unknownPath = await fetch(`${c.auth.userPoolEndpoint}/nothing/here`);
    expect(unknownPath.status).toBe(404);

    // Still alive and answering.
    const health = await fetch(`${c.auth.userPoolEndpoint}/health`);
    expect(health.status).toBe(200);
  });

  it('serves the JWKS and an openid configuration naming the gateway as issuer', async () => {
    const base = `${sandbox.config.auth.userPoolEndpoint}/${sandbox.config.auth.userPoolId}`;
    const oidc = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    expect(oidc.issuer).toBe(base);
    const jwks = (await (await fetch(oidc.jwks_uri)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys[0]?.kid).toBe('CognitoLocal');
  });
});

describe('supervision', () => {
  it('stops start-up with a message naming the piece and the port when a port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const scratch = [tempDataDir(), tempDataDir()];
    try {
      // S3's port is taken by the running sandbox, but the API's busy port is found first.
      const attempt = startSandbox({ dataDir: scratch[0], quiet: true, ports: { ...FREE_PORTS, api: port, s3: sandbox.ports.s3 } });
      await expect(attempt).rejects.toThrow(PortInUseError);
      await expect(attempt).rejects.toThrow(`product API cannot listen on port ${port}`);
      const s3Busy = startSandbox({ dataDir: scratch[1], quiet: true, ports: { ...FREE_PORTS, s3: sandbox.ports.s3 } });
      await expect(s3Busy).rejects.toThrow(`S3 emulator (s3rver) cannot listen on port ${sandbox.ports.s3}`);
    } finally {
      blocker.close();
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    }
    // The failed attempts released what they had taken and left the running sandbox alone.
    expect((await fetch(`${sandbox.config.auth.userPoolEndpoint}/health`)).status).toBe(200);
  });

  it('stops every piece when one dies, and says which', async () => {
    sandbox.crashPiece('api');
    await expect(sandbox.stopped).resolves.toEqual({ kind: 'piece-died', piece: 'api' });
    await expect(fetch(`${sandbox.config.auth.userPoolEndpoint}/health`)).rejects.toThrow();
    await expect(fetch(`${s3Endpoint(sandbox)}/`)).rejects.toThrow();
  });
});

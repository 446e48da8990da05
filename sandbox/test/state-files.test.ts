/**
 * The sandbox loses nothing: cognito-local's users file stays parseable under overlapping saves
 * (src/gateway/json-store.ts), and --reset deletes nothing while a sandbox still runs on the state.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ctx } from '../src/gateway/cognito-local';
import { AtomicJsonDataStoreFactory } from '../src/gateway/json-store';
import { PortInUseError, startSandbox } from '../src/index';
import type { Sandbox } from '../src/index';
import { cognitoCall, FREE_PORTS, tempDataDir } from './support/sandbox';

const dirs: string[] = [];
const newDir = () => {
  const dir = tempDataDir();
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Parses the file as cognito-local's next start would; the error when it cannot. */
function parseProblem(file: string): string | undefined {
  try {
    JSON.parse(readFileSync(file, 'utf8'));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('AtomicJsonDataStore', () => {
  it('leaves a parseable file after each of 300 overlapping saves, and keeps every one of them', async () => {
    const dir = newDir();
    const store = await new AtomicJsonDataStoreFactory(dir).create(ctx, 'pool', { Users: {}, Options: { Id: 'pool' } });
    const file = path.join(dir, 'pool.json');
    const problems: string[] = [];
    // Users of different sizes, so that interleaved writes of unequal lengths would show.
    const saves = Array.from({ length: 300 }, (_, i) =>
      store
        .set(ctx, ['Users', `user-${i}`], {
          Username: `user-${i}`,
          UserCreateDate: new Date(i),
          Attributes: [{ Name: 'name', Value: 'x'.repeat((i * 37) % 400) }],
        })
        .then(() => {
          const problem = parseProblem(file);
          if (problem) problems.push(`after save ${i}: ${problem}`);
        }),
    );
    // And overlapping deletes of some of them.
    const deletes = Array.from({ length: 30 }, (_, i) => store.delete(ctx, ['Users', `user-${i * 10}`]).then(() => parseProblem(file)));
    await Promise.all(saves);
    expect(problems).toEqual([]);
    expect((await Promise.all(deletes)).filter(Boolean)).toEqual([]);

    const reopened = await new AtomicJsonDataStoreFactory(dir).create(ctx, 'pool', {});
    const users = await reopened.get<Record<string, { UserCreateDate: Date }>>(ctx, 'Users', {});
    expect(Object.keys(users)).toHaveLength(270);
    expect(users['user-7']?.UserCreateDate).toEqual(new Date(7));
    expect(users['user-10']).toBeUndefined();
    expect(await reopened.get(ctx, ['Options', 'Id'])).toBe('pool');
    // No temporary file left behind.
    expect(readdirSync(dir)).toEqual(['pool.json']);
  });
});

describe('the sandbox', () => {
  let sandbox: Sandbox | undefined;
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('keeps the users file parseable through 60 overlapping sign-ups, and starts again on it', async () => {
    const dataDir = newDir();
    sandbox = await startSandbox({ dataDir, quiet: true, ports: FREE_PORTS });
    const file = path.join(dataDir, 'cognito', `${sandbox.config.auth.userPoolId}.json`);
    const config = sandbox.config;
    const problems: string[] = [];
    const emails = Array.from({ length: 60 }, (_, i) => `overlap-${i}@trailsense.example`);
    const answers = await Promise.all(
      emails.map(async (email, i) => {
        const answer = await cognitoCall(config, 'AWSCognitoIdentityProviderService.SignUp', {
          ClientId: config.auth.userPoolClientId,
          Username: email,
          Password: 'overlapping saves',
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'name', Value: 'n'.repeat(i * 7) },
          ],
        });
        const problem = parseProblem(file);
        if (problem) problems.push(`after sign-up ${i}: ${problem}`);
        return answer.status;
      }),
    );
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(problems).toEqual([]);
    await sandbox.stop();

    sandbox = await startSandbox({ dataDir, quiet: true, ports: FREE_PORTS });
    const users = Object.values((JSON.parse(readFileSync(file, 'utf8')) as { Users: Record<string, { Attributes: { Name: string; Value: string }[] }> }).Users);
    const stored = new Set(users.map((u) => u.Attributes.find((a) => a.Name === 'email')?.Value));
    expect(emails.filter((email) => !stored.has(email))).toEqual([]);
    await sandbox.stop();
    sandbox = undefined;
  });

  it('--reset refuses, deleting nothing, while a sandbox runs on the ports', async () => {
    const dataDir = newDir();
    sandbox = await startSandbox({ dataDir, quiet: true, ports: FREE_PORTS });
    const config = sandbox.config;
    const signUp = await cognitoCall(config, 'AWSCognitoIdentityProviderService.SignUp', {
      ClientId: config.auth.userPoolClientId,
      Username: 'kept@trailsense.example',
      Password: 'not reset away',
      UserAttributes: [{ Name: 'email', Value: 'kept@trailsense.example' }],
    });
    expect(signUp.status).toBe(200);

    // The same S3 port, as two sandboxes started by `npm start` have (20005).
    const second = startSandbox({ dataDir, reset: true, quiet: true, ports: { ...FREE_PORTS, s3: sandbox.ports.s3 } });
    await expect(second).rejects.toThrow(PortInUseError);
    await expect(second).rejects.toThrow(new RegExp(`S3 cannot listen on port ${sandbox.ports.s3}.*; nothing was reset`));
    expect(existsSync(path.join(dataDir, 'sandbox.db'))).toBe(true);
    expect(readFileSync(path.join(dataDir, 'cognito', `${config.auth.userPoolId}.json`), 'utf8')).toContain('kept@trailsense.example');
    // The running sandbox still has its user.
    const again = await cognitoCall(config, 'AWSCognitoIdentityProviderService.ResendConfirmationCode', {
      ClientId: config.auth.userPoolClientId,
      Username: 'kept@trailsense.example',
    });
    expect(again.status).toBe(200);

    // A gateway port held by another process is checked as well, before S3's.
    const third = startSandbox({ dataDir, reset: true, quiet: true, ports: { ...FREE_PORTS, gateway: sandbox.ports.gateway, s3: sandbox.ports.s3 } });
    await expect(third).rejects.toThrow(/Cognito gateway cannot listen .*; nothing was reset/);
    expect(existsSync(path.join(dataDir, 'sandbox.db'))).toBe(true);
  });
});

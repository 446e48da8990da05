/** The pure pieces: SRP math, fault switch, password policy, identity ids, event validation, CLI flags. */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { parseEvent } from '../src/analytics';
import { parseArgs } from '../src/cli';
import { parsePutFault, shouldFail } from '../src/fault';
import { identityIdFor } from '../src/gateway/identity-pool';
import { passwordPolicyViolation } from '../src/gateway/password-policy';
import { g, modPow, N, paddedHex, parseClientA, startChallenge, verifyClaim } from '../src/gateway/srp';

/** The client half written from the protocol description (not from srp.ts's helpers). */
function clientProof(poolName: string, userId: string, password: string, saltHex: string, B: bigint, secretBlock: string, timestamp: string) {
  const a = BigInt(`0x${randomBytes(64).toString('hex')}`);
  const A = modPow(g, a, N);
  const h = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
  const k = BigInt(`0x${h(paddedHex(N) + paddedHex(g))}`);
  const u = BigInt(`0x${h(paddedHex(A) + paddedHex(B))}`);
  const x = BigInt(`0x${h(paddedHex(BigInt(`0x${saltHex}`)) + createHash('sha256').update(`${poolName}${userId}:${password}`).digest('hex'))}`);
  const S = modPow(B - k * modPow(g, x, N), a + u * x, N);
  const prk = createHmac('sha256', Buffer.from(paddedHex(u), 'hex')).update(Buffer.from(paddedHex(S), 'hex')).digest();
  const key = createHmac('sha256', prk).update('Caldera Derived Key\u0001').digest().subarray(0, 16);
  const signature = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(poolName + userId), Buffer.from(secretBlock, 'base64'), Buffer.from(timestamp)]))
    .digest('base64');
  return { A, signature };
}

describe('SRP verifier', () => {
  const secretBlock = randomBytes(32).toString('base64');
  const timestamp = 'Tue Jan 7 10:00:00 UTC 2025';
  for (const [tried, expected] of [['correct horse', true], ['wrong horse', false]] as const) {
    it(`${expected ? 'accepts' : 'rejects'} a proof made with the ${expected ? 'right' : 'wrong'} password`, () => {
      const ch = startChallenge('TrailSenseLocal', 'user-1', 'correct horse');
      const { A, signature } = clientProof('TrailSenseLocal', 'user-1', tried, ch.saltHex, ch.B, secretBlock, timestamp);
      expect(verifyClaim({ poolName: 'TrailSenseLocal', userId: 'user-1', A, B: ch.B, b: ch.b, v: ch.v, secretBlock, timestamp, signature })).toBe(expected);
    });
  }
  it('refuses A ≡ 0 mod N and non-hex A', () => {
    expect(parseClientA(N.toString(16))).toBeUndefined();
    expect(parseClientA('xyz')).toBeUndefined();
    expect(parseClientA('1f')).toBe(31n);
  });
  it('pads hex the way Amplify hashes it', () => {
    expect(paddedHex(0xfn)).toBe('0f');
    expect(paddedHex(0x80n)).toBe('0080');
    expect(paddedHex(0x7fffn)).toBe('7fff');
  });
});

describe('parsePutFault', () => {
  it('reads fraction and status', () => {
    expect(parsePutFault('0.3:503')).toEqual({ fraction: 0.3, status: 503 });
    expect(parsePutFault('1')).toEqual({ fraction: 1, status: 503 });
    expect(parsePutFault('.5:500')).toEqual({ fraction: 0.5, status: 500 });
  });
  it('explains bad specs', () => {
    expect(parsePutFault('2:503')).toMatch(/between 0 and 1/);
    expect(parsePutFault('0.3:200')).toMatch(/4xx or 5xx/);
    expect(parsePutFault('often')).toMatch(/expected/);
  });
  it('fails by the random draw', () => {
    expect(shouldFail({ fraction: 0.3, status: 503 }, () => 0.29)).toBe(true);
    expect(shouldFail({ fraction: 0.3, status: 503 }, () => 0.3)).toBe(false);
    expect(shouldFail({ fraction: 0, status: 503 }, () => 0)).toBe(false);
  });
});

describe('passwordPolicyViolation', () => {
  it('wants 8 characters and nothing else', () => {
    expect(passwordPolicyViolation('abcdefg', 8)).toBe('Password did not conform with policy: Password not long enough');
    expect(passwordPolicyViolation('abcdefgh', 8)).toBeUndefined();
    expect(passwordPolicyViolation('        ', 8)).toBeUndefined();
  });
});

describe('identityIdFor', () => {
  it('is stable per user and differs between users', () => {
    const pool = 'us-east-2:7f0c7a8e-5b1d-4c2e-9a43-1f6d2b8c9e10';
    expect(identityIdFor(pool, 'a')).toBe(identityIdFor(pool, 'a'));
    expect(identityIdFor(pool, 'a')).not.toBe(identityIdFor(pool, 'b'));
    expect(identityIdFor(pool, 'a')).toMatch(/^us-east-2:[0-9a-f-]{36}$/);
  });
});

describe('parseEvent', () => {
  it('accepts the two SPEC events and nothing else', () => {
    expect(parseEvent({ name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 3 })).toEqual({ ok: true, event: { name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 3 } });
    expect(parseEvent({ name: 'uploadFailure', ranchid: 'r', failureCount: 0, extra: 1 })).toEqual({ ok: true, event: { name: 'uploadFailure', ranchid: 'r', failureCount: 0 } });
    expect(parseEvent({ name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 1.5 })).toMatchObject({ ok: false });
    expect(parseEvent(undefined)).toMatchObject({ ok: false });
  });
});

describe('parseArgs', () => {
  it('reads the flags and refuses unknown ones', () => {
    expect(parseArgs(['--reset', '--data-dir', '/tmp/x', '--s3-put-fault=0.3:503'])).toEqual({ reset: true, quiet: false, dataDir: '/tmp/x', s3PutFault: '0.3:503' });
    expect(parseArgs(['--nope'])).toMatch(/unknown option/);
  });
});

/**
 * The pure pieces: SRP math, fault and stall switches, the metadata check, password policy,
 * identity ids, event validation, CLI flags.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import net from 'node:net';
import { parseEvent } from '../src/analytics';
import { parseArgs } from '../src/cli';
import { isJsonContentType, isLoopbackHost } from '../src/http-util';
import { apiRouteOf, faultXml, formatApiFault, parseApiFault, parsePutFault, shouldFail } from '../src/fault';
import { identityIdFor } from '../src/gateway/identity-pool';
import { passwordPolicyViolation } from '../src/gateway/password-policy';
import { g, modPow, N, paddedHex, parseClientA, startChallenge, verifyClaim } from '../src/gateway/srp';
import { nonAsciiMetadata } from '../src/s3';
import { createPutStall, holdUntilClosed, parseStallCount } from '../src/stall';

/** The client half written from the protocol description (not from srp.ts's helpers). */
function clientProof(poolName: string, userId: string, password: string, saltHex: string, B: bigint, secretBlock: string, timestamp: string) {
  const a = BigInt(`0x${randomBytes(64).toString('hex')}`);
  const A = modPow(g, a, N);
  const h = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
  const k = BigInt(`0x${h(paddedHex(N) + paddedHex(g))}`);
  const u = BigInt(`0x${h(paddedHex(A) + paddedHex(B))}`);
  const x = BigInt(`0x${h(paddedHex(BigInt(`0x${saltHex}`)) + createHash('sha256').update(`${poolName}${userId}:${password}`).digest('hex'))}`);
  const S = modPow(B - k * modPow(g, x, N), a + u * x, N);
  const prk = createHmac('sha256', Buffer.from(paddedHex(u), 'hex'))
    .update(Buffer.from(paddedHex(S), 'hex'))
    .digest();
  const key = createHmac('sha256', prk).update('Caldera Derived Key\u0001').digest().subarray(0, 16);
  const signature = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(poolName + userId), Buffer.from(secretBlock, 'base64'), Buffer.from(timestamp)]))
    .digest('base64');
  return { A, signature };
}

describe('SRP verifier', () => {
  const secretBlock = randomBytes(32).toString('base64');
  const timestamp = 'Tue Jan 7 10:00:00 UTC 2025';
  for (const [tried, expected] of [
    ['correct horse', true],
    ['wrong horse', false],
  ] as const) {
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
  it('reads an S3 error code after the status', () => {
    expect(parsePutFault('1:400:ExpiredToken')).toEqual({ fraction: 1, status: 400, code: 'ExpiredToken' });
    expect(parsePutFault(' 0.5 : 400 : RequestTimeout ')).toEqual({ fraction: 0.5, status: 400, code: 'RequestTimeout' });
    expect(parsePutFault('1:400')).not.toHaveProperty('code');
  });
  it('explains bad codes', () => {
    expect(parsePutFault('1:400:')).toMatch(/error code must be letters and digits/);
    expect(parsePutFault('1:400:<Code>')).toMatch(/error code must be letters and digits/);
    expect(parsePutFault('1:ExpiredToken')).toMatch(/expected <fraction>\[:<status>\[:<Code>\]\]/);
    expect(parsePutFault('1:400:Expired:Token')).toMatch(/expected/);
  });
  it('fails by the random draw', () => {
    expect(shouldFail({ fraction: 0.3, status: 503 }, () => 0.29)).toBe(true);
    expect(shouldFail({ fraction: 0.3, status: 503 }, () => 0.3)).toBe(false);
    expect(shouldFail({ fraction: 0, status: 503 }, () => 0)).toBe(false);
  });
});

describe('faultXml', () => {
  it('keeps the default code per status, marked as injected', () => {
    expect(faultXml(503)).toContain('<Code>SlowDown</Code><Message>Please reduce your request rate. (sandbox fault switch)</Message>');
    expect(faultXml(403)).toContain('<Code>AccessDenied</Code>');
    expect(faultXml(418)).toContain('<Code>Injected418</Code>');
  });
  it("answers a named code with S3's own message", () => {
    expect(faultXml(400, 'ExpiredToken')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>',
    );
    expect(faultXml(400, 'RequestTimeout')).toContain(
      '<Message>Your socket connection to the server was not read from or written to within the timeout period.</Message>',
    );
    expect(faultXml(409, 'SomethingElse')).toContain('<Code>SomethingElse</Code><Message>Injected failure 409</Message>');
  });
});

describe('parseApiFault', () => {
  it('reads one or several routes, and 0 or empty as none', () => {
    expect(parseApiFault('upload-metrics:500')).toEqual({ 'upload-metrics': 500 });
    expect(parseApiFault(' upload-metrics:500, ranch : 503 ,cameras:500,subscriptions:500')).toEqual({
      'upload-metrics': 500,
      ranch: 503,
      cameras: 500,
      subscriptions: 500,
    });
    expect(parseApiFault('0')).toEqual({});
    expect(parseApiFault('  ')).toEqual({});
  });
  it('names what is wrong', () => {
    expect(parseApiFault('metrics:500')).toMatch(/unknown route "metrics"/);
    expect(parseApiFault('ranch')).toMatch(/"ranch" is not <route>:<status>/);
    expect(parseApiFault('ranch:200')).toMatch(/status for ranch must be 4xx or 5xx/);
    expect(parseApiFault('ranch:500,ranch:503')).toMatch(/ranch is named twice/);
    expect(parseApiFault('ranch:500,')).toMatch(/"" is not <route>:<status>/);
    expect(parseApiFault('constructor:500')).toMatch(/unknown route/);
  });
  it('formats back to a spec', () => {
    expect(formatApiFault({ ranch: 503, 'upload-metrics': 500 })).toBe('upload-metrics:500,ranch:503');
    expect(formatApiFault({})).toBe('0');
  });
  it('maps paths to route names', () => {
    expect(apiRouteOf('/ranches/cedar-creek/upload-metrics')).toBe('upload-metrics');
    expect(apiRouteOf('/ranches/cedar-creek')).toBe('ranch');
    expect(apiRouteOf('/ranches/cedar-creek/cameras')).toBe('cameras');
    expect(apiRouteOf('/subscriptions/a%40b.example')).toBe('subscriptions');
    expect(apiRouteOf('/ranches')).toBeUndefined();
    expect(apiRouteOf('/ranches/x/cameras/1')).toBeUndefined();
    expect(apiRouteOf('/ranches/x/other')).toBeUndefined();
    expect(apiRouteOf('/subscriptions/a/b')).toBeUndefined();
    expect(apiRouteOf('/events')).toBeUndefined();
  });
});

describe('the PUT stall switch', () => {
  it('reads a whole number 0..1000', () => {
    expect(parseStallCount('3')).toBe(3);
    expect(parseStallCount(' 0 ')).toBe(0);
    expect(parseStallCount('')).toBe(0);
    expect(parseStallCount('1000')).toBe(1000);
    expect(parseStallCount('1001')).toMatch(/at most 1000/);
    expect(parseStallCount('-1')).toMatch(/whole number/);
    expect(parseStallCount('1.5')).toMatch(/whole number/);
    expect(parseStallCount('lots')).toMatch(/whole number/);
  });
  it('holds the next N and counts them', () => {
    const stall = createPutStall();
    expect(stall.take()).toBe(false);
    stall.set(2);
    expect(stall.state()).toEqual({ held: 0, pending: 2 });
    expect([stall.take(), stall.take(), stall.take()]).toEqual([true, true, false]);
    expect(stall.state()).toEqual({ held: 2, pending: 0 });
    stall.set(5);
    stall.set(0);
    expect(stall.take()).toBe(false);
    expect(stall.state()).toEqual({ held: 2, pending: 0 });
  });

  async function socketPair(): Promise<{ server: net.Server; client: net.Socket; accepted: net.Socket }> {
    const server = net.createServer();
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    return { server, client, accepted: await accepted };
  }

  it('a hold ends when the client closes', async () => {
    const { server, client, accepted } = await socketPair();
    const held = holdUntilClosed(accepted, 60_000);
    client.destroy();
    await expect(held).resolves.toBe('closed');
    server.close();
  });
  it('a hold ends at the limit, closing the connection', async () => {
    const { server, client, accepted } = await socketPair();
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    await expect(holdUntilClosed(accepted, 50)).resolves.toBe('limit');
    await clientClosed;
    expect(accepted.destroyed).toBe(true);
    server.close();
  });
});

describe('nonAsciiMetadata', () => {
  it('finds user metadata outside printable US-ASCII, and only user metadata', () => {
    expect(nonAsciiMetadata({ 'x-amz-meta-camera_name': 'North Feeder', 'x-amz-meta-ranchid': 'cedar-creek' })).toBeUndefined();
    expect(nonAsciiMetadata({ 'x-amz-meta-camera_name': '=?UTF-8?B?UsOpc2Vydm9pcg==?=' })).toBeUndefined();
    // "Réservoir" as the Latin-1 bytes a browser sends, as Node hands them over.
    expect(nonAsciiMetadata({ 'x-amz-meta-ranchid': 'r', 'x-amz-meta-camera_name': Buffer.from('Réservoir', 'latin1').toString('latin1') })).toBe(
      'x-amz-meta-camera_name',
    );
    expect(nonAsciiMetadata({ 'x-amz-meta-camera_name': 'R\u00c3\u00a9servoir' })).toBe('x-amz-meta-camera_name'); // UTF-8 bytes read as latin1
    expect(nonAsciiMetadata({ 'x-amz-meta-note': 'tab\there' })).toBe('x-amz-meta-note');
    expect(nonAsciiMetadata({ 'content-disposition': 'Réservoir.jpg' })).toBeUndefined();
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
  it('accepts the two documented analytics events and nothing else', () => {
    expect(parseEvent({ name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 3 })).toEqual({
      ok: true,
      event: { name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 3 },
    });
    expect(parseEvent({ name: 'uploadFailure', ranchid: 'r', failureCount: 0, extra: 1 })).toEqual({
      ok: true,
      event: { name: 'uploadFailure', ranchid: 'r', failureCount: 0 },
    });
    expect(parseEvent({ name: 'imageUpload', ranchid: 'r', key: 'k', uploadCount: 1.5 })).toMatchObject({ ok: false });
    expect(parseEvent(undefined)).toMatchObject({ ok: false });
  });

  it('accepts the monitoring events without a ranch, exactly as documented', () => {
    const vital = { name: 'webVital', metric: 'TTFB', value: 80, rating: 'good', route: '/', navigationType: 'navigate' };
    expect(parseEvent(vital)).toEqual({ ok: true, event: vital });
    expect(parseEvent({ ...vital, ranchid: 'cedar-creek' })).toEqual({ ok: false, message: 'ranchid is not a field of webVital' });
  });
});

describe('parseArgs', () => {
  it('reads the flags and refuses unknown ones', () => {
    expect(parseArgs(['--reset', '--data-dir', '/tmp/x', '--s3-put-fault=0.3:503'])).toEqual({
      reset: true,
      quiet: false,
      dataDir: '/tmp/x',
      s3PutFault: '0.3:503',
    });
    expect(parseArgs(['--nope'])).toMatch(/unknown option/);
  });
  it('takes an S3 error code in --s3-put-fault and explains a bad spec', () => {
    expect(parseArgs(['--s3-put-fault', '1:400:ExpiredToken'])).toMatchObject({ s3PutFault: '1:400:ExpiredToken' });
    expect(parseArgs(['--s3-put-fault', '1:400:Bad Code'])).toMatch(/bad S3 PUT fault "1:400:Bad Code": expected/);
    expect(parseArgs(['--s3-put-fault=2'])).toMatch(/between 0 and 1/);
  });
});

describe('loopback host and JSON checks', () => {
  it('takes only loopback names as the Host, with or without a port', () => {
    for (const host of ['localhost', 'localhost:4103', 'LocalHost:3000', '127.0.0.1', '127.0.0.1:20005', '[::1]', '[::1]:4100']) {
      expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    }
    for (const host of [
      undefined,
      '',
      'evil.example',
      'localhost.evil.example',
      'localhost:4103.evil.example',
      '127.0.0.2',
      '127.0.0.1.nip.io',
      '0.0.0.0',
      '[::1]x',
      'localhost:',
    ]) {
      expect([host, isLoopbackHost(host)]).toEqual([host, false]);
    }
  });

  it('knows JSON by its media type, whatever the parameters or case', () => {
    expect(['application/json', 'application/json; charset=utf-8', 'Application/JSON'].map(isJsonContentType)).toEqual([true, true, true]);
    expect([undefined, '', 'text/plain', 'application/jsonp', 'application/x-www-form-urlencoded', 'text/json'].map(isJsonContentType)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

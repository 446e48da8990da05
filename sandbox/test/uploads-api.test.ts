/**
 * The upload ledger end to end, over HTTP with real tokens: the uploads API
 * (infra/src/uploads-api/handler.ts: upload-metrics and reservations, on the sandbox's API port)
 * and the object-created function's side of it (infra/src/object-created/handler.ts: an object
 * counts only under a reservation granted to its ranch), on the sandbox's SQLite ledger
 * (src/ledger.ts), with the two control endpoints that set the ledger's clock and a ranch's count.
 *
 * Tests set their starting count with `/_sandbox/ranch-usage` (which also drops the month's
 * reservations), so they do not depend on each other's order, and put the ledger clock back after
 * each test.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { jpegBytes } from '../../test-support/jpeg';
import { passwordTokens, seedUser, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { operatorFetch, signedRawRequest } from './support/sign';
import type { Credentials } from './support/sign';
import {
  askReservation,
  fingerprintOf,
  identityCredentials,
  ledgerClock,
  newFingerprints,
  putControl,
  reserve,
  setLedgerClock,
  setRanchUsage,
  uploadMetrics,
  uploadsApi,
} from './support/uploads';

const subscriber = seedUser('subscriber@trailsense.example');
const free = seedUser('free@trailsense.example');
const partner = seedUser('partner@trailsense.example');
const noRanch = seedUser('noranch@trailsense.example');

const FIFTEEN_MINUTES = 15 * 60_000;
const MESQUITE = 'mesquite-flats';
const CEDAR = 'cedar-creek';

let sandbox: Sandbox;
const lines: string[] = [];
/** Id tokens by seed user. */
const ids: Record<'subscriber' | 'free' | 'partner' | 'noRanch', string> = { subscriber: '', free: '', partner: '', noRanch: '' };
let subscriberAccessToken: string;
/** The identity pool's credentials of the two Mesquite Flats members (each their own device). */
const credentials: Partial<Record<'free' | 'partner', Credentials>> = {};

beforeAll(async () => {
  sandbox = await startTestSandbox({ log: (line) => lines.push(line) });
  for (const [name, user] of [
    ['subscriber', subscriber],
    ['free', free],
    ['partner', partner],
    ['noRanch', noRanch],
  ] as const) {
    const tokens = await passwordTokens(sandbox.config, user.email, user.password);
    ids[name] = tokens.IdToken;
    if (name === 'subscriber') subscriberAccessToken = tokens.AccessToken;
    if (name === 'free' || name === 'partner') credentials[name] = (await identityCredentials(sandbox.config, tokens.IdToken)).credentials;
  }
});
afterAll(() => stopTestSandbox(sandbox));
afterEach(() => setLedgerClock(sandbox, ''));

const api = (method: string, pathname: string, token?: string, body?: unknown) => uploadsApi(sandbox.config, method, pathname, token, body);
const ask = (user: keyof typeof ids, ranchId: string, fingerprints: readonly string[], yearmo?: string) =>
  askReservation(sandbox.config, ids[user], ranchId, fingerprints, yearmo);
const metrics = (user: keyof typeof ids, ranchId: string, yearmo: string) => uploadMetrics(sandbox.config, ids[user], ranchId, yearmo);
/** The month photos count in now, by the ledger's clock. */
const ledgerMonth = async () => countingMonth(new Date((await ledgerClock(sandbox)).now));
/** A well-formed reservation id no one was granted. */
const madeUpReservation = (yearmo: string) => `r-${yearmo}-${'A'.repeat(22)}`;

const objectUrl = (key: string) => `http://localhost:${sandbox.ports.s3}/${sandbox.config.storage.bucket}/${key}`;
const objectFile = (key: string, suffix = '._S3rver_object') => path.join(sandbox.dataDir, 's3', sandbox.config.storage.bucket, `${key}${suffix}`);
const stored = (key: string) => existsSync(objectFile(key));
const tagged = (key: string, ranchId: string) =>
  stored(key) && new RegExp(`<Key>ranchid</Key>\\s*<Value>${ranchId}</Value>`).test(readFileSync(objectFile(key, '._S3rver_tagging.xml'), 'utf8'));
const refusalOf = (key: string) => sandbox.refusals().find((r) => r.key === key);

/**
 * A photo PUT by a member with their own identity-pool credentials under `public/<ranch>/`, with
 * these user metadata; resolves with its key once S3 answered 200 (the sandbox runs the
 * object-created function before it answers).
 */
async function putPhoto(
  user: keyof typeof credentials,
  ranchId: string,
  metadata: Record<string, string>,
  bytes = jpegBytes(`photo ${randomUUID()}`),
  contentType = 'image/jpg',
) {
  const key = `public/${ranchId}/${randomUUID()}.jpg`;
  const headers: Record<string, string> = { 'Content-Type': contentType, 'If-None-Match': '*' };
  for (const [name, value] of Object.entries(metadata)) headers[`x-amz-meta-${name}`] = value;
  const res = await signedRawRequest(credentials[user]!, objectUrl(key), { method: 'PUT', headers, body: bytes, timeoutMs: 10_000 });
  expect(res).toMatchObject({ status: 200 });
  return key;
}

describe('what the uploads API refuses', () => {
  const id = () => madeUpReservation(countingMonth(new Date()));
  /** One request on each route (a reservation id that is well-formed, so the method and the token are what decide). */
  const routes = (ranchId: string): [string, string, unknown?][] => [
    ['GET', `/ranches/${ranchId}/upload-metrics?yearmo=${countingMonth(new Date())}`],
    ['POST', `/ranches/${ranchId}/reservations`, { fingerprints: newFingerprints(1) }],
    ['POST', `/ranches/${ranchId}/reservations/${id()}/renew`],
    ['DELETE', `/ranches/${ranchId}/reservations/${id()}`],
  ];

  it('401s every route without a token, or with a token that is not an id token', async () => {
    for (const [method, pathname, body] of routes(CEDAR)) {
      expect([method, pathname, await api(method, pathname, undefined, body)]).toEqual([
        method,
        pathname,
        { status: 401, json: { message: 'Missing bearer token' } },
      ]);
      const access = await api(method, pathname, subscriberAccessToken, body);
      expect([method, pathname, access.status]).toEqual([method, pathname, 401]);
      expect(access.json['message']).toMatch(/^Invalid token/);
    }
  });

  it('403s another ranch’s routes, and every route to a member without a ranch; nothing is reserved', async () => {
    await setRanchUsage(sandbox, MESQUITE, 985);
    for (const [method, pathname, body] of routes(MESQUITE)) {
      expect([method, pathname, await api(method, pathname, ids.subscriber, body)]).toEqual([
        method,
        pathname,
        { status: 403, json: { message: 'That ranch is not yours' } },
      ]);
    }
    for (const [method, pathname, body] of routes(CEDAR)) {
      expect([method, pathname, await api(method, pathname, ids.noRanch, body)]).toEqual([
        method,
        pathname,
        { status: 403, json: { message: 'That ranch is not yours' } },
      ]);
    }
    expect(await metrics('free', MESQUITE, await ledgerMonth())).toMatchObject({ total: '985', reserved: 0 });
  });

  it('400s a body that is not JSON, not an object, or without an array of well-formed fingerprints; nothing is reserved', async () => {
    const month = await ledgerMonth();
    const before = await metrics('subscriber', CEDAR, month);
    const hex = 'a'.repeat(32);
    const cases: [unknown, RegExp][] = [
      ['{', /must be JSON/],
      ['', /must be JSON/],
      ['[]', /must be a JSON object/],
      ['null', /must be a JSON object/],
      ['"v1-1-x"', /must be a JSON object/],
      [{}, /"fingerprints" must be an array/],
      [{ fingerprints: `v1-12-${hex}` }, /"fingerprints" must be an array/],
      [{ fingerprints: { 0: `v1-12-${hex}` } }, /"fingerprints" must be an array/],
      ['{"__proto__": {"fingerprints": ["v1-12-' + hex + '"]}}', /"fingerprints" must be an array/],
      [{ fingerprints: [] }, /must not be empty/],
      [{ fingerprints: [42] }, /"fingerprints"\[0\] is not a photo fingerprint/],
      [{ fingerprints: [`v1-12-${hex}`, 'v1-12-xyz'] }, /"fingerprints"\[1\] is not a photo fingerprint/],
      [{ fingerprints: [`v1-12-${'A'.repeat(32)}`] }, /"fingerprints"\[0\] is not a photo fingerprint/],
      [{ fingerprints: [`v2-12-${hex}`] }, /"fingerprints"\[0\] is not a photo fingerprint/],
      [{ fingerprints: [`v1--12-${hex}`] }, /"fingerprints"\[0\] is not a photo fingerprint/],
      [{ fingerprints: [`v1-12-${hex}0`] }, /"fingerprints"\[0\] is not a photo fingerprint/],
      [{ fingerprints: [null] }, /"fingerprints"\[0\] is not a photo fingerprint/],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', `/ranches/${CEDAR}/reservations`, ids.subscriber, body);
      expect([body, res.status]).toEqual([body, 400]);
      expect([body, res.json['message']]).toEqual([body, expect.stringMatching(message)]);
    }
    expect(({} as Record<string, unknown>)['fingerprints']).toBeUndefined();
    expect(await metrics('subscriber', CEDAR, month)).toEqual(before);
  });

  it('413s 501 fingerprints in one call, naming the limit (500 are taken), and a body over 64 KB', async () => {
    const month = await ledgerMonth();
    const tooMany = await ask('subscriber', CEDAR, newFingerprints(501));
    expect(tooMany.status).toBe(413);
    expect((tooMany.json as unknown as { message: string }).message).toMatch(/501 in one call, at most 500/);
    const limit = await ask('subscriber', CEDAR, newFingerprints(500));
    expect(limit.status).toBe(200);
    expect(limit.json.granted).toHaveLength(500);
    expect(await api('DELETE', `/ranches/${CEDAR}/reservations/${limit.json.reservation!}`, ids.subscriber)).toEqual({
      status: 200,
      json: { reservation: limit.json.reservation, released: 500 },
    });
    const huge = await api('POST', `/ranches/${CEDAR}/reservations`, ids.subscriber, { fingerprints: newFingerprints(1), padding: 'x'.repeat(70_000) });
    expect(huge.status).toBe(413);
    expect(huge.json['message']).toMatch(/larger than 65536 bytes/);
    expect((await metrics('subscriber', CEDAR, month)).reserved).toBe(0);
  });

  it('400s a month other than the one photos count in now (by the ledger clock): the one before, the one after, a malformed one', async () => {
    await setLedgerClock(sandbox, '2026-03-10T12:00:00Z');
    const cases: [string, RegExp][] = [
      ['2026_02', /The month 2026_02 is over: photos now count in 2026_03/],
      ['2026_04', /The month 2026_04 has not begun: photos now count in 2026_03/],
      ['2025_03', /is over/],
      ['2026-03', /Malformed yearmo/],
      ['2026_13', /Malformed yearmo/],
    ];
    for (const [yearmo, message] of cases) {
      const res = await ask('subscriber', CEDAR, newFingerprints(1), yearmo);
      expect([yearmo, res.status, (res.json as unknown as { message: string }).message]).toEqual([yearmo, 400, expect.stringMatching(message)]);
    }
    const current = await ask('subscriber', CEDAR, newFingerprints(1), '2026_03');
    expect(current).toMatchObject({ status: 200, json: { yearmo: '2026_03', granted: [expect.any(String)] } });
    // Across a year's end too.
    await setLedgerClock(sandbox, '2027-01-01T00:00:30Z');
    expect((await ask('subscriber', CEDAR, newFingerprints(1), '2026_12')).status).toBe(400);
    expect((await ask('subscriber', CEDAR, newFingerprints(1), '2027_01')).status).toBe(200);
  });

  it('404s renewing or releasing a reservation never granted (400 for an id that is not one); 410s renewing one that expired', async () => {
    const month = await ledgerMonth();
    for (const [method, suffix] of [
      ['POST', '/renew'],
      ['DELETE', ''],
    ] as const) {
      const unknown = madeUpReservation(month);
      expect(await api(method, `/ranches/${CEDAR}/reservations/${unknown}${suffix}`, ids.subscriber)).toEqual({
        status: 404,
        json: { message: `No reservation ${unknown}` },
      });
      for (const malformed of ['nope', 'r-2026_13-AAAAAAAAAAAAAAAAAAAA', `r-${month}-short`, `r-${month}-${'A'.repeat(22)}%21`]) {
        const res = await api(method, `/ranches/${CEDAR}/reservations/${malformed}${suffix}`, ids.subscriber);
        expect([malformed, res.status]).toEqual([malformed, 400]);
        expect(res.json['message']).toMatch(/Malformed reservation id/);
      }
    }
    // Another ranch's reservation is not this ranch's: 404, and it stays held.
    const theirs = await reserve(sandbox.config, ids.free, MESQUITE, newFingerprints(1));
    expect((await api('DELETE', `/ranches/${CEDAR}/reservations/${theirs}`, ids.subscriber)).status).toBe(404);
    expect((await api('POST', `/ranches/${CEDAR}/reservations/${theirs}/renew`, ids.subscriber)).status).toBe(404);
    // Nor may another member of its ranch renew or release it: 403, and it stays held; its maker may.
    const notYours = { status: 403, json: { message: "That reservation is another member's: only the member who made it may renew or release it" } };
    expect(await api('DELETE', `/ranches/${MESQUITE}/reservations/${theirs}`, ids.partner)).toEqual(notYours);
    expect(await api('POST', `/ranches/${MESQUITE}/reservations/${theirs}/renew`, ids.partner)).toEqual(notYours);
    expect(await api('DELETE', `/ranches/${MESQUITE}/reservations/${theirs}`, ids.free)).toEqual({
      status: 200,
      json: { reservation: theirs, released: 1 },
    });

    await setLedgerClock(sandbox, '2026-06-15T12:00:00Z');
    const expiring = await reserve(sandbox.config, ids.subscriber, CEDAR, newFingerprints(2));
    await setLedgerClock(sandbox, '2026-06-15T12:16:00Z');
    const gone = await api('POST', `/ranches/${CEDAR}/reservations/${expiring}/renew`, ids.subscriber);
    expect(gone.status).toBe(410);
    expect(gone.json['message']).toMatch(/expired/);
  });

  it('405s a wrong method on every route', async () => {
    const month = await ledgerMonth();
    const some = madeUpReservation(month);
    const cases: [string, string][] = [
      ['POST', `/ranches/${CEDAR}/upload-metrics?yearmo=${month}`],
      ['DELETE', `/ranches/${CEDAR}/upload-metrics?yearmo=${month}`],
      ['GET', `/ranches/${CEDAR}/reservations`],
      ['PUT', `/ranches/${CEDAR}/reservations`],
      ['DELETE', `/ranches/${CEDAR}/reservations`],
      ['GET', `/ranches/${CEDAR}/reservations/${some}/renew`],
      ['DELETE', `/ranches/${CEDAR}/reservations/${some}/renew`],
      ['GET', `/ranches/${CEDAR}/reservations/${some}`],
      ['POST', `/ranches/${CEDAR}/reservations/${some}`],
      ['PATCH', `/ranches/${CEDAR}/reservations/${some}`],
    ];
    for (const [method, pathname] of cases) {
      const res = await api(method, pathname, ids.subscriber, method === 'GET' || method === 'DELETE' ? undefined : { fingerprints: newFingerprints(1) });
      expect([method, pathname, res.status]).toEqual([method, pathname, 405]);
      expect(res.json['message']).toBe(`Method ${method} not allowed`);
    }
    expect((await metrics('subscriber', CEDAR, month)).reserved).toBe(0);
  });

  it('404s paths it does not serve under a ranch', async () => {
    const some = madeUpReservation(await ledgerMonth());
    for (const pathname of [
      `/ranches/${CEDAR}/reservations/${some}/extend`,
      `/ranches/${CEDAR}/reservations/${some}/renew/again`,
      `/ranches/${CEDAR}/upload-metrics/x`,
    ]) {
      expect([pathname, (await api('POST', pathname, ids.subscriber, { fingerprints: newFingerprints(1) })).status]).toEqual([pathname, 404]);
    }
  });

  it('answers a CORS preflight from the site for POST and DELETE with the headers they send', async () => {
    for (const method of ['POST', 'DELETE']) {
      const res = await fetch(`${sandbox.config.api.uploadsBaseUrl}/ranches/${CEDAR}/reservations`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://localhost:3002', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization, content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3002');
      expect(res.headers.get('access-control-allow-methods')).toContain(method);
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    }
  });

  it('fails reservations, their renewals and releases by the API fault switch (route `reservations`), and nothing else', async () => {
    const month = await ledgerMonth();
    const live = await reserve(sandbox.config, ids.subscriber, CEDAR, newFingerprints(1));
    sandbox.setApiFault('reservations:503');
    try {
      for (const [method, pathname] of [
        ['POST', `/ranches/${CEDAR}/reservations`],
        ['POST', `/ranches/${CEDAR}/reservations/${live}/renew`],
        ['DELETE', `/ranches/${CEDAR}/reservations/${live}`],
      ] as const) {
        const res = await api(method, pathname, ids.subscriber, method === 'POST' ? { fingerprints: newFingerprints(1) } : undefined);
        expect([method, pathname, res.status]).toEqual([method, pathname, 503]);
      }
      expect((await metrics('subscriber', CEDAR, month)).ceiling).toBe(10000);
    } finally {
      sandbox.setApiFault('0');
    }
    expect((await api('DELETE', `/ranches/${CEDAR}/reservations/${live}`, ids.subscriber)).json).toEqual({ reservation: live, released: 1 });
  });

  it('goes on answering after all of the above, with no internal error', async () => {
    expect((await metrics('subscriber', CEDAR, await ledgerMonth())).ceiling).toBe(10000);
    expect(await Promise.race([sandbox.stopped, new Promise((r) => setTimeout(() => r('running'), 50))])).toBe('running');
    expect(lines.filter((line) => /internal error/i.test(line))).toEqual([]);
  });
});

describe('reservations: slots of the ranch’s monthly ceiling', () => {
  beforeEach(() => setRanchUsage(sandbox, MESQUITE, 985));

  it('grants the free ranch the 15 left of its 1,000 and no more; upload-metrics shows them held; a release gives them back', async () => {
    const month = await ledgerMonth();
    const asked = newFingerprints(20);
    const before = Date.parse((await ledgerClock(sandbox)).now);
    const first = await ask('free', MESQUITE, asked);
    const after = Date.parse((await ledgerClock(sandbox)).now);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      reservation: expect.stringMatching(new RegExp(`^r-${month}-[A-Za-z0-9_-]{16,64}$`)),
      yearmo: month,
      known: [],
      copies: [],
      granted: asked.slice(0, 15),
      expiresAt: expect.any(String),
      lifetimeSeconds: 900,
    });
    const expiresAt = Date.parse(first.json.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + FIFTEEN_MINUTES);
    expect(expiresAt).toBeLessThanOrEqual(after + FIFTEEN_MINUTES);

    // The ceiling is reached: nothing more, for anyone of the ranch.
    expect(await ask('partner', MESQUITE, newFingerprints(5))).toEqual({
      status: 200,
      json: { reservation: null, yearmo: month, known: [], copies: [], granted: [], expiresAt: null, lifetimeSeconds: 900 },
    });
    // Held for the free member: the other member reads them as reserved, the free member as theirs to use.
    expect(await metrics('partner', MESQUITE, month)).toEqual({ total: '985', yearmo: month, month, reserved: 15, ceiling: 1000 });
    expect((await metrics('free', MESQUITE, month)).reserved).toBe(0);

    // Renewed: held for another lifetime from now.
    const renewed = await api('POST', `/ranches/${MESQUITE}/reservations/${first.json.reservation!}/renew`, ids.free);
    expect(renewed).toEqual({ status: 200, json: { reservation: first.json.reservation, expiresAt: expect.any(String) } });
    expect(Date.parse(renewed.json['expiresAt'] as string)).toBeGreaterThanOrEqual(expiresAt);

    // Released by the member who made it: the slots go back at once.
    const release = () => api('DELETE', `/ranches/${MESQUITE}/reservations/${first.json.reservation!}`, ids.free);
    expect(await release()).toEqual({ status: 200, json: { reservation: first.json.reservation, released: 15 } });
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '985', reserved: 0 });
    // Releasing again gives nothing more back (the reservation is kept, to recognise late photos).
    expect(await release()).toEqual({ status: 200, json: { reservation: first.json.reservation, released: 0 } });
    const again = await ask('partner', MESQUITE, newFingerprints(20));
    expect(again.json.granted).toHaveLength(15);
  });

  it('shares the 15 left between two members asking at once: exactly 15 granted in all', async () => {
    const month = await ledgerMonth();
    const [a, b] = await Promise.all([ask('free', MESQUITE, newFingerprints(15)), ask('partner', MESQUITE, newFingerprints(15))]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.json.granted.length + b.json.granted.length).toBe(15);
    for (const answer of [a.json, b.json]) expect(answer.reservation === null).toBe(answer.granted.length === 0);
    // Each member reads the other's slots as reserved.
    expect((await metrics('free', MESQUITE, month)).reserved).toBe(b.json.granted.length);
    expect((await metrics('partner', MESQUITE, month)).reserved).toBe(a.json.granted.length);

    // Many at once, from both members: still never more than the room.
    await setRanchUsage(sandbox, MESQUITE, 985);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 ? 'partner' : 'free', MESQUITE, newFingerprints(4))));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(answers.reduce((n, r) => n + r.json.granted.length, 0)).toBe(15);
    const grantedTo = (parity: number) => answers.reduce((n, r, i) => n + (i % 2 === parity ? r.json.granted.length : 0), 0);
    expect(await metrics('partner', MESQUITE, month)).toMatchObject({ total: '985', reserved: grantedTo(0) });
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '985', reserved: grantedTo(1) });
  });
});

describe('the object-created function counts only what was reserved', () => {
  beforeEach(() => setRanchUsage(sandbox, MESQUITE, 985));

  it('counts and tags a photo stored under a granted reservation; the other member’s device then finds it known', async () => {
    const month = await ledgerMonth();
    const bytes = jpegBytes(`photo ${randomUUID()}`);
    const fingerprint = fingerprintOf(bytes);
    const reservation = await reserve(sandbox.config, ids.free, MESQUITE, [fingerprint]);
    const key = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: 'Windmill Tank', reservation, fingerprint }, bytes);
    expect(stored(key)).toBe(true);
    expect(tagged(key, MESQUITE)).toBe(true);
    expect(refusalOf(key)).toBeUndefined();
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`"decision":"counted".*"key":"${key}".*"slot":"reserved"`)));
    // The slot became the count.
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '986', reserved: 0 });

    // The partner, on another device, picks the same photo and a new one: the server knows the first.
    const other = newFingerprints(1)[0]!;
    const answer = await ask('partner', MESQUITE, [fingerprint, other]);
    expect(answer.json).toMatchObject({ known: [fingerprint], granted: [other] });
    // Only the ranch's own photos: another ranch has not got it.
    expect((await ask('subscriber', CEDAR, [fingerprint])).json).toMatchObject({ known: [], granted: [fingerprint] });
    // A lookup (while the uploader checks a card) answers the same, reserving nothing.
    const held = (await metrics('partner', MESQUITE, month)).reserved;
    const size = Number(fingerprint.split('-')[1]);
    expect(await api('POST', `/ranches/${MESQUITE}/photo-lookups`, ids.partner, { fingerprints: [other, fingerprint], sizes: [size, 3] })).toEqual({
      status: 200,
      json: { known: [fingerprint], copies: [], knownSizes: [size] },
    });
    expect((await metrics('partner', MESQUITE, month)).reserved).toBe(held);
  });

  it('keeps a deleted photo counted, as production’s ledger does: deleting it gives no room back', async () => {
    const month = await ledgerMonth();
    const fingerprint = newFingerprints(1)[0]!;
    const reservation = await reserve(sandbox.config, ids.free, MESQUITE, [fingerprint]);
    const key = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: '', reservation, fingerprint });
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '986', reserved: 0 });
    // The operator (members may not delete) removes it from the bucket.
    expect((await operatorFetch(objectUrl(key), { method: 'DELETE' })).status).toBe(204);
    expect(stored(key)).toBe(false);
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '986', reserved: 0 });
    expect((await ask('partner', MESQUITE, newFingerprints(20))).json.granted).toHaveLength(14);
    // Its photo is still the ranch's: sent again, it would be a duplicate.
    expect((await ask('partner', MESQUITE, [fingerprint])).json).toMatchObject({ known: [fingerprint], granted: [] });
  });

  it('removes a photo sent without a reservation and records no-reservation; the count is unchanged', async () => {
    const month = await ledgerMonth();
    const key = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: '', fingerprint: fingerprintOf(Buffer.from('x')) });
    expect(stored(key)).toBe(false);
    expect(refusalOf(key)).toMatchObject({ ranchId: MESQUITE, reason: 'no-reservation', yearmo: month });
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '985', reserved: 0 });
  });

  it('refuses a photo naming a reservation it was never granted (made up, malformed, or another ranch’s) the same way', async () => {
    const month = await ledgerMonth();
    // A real reservation, granted to Cedar Creek: not one for a Mesquite Flats photo.
    const cedars = await reserve(sandbox.config, ids.subscriber, CEDAR, newFingerprints(1));
    for (const reservation of [madeUpReservation(month), 'r-nonsense', '', cedars]) {
      const key = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: '', reservation, fingerprint: newFingerprints(1)[0]! });
      expect([reservation, stored(key)]).toEqual([reservation, false]);
      expect([reservation, refusalOf(key)]).toEqual([reservation, expect.objectContaining({ ranchId: MESQUITE, reason: 'no-reservation' })]);
    }
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '985', reserved: 0 });
    // Cedar Creek's slot is still held (live, unused): a photo of another ranch could not use it.
    expect((await api('POST', `/ranches/${CEDAR}/reservations/${cedars}/renew`, ids.subscriber)).status).toBe(200);
    expect(await api('DELETE', `/ranches/${CEDAR}/reservations/${cedars}`, ids.subscriber)).toMatchObject({ status: 200, json: { released: 1 } });
  });

  it('refuses a photo whose ranchid is a malformed RFC 2047 word as malformed-metadata, leaving its slot held', async () => {
    const month = await ledgerMonth();
    const fingerprint = newFingerprints(1)[0]!;
    const reservation = await reserve(sandbox.config, ids.free, MESQUITE, [fingerprint]);
    const key = await putPhoto('free', MESQUITE, { ranchid: '=?UTF-8?B?!!!?=', camera_name: '', reservation, fingerprint });
    expect(stored(key)).toBe(false);
    expect(refusalOf(key)).toMatchObject({ ranchId: MESQUITE, reason: 'malformed-metadata' });
    expect(await metrics('partner', MESQUITE, month)).toMatchObject({ total: '985', reserved: 1 });
    expect(await Promise.race([sandbox.stopped, new Promise((r) => setTimeout(() => r('running'), 50))])).toBe('running');
  });

  it('refuses a photo whose capture_correction does not add up as malformed-metadata (S3 keeps every x-amz-meta-*), and counts it when it does', async () => {
    const month = await ledgerMonth();
    const [bad, good] = [jpegBytes(`photo ${randomUUID()}`), jpegBytes(`photo ${randomUUID()}`)];
    const reservation = await reserve(sandbox.config, ids.free, MESQUITE, [fingerprintOf(bad), fingerprintOf(good)]);
    // A camera that restarted at 2000-01-01, corrected to 2026-01-01: 9,497 days later.
    const corrected = { capture_time: '2026-01-01T00:00:00', camera_capture_time: '2000-01-01T00:00:00', photo_turn: '90' };
    const meta = (bytes: Buffer, correction: string) => ({
      ranchid: MESQUITE,
      camera_name: '',
      reservation,
      fingerprint: fingerprintOf(bytes),
      ...corrected,
      capture_correction: correction,
    });
    const refused = await putPhoto('free', MESQUITE, meta(bad, '+3600'), bad);
    expect(stored(refused)).toBe(false);
    expect(refusalOf(refused)).toMatchObject({ ranchId: MESQUITE, reason: 'malformed-metadata' });
    const counted = await putPhoto('free', MESQUITE, meta(good, '+820540800'), good);
    expect(tagged(counted, MESQUITE)).toBe(true);
    expect(refusalOf(counted)).toBeUndefined();
    // The refused photo's slot stays held (as the other member sees it); the other became the count.
    expect(await metrics('partner', MESQUITE, month)).toMatchObject({ total: '986', reserved: 1 });
  });
});

describe('the object-created function counts only JPEG photos', () => {
  beforeEach(() => setRanchUsage(sandbox, MESQUITE, 985));

  it('removes and records a reserved upload that is not a JPEG by its first bytes or its content type, leaving its slot held', async () => {
    const month = await ledgerMonth();
    const [text, png] = newFingerprints(2) as [string, string];
    const reservation = await reserve(sandbox.config, ids.free, MESQUITE, [text, png]);
    // A crafted client: a JPEG's content type over bytes that are not one, and a real JPEG sent as a PNG.
    const notBytes = await putPhoto(
      'free',
      MESQUITE,
      { ranchid: MESQUITE, camera_name: '', reservation, fingerprint: text },
      Buffer.from(`photo ${randomUUID()}`),
    );
    const notType = await putPhoto(
      'free',
      MESQUITE,
      { ranchid: MESQUITE, camera_name: '', reservation, fingerprint: png },
      jpegBytes(randomUUID()),
      'image/png',
    );
    for (const key of [notBytes, notType]) {
      expect([key, stored(key)]).toEqual([key, false]);
      expect([key, refusalOf(key)]).toEqual([key, expect.objectContaining({ ranchId: MESQUITE, reason: 'not-jpeg' })]);
    }
    // Another member sees both slots still held: nothing was counted.
    expect(await metrics('partner', MESQUITE, month)).toMatchObject({ total: '985', reserved: 2 });
    expect(await api('DELETE', `/ranches/${MESQUITE}/reservations/${reservation}`, ids.free)).toMatchObject({ status: 200, json: { released: 2 } });
  });
});

describe('the ledger clock: reservation lifetimes and months', () => {
  it('gives an expired reservation’s unused slots back; a photo under it still counts while there is room, and is refused when there is none', async () => {
    await setLedgerClock(sandbox, '2026-06-15T12:00:00Z');
    await setRanchUsage(sandbox, MESQUITE, 985);
    const month = '2026_06';
    const fingerprints = newFingerprints(15);
    const slow = await reserve(sandbox.config, ids.free, MESQUITE, fingerprints);
    expect((await ask('partner', MESQUITE, newFingerprints(1))).json.granted).toEqual([]);

    // 16 minutes on, nothing was sent: the 15 slots are back.
    await setLedgerClock(sandbox, '2026-06-15T12:16:00Z');
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '985', reserved: 0, month });
    const fresh = await ask('partner', MESQUITE, newFingerprints(10));
    expect(fresh.json.granted).toHaveLength(10);

    // A slow photo under the expired reservation: 5 of the ceiling are neither counted nor held, so it counts.
    const late = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: '', reservation: slow, fingerprint: fingerprints[0]! });
    expect(tagged(late, MESQUITE)).toBe(true);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`"key":"${late}".*"slot":"unreserved"`)));
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '986', reserved: 10 });

    // The rest of the room is granted to the partner: none is left beside the live reservations.
    expect((await ask('partner', MESQUITE, newFingerprints(10))).json.granted).toHaveLength(4);
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '986', reserved: 14 });
    const refused = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: '', reservation: slow, fingerprint: fingerprints[1]! });
    expect(stored(refused)).toBe(false);
    expect(refusalOf(refused)).toMatchObject({ ranchId: MESQUITE, reason: 'monthly-limit' });
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '986', reserved: 14 });

    // A photo under the partner's live reservation takes its slot.
    const held = await putPhoto('partner', MESQUITE, {
      ranchid: MESQUITE,
      camera_name: '',
      reservation: fresh.json.reservation!,
      fingerprint: fresh.json.granted[0]!,
    });
    expect(tagged(held, MESQUITE)).toBe(true);
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '987', reserved: 13 });
  });

  it('counts in the month of the ledger clock in UTC: 23:30 on October 31 in Chicago is already 2026_11', async () => {
    await setLedgerClock(sandbox, '2026-11-01T04:30:00Z');
    await setRanchUsage(sandbox, MESQUITE, 0);
    const answer = await ask('free', MESQUITE, newFingerprints(1));
    expect(answer.json).toMatchObject({ yearmo: '2026_11', reservation: expect.stringMatching(/^r-2026_11-/) });
    // Nothing counted yet: `total` is "" (the product API's contract), beside the slot held.
    expect(await metrics('partner', MESQUITE, '2026_11')).toEqual({ total: '', yearmo: '2026_11', month: '2026_11', reserved: 1, ceiling: 1000 });
    expect((await ask('free', MESQUITE, newFingerprints(1), '2026_10')).status).toBe(400);
  });

  it('counts a photo in its reservation’s month: reserved at 23:59 on October 31 (UTC), stored at 00:01 on November 1', async () => {
    await setLedgerClock(sandbox, '2026-10-31T23:59:00Z');
    await setRanchUsage(sandbox, MESQUITE, 0);
    const fingerprint = newFingerprints(1)[0]!;
    const answer = await ask('free', MESQUITE, [fingerprint]);
    expect(answer.json).toMatchObject({ yearmo: '2026_10', granted: [fingerprint] });

    await setLedgerClock(sandbox, '2026-11-01T00:01:00Z');
    await setRanchUsage(sandbox, MESQUITE, 0);
    const key = await putPhoto('free', MESQUITE, { ranchid: MESQUITE, camera_name: '', reservation: answer.json.reservation!, fingerprint });
    expect(tagged(key, MESQUITE)).toBe(true);
    expect(await metrics('free', MESQUITE, '2026_10')).toMatchObject({ total: '1', reserved: 0, month: '2026_11' });
    expect(await metrics('free', MESQUITE, '2026_11')).toMatchObject({ total: '', reserved: 0 });
  });
});

describe('the ledger control endpoints', () => {
  it('/_sandbox/ranch-usage sets the count for the ledger clock’s month and drops its reservations', async () => {
    const month = await ledgerMonth();
    await reserve(sandbox.config, ids.free, MESQUITE, newFingerprints(3));
    expect((await metrics('partner', MESQUITE, month)).reserved).toBe(3);
    expect(await putControl(sandbox, 'ranch-usage', JSON.stringify({ ranchId: MESQUITE, total: 990 }))).toEqual({ status: 200, json: { ok: true } });
    expect(await metrics('free', MESQUITE, month)).toMatchObject({ total: '990', reserved: 0 });
    // The month it sets follows the clock.
    await setLedgerClock(sandbox, '2026-02-14T08:00:00Z');
    await setRanchUsage(sandbox, MESQUITE, 7);
    expect(await metrics('free', MESQUITE, '2026_02')).toMatchObject({ total: '7', month: '2026_02' });
    expect((await metrics('free', MESQUITE, month)).total).toBe('990');
  });

  it('/_sandbox/ranch-usage without a total drops the reservations and keeps the count', async () => {
    const month = await ledgerMonth();
    await setRanchUsage(sandbox, MESQUITE, 990);
    await reserve(sandbox.config, ids.free, MESQUITE, newFingerprints(2));
    expect(await putControl(sandbox, 'ranch-usage', JSON.stringify({ ranchId: MESQUITE }))).toEqual({ status: 200, json: { ok: true } });
    expect(await metrics('partner', MESQUITE, month)).toMatchObject({ total: '990', reserved: 0 });
  });

  it('/_sandbox/ranch-usage 400s an unknown ranch, a count that is not a whole number ≥ 0, and a body that is not a JSON object', async () => {
    const month = await ledgerMonth();
    await setRanchUsage(sandbox, MESQUITE, 985);
    for (const body of [
      { ranchId: 'nowhere', total: 1 },
      { total: 1 },
      { ranchId: MESQUITE, total: -1 },
      { ranchId: MESQUITE, total: 1.5 },
      { ranchId: MESQUITE, total: '5' },
      { ranchId: MESQUITE, total: null },
      '{',
      '[1]',
      '',
    ]) {
      const res = await putControl(sandbox, 'ranch-usage', typeof body === 'string' ? body : JSON.stringify(body));
      expect([body, res.status]).toEqual([body, 400]);
      expect(res.json['message']).toMatch(/bad ranch usage/);
    }
    expect((await metrics('free', MESQUITE, month)).total).toBe('985');
    // Like every control: not from a web page.
    const fromPage = await putControl(sandbox, 'ranch-usage', JSON.stringify({ ranchId: MESQUITE, total: 0 }), { Origin: 'http://localhost:3000' });
    expect(fromPage.status).toBe(403);
    expect((await metrics('free', MESQUITE, month)).total).toBe('985');
  });

  it('/_sandbox/ledger-clock sets the ledger’s time (it goes on ticking), 400s a malformed time, and an empty body resets it', async () => {
    const set = await putControl(sandbox, 'ledger-clock', '2026-06-15T12:00:00Z');
    expect(set.status).toBe(200);
    expect(Date.parse(set.json['now'] as string) - Date.parse('2026-06-15T12:00:00Z')).toBeLessThan(5_000);
    const read = await ledgerClock(sandbox);
    expect(Date.parse(read.now)).toBeGreaterThanOrEqual(Date.parse('2026-06-15T12:00:00Z'));
    expect(Date.parse(read.now)).toBeLessThan(Date.parse('2026-06-15T12:00:05Z'));
    expect((await metrics('free', MESQUITE, '2026_06')).month).toBe('2026_06');

    for (const bad of ['tomorrow', '2026-13-01T00:00:00Z', '2026-06-15T25:00:00Z', '1781524800000', '15/06/2026 12:00', '2026-06-15Tnoon']) {
      const res = await putControl(sandbox, 'ledger-clock', bad);
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(res.json['message']).toMatch(/bad ledger clock/);
    }
    // Unchanged by the refusals.
    expect((await ledgerClock(sandbox)).now.startsWith('2026-06-15T12:00')).toBe(true);

    expect((await putControl(sandbox, 'ledger-clock', '')).status).toBe(200);
    const before = Date.now();
    const reset = await ledgerClock(sandbox);
    const after = Date.now();
    expect(reset.offsetMs).toBe(0);
    // The real time: read between the test's own two readings (a busy machine only widens the gap).
    expect(Date.parse(reset.now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(reset.now)).toBeLessThanOrEqual(after);
    expect((await metrics('free', MESQUITE, countingMonth(new Date()))).month).toBe(countingMonth(new Date()));
    // Tokens and signatures keep the real time: a reservation still works after all that.
    expect((await ask('subscriber', CEDAR, newFingerprints(1))).status).toBe(200);
  });
});

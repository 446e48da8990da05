/**
 * Tenants (`POST /_sandbox/tenants`, src/tenants.ts): the browser tests' workers each take one,
 * fresh copies of the seed's ranches and accounts. A tenant's users are real pool users (SRP
 * through Amplify) who reach their own ranches only; a malformed request is answered 400.
 */
import { fetchAuthSession, signIn, signOut } from 'aws-amplify/auth';
import type { Sandbox } from '../src/index';
import { countingMonth } from '../src/index';
import { parseTenantRequest } from '../src/tenants';
import type { Tenant } from '../src/tenants';
import { apiGet, configureAmplify, passwordTokens, startTestSandbox, stopTestSandbox } from './support/sandbox';
import { uploadMetrics } from './support/uploads';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  configureAmplify(sandbox);
});
afterAll(() => stopTestSandbox(sandbox));

const controlUrl = (path: string) => `http://127.0.0.1:${sandbox.ports.analytics}/_sandbox/${path}`;
const postTenant = (body?: string, headers: Record<string, string> = {}) =>
  fetch(controlUrl('tenants'), { method: 'POST', headers, ...(body === undefined ? {} : { body }) });

async function newTenant(label?: string): Promise<Tenant> {
  const res = await postTenant(label === undefined ? undefined : JSON.stringify({ label }));
  expect(res.status).toBe(201);
  return (await res.json()) as Tenant;
}

/** An id token of a tenant's user (the password flow: quicker than SRP where SRP is not the point). */
async function idToken(tenant: Tenant, seedEmail: string): Promise<string> {
  const user = tenant.users[seedEmail]!;
  return (await passwordTokens(sandbox.config, user.email, user.password)).IdToken;
}

describe('POST /_sandbox/tenants', () => {
  it("makes copies of the seed's ranches and users under ids of their own; its users sign in through SRP", async () => {
    const tenant = await newTenant('w1');
    expect(tenant.tenant).toMatch(/^w1-[0-9a-f]{8}$/);
    expect(Object.keys(tenant.ranches).sort()).toEqual(['cedar-creek', 'mesquite-flats', 'pine-hollow']);
    const cedar = tenant.ranches['cedar-creek']!;
    expect(cedar).toMatchObject({ id: `cedar-creek-${tenant.tenant}`, name: 'Cedar Creek Ranch', maxMonthlyUploads: 10000, countedThisMonth: 0 });
    expect(cedar.cameras).toHaveLength(4);
    const subscriber = tenant.users['subscriber@trailsense.example']!;
    expect(subscriber).toMatchObject({ email: `subscriber-${tenant.tenant}@trailsense.example`, ranchId: cedar.id });
    expect(tenant.users['noranch@trailsense.example']!.ranchId).toBeUndefined();

    // A real pool user: SRP through Amplify, its ranch in the id token.
    expect(await signIn({ username: subscriber.email, password: subscriber.password })).toMatchObject({ isSignedIn: true });
    const { tokens } = await fetchAuthSession();
    expect(tokens!.idToken!.payload['custom:ranchid']).toBe(cedar.id);
    await signOut();

    // The product data of the seed's kinds: the ceiling and cameras, the subscription, this month's count.
    const token = await idToken(tenant, 'subscriber@trailsense.example');
    expect((await apiGet(sandbox.config, `/ranches/${cedar.id}`, token)).json).toEqual({ max_monthly_uploads: 10000 });
    expect(((await apiGet(sandbox.config, `/ranches/${cedar.id}/cameras`, token)).json['Cameras'] as unknown[]).length).toBe(4);
    const entitlements = (await apiGet(sandbox.config, `/subscriptions/${encodeURIComponent(subscriber.email)}`, token)).json;
    expect(entitlements).toMatchObject({ subscriber: { entitlements: { premium: { expires_date: expect.any(String) } } } });
    const mesquite = tenant.ranches['mesquite-flats']!.id;
    const free = await idToken(tenant, 'free@trailsense.example');
    expect((await uploadMetrics(sandbox.config, free, mesquite, countingMonth(new Date()))).total).toBe('985');
  });

  it('makes a new tenant each time, and its users reach only its own ranches', async () => {
    const [one, two] = [await newTenant(), await newTenant()];
    expect(one.tenant).toMatch(/^t-[0-9a-f]{8}$/);
    expect(one.tenant).not.toBe(two.tenant);
    expect(one.users['free@trailsense.example']!.sub).not.toBe(two.users['free@trailsense.example']!.sub);
    const token = await idToken(one, 'subscriber@trailsense.example');
    expect((await apiGet(sandbox.config, `/ranches/${two.ranches['cedar-creek']!.id}`, token)).status).toBe(403);
  });

  it('answers a malformed request 400 saying what is wrong, and makes nothing', async () => {
    const cases: [string, RegExp][] = [
      ['not json', /expected nothing, or a JSON object/],
      ['[1]', /expected nothing, or a JSON object/],
      ['{"label":"W1"}', /lower-case letters or digits/],
      ['{"label":"abcdefghijklm"}', /1 to 12/],
      ['{"label":7}', /lower-case letters or digits/],
      ['{"label":""}', /lower-case letters or digits/],
      ['{"name":"w1"}', /unknown field "name"/],
    ];
    for (const [body, message] of cases) {
      const res = await postTenant(body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
    expect((await postTenant('x'.repeat(5000))).status).toBe(400);
    expect((await fetch(controlUrl('tenants'))).status).toBe(405);
    expect((await fetch(controlUrl('tenants'), { method: 'PUT', body: '' })).status).toBe(405);
    expect((await postTenant('', { Origin: 'http://localhost:3000' })).status).toBe(403);
    expect((await fetch(controlUrl('tenants?ranch=cedar-creek'), { method: 'POST' })).status).toBe(400);
  });
});

describe('parseTenantRequest', () => {
  it('takes nothing, an empty object or a label', () => {
    expect(parseTenantRequest(Buffer.alloc(0))).toEqual({});
    expect(parseTenantRequest(Buffer.from('{}'))).toEqual({});
    expect(parseTenantRequest(Buffer.from('{"label":"w12"}'))).toEqual({ label: 'w12' });
    expect(parseTenantRequest(Buffer.from('{"label":null}'))).toMatch(/^bad tenant request/);
  });
});

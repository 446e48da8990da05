/**
 * Tenants: a fresh copy of the seed's ranches and accounts (seed.ts), made at run time by
 * `POST /_sandbox/tenants`, so that test processes sharing one sandbox (the browser tests'
 * workers, e2e/support/tenant.ts) never share a ranch, an account, a count or a switch.
 *
 * A tenant `<id>` has each seed ranch under the id `<seed ranch id>-<id>`, with the seed's name,
 * ceiling, cameras and this month's count, and each seed user as a real user-pool user of its own
 * (a new `sub`, the email `<local part>-<id>@<domain>`, the seed's password, its ranch's copy) who
 * signs in through SRP as the seed's do; the seed's subscriptions follow the emails, relative to
 * now. `<id>` is the request's label (if any), a dash and random hex.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SandboxDb } from './db';
import { parseJsonObject } from './http-util';
import { insertProductData, SEED_RANCHES, SEED_USERS, seedSubscriptions } from './seed';
import type { SeedRanch, SeedUser } from './seed';

/** A label names a tenant for the log and the ids (`w3`: worker 3): lower-case letters and digits. */
const LABEL = /^[a-z0-9]{1,12}$/;

const FORMAT = 'expected nothing, or a JSON object {"label": "<1 to 12 lower-case letters or digits>"}';

/** The request's label, or why the request is malformed. */
export function parseTenantRequest(raw: Buffer): { label?: string } | string {
  if (raw.length === 0) return {};
  const body = parseJsonObject(raw);
  if (!body) return `bad tenant request: ${FORMAT}`;
  const unknown = Object.keys(body).filter((name) => name !== 'label');
  if (unknown.length > 0) return `bad tenant request: unknown field ${JSON.stringify(unknown[0]!.slice(0, 64))}; ${FORMAT}`;
  const label = body['label'];
  if (label === undefined) return {};
  if (typeof label !== 'string' || !LABEL.test(label)) return `bad tenant request: the label must be 1 to 12 lower-case letters or digits; ${FORMAT}`;
  return { label };
}

/** A tenant: its id, its copies of the seed ranches and users (by the seed's ranch id and email). */
export interface Tenant {
  tenant: string;
  ranches: Record<string, SeedRanch>;
  users: Record<string, SeedUser>;
}

/** Tenant `id`'s ranches and users (pure: the subs are new each time). */
export function tenantOf(id: string): Tenant {
  const ranchId = (seed: string) => `${seed}-${id}`;
  const ranches = Object.fromEntries(SEED_RANCHES.map((r) => [r.id, { ...r, id: ranchId(r.id), cameras: [...r.cameras] }]));
  const users = Object.fromEntries(
    SEED_USERS.map((u) => {
      const [local, domain] = u.email.split('@') as [string, string];
      const user: SeedUser = { ...u, email: `${local}-${id}@${domain}`, sub: randomUUID(), role: `${u.role} (tenant ${id})` };
      if (u.ranchId) user.ranchId = ranchId(u.ranchId);
      return [u.email, user];
    }),
  );
  return { tenant: id, ranches, users };
}

export interface TenantDeps {
  db: SandboxDb;
  /** Saves users in the user pool (confirmed, their emails verified). */
  saveUsers: (users: readonly SeedUser[]) => Promise<void>;
  now?: () => Date;
}

/** Makes a tenant: its product data in one transaction, then its users in the pool. */
export async function createTenant(deps: TenantDeps, label?: string): Promise<Tenant> {
  const id = `${label === undefined ? 't' : label}-${randomBytes(4).toString('hex')}`;
  const tenant = tenantOf(id);
  const now = (deps.now ?? (() => new Date()))();
  const subscriptions = seedSubscriptions(now).map((s) => ({ ...s, email: tenant.users[s.email]!.email }));
  deps.db.raw.transaction(() => insertProductData(deps.db, now, Object.values(tenant.ranches), subscriptions))();
  await deps.saveUsers(Object.values(tenant.users));
  return tenant;
}

/**
 * A browser-test worker's tenant: fresh copies of the sandbox's seed ranches and accounts
 * (`POST /_sandbox/tenants`, sandbox/src/tenants.ts), so that workers running side by side never
 * share an account, a ranch's count or a switch (the helpers of ./uploads.ts switch one ranch's
 * own). The `tenant` fixture of ./test.ts makes one per worker; its users are real user-pool
 * users, signed in through SRP like the seed's (./session.ts).
 */
import localConfig from '../../config/local.json';
import type { SeedRanch, SeedUser } from '../../sandbox/src/seed';

export interface Account {
  email: string;
  password: string;
}

/** The seed's accounts by what they are for (sandbox/README.md#seed-accounts). */
export interface Accounts {
  /** Premium subscriber of the Cedar Creek copy (4 cameras, 10,000 a month). */
  subscriber: Account;
  /** No subscription; the Mesquite Flats copy, 985 of 1,000 counted this month. */
  free: Account;
  /** A second member of the Mesquite Flats copy. */
  partner: Account;
  /** Premium expired last month; the Pine Hollow copy (camera names beyond ASCII). */
  lapsed: Account;
  /** No ranch. */
  noRanch: Account;
}

/** A tenant's ranch: the seed ranch's name, ceiling, cameras and count, under an id of its own. */
export type TenantRanch = SeedRanch;

export interface Tenant {
  id: string;
  accounts: Accounts;
  ranches: { cedarCreek: TenantRanch; mesquiteFlats: TenantRanch; pineHollow: TenantRanch };
  /** Every ranch id of the tenant. */
  ranchIds: string[];
}

const controlBase = new URL(localConfig.analytics.endpoint).origin;

/** Asks the browser tests' sandbox for a new tenant, labelled (`w3`) for its log. */
export async function createTenant(label: string): Promise<Tenant> {
  const res = await fetch(`${controlBase}/_sandbox/tenants`, { method: 'POST', body: JSON.stringify({ label }) });
  if (res.status !== 201) throw new Error(`the sandbox made no tenant: ${res.status} ${await res.text()}`);
  const made = (await res.json()) as { tenant: string; ranches: Record<string, SeedRanch>; users: Record<string, SeedUser> };
  const account = (seedEmail: string): Account => {
    const user = made.users[seedEmail];
    if (!user) throw new Error(`the tenant has no copy of ${seedEmail}`);
    return { email: user.email, password: user.password };
  };
  const ranch = (seedId: string): TenantRanch => {
    const copy = made.ranches[seedId];
    if (!copy) throw new Error(`the tenant has no copy of ${seedId}`);
    return copy;
  };
  return {
    id: made.tenant,
    accounts: {
      subscriber: account('subscriber@trailsense.example'),
      free: account('free@trailsense.example'),
      partner: account('partner@trailsense.example'),
      lapsed: account('lapsed@trailsense.example'),
      noRanch: account('noranch@trailsense.example'),
    },
    ranches: { cedarCreek: ranch('cedar-creek'), mesquiteFlats: ranch('mesquite-flats'), pineHollow: ranch('pine-hollow') },
    ranchIds: Object.values(made.ranches).map((r) => r.id),
  };
}

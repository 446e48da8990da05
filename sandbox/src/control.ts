/**
 * What the control endpoints (analytics.ts SandboxControl) do to a running sandbox: the S3 PUT
 * switches, the product API's fault switch, the firewall and the ledger's clock — each the
 * process-wide one, or a ranch's own (ranch-scope.ts) — a ranch's count, and new tenants
 * (tenants.ts). Malformed input is answered with the reason and changes nothing.
 */
import { countingMonth } from '@trailsense/infra/ledger';
import type { SandboxControl } from './analytics';
import type { SandboxDb } from './db';
import { parseApiFault, parsePutFault } from './fault';
import type { ApiFault } from './fault';
import { formatFirewall, parseFirewall } from './firewall';
import type { RanchFirewalls } from './firewall';
import type { LedgerClock } from './ledger-clock';
import type { RanchScoped } from './ranch-scope';
import type { S3Piece } from './s3';
import type { SeedUser } from './seed';
import { parseStallCount } from './stall';
import { parseJsonObject } from './http-util';
import { createTenant, parseTenantRequest } from './tenants';

export interface ControlDeps {
  s3: S3Piece;
  db: SandboxDb;
  ledgerClock: LedgerClock;
  /** The product API's fault switches, which the API reads on each request. */
  apiFault: RanchScoped<{ faults: ApiFault }>;
  firewall: RanchFirewalls;
  /** Saves a tenant's users in the user pool. */
  saveUsers: (users: readonly SeedUser[]) => Promise<void>;
  /** Ends a user's pending sign-ins as if their lifetime had passed (gateway/user-auth.ts expireFor). */
  expireSignIns: (username: string) => number;
}

/** Applies a spec once parsed: the parser's message when it is malformed. */
function applied<T>(parsed: T | string, apply: (value: T) => void): string | undefined {
  if (typeof parsed === 'string') return parsed;
  apply(parsed);
  return undefined;
}

export function createControl(deps: ControlDeps): SandboxControl {
  const { s3, db, ledgerClock } = deps;
  return {
    ranchProblem: (ranch) =>
      db.ranch(ranch) ? undefined : `no ranch ${JSON.stringify(ranch.slice(0, 64))}: switch a ranch the sandbox has (a tenant's: POST /_sandbox/tenants)`,
    setPutFault: (spec, ranch) => applied(parsePutFault(spec === '' ? '0' : spec), (fault) => s3.setPutFault(fault, ranch)),
    injectedFaults: (ranch) => s3.injectedFaults(ranch),
    stallPuts: (spec, ranch) => applied(parseStallCount(spec), (count) => s3.stallPuts(count, ranch)),
    putStall: (ranch) => s3.putStall(ranch),
    setApiFault: (spec, ranch) => applied(parseApiFault(spec), (faults) => void (deps.apiFault.own(ranch).faults = faults)),
    apiFault: (ranch) => deps.apiFault.for(ranch).faults,
    setFirewall: (spec, ranch) => applied(parseFirewall(spec), (mode) => deps.firewall.set(mode, ranch)),
    firewall: (ranch) => ({ mode: formatFirewall(deps.firewall.mode(ranch)), refused: deps.firewall.refused(ranch) }),
    setLedgerClock: (spec, ranch) => ledgerClock.set(spec, ranch),
    ledgerClock: (ranch) => ({ now: new Date(ledgerClock.now(ranch)).toISOString(), offsetMs: ledgerClock.offsetMs(ranch) }),
    setRanchUsage: (ranchId, total) => {
      if (typeof ranchId !== 'string' || !db.ranch(ranchId)) return `bad ranch usage: no ranch ${JSON.stringify(ranchId)}`;
      // The ranch's month by its own ledger clock.
      const month = countingMonth(new Date(ledgerClock.now(ranchId)));
      if (total === undefined) {
        // Only the reservations go: the count stays.
        db.setMonthTotal(ranchId, month, db.month(ranchId, month).total);
        return undefined;
      }
      if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) return 'bad ranch usage: total must be a whole number ≥ 0';
      db.setMonthTotal(ranchId, month, total);
      return undefined;
    },
    createTenant: async (raw) => {
      const request = parseTenantRequest(raw);
      if (typeof request === 'string') return { error: request };
      return { tenant: await createTenant({ db, saveUsers: deps.saveUsers }, request.label) };
    },
    expireSignIns: (raw) => {
      const json = parseJsonObject(raw);
      const email = json?.['email'];
      if (typeof email !== 'string' || !email.includes('@') || email.length > 254)
        return { error: 'bad sign-in expiry: send { "email": "<the address the sign-in was begun with>" }' };
      return { expired: deps.expireSignIns(email) };
    },
  };
}

/**
 * What the control endpoints (analytics.ts SandboxControl) do to a running sandbox: the S3 PUT
 * switches, the product API's fault switch, the ledger's clock and a ranch's count. Malformed
 * input is answered with the reason and changes nothing.
 */
import { countingMonth } from '@trailsense/infra/ledger';
import type { SandboxControl } from './analytics';
import type { SandboxDb } from './db';
import { parseApiFault, parsePutFault } from './fault';
import type { ApiFault } from './fault';
import { formatFirewall, parseFirewall } from './firewall';
import type { Firewall } from './firewall';
import type { LedgerClock } from './ledger-clock';
import type { S3Piece } from './s3';
import { parseStallCount } from './stall';

export interface ControlDeps {
  s3: S3Piece;
  db: SandboxDb;
  ledgerClock: LedgerClock;
  /** The product API's fault switch, which the API reads on each request. */
  apiFault: { get(): ApiFault; set(fault: ApiFault): void };
  firewall: Firewall;
}

export function createControl(deps: ControlDeps): SandboxControl {
  const { s3, db, ledgerClock } = deps;
  return {
    setPutFault: (spec) => {
      const parsed = parsePutFault(spec === '' ? '0' : spec);
      if (typeof parsed === 'string') return parsed;
      s3.setPutFault(parsed);
      return undefined;
    },
    injectedFaults: () => s3.injectedFaults(),
    stallPuts: (spec) => {
      const count = parseStallCount(spec);
      if (typeof count === 'string') return count;
      s3.stallPuts(count);
      return undefined;
    },
    putStall: () => s3.putStall(),
    setApiFault: (spec) => {
      const parsed = parseApiFault(spec);
      if (typeof parsed === 'string') return parsed;
      deps.apiFault.set(parsed);
      return undefined;
    },
    apiFault: () => deps.apiFault.get(),
    setFirewall: (spec) => {
      const parsed = parseFirewall(spec);
      if (typeof parsed === 'string') return parsed;
      deps.firewall.set(parsed);
      return undefined;
    },
    firewall: () => ({ mode: formatFirewall(deps.firewall.mode()), refused: deps.firewall.refused() }),
    setLedgerClock: (spec) => ledgerClock.set(spec),
    ledgerClock: () => ({ now: new Date(ledgerClock.now()).toISOString(), offsetMs: ledgerClock.offsetMs() }),
    setRanchUsage: (ranchId, total) => {
      if (typeof ranchId !== 'string' || !db.ranch(ranchId)) return `bad ranch usage: no ranch ${JSON.stringify(ranchId)}`;
      const month = countingMonth(new Date(ledgerClock.now()));
      if (total === undefined) {
        // Only the reservations go: the count stays.
        db.setMonthTotal(ranchId, month, db.month(ranchId, month).total);
        return undefined;
      }
      if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) return 'bad ranch usage: total must be a whole number ≥ 0';
      db.setMonthTotal(ranchId, month, total);
      return undefined;
    },
  };
}

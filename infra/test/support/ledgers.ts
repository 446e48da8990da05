/**
 * The ledgers the port's suites run on (ledger-copies.test.ts, ledger-checksums.test.ts), for
 * `describe.each`: the sandbox's SQLite adapter (sandbox/src/ledger.ts), on a fresh database in a
 * folder of its own per test, and the production DynamoDB adapter (src/ledger/dynamo.ts) on both
 * engines (support/ledger-engines.ts: our fake and DynamoDB Local). Each comes with its records,
 * read from its own storage — the SQLite tables (test-support/sqlite-ledger.ts), the DynamoDB items
 * (support/ledger-records.ts) — as the port names them.
 */
import type { LedgerPort } from '../../src/ledger/port';
import { sqliteLedgerInTempDir } from '../../../test-support/sqlite-ledger';
import { ENGINES } from './ledger-engines';
import { DynamoRecords, instantLedger, type LedgerRecords } from './ledger-records';

export interface LedgerSetup {
  ledger: LedgerPort;
  records: LedgerRecords;
  /** Another ledger on the same records: on DynamoDB another client's, as a second Lambda's; on SQLite another adapter on the sandbox's database. */
  other: () => LedgerPort;
  /** Frees what the setup took (SQLite: the database and its folder). */
  close: () => void;
}

/** The sandbox's SQLite ledger, and the DynamoDB adapter on each engine: each call a fresh one. */
export const LEDGERS: readonly [string, () => Promise<LedgerSetup>][] = [
  ["the sandbox's SQLite ledger", () => Promise.resolve(sqliteLedgerInTempDir())],
  ...ENGINES.map(([name, make]): [string, () => Promise<LedgerSetup>] => [
    `DynamoDB (${name})`,
    async () => {
      const engine = await make();
      return {
        ledger: instantLedger(engine.client, engine.table),
        records: new DynamoRecords(engine),
        other: () => instantLedger(engine.client, engine.table, 2),
        close: () => {},
      };
    },
  ]),
];

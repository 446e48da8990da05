/**
 * The two DynamoDB engines the ledger's tests run on, behind one face: the in-memory fake we wrote
 * (support/fake-dynamo.ts), and DynamoDB Local, Amazon's own implementation, which we did not
 * (support/dynamodb-local.ts, started once per jest run). A suite written against `LedgerEngine`
 * runs on both (`ENGINES`), so a place where the fake interprets a command differently from
 * DynamoDB shows up as a test failing on one of them.
 *
 * A third, `CONFLICT_ENGINE`: DynamoDB Local behind the conflict proxy
 * (support/dynamodb-conflict-proxy.ts), whose chooser a test sets to answer writes as DynamoDB
 * answers those that meet another transaction, which DynamoDB Local alone never does. It is not
 * among `ENGINES`: forwarding everything, it is DynamoDB Local with a hop more.
 */
import { GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { GetItemCommandOutput, ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import type { CommandSender } from '../../src/ledger/dynamo';
import { ledgerKeys, monthFromItem } from '../../src/ledger/dynamo';
import type { MonthState } from '../../src/ledger/rules';
import { FORWARD_ALL, startConflictProxy, type ConflictProxy } from './dynamodb-conflict-proxy';
import { createLedgerTable, localDynamo, localDynamoAt, localDynamoEndpoint } from './dynamodb-local';
import { FakeDynamo, itemBytes, type Item } from './fake-dynamo';

export interface LedgerEngine {
  readonly name: string;
  /** What the adapter sends its commands to. */
  readonly client: CommandSender;
  readonly table: string;
  /** An item as stored (consistent read). */
  get(key: { pk: string; sk: string }): Promise<Item | undefined>;
  /** Stores an item as is (a test's starting point, e.g. a record of an older shape). */
  put(item: Item): Promise<void>;
  /** Every item of the table (consistent). */
  all(): Promise<Item[]>;
  month(ranchId: string, yearmo: string): Promise<MonthState>;
  /** The month item's size in bytes, as DynamoDB counts it near enough (0: none). */
  monthBytes(ranchId: string, yearmo: string): Promise<number>;
}

let tables = 0;

class Engine implements LedgerEngine {
  /** `inspector`: what the test's own reads and puts go through (default the adapter's client). */
  constructor(
    readonly name: string,
    readonly client: CommandSender,
    readonly table: string,
    private readonly inspector: CommandSender = client,
  ) {}

  async get(key: { pk: string; sk: string }): Promise<Item | undefined> {
    const answer = (await this.inspector.send(
      new GetItemCommand({ TableName: this.table, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }),
    )) as GetItemCommandOutput;
    return answer.Item;
  }

  async put(item: Item): Promise<void> {
    await this.inspector.send(new PutItemCommand({ TableName: this.table, Item: item }));
  }

  async all(): Promise<Item[]> {
    if (this.inspector instanceof FakeDynamo) return [...this.inspector.items.values()].map((item) => structuredClone(item));
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = (await this.inspector.send(
        new ScanCommand({ TableName: this.table, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }),
      )) as ScanCommandOutput;
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  async month(ranchId: string, yearmo: string): Promise<MonthState> {
    return monthFromItem(await this.get(ledgerKeys.month(ranchId, yearmo)));
  }

  async monthBytes(ranchId: string, yearmo: string): Promise<number> {
    const item = await this.get(ledgerKeys.month(ranchId, yearmo));
    return item ? itemBytes(item) : 0;
  }
}

/** A fresh, empty table on the fake. */
export function fakeEngine(): LedgerEngine {
  const fake = new FakeDynamo(`ledger-${++tables}`);
  return new Engine('the fake', fake, fake.table);
}

let shared: ReturnType<typeof localDynamo> | null = null;
let proxied: Promise<{ proxy: ConflictProxy; client: ReturnType<typeof localDynamo> }> | null = null;
// One client (and one proxy) per test file, its sockets closed when the file is done.
afterAll(async () => {
  shared?.destroy();
  shared = null;
  const behind = await proxied;
  proxied = null;
  behind?.client.destroy();
  await behind?.proxy.close();
});

/** A fresh, empty table on DynamoDB Local. */
export async function localEngine(): Promise<LedgerEngine> {
  shared ??= localDynamo();
  const table = await createLedgerTable(shared);
  return new Engine('DynamoDB Local', shared, table);
}

/** DynamoDB Local behind the conflict proxy: the adapter's requests go through `proxy`, the test's own reads straight to DynamoDB Local. */
export interface ConflictEngine extends LedgerEngine {
  /** The file's proxy: set its `chooser` to answer writes as conflicts (a new engine resets it to forward all). */
  readonly proxy: ConflictProxy;
}

const CONFLICT_ENGINE_NAME = 'DynamoDB Local behind the conflict proxy';

/** A fresh, empty table on DynamoDB Local, reached by the adapter through the file's conflict proxy. */
export async function conflictEngine(): Promise<ConflictEngine> {
  shared ??= localDynamo();
  proxied ??= startConflictProxy(localDynamoEndpoint()).then((proxy) => ({ proxy, client: localDynamoAt(proxy.endpoint) }));
  const { proxy, client } = await proxied;
  proxy.chooser = FORWARD_ALL;
  const table = await createLedgerTable(shared);
  return Object.assign(new Engine(CONFLICT_ENGINE_NAME, client, table, shared), { proxy });
}

/** Both engines, for `describe.each`: each call makes a fresh table. */
export const ENGINES: readonly [string, () => Promise<LedgerEngine>][] = [
  ['the fake', () => Promise.resolve(fakeEngine())],
  ['DynamoDB Local', localEngine],
];

/** The third engine, for a suite that chooses conflicts (`ConflictEngine.proxy`). */
export const CONFLICT_ENGINE: readonly [string, () => Promise<ConflictEngine>] = [CONFLICT_ENGINE_NAME, conflictEngine];

/**
 * A client that holds back the first `times` commands `hold` picks until `release()`, passing the
 * rest: to put one delivery's step between another's on a real engine, deterministically.
 */
export function gated(client: CommandSender, hold: (command: object) => boolean, times = 1) {
  const waiting: (() => void)[] = [];
  let held = 0;
  let onHeld: (() => void) | null = null;
  return {
    client: {
      async send(command: object) {
        if (held < times && hold(command)) {
          held++;
          onHeld?.();
          await new Promise<void>((resolve) => waiting.push(resolve));
        }
        return client.send(command);
      },
    } satisfies CommandSender,
    /** Resolves once `n` commands have been held in all. */
    heldCount: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (held >= n) resolve();
        };
        onHeld = check;
        check();
      }),
    release() {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

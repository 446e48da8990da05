/**
 * What the DynamoDB ledger's parts share (src/ledger/dynamo.ts defines the items and the months,
 * src/ledger/dynamo-photos.ts the photos and their upgrades): the table's keys, its client and
 * retry policy, and the reads every part makes. src/ledger/dynamo.ts re-exports what others import.
 */
import { BatchGetItemCommand, GetItemCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, BatchGetItemCommandOutput, CancellationReason, GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import type { ObjectDecision } from './port';
import { monthClose, storedRefusal, type CountOutcome } from './rules';

/** The ledger table's key schema. */
export const LEDGER_TABLE = { partitionKey: 'pk', sortKey: 'sk', timeToLive: 'ttl' } as const;

/** The ledger's item keys (src/ledger/dynamo.ts's comment). */
export const ledgerKeys = {
  month: (ranchId: string, yearmo: string) => ({ pk: `RANCH#${ranchId}`, sk: `UPLOADS#${yearmo}` }),
  reservation: (ranchId: string, id: string) => ({ pk: `RANCH#${ranchId}`, sk: `HOLD#${id}` }),
  object: (bucket: string, key: string) => ({ pk: `OBJECT#${bucket}/${key}`, sk: 'OBJECT' }),
  photo: (ranchId: string, fingerprint: string) => ({ pk: `RANCH#${ranchId}`, sk: `PHOTO#${fingerprint}` }),
  size: (ranchId: string, size: number) => ({ pk: `RANCH#${ranchId}`, sk: `SIZE#${size}` }),
  refusal: (bucket: string, key: string, yearmo: string) => ({ pk: `REFUSAL#${yearmo}`, sk: `${bucket}/${key}` }),
};

/**
 * How long a retired reservation's item and a refused object's item outlive their month's close
 * (then DynamoDB's TTL removes them): nothing reads them once the month is closed, and a month
 * more leaves room for an operator to look.
 */
export const RECORD_RETENTION_S = 31 * 24 * 3600;

/**
 * A write that loses a race is tried again from a fresh read until it has used its time budget
 * (`budgetMs`), and at most this many times in all. One month item takes some tens of writes a
 * second; 200 counts for one ranch at once need several seconds to get through
 * (infra/test/ledger-dynamo.test.ts), well inside the functions' timeouts.
 */
export const MAX_ATTEMPTS = 60;

/** The default time budget of one call's retries (the uploads API's function times out at 15 s, object-created's at 30 s). */
export const DEFAULT_BUDGET_MS = 10_000;

/** What the adapters need of an SDK client (a DynamoDBClient; a test's fake). */
export interface CommandSender {
  send(command: object): Promise<unknown>;
}

export interface DynamoLedgerOptions {
  /** Waits between attempts (default: a real timer). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Milliseconds (default Date.now): the retries' time budget is measured with it. */
  now?: () => number;
  /** How long one call keeps retrying lost races (default DEFAULT_BUDGET_MS). */
  budgetMs?: number;
}

export const s = (value: string): AttributeValue => ({ S: value });
export const n = (value: number): AttributeValue => ({ N: String(value) });

export function keyAttributes(k: { pk: string; sk: string }): Record<string, AttributeValue> {
  return { [LEDGER_TABLE.partitionKey]: s(k.pk), [LEDGER_TABLE.sortKey]: s(k.sk) };
}

/** DynamoDB's time to live (epoch seconds) of the records of month `yearmo`. */
export const recordTtl = (yearmo: string) => n(Math.floor(monthClose(yearmo) / 1000) + RECORD_RETENTION_S);

/** The condition that an item does not exist yet (an object decided for the first time). */
export const FIRST_DECISION = { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey } };

export const nameOf = (error: unknown) => (error as { name?: unknown } | null)?.name;

/** The reasons of a cancelled transaction (whichever copy of the SDK threw it), or null for any other error. */
export function cancellationReasons(error: unknown): readonly CancellationReason[] | null {
  if (!(error instanceof TransactionCanceledException) && nameOf(error) !== 'TransactionCanceledException') return null;
  return (error as TransactionCanceledException).CancellationReasons ?? [];
}

/** A conflict with another transaction: tried again, like a lost race. */
export function isConflict(error: unknown, reasons: readonly CancellationReason[] | null): boolean {
  return nameOf(error) === 'TransactionConflictException' || (reasons ?? []).some((r) => r.Code === 'TransactionConflict');
}

/** The table a ledger works on and its retry policy: what every read and write shares. */
export interface LedgerTable {
  client: CommandSender;
  name: string;
  /** Milliseconds: the retries' time budget is measured with it. */
  now: () => number;
  /** Waits before the attempt after `attempt` (0-based), with full jitter. */
  backoff: (attempt: number) => Promise<void>;
  /** Whether a call that started at `started` and has made `attempt + 1` attempts may try again. */
  mayRetry: (started: number, attempt: number) => boolean;
}

export function ledgerTable(client: CommandSender, tableName: string, options: DynamoLedgerOptions): LedgerTable {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  return {
    client,
    name: tableName,
    now,
    // Full jitter: contenders spread out instead of colliding again in step.
    backoff: (attempt) => sleep(Math.floor(random() * Math.min(1000, 10 * 2 ** attempt))),
    mayRetry: (started, attempt) => attempt + 1 < MAX_ATTEMPTS && now() - started < budgetMs,
  };
}

export async function getItem(table: LedgerTable, key: { pk: string; sk: string }): Promise<Record<string, AttributeValue> | undefined> {
  const answer = (await table.client.send(
    new GetItemCommand({ TableName: table.name, Key: keyAttributes(key), ConsistentRead: true }),
  )) as GetItemCommandOutput;
  return answer.Item;
}

/**
 * Those of `wanted` that exist, with `attributes` (and their keys): BatchGetItem, 100 keys a call,
 * the chunks at once, unprocessed keys asked again. `consistent`: as stored now.
 */
export async function batchGet(
  table: LedgerTable,
  wanted: readonly { pk: string; sk: string }[],
  attributes: readonly string[],
  consistent: boolean,
): Promise<Record<string, AttributeValue>[]> {
  const found: Record<string, AttributeValue>[] = [];
  const unique = [...new Map(wanted.map((k) => [`${k.pk}|${k.sk}`, k])).values()];
  const chunks: { pk: string; sk: string }[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  const names = Object.fromEntries([LEDGER_TABLE.sortKey, ...attributes].map((name, i) => [`#a${i}`, name]));
  const projection = { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names };
  await Promise.all(
    chunks.map(async (chunk) => {
      let keys: Record<string, AttributeValue>[] = chunk.map((k) => keyAttributes(k));
      for (let attempt = 0; keys.length > 0; attempt++) {
        const answer = (await table.client.send(
          new BatchGetItemCommand({ RequestItems: { [table.name]: { Keys: keys, ...projection, ...(consistent ? { ConsistentRead: true } : {}) } } }),
        )) as BatchGetItemCommandOutput;
        found.push(...(answer.Responses?.[table.name] ?? []));
        keys = answer.UnprocessedKeys?.[table.name]?.Keys ?? [];
        if (keys.length === 0) break;
        if (attempt + 1 >= MAX_ATTEMPTS) throw new Error(`ledger: ${keys.length} photo lookups stayed unprocessed`);
        await table.backoff(attempt);
      }
    }),
  );
  return found;
}

/**
 * An object item's fate: `counted` (kept: counted in its month, or an original that upgraded a
 * copy, which the sweep keeps as it keeps a counted one), the refusal's outcome, or null when
 * there is no item.
 */
export function objectFate(item: Record<string, AttributeValue> | undefined): 'counted' | CountOutcome | null {
  if (!item) return null;
  const refused = item['refused']?.S;
  if (refused === undefined) return 'counted';
  return storedRefusal(refused);
}

/** How an object item says it was decided (LedgerPort.objectDecision). */
export function objectDecisionOf(item: Record<string, AttributeValue> | undefined): ObjectDecision | null {
  const fate = objectFate(item);
  if (fate === null) return null;
  if (fate !== 'counted') return 'refused';
  return item?.['upgraded'] === undefined ? 'counted' : 'upgraded';
}

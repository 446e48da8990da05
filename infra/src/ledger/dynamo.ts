/**
 * The upload ledger on DynamoDB (src/ledger/port.ts), one table with string keys `pk`/`sk`. This
 * file is the one definition of its items (the stack creates the table, src/stacks/uploads-stack.ts):
 * - one item per ranch-month: pk `RANCH#<ranchid>`, sk `UPLOADS#<YYYY_MM>`, with `total` (number:
 *   objects counted, what upload-metrics reports), `holds` (the reservations, JSON of
 *   src/ledger/rules.ts's holds) and `version` (number, bumped by every write);
 * - one item per counted object: pk `OBJECT#<bucket>/<key>`, sk `OBJECT`, with ranchid, yearmo, at;
 * - one item per photo a ranch has: pk `RANCH#<ranchid>`, sk `PHOTO#<fingerprint>`, with the key
 *   and time it was last counted under (a second object of the same photo writes it again), and
 *   one per file size among them: pk `RANCH#<ranchid>`, sk `SIZE#<size>`;
 * - one item per refusal: pk `REFUSAL#<YYYY_MM>`, sk `<bucket>/<key>`, with reason, ranchid, at.
 *
 * Atomicity: a month is changed by an optimistic read-modify-write (`version` in the write's
 * condition); an object is counted in one transaction with its month and its photo. A write that
 * loses a race (ConditionalCheckFailed on the month, TransactionConflict) is tried again from a
 * fresh read, with jittered backoff, up to MAX_ATTEMPTS times.
 */
import { BatchGetItemCommand, GetItemCommand, PutItemCommand, TransactionCanceledException, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type {
  AttributeValue,
  BatchGetItemCommandOutput,
  CancellationReason,
  GetItemCommandOutput,
  PutItemCommandInput,
  TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { sizeOfFingerprint, type CountedObject, type LedgerPort, type MonthChange, type Refusal } from './port';
import { EMPTY_MONTH, type Hold, type MonthState } from './rules';

/** The ledger table's key schema. */
export const LEDGER_TABLE = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** The ledger's item keys (see the file's comment). */
export const ledgerKeys = {
  month: (ranchId: string, yearmo: string) => ({ pk: `RANCH#${ranchId}`, sk: `UPLOADS#${yearmo}` }),
  object: (bucket: string, key: string) => ({ pk: `OBJECT#${bucket}/${key}`, sk: 'OBJECT' }),
  photo: (ranchId: string, fingerprint: string) => ({ pk: `RANCH#${ranchId}`, sk: `PHOTO#${fingerprint}` }),
  size: (ranchId: string, size: number) => ({ pk: `RANCH#${ranchId}`, sk: `SIZE#${size}` }),
  refusal: (bucket: string, key: string, yearmo: string) => ({ pk: `REFUSAL#${yearmo}`, sk: `${bucket}/${key}` }),
};

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

const s = (value: string): AttributeValue => ({ S: value });
const n = (value: number): AttributeValue => ({ N: String(value) });

function keyAttributes(k: { pk: string; sk: string }): Record<string, AttributeValue> {
  return { [LEDGER_TABLE.partitionKey]: s(k.pk), [LEDGER_TABLE.sortKey]: s(k.sk) };
}

/** A month item's state; a holds attribute that cannot be read is taken as none (it only ever gives slots back). */
export function monthFromItem(item: Record<string, AttributeValue> | undefined): MonthState {
  if (!item) return EMPTY_MONTH;
  const num = (name: string) => {
    const v = Number(item[name]?.N ?? '0');
    return Number.isFinite(v) ? v : 0;
  };
  let holds: Record<string, Hold> = {};
  try {
    const parsed = JSON.parse(item['holds']?.S ?? '{}') as unknown;
    if (parsed && typeof parsed === 'object') holds = parsed as Record<string, Hold>;
  } catch {
    holds = {};
  }
  return { total: num('total'), holds, version: num('version') };
}

function monthPut(tableName: string, ranchId: string, yearmo: string, previous: MonthState, next: MonthState): PutItemCommandInput {
  return {
    TableName: tableName,
    Item: {
      ...keyAttributes(ledgerKeys.month(ranchId, yearmo)),
      ranchid: s(ranchId),
      yearmo: s(yearmo),
      total: n(next.total),
      holds: s(JSON.stringify(next.holds)),
      version: n(next.version),
    },
    // The state it was computed from must still be the stored one.
    ...(previous.version === 0
      ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey } }
      : {
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': n(previous.version) },
        }),
  };
}

const nameOf = (error: unknown) => (error as { name?: unknown } | null)?.name;

/**
 * What a cancelled count transaction means, from its reasons in the order of its items (the
 * object, the month, the photo): the object counted already → `duplicate`; the month changed
 * meanwhile, or a conflict with another transaction → `retry`; anything else is thrown.
 */
export function cancellationOutcome(reasons: readonly CancellationReason[] | undefined): 'duplicate' | 'retry' | undefined {
  const code = (i: number) => reasons?.[i]?.Code;
  if (code(0) === 'ConditionalCheckFailed') return 'duplicate';
  if (code(1) === 'ConditionalCheckFailed' || (reasons ?? []).some((r) => r.Code === 'TransactionConflict')) return 'retry';
  return undefined;
}

export function dynamoLedger(client: CommandSender, tableName: string, options: DynamoLedgerOptions = {}): LedgerPort {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  // Full jitter: contenders spread out instead of colliding again in step.
  const backoff = (attempt: number) => sleep(Math.floor(random() * Math.min(1000, 10 * 2 ** attempt)));
  /** Whether a call that started at `started` and has made `attempt + 1` attempts may try again. */
  const mayRetry = (started: number, attempt: number) => attempt + 1 < MAX_ATTEMPTS && now() - started < budgetMs;

  async function readMonth(ranchId: string, yearmo: string): Promise<MonthState> {
    const answer = (await client.send(
      new GetItemCommand({ TableName: tableName, Key: keyAttributes(ledgerKeys.month(ranchId, yearmo)), ConsistentRead: true }),
    )) as GetItemCommandOutput;
    return monthFromItem(answer.Item);
  }

  return {
    readMonth,

    async updateMonth<T>(ranchId: string, yearmo: string, change: (state: MonthState) => MonthChange<T>): Promise<T> {
      const started = now();
      for (let attempt = 0; ; attempt++) {
        const state = await readMonth(ranchId, yearmo);
        const { next, result } = change(state);
        if (!next) return result;
        try {
          await client.send(new PutItemCommand(monthPut(tableName, ranchId, yearmo, state, next)));
          return result;
        } catch (error) {
          if (nameOf(error) !== 'ConditionalCheckFailedException' || !mayRetry(started, attempt)) throw error;
          await backoff(attempt);
        }
      }
    },

    async countObject<T>(object: CountedObject, change: (state: MonthState) => MonthChange<T>): Promise<T | 'duplicate'> {
      const objectKey = keyAttributes(ledgerKeys.object(object.bucket, object.key));
      const started = now();
      for (let attempt = 0; ; attempt++) {
        const existing = (await client.send(
          new GetItemCommand({
            TableName: tableName,
            Key: objectKey,
            ConsistentRead: true,
            ProjectionExpression: '#pk',
            ExpressionAttributeNames: { '#pk': 'pk' },
          }),
        )) as GetItemCommandOutput;
        if (existing.Item) return 'duplicate';
        const state = await readMonth(object.ranchId, object.yearmo);
        const { next, result } = change(state);
        if (!next) return result;
        const items: TransactWriteItem[] = [
          {
            Put: {
              TableName: tableName,
              Item: { ...objectKey, ranchid: s(object.ranchId), yearmo: s(object.yearmo), at: s(object.at) },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey },
            },
          },
          { Put: monthPut(tableName, object.ranchId, object.yearmo, state, next) },
        ];
        if (object.fingerprint) {
          items.push({
            Put: {
              TableName: tableName,
              Item: { ...keyAttributes(ledgerKeys.photo(object.ranchId, object.fingerprint)), key: s(`${object.bucket}/${object.key}`), at: s(object.at) },
            },
          });
          items.push({ Put: { TableName: tableName, Item: keyAttributes(ledgerKeys.size(object.ranchId, sizeOfFingerprint(object.fingerprint))) } });
        }
        try {
          await client.send(new TransactWriteItemsCommand({ TransactItems: items }));
          return result;
        } catch (error) {
          const cancelled = error instanceof TransactionCanceledException || nameOf(error) === 'TransactionCanceledException';
          const outcome = cancelled ? cancellationOutcome((error as TransactionCanceledException).CancellationReasons) : undefined;
          if (outcome === 'duplicate') return 'duplicate';
          const conflict = outcome === 'retry' || nameOf(error) === 'TransactionConflictException';
          if (!conflict || !mayRetry(started, attempt)) throw error;
          await backoff(attempt);
        }
      }
    },

    async knownPhotos(ranchId: string, fingerprints: readonly string[]): Promise<Set<string>> {
      const found = await existingSortKeys(fingerprints.map((fp) => ledgerKeys.photo(ranchId, fp)));
      return new Set([...found].filter((sk) => sk.startsWith('PHOTO#')).map((sk) => sk.slice('PHOTO#'.length)));
    },

    async knownSizes(ranchId: string, sizes: readonly number[]): Promise<Set<number>> {
      const found = await existingSortKeys(sizes.map((size) => ledgerKeys.size(ranchId, size)));
      return new Set([...found].filter((sk) => sk.startsWith('SIZE#')).map((sk) => Number(sk.slice('SIZE#'.length))));
    },

    recordRefusal,
  };

  /** The sort keys of those of `wanted` that exist: BatchGetItem, 100 keys a call, the chunks at once. */
  async function existingSortKeys(wanted: readonly { pk: string; sk: string }[]): Promise<Set<string>> {
    const known = new Set<string>();
    const unique = [...new Map(wanted.map((k) => [`${k.pk}|${k.sk}`, k])).values()];
    const chunks: { pk: string; sk: string }[][] = [];
    for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
    await Promise.all(
      chunks.map(async (chunk) => {
        let keys: Record<string, AttributeValue>[] = chunk.map((k) => keyAttributes(k));
        for (let attempt = 0; keys.length > 0; attempt++) {
          const answer = (await client.send(
            new BatchGetItemCommand({
              RequestItems: { [tableName]: { Keys: keys, ProjectionExpression: '#sk', ExpressionAttributeNames: { '#sk': 'sk' } } },
            }),
          )) as BatchGetItemCommandOutput;
          for (const item of answer.Responses?.[tableName] ?? []) {
            const sk = item[LEDGER_TABLE.sortKey]?.S;
            if (sk !== undefined) known.add(sk);
          }
          keys = answer.UnprocessedKeys?.[tableName]?.Keys ?? [];
          if (keys.length === 0) break;
          if (attempt + 1 >= MAX_ATTEMPTS) throw new Error(`ledger: ${keys.length} photo lookups stayed unprocessed`);
          await backoff(attempt);
        }
      }),
    );
    return known;
  }

  async function recordRefusal(refusal: Refusal): Promise<void> {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          ...keyAttributes(ledgerKeys.refusal(refusal.bucket, refusal.key, refusal.yearmo)),
          bucket: s(refusal.bucket),
          key: s(refusal.key),
          reason: s(refusal.reason),
          at: s(refusal.at),
          ...(refusal.ranchId === null ? {} : { ranchid: s(refusal.ranchId) }),
          ...(refusal.claimedRanchId === undefined ? {} : { claimed_ranchid: s(refusal.claimedRanchId) }),
        },
      }),
    );
  }
}

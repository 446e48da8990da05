/**
 * The upload ledger on DynamoDB (src/ledger/port.ts), one table with string keys `pk`/`sk`. This
 * file is the one definition of its items (the stack creates the table, src/stacks/uploads-stack.ts;
 * infra/docs/server.md#the-ledger has the data model and its limits):
 * - one item per ranch-month: pk `RANCH#<ranchid>`, sk `UPLOADS#<YYYY_MM>`, with `total` (number:
 *   objects counted, what upload-metrics reports), `holds` (the month's live reservations, JSON of
 *   src/ledger/rules.ts's holds: at most MAX_LIVE_HOLDS_PER_MONTH, so the item stays far below
 *   DynamoDB's 400 KB) and `version` (number, bumped by every write);
 * - one item per retired reservation (released, expired, used up), written before its month stops
 *   keeping it: pk `RANCH#<ranchid>`, sk `HOLD#<id>`, with `hold` (its JSON) and `ttl` (DynamoDB's
 *   time to live, a month after its month closed);
 * - one item per object whose fate is decided: pk `OBJECT#<bucket>/<key>`, sk `OBJECT`, with
 *   ranchid, yearmo, at, and — for an object the ledger refused — `refused` (the outcome) and `ttl`;
 * - one item per photo a ranch has: pk `RANCH#<ranchid>`, sk `PHOTO#<fingerprint>`, with the key
 *   and time it was last counted under (a second object of the same photo writes it again), and
 *   one per file size among them: pk `RANCH#<ranchid>`, sk `SIZE#<size>`;
 * - one item per refusal: pk `REFUSAL#<YYYY_MM>`, sk `<bucket>/<key>`, with reason, ranchid, at.
 *
 * Atomicity: a month is changed by an optimistic read-modify-write (its `version` in the write's
 * condition; a month item written before `version` existed is matched by its absence and upgraded
 * by the write). An object is decided in one transaction with its month: counted (the object, the
 * month, its photo and size) or refused (the object's refusal, and a check that the month is still
 * the one read), always on the condition that no other delivery decided it first. A write that
 * loses a race (ConditionalCheckFailed on the month, TransactionConflict) is tried again from a
 * fresh read, with jittered backoff, within a time budget.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  AttributeValue,
  BatchGetItemCommandOutput,
  BatchWriteItemCommandOutput,
  CancellationReason,
  ConditionCheck,
  GetItemCommandOutput,
  Put,
  TransactWriteItem,
  WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { retiredBy, sizeOfFingerprint, withReservation, type CountedObject, type LedgerPort, type MonthChange, type Refusal } from './port';
import { EMPTY_MONTH, monthClose, storedRefusal, type CountOutcome, type Hold, type MonthState } from './rules';

/** The ledger table's key schema. */
export const LEDGER_TABLE = { partitionKey: 'pk', sortKey: 'sk', timeToLive: 'ttl' } as const;

/** The ledger's item keys (see the file's comment). */
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

/**
 * How a month item was stored, which its next write's condition must match: none yet, or of the
 * shape before `version` existed (matched by the attribute's absence, and upgraded by the write),
 * or versioned.
 */
export type StoredMonth = 'none' | 'unversioned' | 'versioned';

export function storedMonth(item: Record<string, AttributeValue> | undefined): StoredMonth {
  if (!item) return 'none';
  return item['version']?.N === undefined ? 'unversioned' : 'versioned';
}

interface MonthRead {
  state: MonthState;
  stored: StoredMonth;
}

/** The condition that the month is still as read. */
function monthCondition(read: MonthRead): Pick<ConditionCheck, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> {
  switch (read.stored) {
    case 'none':
      return { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey } };
    case 'unversioned':
      return {
        ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#version)',
        ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey, '#version': 'version' },
      };
    case 'versioned':
      return {
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': n(read.state.version) },
      };
  }
}

function monthPut(tableName: string, ranchId: string, yearmo: string, read: MonthRead, next: MonthState): Put {
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
    ...monthCondition(read),
  };
}

function monthCheck(tableName: string, ranchId: string, yearmo: string, read: MonthRead): ConditionCheck {
  return { TableName: tableName, Key: keyAttributes(ledgerKeys.month(ranchId, yearmo)), ...monthCondition(read) };
}

/** DynamoDB's time to live (epoch seconds) of the records of month `yearmo`. */
const recordTtl = (yearmo: string) => n(Math.floor(monthClose(yearmo) / 1000) + RECORD_RETENTION_S);

/** An object item's fate: `counted`, the refusal's outcome, or null when there is no item. */
export function objectFate(item: Record<string, AttributeValue> | undefined): 'counted' | CountOutcome | null {
  if (!item) return null;
  const refused = item['refused']?.S;
  if (refused === undefined) return 'counted';
  return storedRefusal(refused);
}

const nameOf = (error: unknown) => (error as { name?: unknown } | null)?.name;

/**
 * What a cancelled decision transaction means, from its reasons in the order of its items (the
 * object, the month, ...): the object decided already → `decided`; the month changed meanwhile, or a
 * conflict with another transaction → `retry`; anything else is thrown.
 */
export function cancellationOutcome(reasons: readonly CancellationReason[] | undefined): 'decided' | 'retry' | undefined {
  const code = (i: number) => reasons?.[i]?.Code;
  if (code(0) === 'ConditionalCheckFailed') return 'decided';
  if (code(1) === 'ConditionalCheckFailed' || (reasons ?? []).some((r) => r.Code === 'TransactionConflict')) return 'retry';
  return undefined;
}

/** The table a ledger works on and its retry policy: what every read and write below shares. */
interface LedgerTable {
  client: CommandSender;
  name: string;
  /** Milliseconds: the retries' time budget is measured with it. */
  now: () => number;
  /** Waits before the attempt after `attempt` (0-based), with full jitter. */
  backoff: (attempt: number) => Promise<void>;
  /** Whether a call that started at `started` and has made `attempt + 1` attempts may try again. */
  mayRetry: (started: number, attempt: number) => boolean;
}

function ledgerTable(client: CommandSender, tableName: string, options: DynamoLedgerOptions): LedgerTable {
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

async function getItem(table: LedgerTable, key: { pk: string; sk: string }): Promise<Record<string, AttributeValue> | undefined> {
  const answer = (await table.client.send(
    new GetItemCommand({ TableName: table.name, Key: keyAttributes(key), ConsistentRead: true }),
  )) as GetItemCommandOutput;
  return answer.Item;
}

async function readMonthItem(table: LedgerTable, ranchId: string, yearmo: string): Promise<MonthRead> {
  const item = await getItem(table, ledgerKeys.month(ranchId, yearmo));
  return { state: monthFromItem(item), stored: storedMonth(item) };
}

/**
 * The month with `reservation` as a change about it must see. The month is read first: a hold
 * is recorded before the month stops keeping it, so when the month read lacks it, its record
 * (if it was ever granted) is already there.
 */
async function readFor(table: LedgerTable, ranchId: string, yearmo: string, reservation: string | undefined): Promise<{ read: MonthRead; view: MonthState }> {
  const read = await readMonthItem(table, ranchId, yearmo);
  if (reservation === undefined || read.state.holds[reservation]) return { read, view: read.state };
  const item = await getItem(table, ledgerKeys.reservation(ranchId, reservation));
  let record: Hold | null = null;
  try {
    record = item?.['hold']?.S === undefined ? null : (JSON.parse(item['hold'].S) as Hold);
  } catch {
    record = null;
  }
  return { read, view: withReservation(read.state, reservation, record) };
}

/** Records the holds `next` no longer keeps (idempotent puts, before the month forgets them). */
async function recordRetired(table: LedgerTable, ranchId: string, yearmo: string, stored: MonthState, next: MonthState): Promise<void> {
  const requests: WriteRequest[] = retiredBy(stored, next).map(([id, hold]) => ({
    PutRequest: { Item: { ...keyAttributes(ledgerKeys.reservation(ranchId, id)), hold: s(JSON.stringify(hold)), ttl: recordTtl(yearmo) } },
  }));
  for (let i = 0; i < requests.length; i += 25) {
    let chunk = requests.slice(i, i + 25);
    for (let attempt = 0; chunk.length > 0; attempt++) {
      const answer = (await table.client.send(new BatchWriteItemCommand({ RequestItems: { [table.name]: chunk } }))) as BatchWriteItemCommandOutput;
      chunk = answer.UnprocessedItems?.[table.name] ?? [];
      if (chunk.length === 0) break;
      if (attempt + 1 >= MAX_ATTEMPTS) throw new Error(`ledger: ${chunk.length} reservation records stayed unprocessed`);
      await table.backoff(attempt);
    }
  }
}

/** LedgerPort.updateMonth: the month's read-modify-write, tried again from a fresh read when another write came first. */
async function changeMonth<T>(
  table: LedgerTable,
  ranchId: string,
  yearmo: string,
  change: (state: MonthState) => MonthChange<T>,
  reservation: string | undefined,
): Promise<T> {
  const started = table.now();
  for (let attempt = 0; ; attempt++) {
    const { read, view } = await readFor(table, ranchId, yearmo, reservation);
    const { next, result } = change(view);
    if (!next) return result;
    await recordRetired(table, ranchId, yearmo, read.state, next);
    try {
      await table.client.send(new PutItemCommand(monthPut(table.name, ranchId, yearmo, read, next)));
      return result;
    } catch (error) {
      if (nameOf(error) !== 'ConditionalCheckFailedException' || !table.mayRetry(started, attempt)) throw error;
      await table.backoff(attempt);
    }
  }
}

/**
 * The transaction that decides an object against the month as read: counted (`next`: the object,
 * the month, and its photo and size when it has a fingerprint) or refused (no `next`: the object's
 * refusal, and a check that the month is still as read) — always on the condition that no other
 * delivery decided it first. Pure.
 */
function decisionItems(tableName: string, object: CountedObject, read: MonthRead, next: MonthState | null, result: CountOutcome): TransactWriteItem[] {
  const objectItem = { ...keyAttributes(ledgerKeys.object(object.bucket, object.key)), ranchid: s(object.ranchId), yearmo: s(object.yearmo), at: s(object.at) };
  const firstDecision = { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': LEDGER_TABLE.partitionKey } };
  if (!next) {
    // Refused: recorded as such, so that no other delivery can count it after this one removes it.
    return [
      { Put: { TableName: tableName, Item: { ...objectItem, refused: s(result), ttl: recordTtl(object.yearmo) }, ...firstDecision } },
      { ConditionCheck: monthCheck(tableName, object.ranchId, object.yearmo, read) },
    ];
  }
  const items: TransactWriteItem[] = [
    { Put: { TableName: tableName, Item: objectItem, ...firstDecision } },
    { Put: monthPut(tableName, object.ranchId, object.yearmo, read, next) },
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
  return items;
}

/** How an object decided before was decided (null: no such item any more). */
async function decided(table: LedgerTable, bucket: string, key: string): Promise<CountOutcome | 'duplicate' | null> {
  const fate = objectFate(await getItem(table, ledgerKeys.object(bucket, key)));
  return fate === 'counted' ? 'duplicate' : fate;
}

/** LedgerPort.countObject: the object decided in one transaction with its month, tried again when the month changed meanwhile. */
async function decideObject(
  table: LedgerTable,
  object: CountedObject,
  change: (state: MonthState) => MonthChange<CountOutcome>,
): Promise<CountOutcome | 'duplicate'> {
  const started = table.now();
  for (let attempt = 0; ; attempt++) {
    const { read, view } = await readFor(table, object.ranchId, object.yearmo, object.reservation);
    const { next, result } = change(view);
    if (next) await recordRetired(table, object.ranchId, object.yearmo, read.state, next);
    try {
      await table.client.send(new TransactWriteItemsCommand({ TransactItems: decisionItems(table.name, object, read, next, result) }));
      return result;
    } catch (error) {
      const cancelled = error instanceof TransactionCanceledException || nameOf(error) === 'TransactionCanceledException';
      const outcome = cancelled ? cancellationOutcome((error as TransactionCanceledException).CancellationReasons) : undefined;
      if (outcome === 'decided') {
        const before = await decided(table, object.bucket, object.key);
        if (before !== null) return before;
      } else if (outcome !== 'retry' && nameOf(error) !== 'TransactionConflictException') {
        throw error;
      }
      if (!table.mayRetry(started, attempt)) throw error;
      await table.backoff(attempt);
    }
  }
}

/** The sort keys of those of `wanted` that exist: BatchGetItem, 100 keys a call, the chunks at once. */
async function existingSortKeys(table: LedgerTable, wanted: readonly { pk: string; sk: string }[]): Promise<Set<string>> {
  const known = new Set<string>();
  const unique = [...new Map(wanted.map((k) => [`${k.pk}|${k.sk}`, k])).values()];
  const chunks: { pk: string; sk: string }[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  await Promise.all(
    chunks.map(async (chunk) => {
      let keys: Record<string, AttributeValue>[] = chunk.map((k) => keyAttributes(k));
      for (let attempt = 0; keys.length > 0; attempt++) {
        const answer = (await table.client.send(
          new BatchGetItemCommand({
            RequestItems: { [table.name]: { Keys: keys, ProjectionExpression: '#sk', ExpressionAttributeNames: { '#sk': 'sk' } } },
          }),
        )) as BatchGetItemCommandOutput;
        for (const item of answer.Responses?.[table.name] ?? []) {
          const sk = item[LEDGER_TABLE.sortKey]?.S;
          if (sk !== undefined) known.add(sk);
        }
        keys = answer.UnprocessedKeys?.[table.name]?.Keys ?? [];
        if (keys.length === 0) break;
        if (attempt + 1 >= MAX_ATTEMPTS) throw new Error(`ledger: ${keys.length} photo lookups stayed unprocessed`);
        await table.backoff(attempt);
      }
    }),
  );
  return known;
}

async function recordRefusal(table: LedgerTable, refusal: Refusal): Promise<void> {
  await table.client.send(
    new PutItemCommand({
      TableName: table.name,
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

/** The ledger (LedgerPort) on the table `tableName`, through `client`. */
export function dynamoLedger(client: CommandSender, tableName: string, options: DynamoLedgerOptions = {}): LedgerPort {
  const table = ledgerTable(client, tableName, options);
  return {
    readMonth: async (ranchId, yearmo) => (await readMonthItem(table, ranchId, yearmo)).state,
    updateMonth: (ranchId, yearmo, change, reservation) => changeMonth(table, ranchId, yearmo, change, reservation),
    countObject: (object, change) => decideObject(table, object, change),
    async knownPhotos(ranchId, fingerprints) {
      const found = await existingSortKeys(
        table,
        fingerprints.map((fp) => ledgerKeys.photo(ranchId, fp)),
      );
      return new Set([...found].filter((sk) => sk.startsWith('PHOTO#')).map((sk) => sk.slice('PHOTO#'.length)));
    },
    async knownSizes(ranchId, sizes) {
      const found = await existingSortKeys(
        table,
        sizes.map((size) => ledgerKeys.size(ranchId, size)),
      );
      return new Set([...found].filter((sk) => sk.startsWith('SIZE#')).map((sk) => Number(sk.slice('SIZE#'.length))));
    },
    recordRefusal: (refusal) => recordRefusal(table, refusal),
  };
}

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
 *   ranchid, yearmo, at, `checksum` (a counted object's, as S3 keeps it: `CRC32:FULL_OBJECT:<base64>`,
 *   port.ts `checksumText`; none when S3 had none), and — for an object the ledger refused —
 *   `refused` (the outcome) and `ttl`;
 *   for an original that upgraded a copy, `upgraded` (the photo's fingerprint; yearmo is the
 *   month it arrived in, it counts in none);
 * - one item per photo a ranch has: pk `RANCH#<ranchid>`, sk `PHOTO#<fingerprint>`, with `key`
 *   and `at` (the object and time it was last counted under: a second object of the same photo
 *   writes them again) and that object's `checksum` (removed when it had none), `form` (`copy` while only copies of it were counted, else `original`; an
 *   item from before forms has none and is an original), `copy_key` and `original_key` (its first
 *   copy and its first original, `<bucket>/<key>`: both once an original upgraded its copy) and
 *   `upgraded_at`; and one per file size among them: pk `RANCH#<ranchid>`, sk `SIZE#<size>`;
 * - one item per refusal: pk `REFUSAL#<YYYY_MM>`, sk `<bucket>/<key>`, with reason, ranchid, at.
 *
 * Atomicity: a month is changed by an optimistic read-modify-write (its `version` in the write's
 * condition; a month item written before `version` existed is matched by its absence and upgraded
 * by the write). An object is decided in one transaction with its month: counted (the object, the
 * month, its photo and size) or refused (the object's refusal, and a check that the month is still
 * the one read), always on the condition that no other delivery decided it first. A photo's
 * item is updated in place (src/ledger/dynamo-photos.ts): its form only ever goes from `copy` to
 * `original`, under a condition on the form. An upgrade is one transaction too: the object's item
 * (new) and the photo's form (a copy's). A write that loses a race (ConditionalCheckFailed on the
 * month, TransactionConflict) is tried again from a fresh read, with jittered backoff, within a
 * time budget. The table's keys, client and reads are src/ledger/dynamo-table.ts's.
 */
import { BatchWriteItemCommand, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type {
  AttributeValue,
  BatchWriteItemCommandOutput,
  CancellationReason,
  ConditionCheck,
  Put,
  TransactWriteItem,
  WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { photoCountUpdate, photoForms, upgradePhoto } from './dynamo-photos';
import {
  batchGet,
  cancellationReasons,
  FIRST_DECISION,
  getItem,
  isConflict,
  keyAttributes,
  LEDGER_TABLE,
  ledgerKeys,
  ledgerTable,
  MAX_ATTEMPTS,
  n,
  nameOf,
  objectDecisionOf,
  objectFate,
  recordTtl,
  s,
  type CommandSender,
  type DynamoLedgerOptions,
  type LedgerTable,
} from './dynamo-table';
import { checksumText, retiredBy, sizeOfFingerprint, withReservation, type CountedObject, type LedgerPort, type MonthChange, type Refusal } from './port';
import { EMPTY_MONTH, type CountOutcome, type Hold, type MonthState } from './rules';

// What the stacks, the sweep and the tests import of the table.
export {
  DEFAULT_BUDGET_MS,
  LEDGER_TABLE,
  ledgerKeys,
  MAX_ATTEMPTS,
  objectDecisionOf,
  objectFate,
  RECORD_RETENTION_S,
  type CommandSender,
  type DynamoLedgerOptions,
} from './dynamo-table';
export { photoFormOf } from './dynamo-photos';

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

/**
 * What a cancelled decision transaction means, from its reasons in the order of its items (the
 * object, the month, its photo, ...): the object decided already → `decided`; the month changed
 * meanwhile, the photo turned out to be an original's (a copy's count then writes it again without
 * its form: src/ledger/dynamo-photos.ts), or a conflict with another transaction → `retry`;
 * anything else is thrown.
 */
export function cancellationOutcome(reasons: readonly CancellationReason[] | undefined): 'decided' | 'retry' | undefined {
  const code = (i: number) => reasons?.[i]?.Code;
  if (code(0) === 'ConditionalCheckFailed') return 'decided';
  if (code(1) === 'ConditionalCheckFailed' || code(2) === 'ConditionalCheckFailed') return 'retry';
  if ((reasons ?? []).some((r) => r.Code === 'TransactionConflict')) return 'retry';
  return undefined;
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

/**
 * LedgerPort.updateMonth: the month's read-modify-write, tried again from a fresh read when another
 * write came first (ConditionalCheckFailed) or the month was part of an ongoing transaction — an
 * object being counted in it — which DynamoDB rejects the PutItem for (TransactionConflictException).
 */
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
      const lostRace = nameOf(error) === 'ConditionalCheckFailedException' || isConflict(error, null);
      if (!lostRace || !table.mayRetry(started, attempt)) throw error;
      await table.backoff(attempt);
    }
  }
}

/**
 * The transaction that decides an object against the month as read: counted (`next`: the object,
 * the month, and its photo and size when it has a fingerprint — the photo's item updated as
 * src/ledger/dynamo-photos.ts says, `heldOriginal` when a copy's count found the photo an
 * original's) or refused (no `next`: the object's refusal, and a check that the month is still as
 * read) — always on the condition that no other delivery decided it first. Pure.
 */
function decisionItems(
  tableName: string,
  object: CountedObject,
  read: MonthRead,
  change: { next: MonthState | null; result: CountOutcome },
  heldOriginal = false,
): TransactWriteItem[] {
  const objectItem = { ...keyAttributes(ledgerKeys.object(object.bucket, object.key)), ranchid: s(object.ranchId), yearmo: s(object.yearmo), at: s(object.at) };
  if (!change.next) {
    // Refused: recorded as such, so that no other delivery can count it after this one removes it.
    return [
      { Put: { TableName: tableName, Item: { ...objectItem, refused: s(change.result), ttl: recordTtl(object.yearmo) }, ...FIRST_DECISION } },
      { ConditionCheck: monthCheck(tableName, object.ranchId, object.yearmo, read) },
    ];
  }
  const counted = object.checksum ? { ...objectItem, checksum: s(checksumText(object.checksum)) } : objectItem;
  const items: TransactWriteItem[] = [
    { Put: { TableName: tableName, Item: counted, ...FIRST_DECISION } },
    { Put: monthPut(tableName, object.ranchId, object.yearmo, read, change.next) },
  ];
  const { fingerprint } = object;
  if (fingerprint) {
    items.push({ Update: photoCountUpdate(tableName, { ...object, fingerprint }, heldOriginal) });
    items.push({ Put: { TableName: tableName, Item: keyAttributes(ledgerKeys.size(object.ranchId, sizeOfFingerprint(fingerprint))) } });
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
  let heldOriginal = false;
  for (let attempt = 0; ; attempt++) {
    const { read, view } = await readFor(table, object.ranchId, object.yearmo, object.reservation);
    const changed = change(view);
    if (changed.next) await recordRetired(table, object.ranchId, object.yearmo, read.state, changed.next);
    try {
      await table.client.send(new TransactWriteItemsCommand({ TransactItems: decisionItems(table.name, object, read, changed, heldOriginal) }));
      return changed.result;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const outcome = reasons === null ? undefined : cancellationOutcome(reasons);
      // The photo is an original's, for good: the count writes it again without its form.
      if (changed.next && reasons?.[2]?.Code === 'ConditionalCheckFailed') heldOriginal = true;
      if (outcome === 'decided') {
        const before = await decided(table, object.bucket, object.key);
        if (before !== null) return before;
      } else if (outcome !== 'retry' && !isConflict(error, reasons)) {
        throw error;
      }
      if (!table.mayRetry(started, attempt)) throw error;
      await table.backoff(attempt);
    }
  }
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
    photoForms: (ranchId, fingerprints) => photoForms(table, ranchId, fingerprints),
    upgradePhoto: (upgrade) => upgradePhoto(table, upgrade),
    objectDecision: async (bucket, key) => objectDecisionOf(await getItem(table, ledgerKeys.object(bucket, key))),
    async knownSizes(ranchId, sizes) {
      const found = await batchGet(
        table,
        sizes.map((size) => ledgerKeys.size(ranchId, size)),
        [],
        false,
      );
      const sks = found.map((item) => item[LEDGER_TABLE.sortKey]?.S ?? '');
      return new Set(sks.filter((sk) => sk.startsWith('SIZE#')).map((sk) => Number(sk.slice('SIZE#'.length))));
    },
    recordRefusal: (refusal) => recordRefusal(table, refusal),
  };
}

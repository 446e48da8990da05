/**
 * A small in-memory DynamoDB for the ledger's tests and benchmark (src/ledger/dynamo.ts): a
 * `CommandSender` that interprets the commands the adapter sends — GetItem, PutItem with the
 * ledger's condition forms, TransactWriteItems of conditional Puts, Updates (`SET` of values and
 * `if_not_exists`) and ConditionChecks (all or nothing, cancellation reasons in item order),
 * BatchGetItem and BatchWriteItem — and refuses what DynamoDB refuses that the ledger could meet
 * (an item over 400 KB, two operations on one item in a transaction, an expression name or value
 * that no expression uses). It can lose races, cancel transactions for conflicts and leave keys
 * unprocessed, which an independent engine cannot be made to do on demand. The same tests also run
 * on DynamoDB Local (support/dynamodb-local.ts), so a difference between the two shows up as a
 * failing test.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactionConflictException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type { AttributeValue, CancellationReason, ConditionCheck, Put, Update } from '@aws-sdk/client-dynamodb';
import type { CommandSender } from '../../src/ledger/dynamo';
import { monthFromItem } from '../../src/ledger/dynamo';
import type { MonthState } from '../../src/ledger/rules';
import { cancellationMessage, cancellationReason, TRANSACTION_CONFLICT_MESSAGE } from './dynamodb-conflict-proxy';

export type Item = Record<string, AttributeValue>;

export const keyOf = (key: Item | undefined) => `${key?.['pk']?.S}|${key?.['sk']?.S}`;

/** 400 KB: DynamoDB's largest item, counting attribute names and values in UTF-8 bytes. */
export const MAX_ITEM_BYTES = 400 * 1024;

/** What the SDK's errors of DynamoDB's answers carry of their response: a 400 (the fake has no request ids). */
const answer400 = () => ({ httpStatusCode: 400 });

export const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: answer400() });

/**
 * A cancelled transaction, as the SDK makes it of DynamoDB's answer: one reason per item, with
 * DynamoDB's message for each (none for `None`: support/dynamodb-conflict-proxy.ts has the wire shape).
 */
export const cancelled = (codes: readonly string[]) =>
  new TransactionCanceledException({
    message: cancellationMessage(codes),
    $metadata: answer400(),
    CancellationReasons: codes.map((code): CancellationReason => cancellationReason(code)),
  });

/** A single-item write that met an ongoing transaction, as the SDK makes it of DynamoDB's answer. */
export const transactionConflict = () => new TransactionConflictException({ message: TRANSACTION_CONFLICT_MESSAGE, $metadata: answer400() });

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });

/** An item's size as DynamoDB counts it, near enough: names and values in UTF-8 bytes, numbers about a byte per two digits. */
export function itemBytes(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name);
    if (value.S !== undefined) size += Buffer.byteLength(value.S);
    else if (value.N !== undefined) size += Math.ceil(value.N.replace(/^-|\./g, '').length / 2) + 1;
    else size += Buffer.byteLength(JSON.stringify(value));
  }
  return size;
}

/** The fake knows the condition forms by their text: their names must be the ones it knows. */
function sameNames(names: Record<string, string>, expected: Record<string, string>) {
  const sorted = (n: Record<string, string>) => JSON.stringify(Object.entries(n).sort(([a], [b]) => a.localeCompare(b)));
  if (sorted(names) !== sorted(expected)) throw new Error(`fake: names ${JSON.stringify(names)}, not ${JSON.stringify(expected)}`);
}

type Conditional = Pick<Put, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> & { UpdateExpression?: string };

/** DynamoDB refuses a request naming an expression attribute name or value that none of its expressions uses. */
function checkUsed(write: Conditional) {
  const text = `${write.ConditionExpression ?? ''} ${write.UpdateExpression ?? ''}`;
  const used = (token: string) => new RegExp(`${token}(?![\\w])`).test(text);
  for (const name of Object.keys(write.ExpressionAttributeNames ?? {})) {
    if (!used(name)) throw validation(`Value provided in ExpressionAttributeNames unused in expressions: keys: {${name}}`);
  }
  for (const value of Object.keys(write.ExpressionAttributeValues ?? {})) {
    if (!used(value)) throw validation(`Value provided in ExpressionAttributeValues unused in expressions: keys: {${value}}`);
  }
}

/** The names a condition's text uses, of `names` (an Update's names serve its update expression too). */
function conditionNames(write: Conditional): Record<string, string> {
  const names = write.ExpressionAttributeNames ?? {};
  return Object.fromEntries(Object.entries(names).filter(([token]) => new RegExp(`${token}(?![\\w])`).test(write.ConditionExpression ?? '')));
}

/** One DynamoDB table in memory, for the commands the ledger sends. */
export class FakeDynamo implements CommandSender {
  readonly items = new Map<string, Item>();
  readonly sent: object[] = [];
  /** Runs before a command is applied: may throw (an injected failure) or change the table (a racing writer). */
  before: ((command: object) => void | Promise<void>) | null = null;
  /** Time a command takes before it is applied (default none). */
  latency: (() => Promise<void>) | null = null;
  /** Keys a BatchGetItem leaves unprocessed (default none). */
  unprocessed: (keys: Item[]) => Item[] = () => [];

  constructor(readonly table: string) {}

  async send(command: object): Promise<unknown> {
    this.sent.push(command);
    if (this.latency) await this.latency();
    if (this.before) await this.before(command);
    return this.apply(command);
  }

  count(type: new (...args: never[]) => object): number {
    return this.sent.filter((c) => c instanceof type).length;
  }

  private checkTable(name: string | undefined) {
    if (name !== this.table) throw Object.assign(new Error(`Requested resource not found: ${name}`), { name: 'ResourceNotFoundException' });
  }

  private apply(command: object): unknown {
    if (command instanceof GetItemCommand) {
      this.checkTable(command.input.TableName);
      const item = this.items.get(keyOf(command.input.Key));
      return item ? { Item: structuredClone(item) } : {};
    }
    if (command instanceof PutItemCommand) {
      this.checkTable(command.input.TableName);
      this.checkSize(command.input.Item!);
      checkUsed(command.input);
      if (!this.passes(command.input.Item!, command.input)) throw conditionFailed();
      this.store(command.input.Item!);
      return {};
    }
    if (command instanceof TransactWriteItemsCommand) {
      const entries = (command.input.TransactItems ?? []).map((entry): { key: Item; put?: Put; update?: Update; check?: ConditionCheck } => {
        if (entry.Put && Object.keys(entry).length === 1) return { key: entry.Put.Item!, put: entry.Put };
        if (entry.Update && Object.keys(entry).length === 1) return { key: entry.Update.Key!, update: entry.Update };
        if (entry.ConditionCheck && Object.keys(entry).length === 1) return { key: entry.ConditionCheck.Key!, check: entry.ConditionCheck };
        throw new Error(`fake: only Puts, Updates and ConditionChecks, not ${Object.keys(entry).join()}`);
      });
      if (entries.length > 100) throw validation('Member must have length less than or equal to 100');
      if (new Set(entries.map((e) => keyOf(e.key))).size !== entries.length) {
        throw validation('Transaction request cannot include multiple operations on one item');
      }
      const writes = entries.map((e) => {
        this.checkTable(e.put?.TableName ?? e.update?.TableName ?? e.check?.TableName);
        checkUsed((e.put ?? e.update ?? e.check)!);
        const item = e.put?.Item ?? (e.update ? this.updated(e.update) : undefined);
        if (item) this.checkSize(item);
        return item;
      });
      const codes = entries.map((e) => (this.passes(e.key, (e.put ?? e.update ?? e.check)!) ? 'None' : 'ConditionalCheckFailed'));
      if (codes.some((c) => c !== 'None')) throw cancelled(codes);
      for (const item of writes) if (item) this.store(item);
      return {};
    }
    if (command instanceof BatchGetItemCommand) {
      const tables = Object.keys(command.input.RequestItems ?? {});
      if (tables.length !== 1) throw new Error(`fake: one table per BatchGetItem, not ${tables.join()}`);
      this.checkTable(tables[0]);
      const keys = command.input.RequestItems?.[this.table]?.Keys ?? [];
      if (keys.length > 100) throw validation('Too many items requested for the BatchGetItem call');
      const left = this.unprocessed(keys);
      const found = keys.filter((k) => !left.includes(k)).flatMap((k) => (this.items.has(keyOf(k)) ? [structuredClone(this.items.get(keyOf(k))!)] : []));
      return { Responses: { [this.table]: found }, UnprocessedKeys: left.length > 0 ? { [this.table]: { Keys: left } } : {} };
    }
    if (command instanceof BatchWriteItemCommand) {
      const tables = Object.keys(command.input.RequestItems ?? {});
      if (tables.length !== 1) throw new Error(`fake: one table per BatchWriteItem, not ${tables.join()}`);
      this.checkTable(tables[0]);
      const requests = command.input.RequestItems?.[this.table] ?? [];
      if (requests.length > 25) throw validation('Too many items requested for the BatchWriteItem call');
      for (const r of requests) {
        if (!r.PutRequest?.Item) throw new Error('fake: only PutRequests');
        this.checkSize(r.PutRequest.Item);
      }
      for (const r of requests) this.store(r.PutRequest!.Item!);
      return { UnprocessedItems: {} };
    }
    throw new Error(`fake: unexpected command ${command.constructor.name}`);
  }

  private checkSize(item: Item) {
    if (itemBytes(item) > MAX_ITEM_BYTES) throw validation('Item size has exceeded the maximum allowed size');
  }

  /**
   * The item an Update makes: `SET` clauses of `#name = :value` and `#name = if_not_exists(#name,
   * :value)`, then a `REMOVE #name, …` (the forms the ledger writes), on the item as stored or a
   * new one of its key.
   */
  private updated(update: Update): Item {
    const item = structuredClone(this.items.get(keyOf(update.Key)) ?? update.Key!);
    const names = update.ExpressionAttributeNames ?? {};
    const values = update.ExpressionAttributeValues ?? {};
    const set = /^SET (.+?)(?: REMOVE (#\w+(?:,\s*#\w+)*))?$/.exec(update.UpdateExpression ?? '');
    if (!set) throw new Error(`fake: unknown update ${update.UpdateExpression}`);
    for (const placeholder of set[2]?.split(/,\s*/) ?? []) {
      const name = names[placeholder];
      if (!name) throw validation(`An expression attribute name used in the document path is not defined: ${placeholder}`);
      delete item[name];
    }
    for (const clause of set[1]!.split(/,\s*(?![^(]*\))/)) {
      const m = /^(#\w+) = (?:(:\w+)|if_not_exists\((#\w+), (:\w+)\))$/.exec(clause.trim());
      const name = m && names[m[1]!];
      if (!m || !name || (m[3] !== undefined && m[3] !== m[1])) throw new Error(`fake: unknown update clause ${clause}`);
      const value = values[(m[2] ?? m[4])!];
      if (!value) throw validation(`An expression attribute value used in expression is not defined: ${m[2] ?? m[4]}`);
      if (m[2] !== undefined || item[name] === undefined) item[name] = value;
    }
    return item;
  }

  /** The condition forms the ledger writes: the item is new; its version is the one read; it exists without a version; a photo's form. */
  private passes(key: Item, write: Conditional): boolean {
    const existing = this.items.get(keyOf(key));
    const names = conditionNames(write);
    const copy = write.ExpressionAttributeValues?.[':copy']?.S;
    switch (write.ConditionExpression) {
      case undefined:
        return true;
      case 'attribute_not_exists(#pk)':
        sameNames(names, { '#pk': 'pk' });
        return existing === undefined;
      case '#version = :version':
        sameNames(names, { '#version': 'version' });
        return existing?.['version']?.N !== undefined && existing['version'].N === write.ExpressionAttributeValues?.[':version']?.N;
      case 'attribute_exists(#pk) AND attribute_not_exists(#version)':
        sameNames(names, { '#pk': 'pk', '#version': 'version' });
        return existing !== undefined && existing['version'] === undefined;
      case 'attribute_not_exists(#pk) OR #form = :copy':
        sameNames(names, { '#pk': 'pk', '#form': 'form' });
        return existing === undefined || (copy !== undefined && existing['form']?.S === copy);
      case '#form = :copy':
        sameNames(names, { '#form': 'form' });
        return copy !== undefined && existing?.['form']?.S === copy;
      default:
        throw new Error(`fake: unknown condition ${write.ConditionExpression}`);
    }
  }

  private store(item: Item) {
    this.items.set(keyOf(item), structuredClone(item));
  }

  month(ranchId: string, yearmo: string): MonthState {
    return monthFromItem(this.items.get(`RANCH#${ranchId}|UPLOADS#${yearmo}`));
  }

  objectItems(): Item[] {
    return [...this.items.values()].filter((item) => item['sk']?.S === 'OBJECT');
  }
}

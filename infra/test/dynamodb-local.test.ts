/**
 * What DynamoDB itself enforces and reports, on DynamoDB Local 1.25.1 (Amazon's own engine, started
 * once per jest run: support/dynamodb-local.ts), for the ledger (src/ledger/dynamo.ts) to rely on
 * and for the in-memory fake (support/fake-dynamo.ts) to copy: the item size limit, how a
 * cancelled transaction reports its reasons and writes nothing, the capacity a command consumes,
 * and the refusal of a transaction that touches one item twice. Each test asserts what DynamoDB
 * Local does; where that differs from DynamoDB's documented behaviour, a comment marked
 * "DIFFERENCE FROM DYNAMODB" says how.
 */
import {
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { AttributeValue, DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { createLedgerTable, localDynamo } from './support/dynamodb-local';
import { MAX_ITEM_BYTES } from './support/fake-dynamo';

type Item = Record<string, AttributeValue>;

let client: DynamoDBClient;
let table: string;

beforeAll(async () => {
  client = localDynamo();
  table = await createLedgerTable(client);
});

afterAll(() => client?.destroy());

const key = (pk: string, sk = 'item') => ({ pk: { S: pk }, sk: { S: sk } });

/** An item of exactly `bytes` bytes by DynamoDB's count (ASCII names and values: one byte a character). */
function itemOfSize(pk: string, bytes: number): Item {
  const sk = 'item';
  const overhead = 'pk'.length + pk.length + 'sk'.length + sk.length + 'data'.length;
  return { ...key(pk, sk), data: { S: 'x'.repeat(bytes - overhead) } };
}

/** The error a command was refused with (the test fails if it was accepted). */
async function refusal(sent: Promise<unknown>): Promise<Error> {
  try {
    await sent;
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('DynamoDB Local accepted the command');
}

async function allItems(): Promise<Item[]> {
  const { Items = [] } = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Items;
}

const put = (item: Item, ConditionExpression?: string): TransactWriteItem => ({ Put: { TableName: table, Item: item, ConditionExpression } });

describe('the item size limit (400 KB, names and values)', () => {
  test('an item of exactly 400 KB (409,600 bytes) is stored', async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: itemOfSize('size-max', MAX_ITEM_BYTES) }));
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: key('size-max'), ConsistentRead: true }));
    expect(Item?.['data']?.S).toHaveLength(MAX_ITEM_BYTES - 'pk'.length - 'size-max'.length - 'sk'.length - 'item'.length - 'data'.length);
  });

  test('one byte more is refused: ValidationException "Item size has exceeded the maximum allowed size", nothing stored', async () => {
    const error = await refusal(client.send(new PutItemCommand({ TableName: table, Item: itemOfSize('size-over', MAX_ITEM_BYTES + 1) })));
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(/item size has exceeded the maximum allowed size/i);
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: key('size-over'), ConsistentRead: true }));
    expect(Item).toBeUndefined();
  });

  test('the same in a transaction: its Put of 400 KB + 1 byte is refused with the same ValidationException', async () => {
    const error = await refusal(
      client.send(new TransactWriteItemsCommand({ TransactItems: [put(itemOfSize('size-tx', MAX_ITEM_BYTES + 1)), put(key('size-tx-other'))] })),
    );
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(/item size has exceeded the maximum allowed size/i);
    expect((await allItems()).filter((item) => item['pk']?.S?.startsWith('size-tx'))).toEqual([]);
  });

  test('an UpdateItem that would grow an item past 400 KB is refused too ("Item size to update has exceeded …")', async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: itemOfSize('size-update', MAX_ITEM_BYTES - 10) }));
    const error = await refusal(
      client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('size-update'),
          UpdateExpression: 'SET more = :more',
          ExpressionAttributeValues: { ':more': { S: 'x'.repeat(10) } },
        }),
      ),
    );
    expect(error.name).toBe('ValidationException');
    expect(error.message).toMatch(/item size to update has exceeded the maximum allowed size/i);
  });
});

describe('a transaction whose condition fails', () => {
  // The failing Put at each place: the reasons come in the order of the transaction's items.
  test.each([0, 1, 2])('is cancelled with one reason per item, in item order (the failing Put at %i), and writes nothing', async (failing) => {
    const existing = { ...key(`cancel-${failing}-existing`), version: { N: '1' } };
    await client.send(new PutItemCommand({ TableName: table, Item: existing }));
    const items = [0, 1, 2].map((index) =>
      index === failing
        ? put({ ...existing, version: { N: '2' } }, 'attribute_not_exists(pk)')
        : put({ ...key(`cancel-${failing}-new-${index}`), version: { N: '1' } }),
    );

    const error = await refusal(client.send(new TransactWriteItemsCommand({ TransactItems: items })));

    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error.name).toBe('TransactionCanceledException');
    const codes = (error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code);
    expect(codes).toEqual([0, 1, 2].map((index) => (index === failing ? 'ConditionalCheckFailed' : 'None')));
    // The message lists them too: "… specific reasons [ConditionalCheckFailed, None, None]".
    expect(error.message).toContain(`[${codes?.join(', ')}]`);
    expect((error as TransactionCanceledException).CancellationReasons?.[failing]).toEqual({
      Code: 'ConditionalCheckFailed',
      Message: 'The conditional request failed',
    });
    // Nothing written: the existing item unchanged, none of the new ones there.
    expect((await allItems()).filter((item) => item['pk']?.S?.startsWith(`cancel-${failing}-`))).toEqual([existing]);
  });

  test('a single conditional PutItem that fails is a ConditionalCheckFailedException instead (no reasons)', async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: key('cancel-single') }));
    const error = await refusal(
      client.send(new PutItemCommand({ TableName: table, Item: key('cancel-single'), ConditionExpression: 'attribute_not_exists(pk)' })),
    );
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect(error.message).toBe('The conditional request failed');
  });
});

describe('ReturnConsumedCapacity TOTAL (on demand: request units)', () => {
  test('PutItem of an item up to 1 KB: CapacityUnits 1; of 5,008 bytes: 5 (one per started KB)', async () => {
    const small = await client.send(new PutItemCommand({ TableName: table, Item: key('capacity-small'), ReturnConsumedCapacity: 'TOTAL' }));
    expect(small.ConsumedCapacity).toEqual({ TableName: table, CapacityUnits: 1 });
    const large = await client.send(new PutItemCommand({ TableName: table, Item: itemOfSize('capacity-large', 5008), ReturnConsumedCapacity: 'TOTAL' }));
    expect(large.ConsumedCapacity).toEqual({ TableName: table, CapacityUnits: 5 });
  });

  test('GetItem with ConsistentRead: CapacityUnits 1 up to 4 KB (also for a missing item), 2 for 5,008 bytes; eventually consistent: 0.5', async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: key('capacity-read') }));
    await client.send(new PutItemCommand({ TableName: table, Item: itemOfSize('capacity-read-large', 5008) }));
    const read = async (pk: string, ConsistentRead: boolean) =>
      (await client.send(new GetItemCommand({ TableName: table, Key: key(pk), ConsistentRead, ReturnConsumedCapacity: 'TOTAL' }))).ConsumedCapacity;
    expect(await read('capacity-read', true)).toEqual({ TableName: table, CapacityUnits: 1 });
    expect(await read('capacity-missing', true)).toEqual({ TableName: table, CapacityUnits: 1 });
    expect(await read('capacity-read-large', true)).toEqual({ TableName: table, CapacityUnits: 2 });
    expect(await read('capacity-read', false)).toEqual({ TableName: table, CapacityUnits: 0.5 });
  });

  test('TransactWriteItems of two Puts up to 1 KB: CapacityUnits 4 (two per item, twice a plain write), one entry per table', async () => {
    const result = await client.send(
      new TransactWriteItemsCommand({ TransactItems: [put(key('capacity-tx-1')), put(key('capacity-tx-2'))], ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(result.ConsumedCapacity).toEqual([{ TableName: table, CapacityUnits: 4, WriteCapacityUnits: 4 }]);
  });
});

describe('a transaction with two operations on one item', () => {
  // Built in the test: the table exists only once beforeAll has run.
  test.each<[string, (pk: string) => TransactWriteItem[]]>([
    [
      'Put, then Update',
      (pk) => [
        put(key(pk)),
        { Update: { TableName: table, Key: key(pk), UpdateExpression: 'SET version = :one', ExpressionAttributeValues: { ':one': { N: '1' } } } },
      ],
    ],
    ['Delete, then Put', (pk) => [{ Delete: { TableName: table, Key: key(pk) } }, put(key(pk))]],
    [
      'ConditionCheck, then Put',
      (pk) => [{ ConditionCheck: { TableName: table, Key: key(pk), ConditionExpression: 'attribute_not_exists(pk)' } }, put(key(pk))],
    ],
    [
      'two ConditionChecks',
      (pk) => [
        { ConditionCheck: { TableName: table, Key: key(pk), ConditionExpression: 'attribute_not_exists(pk)' } },
        { ConditionCheck: { TableName: table, Key: key(pk), ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    ],
  ])('is refused (%s): ValidationException "Transaction request cannot include multiple operations on one item", nothing written', async (name, operations) => {
    const pk = `twice-${name.replace(/\W+/g, '-')}`;
    const error = await refusal(client.send(new TransactWriteItemsCommand({ TransactItems: operations(pk) })));
    expect(error.name).toBe('ValidationException');
    expect(error.message).toBe('Transaction request cannot include multiple operations on one item');
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: key(pk), ConsistentRead: true }));
    expect(Item).toBeUndefined();
  });

  // DIFFERENCE FROM DYNAMODB. DynamoDB refuses a transaction that names one item twice with the
  // ValidationException above before it evaluates any condition (its documentation: "you can't
  // target the same item with multiple operations within the same transaction"). DynamoDB Local
  // 1.25.1 evaluates the conditions first, in item order, each against the item as the earlier
  // operations of the same transaction left it, and only then checks for a repeated item: a
  // ConditionCheck after a Put of its item sees that Put, and when its condition fails the
  // transaction is cancelled with reasons instead (and that reason's message ends with a period,
  // unlike the plain "The conditional request failed"). Nothing is written either way. The ledger
  // must never name one item twice; a fake that copies DynamoDB refuses it up front, whatever the
  // conditions.
  test('on DynamoDB Local, a Put then a failing ConditionCheck of the same item is cancelled [None, ConditionalCheckFailed] instead', async () => {
    const pk = 'twice-put-then-failing-check';
    const error = await refusal(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [put(key(pk)), { ConditionCheck: { TableName: table, Key: key(pk), ConditionExpression: 'attribute_not_exists(pk)' } }],
        }),
      ),
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed.' },
    ]);
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: key(pk), ConsistentRead: true }));
    expect(Item).toBeUndefined();
  });

  test('on DynamoDB Local, a Put then a ConditionCheck that holds only because of that Put is refused as above', async () => {
    const pk = 'twice-put-then-passing-check';
    const error = await refusal(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [put(key(pk)), { ConditionCheck: { TableName: table, Key: key(pk), ConditionExpression: 'attribute_exists(pk)' } }],
        }),
      ),
    );
    expect(error.name).toBe('ValidationException');
    expect(error.message).toBe('Transaction request cannot include multiple operations on one item');
  });
});

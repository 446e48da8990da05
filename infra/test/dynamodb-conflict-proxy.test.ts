/**
 * The conflict proxy (support/dynamodb-conflict-proxy.ts) in front of DynamoDB Local: it forwards
 * byte for byte; a chosen write is answered as DynamoDB answers one that met another transaction,
 * and the real SDK client makes of that answer its own TransactionCanceledException (with the
 * reasons) or TransactionConflictException; its cancellation is shaped as DynamoDB Local's own;
 * nothing a client sends makes it fail. Also: the fake's conflict errors (support/fake-dynamo.ts)
 * are the ones the SDK makes of DynamoDB's answers, and the ledger's adapter (src/ledger/dynamo.ts)
 * behind the proxy tries every write that met a transaction again, up to MAX_ATTEMPTS.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  InternalServerError,
  PutItemCommand,
  ScanCommand,
  TransactionCanceledException,
  TransactionConflictException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { dynamoLedger, MAX_ATTEMPTS } from '../src/ledger/dynamo';
import type { CountedObject, LedgerPort } from '../src/ledger/port';
import { countUnder, grant, reservationId } from '../src/ledger/rules';
import { prng } from '../../test-support/prng';
import { cancelled, transactionConflict } from './support/fake-dynamo';
import { conflictEngine, type ConflictEngine } from './support/ledger-engines';
import { createLedgerTable, localDynamoAt, localDynamoEndpoint } from './support/dynamodb-local';
import { JSON_1_0, startConflictProxy, type Chooser, type ConflictProxy } from './support/dynamodb-conflict-proxy';

jest.setTimeout(120_000);

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  rawHeaders: string[];
  body: Buffer;
}

/** One raw HTTP request to `endpoint`, as an SDK sends DynamoDB's (unsigned: DynamoDB Local takes any signature). */
function post(endpoint: string, target: string | null, body: Buffer | string, extra: Record<string, string> = {}): Promise<RawAnswer> {
  const url = new URL(endpoint);
  const headers: Record<string, string> = {
    'Content-Type': JSON_1_0,
    Authorization: 'AWS4-HMAC-SHA256 Credential=local/20261101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
    'X-Amz-Date': '20261101T000000Z',
    ...(target === null ? {} : { 'X-Amz-Target': target }),
    ...extra,
  };
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method: 'POST', path: '/', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers as Record<string, string>, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A stand-in upstream that records each request's bytes and answers with fixed bytes. */
async function recordingUpstream() {
  const seen: { method: string; url: string; rawHeaders: string[]; body: Buffer }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) });
      res.writeHead(207, 'Odd Status', ['X-Upstream', 'yes', 'Content-Type', 'application/octet-stream']);
      res.end(Buffer.from([0, 255, 1, 254, 0x7b]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'item' } });

describe('the conflict proxy in front of DynamoDB Local', () => {
  let proxy: ConflictProxy;
  let client: DynamoDBClient;
  let table: string;
  const asked: [string, number][] = [];
  beforeAll(async () => {
    proxy = await startConflictProxy(localDynamoEndpoint());
    client = localDynamoAt(proxy.endpoint);
    table = await createLedgerTable(client);
  });
  afterAll(async () => {
    client.destroy();
    await proxy.close();
  });
  beforeEach(() => {
    proxy.chooser = () => 'forward';
    asked.length = 0;
  });
  afterEach(() => expect(proxy.failures).toEqual([]));

  /** A chooser conflicting the `operation` requests with these items, and recording what it was asked. */
  const conflictOn =
    (operation: string, conflicting: number[]): Chooser =>
    (op, _body, seq) => {
      asked.push([op, seq]);
      return op === operation ? { conflicting } : 'forward';
    };
  const items = async () => (await client.send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items ?? [];
  const transaction = (...pks: string[]): TransactWriteItem[] => pks.map((pk) => ({ Put: { TableName: table, Item: { ...key(pk), v: { N: '1' } } } }));

  it('cancels a chosen transaction as DynamoDB does: the SDK throws its TransactionCanceledException with one reason per item, and nothing is written', async () => {
    const before = proxy.received();
    proxy.chooser = conflictOn('TransactWriteItems', [1, 7]);
    const error = await client.send(new TransactWriteItemsCommand({ TransactItems: transaction('t1', 't2', 't3') })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const cancellation = error as TransactionCanceledException;
    expect(cancellation.name).toBe('TransactionCanceledException');
    expect(cancellation.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict, None]');
    expect(cancellation.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
    ]);
    expect(cancellation.$fault).toBe('client');
    expect(cancellation.$metadata.httpStatusCode).toBe(400);
    expect(cancellation.$metadata.requestId).toMatch(/^[A-Z0-9]{52}$/);
    expect(asked).toEqual([['TransactWriteItems', before]]);
    expect(proxy.answered.at(-1)).toEqual({ seq: before, operation: 'TransactWriteItems', reasons: ['None', 'TransactionConflict', 'None'] });
    expect(await items()).toEqual([]);
    // Forwarded, the same transaction is DynamoDB Local's to apply.
    proxy.chooser = () => 'forward';
    await client.send(new TransactWriteItemsCommand({ TransactItems: transaction('t1', 't2', 't3') }));
    expect(await items()).toHaveLength(3);
  });

  it.each([
    ['PutItem', () => new PutItemCommand({ TableName: table, Item: { ...key('single'), v: { N: '2' } } })],
    [
      'UpdateItem',
      () => new UpdateItemCommand({ TableName: table, Key: key('single'), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { N: '3' } } }),
    ],
    ['DeleteItem', () => new DeleteItemCommand({ TableName: table, Key: key('single') })],
  ] as const)(
    'rejects a chosen %s as DynamoDB does: the SDK throws its TransactionConflictException, and the item is as it was',
    async (operation, command) => {
      await client.send(new PutItemCommand({ TableName: table, Item: { ...key('single'), v: { N: '1' } } }));
      proxy.chooser = conflictOn(operation, []);
      const error = await client.send(command() as PutItemCommand).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransactionConflictException);
      expect(error).toMatchObject({ name: 'TransactionConflictException', message: 'Transaction is ongoing for the item', $metadata: { httpStatusCode: 400 } });
      expect(proxy.answered.at(-1)).toEqual({ seq: proxy.received() - 1, operation });
      const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: key('single'), ConsistentRead: true }));
      expect(Item?.['v']).toEqual({ N: '1' });
    },
  );

  it('forwards reads, batches and a transaction whose chosen items it does not have, whatever the chooser says', async () => {
    proxy.chooser = () => ({ conflicting: [5] });
    const answered = proxy.answered.length;
    await client.send(new TransactWriteItemsCommand({ TransactItems: transaction('f1', 'f2') }));
    await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [{ PutRequest: { Item: key('f3') } }] } }));
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: key('f3'), ConsistentRead: true }));
    expect(Item).toEqual(key('f3'));
    expect(proxy.answered).toHaveLength(answered);
  });

  it('answers with the shape of DynamoDB Local’s own cancellation (a failed condition): status, headers, body members in order', async () => {
    await client.send(new PutItemCommand({ TableName: table, Item: key('taken') }));
    const body = JSON.stringify({
      TransactItems: [
        { Put: { TableName: table, Item: key('free') } },
        { Put: { TableName: table, Item: key('taken'), ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    });
    const own = await post(localDynamoEndpoint(), 'DynamoDB_20120810.TransactWriteItems', body);
    proxy.chooser = conflictOn('TransactWriteItems', [1]);
    const ours = await post(proxy.endpoint, 'DynamoDB_20120810.TransactWriteItems', body);
    for (const answer of [own, ours]) {
      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toBe(JSON_1_0);
      expect(answer.headers['x-amzn-requestid']).toBeTruthy();
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    }
    const shape = (answer: RawAnswer) => {
      const parsed = JSON.parse(answer.body.toString()) as { CancellationReasons: object[] };
      return { members: Object.keys(parsed), reasons: parsed.CancellationReasons.map((r) => Object.keys(r)) };
    };
    expect(shape(ours)).toEqual(shape(own));
    expect(JSON.parse(own.body.toString())).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }],
      Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
    });
    expect(JSON.parse(ours.body.toString())).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
      Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
    });
    // DynamoDB sends a CRC32 of every answer's body (DynamoDB Local leaves it off its errors).
    expect(ours.headers['x-amz-crc32']).toBe(String(crc32(ours.body)));
  });

  it('gives the fake’s conflict errors the SDK’s own shape of DynamoDB’s answers', async () => {
    proxy.chooser = conflictOn('TransactWriteItems', [1]);
    const wire = (await client
      .send(new TransactWriteItemsCommand({ TransactItems: transaction('s1', 's2') }))
      .catch((e: unknown) => e)) as TransactionCanceledException;
    proxy.chooser = conflictOn('PutItem', []);
    const single = (await client.send(new PutItemCommand({ TableName: table, Item: key('s3') })).catch((e: unknown) => e)) as TransactionConflictException;
    const fields = (e: Error & { CancellationReasons?: unknown; $fault?: string; $metadata?: { httpStatusCode?: number } }) => ({
      class: e.constructor,
      name: e.name,
      message: e.message,
      $fault: e.$fault,
      status: e.$metadata?.httpStatusCode,
      CancellationReasons: e.CancellationReasons,
    });
    expect(fields(cancelled(['None', 'TransactionConflict']))).toEqual(fields(wire));
    expect(fields(transactionConflict())).toEqual(fields(single));
  });
});

describe('the conflict proxy, whatever it is sent', () => {
  let upstream: Awaited<ReturnType<typeof recordingUpstream>>;
  let proxy: ConflictProxy;
  beforeAll(async () => {
    upstream = await recordingUpstream();
    proxy = await startConflictProxy(upstream.endpoint);
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('forwards a request and its answer byte for byte: method, path, headers as sent, body', async () => {
    const body = Buffer.from('{"TableName":"t","Item":{"pk":{"S":"é ✓ \\u0000"}}}  \n');
    const answer = await post(proxy.endpoint, 'DynamoDB_20120810.PutItem', body, { 'X-Odd-Header': 'Mixed Case' });
    const sent = upstream.seen.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/');
    expect(sent.body.equals(body)).toBe(true);
    const pairs = (raw: string[]) => raw.flatMap((v, i) => (i % 2 === 0 ? [[v, raw[i + 1]]] : []));
    expect(pairs(sent.rawHeaders)).toEqual(
      expect.arrayContaining([
        ['X-Odd-Header', 'Mixed Case'],
        ['X-Amz-Target', 'DynamoDB_20120810.PutItem'],
      ]),
    );
    expect(answer.status).toBe(207);
    expect(pairs(answer.rawHeaders)).toEqual(expect.arrayContaining([['X-Upstream', 'yes']]));
    expect([...answer.body]).toEqual([0, 255, 1, 254, 0x7b]);
  });

  it('answers every request, never failing: bodies that are not JSON, odd targets, a chooser that throws or names no item', async () => {
    let thrown = 0;
    proxy.chooser = (_op, _body, seq) => {
      if (seq % 3 === 0) {
        thrown++;
        throw new Error('a chooser bug');
      }
      return seq % 3 === 1 ? { conflicting: [-1, 0.5, 1e9] } : { conflicting: [0] };
    };
    const target = fc.oneof(
      fc.constantFrom('DynamoDB_20120810.TransactWriteItems', 'DynamoDB_20120810.PutItem', 'DynamoDB_20120810.GetItem', 'DynamoDB_20120810.', 'Nonsense', ''),
      fc.string(),
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
      fc.array(fc.jsonValue(), { maxLength: 3 }).map((TransactItems) => Buffer.from(JSON.stringify({ TransactItems }))),
    );
    await fc.assert(
      fc.asyncProperty(target, body, async (t, b) => {
        const answer = await post(proxy.endpoint, t === '' ? null : t.replace(/[^\x21-\x7e]/g, ''), b);
        expect([207, 400]).toContain(answer.status);
        if (answer.status === 400) expect(answer.headers['content-type']).toBe(JSON_1_0);
      }),
      { numRuns: 300, seed: 45 },
    );
    expect(thrown).toBeGreaterThan(0);
    expect(proxy.failures).toHaveLength(thrown);
    proxy.failures.length = 0;
    // A client that goes away mid-request, and a request line that is not HTTP: the proxy serves on.
    const url = new URL(proxy.endpoint);
    await new Promise<void>((resolve) => {
      const req = http.request({ hostname: url.hostname, port: url.port, method: 'POST', path: '/', headers: { 'Content-Length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"TransactItems":', () => req.destroy());
      req.on('close', () => resolve());
    });
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      socket.on('data', () => socket.destroy());
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    proxy.chooser = () => 'forward';
    expect((await post(proxy.endpoint, 'DynamoDB_20120810.GetItem', '{}')).status).toBe(207);
  });

  it('answers as DynamoDB answers an internal failure when DynamoDB Local cannot be reached', async () => {
    const lonely = await startConflictProxy(upstream.endpoint.replace(/:\d+$/, ':1'));
    const client = localDynamoAt(lonely.endpoint);
    try {
      await expect(client.send(new GetItemCommand({ TableName: 'ledger-x', Key: key('x') }))).rejects.toBeInstanceOf(InternalServerError);
    } finally {
      client.destroy();
      await lonely.close();
    }
  });
});

describe('the ledger adapter behind the conflict proxy', () => {
  const RANCH = 'cedar-creek';
  const HOLD = reservationId('2026_11', 'conflictsconflicts');
  const NOW = Date.parse('2026-11-10T12:00:00Z');
  let engine: ConflictEngine;
  let ledger: LedgerPort;
  let mark = 0;
  /** The requests the proxy answered as conflicts in this test. */
  const answered = () => engine.proxy.answered.slice(mark);
  beforeEach(async () => {
    engine = await conflictEngine();
    mark = engine.proxy.answered.length;
    ledger = dynamoLedger(engine.client, engine.table, { sleep: async () => {}, random: prng(45), budgetMs: Number.POSITIVE_INFINITY });
  });
  afterEach(() => expect(engine.proxy.failures).toEqual([]));

  /** Conflicts the first `times` requests of `operation` (a transaction's item `item`); counts the requests of it. */
  function conflicting(operation: string, times: number, item = 1) {
    const sent = { count: 0 };
    engine.proxy.chooser = (op) => {
      if (op !== operation) return 'forward';
      return sent.count++ < times ? { conflicting: [item] } : 'forward';
    };
    return sent;
  }
  const grantSlots = (slots: number) =>
    ledger.updateMonth(RANCH, '2026_11', (state) => {
      const { next, granted } = grant(state, { id: HOLD, asked: slots, ceiling: 100, now: NOW });
      return { next, result: granted };
    });
  const count = (key: string, form: CountedObject['form'] = 'original', fingerprint: string | null = null) =>
    ledger.countObject(
      { bucket: 'uploads', key, ranchId: RANCH, yearmo: '2026_11', reservation: HOLD, fingerprint, form, checksum: null, at: new Date(NOW).toISOString() },
      (state) => {
        const { next, outcome } = countUnder(state, { id: HOLD, ceiling: 100, now: NOW });
        return { next, result: outcome };
      },
    );

  it('grants slots whose month write met a transaction twice (TransactionConflictException): written the third time', async () => {
    const puts = conflicting('PutItem', 2);
    await expect(grantSlots(3)).resolves.toBe(3);
    expect(puts.count).toBe(3);
    expect(answered().map((a) => a.operation)).toEqual(['PutItem', 'PutItem']);
    expect((await engine.month(RANCH, '2026_11')).holds[HOLD]?.slots).toBe(3);
  });

  it('counts an object and upgrades its photo when their transactions were cancelled for conflicts first', async () => {
    await grantSlots(3);
    const fingerprint = 'v1-300000-0123456789abcdef0123456789abcdef';
    const transactions = conflicting('TransactWriteItems', 2, 2);
    await expect(count('public/cedar-creek/copy.jpg', 'copy', fingerprint)).resolves.toBe('reserved');
    expect(transactions.count).toBe(3);
    expect(answered().map((a) => a.reasons)).toEqual([
      ['None', 'None', 'TransactionConflict', 'None'],
      ['None', 'None', 'TransactionConflict', 'None'],
    ]);
    expect((await engine.month(RANCH, '2026_11')).total).toBe(1);
    const upgrades = conflicting('TransactWriteItems', 1, 0);
    const upgrade = {
      bucket: 'uploads',
      key: 'public/cedar-creek/original.jpg',
      ranchId: RANCH,
      fingerprint,
      yearmo: '2026_11',
      checksum: null,
      at: new Date(NOW).toISOString(),
    };
    await expect(ledger.upgradePhoto(upgrade)).resolves.toBe('upgraded');
    expect(upgrades.count).toBe(2);
    expect((await engine.get({ pk: `RANCH#${RANCH}`, sk: `PHOTO#${fingerprint}` }))?.['form']).toEqual({ S: 'original' });
  });

  it(`gives up after ${MAX_ATTEMPTS} cancelled transactions with the SDK's TransactionCanceledException, counting nothing`, async () => {
    await grantSlots(1);
    const transactions = conflicting('TransactWriteItems', Number.POSITIVE_INFINITY);
    const error = await count('public/cedar-creek/a.jpg').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'TransactionConflict']);
    expect(transactions.count).toBe(MAX_ATTEMPTS);
    expect(await engine.month(RANCH, '2026_11')).toMatchObject({ total: 0, holds: { [HOLD]: { slots: 1 } } });
  });
});

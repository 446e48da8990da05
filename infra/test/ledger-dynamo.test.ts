/**
 * The upload ledger on DynamoDB (src/ledger/dynamo.ts) against a small in-memory DynamoDB: a fake
 * `CommandSender` that interprets the commands the adapter sends (GetItem, PutItem with its two
 * condition forms, TransactWriteItems of conditional Puts, all or nothing, BatchGetItem) and can
 * lose races, cancel transactions for conflicts and leave keys unprocessed. Waiting is virtual:
 * the adapter's `sleep` and the fake's latency run on a simulated clock, never a real timer.
 */
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import type { AttributeValue, CancellationReason, PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import { cancellationOutcome, dynamoLedger, MAX_ATTEMPTS, monthFromItem } from '../src/ledger/dynamo';
import type { CommandSender } from '../src/ledger/dynamo';
import type { CountedObject, MonthChange } from '../src/ledger/port';
import { countUnder, EMPTY_MONTH, grant, reservationId } from '../src/ledger/rules';
import type { CountOutcome, MonthState } from '../src/ledger/rules';
import { prng } from '../../test-support/prng';
import { encodeEventKey, handleObjectCreated } from '../src/object-created/handler';
import type { Decision, ObjectCreatedDeps } from '../src/object-created/handler';

type Item = Record<string, AttributeValue>;

const TABLE = 'ledger-table';
const NOW = Date.parse('2026-11-10T12:00:00Z');
const RESERVATION = reservationId('2026_11', 'aaaaaaaaaaaaaaaa');

const keyOf = (key: Item | undefined) => `${key?.['pk']?.S}|${key?.['sk']?.S}`;

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const cancelled = (codes: readonly string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code): CancellationReason => (Code === 'None' ? { Code } : { Code, Message: Code })),
  });

/** A conflict with another transaction on the month item (the object and photo items unaffected). */
const conflict = () => cancelled(['None', 'TransactionConflict', 'None']);

/** One DynamoDB table in memory, for the commands the ledger sends. */
class FakeDynamo implements CommandSender {
  readonly items = new Map<string, Item>();
  readonly sent: object[] = [];
  /** Runs before a command is applied: may throw (an injected failure) or change the table (a racing writer). */
  before: ((command: object) => void | Promise<void>) | null = null;
  /** Time a command takes before it is applied (default none). */
  latency: (() => Promise<void>) | null = null;
  /** Keys a BatchGetItem leaves unprocessed (default none). */
  unprocessed: (keys: Item[]) => Item[] = () => [];

  async send(command: object): Promise<unknown> {
    this.sent.push(command);
    if (this.latency) await this.latency();
    if (this.before) await this.before(command);
    return this.apply(command);
  }

  count(type: new (...args: never[]) => object): number {
    return this.sent.filter((c) => c instanceof type).length;
  }

  private apply(command: object): unknown {
    if (command instanceof GetItemCommand) {
      expect(command.input.TableName).toBe(TABLE);
      const item = this.items.get(keyOf(command.input.Key));
      return item ? { Item: structuredClone(item) } : {};
    }
    if (command instanceof PutItemCommand) {
      if (!this.passes(command.input)) throw conditionFailed();
      this.store(command.input);
      return {};
    }
    if (command instanceof TransactWriteItemsCommand) {
      const puts = (command.input.TransactItems ?? []).map((entry) => {
        if (!entry.Put || Object.keys(entry).length !== 1) throw new Error(`fake: only Puts, not ${Object.keys(entry).join()}`);
        return entry.Put;
      });
      expect(new Set(puts.map((p) => keyOf(p.Item))).size).toBe(puts.length);
      const codes = puts.map((put) => (this.passes(put) ? 'None' : 'ConditionalCheckFailed'));
      if (codes.some((c) => c !== 'None')) throw cancelled(codes);
      for (const put of puts) this.store(put);
      return {};
    }
    if (command instanceof BatchGetItemCommand) {
      const request = command.input.RequestItems?.[TABLE];
      expect(Object.keys(command.input.RequestItems ?? {})).toEqual([TABLE]);
      const keys = request?.Keys ?? [];
      if (keys.length > 100) throw Object.assign(new Error('Too many items requested for the BatchGetItem call'), { name: 'ValidationException' });
      const left = this.unprocessed(keys);
      const found = keys.filter((k) => !left.includes(k)).flatMap((k) => (this.items.has(keyOf(k)) ? [structuredClone(this.items.get(keyOf(k))!)] : []));
      return { Responses: { [TABLE]: found }, UnprocessedKeys: left.length > 0 ? { [TABLE]: { Keys: left } } : {} };
    }
    throw new Error(`fake: unexpected command ${command.constructor.name}`);
  }

  /** The two condition forms the ledger writes: the item is new, or its version is the one read. */
  private passes(put: PutItemCommandInput): boolean {
    expect(put.TableName).toBe(TABLE);
    const existing = this.items.get(keyOf(put.Item));
    if (put.ConditionExpression === undefined) return true;
    if (put.ConditionExpression === 'attribute_not_exists(#pk)') {
      expect(put.ExpressionAttributeNames).toEqual({ '#pk': 'pk' });
      return existing === undefined;
    }
    if (put.ConditionExpression === '#version = :version') {
      expect(put.ExpressionAttributeNames).toEqual({ '#version': 'version' });
      return existing?.['version']?.N !== undefined && existing['version'].N === put.ExpressionAttributeValues?.[':version']?.N;
    }
    throw new Error(`fake: unknown condition ${put.ConditionExpression}`);
  }

  private store(put: PutItemCommandInput) {
    this.items.set(keyOf(put.Item), structuredClone(put.Item!));
  }

  month(ranchId: string, yearmo: string): MonthState {
    return monthFromItem(this.items.get(`RANCH#${ranchId}|UPLOADS#${yearmo}`));
  }

  objectItems(): Item[] {
    return [...this.items.values()].filter((item) => item['sk']?.S === 'OBJECT');
  }
}

/** A simulated clock: `sleep` waits on it; `run` advances it from timer to timer until the work settles. */
class VirtualTime {
  now = 0;
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;

  readonly sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      this.timers.push({ at: this.now + Math.max(0, ms), seq: this.seq++, resolve });
    });

  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      // Every promise chain runs until it waits on a timer (setImmediate comes after all microtasks).
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return work;
      if (this.timers.length === 0) throw new Error('VirtualTime: nothing to wait for, but the work has not settled');
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      this.now = this.timers[0]!.at;
      while (this.timers.length > 0 && this.timers[0]!.at === this.now) this.timers.shift()!.resolve();
    }
  }
}

/** A ledger whose waits are recorded and instant. */
function ledgerOn(fake: FakeDynamo, seed = 1) {
  const sleeps: number[] = [];
  const ledger = dynamoLedger(fake, TABLE, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: prng(seed),
  });
  return { ledger, sleeps };
}

const grantChange =
  (id: string, asked: number, ceiling = 1000, now = NOW) =>
  (state: MonthState): MonthChange<number> => {
    const { next, granted } = grant(state, { id, asked, ceiling, now });
    return { next, result: granted };
  };

const countChange =
  (id: string, ceiling = 1000, now = NOW) =>
  (state: MonthState): MonthChange<CountOutcome> => {
    const { next, outcome } = countUnder(state, { id, ceiling, now });
    return { next, result: outcome };
  };

const object = (key: string, fingerprint: string | null = null): CountedObject => ({
  bucket: 'uploads',
  key,
  ranchId: 'cedar-creek',
  yearmo: '2026_11',
  fingerprint,
  at: '2026-11-10T12:00:00.000Z',
});

describe('monthFromItem', () => {
  it('reads a missing item as the empty month', () => {
    expect(monthFromItem(undefined)).toBe(EMPTY_MONTH);
  });

  it('reads a stored month', () => {
    const holds = { [RESERVATION]: { slots: 3, expiresAt: NOW } };
    expect(monthFromItem({ total: { N: '7' }, holds: { S: JSON.stringify(holds) }, version: { N: '4' } })).toEqual({ total: 7, holds, version: 4 });
  });

  it('takes unreadable holds as none, keeping the count and the version', () => {
    expect(monthFromItem({ total: { N: '7' }, holds: { S: '{"r-2026_11-' }, version: { N: '4' } })).toEqual({ total: 7, holds: {}, version: 4 });
    expect(monthFromItem({ total: { N: '7' }, holds: { S: 'null' }, version: { N: '4' } })).toEqual({ total: 7, holds: {}, version: 4 });
    expect(monthFromItem({ total: { N: '7' }, version: { N: '4' } })).toEqual({ total: 7, holds: {}, version: 4 });
    expect(monthFromItem({ total: { S: '7' }, holds: { S: '{}' }, version: { N: 'x' } })).toEqual({ total: 0, holds: {}, version: 0 });
  });
});

describe('cancellationOutcome', () => {
  it.each([
    [['ConditionalCheckFailed', 'None', 'None'], 'duplicate'],
    [['ConditionalCheckFailed', 'ConditionalCheckFailed'], 'duplicate'],
    [['None', 'ConditionalCheckFailed', 'None'], 'retry'],
    [['None', 'TransactionConflict'], 'retry'],
    [['TransactionConflict', 'None', 'None'], 'retry'],
    [['None', 'None', 'ValidationError'], undefined],
    [['None', 'None', 'ProvisionedThroughputExceeded'], undefined],
    [[], undefined],
  ])('%j → %s', (codes, outcome) => {
    expect(cancellationOutcome(codes.map((Code) => ({ Code })))).toBe(outcome);
  });

  it('is undefined without reasons', () => {
    expect(cancellationOutcome(undefined)).toBeUndefined();
  });
});

describe('readMonth and updateMonth', () => {
  it('creates the month item, then changes it under the version it read', async () => {
    const fake = new FakeDynamo();
    const { ledger } = ledgerOn(fake);
    await expect(ledger.readMonth('cedar-creek', '2026_11')).resolves.toEqual(EMPTY_MONTH);
    await expect(ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 3))).resolves.toBe(3);
    const first = fake.sent.filter((c) => c instanceof PutItemCommand)[0] as PutItemCommand;
    expect(first.input).toEqual({
      TableName: TABLE,
      Item: {
        pk: { S: 'RANCH#cedar-creek' },
        sk: { S: 'UPLOADS#2026_11' },
        ranchid: { S: 'cedar-creek' },
        yearmo: { S: '2026_11' },
        total: { N: '0' },
        holds: { S: JSON.stringify({ [RESERVATION]: { slots: 3, expiresAt: NOW + 15 * 60_000 } }) },
        version: { N: '1' },
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    });
    expect((fake.sent.find((c) => c instanceof GetItemCommand) as GetItemCommand).input.ConsistentRead).toBe(true);

    await ledger.updateMonth('cedar-creek', '2026_11', countChange(RESERVATION));
    const second = fake.sent.filter((c) => c instanceof PutItemCommand)[1] as PutItemCommand;
    expect(second.input).toMatchObject({ ConditionExpression: '#version = :version', ExpressionAttributeValues: { ':version': { N: '1' } } });
    await expect(ledger.readMonth('cedar-creek', '2026_11')).resolves.toEqual({
      total: 1,
      holds: { [RESERVATION]: { slots: 2, expiresAt: NOW + 15 * 60_000 } },
      version: 2,
    });
  });

  it('writes nothing when the change writes nothing', async () => {
    const fake = new FakeDynamo();
    const { ledger } = ledgerOn(fake);
    await expect(ledger.updateMonth('cedar-creek', '2026_11', countChange(RESERVATION))).resolves.toBe('no-reservation');
    expect(fake.count(PutItemCommand)).toBe(0);
  });

  it('reads again and applies the change again after losing a race, and ends correct', async () => {
    const fake = new FakeDynamo();
    const { ledger } = ledgerOn(fake);
    const other = ledgerOn(fake, 2).ledger;
    const B = reservationId('2026_11', 'bbbbbbbbbbbbbbbb');
    let raced = false;
    fake.before = async (command) => {
      if (command instanceof PutItemCommand && !raced) {
        raced = true;
        // Another writer grants 600 of the 1,000 between this writer's read and its write.
        await other.updateMonth('cedar-creek', '2026_11', grantChange(B, 600));
      }
    };
    const seen: MonthState[] = [];
    const granted = await ledger.updateMonth('cedar-creek', '2026_11', (state) => {
      seen.push(state);
      return grantChange(RESERVATION, 500)(state);
    });
    expect(seen.map((s) => s.version)).toEqual([0, 1]);
    expect(granted).toBe(400);
    const month = fake.month('cedar-creek', '2026_11');
    expect(month.version).toBe(2);
    expect(month.holds[B]?.slots).toBe(600);
    expect(month.holds[RESERVATION]?.slots).toBe(400);
  });

  it('gives up after MAX_ATTEMPTS lost races with the last error, and throws other errors at once', async () => {
    const fake = new FakeDynamo();
    const { ledger, sleeps } = ledgerOn(fake);
    const lost: unknown[] = [];
    fake.before = (command) => {
      if (command instanceof PutItemCommand) {
        const error = conditionFailed();
        lost.push(error);
        throw error;
      }
    };
    const error = await ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 1)).catch((e: unknown) => e);
    expect(error).toBe(lost.at(-1));
    expect(fake.count(PutItemCommand)).toBe(MAX_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_ATTEMPTS - 1);
    // Full jitter under a growing cap.
    sleeps.forEach((ms, attempt) => expect(ms).toBeLessThan(Math.min(1000, 10 * 2 ** attempt)));

    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const fake2 = new FakeDynamo();
    const second = ledgerOn(fake2);
    fake2.before = (command) => {
      if (command instanceof PutItemCommand) throw throttled;
    };
    await expect(second.ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, 1))).rejects.toBe(throttled);
    expect(second.sleeps).toEqual([]);
  });
});

describe('countObject', () => {
  /** A ledger with a reservation of `slots` under `ceiling`. */
  async function reserved(slots: number, ceiling = 1000, seed = 1) {
    const fake = new FakeDynamo();
    const { ledger, sleeps } = ledgerOn(fake, seed);
    await ledger.updateMonth('cedar-creek', '2026_11', grantChange(RESERVATION, slots, ceiling));
    fake.sent.length = 0;
    return { fake, ledger, sleeps };
  }

  it('writes the object, the month, the photo and its size in one transaction', async () => {
    const { fake, ledger } = await reserved(2);
    const fingerprint = 'v1-204800-0123456789abcdef0123456789abcdef';
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg', fingerprint), countChange(RESERVATION))).resolves.toBe('reserved');
    expect(fake.count(TransactWriteItemsCommand)).toBe(1);
    const transaction = fake.sent.find((c) => c instanceof TransactWriteItemsCommand) as TransactWriteItemsCommand;
    expect(transaction.input.TransactItems?.map((i) => i.Put?.Item?.['pk']?.S)).toEqual([
      'OBJECT#uploads/public/cedar-creek/a.jpg',
      'RANCH#cedar-creek',
      'RANCH#cedar-creek',
      'RANCH#cedar-creek',
    ]);
    expect(transaction.input.TransactItems?.[3]?.Put?.Item?.['sk']?.S).toBe('SIZE#204800');
    expect(fake.items.get('OBJECT#uploads/public/cedar-creek/a.jpg|OBJECT')).toEqual({
      pk: { S: 'OBJECT#uploads/public/cedar-creek/a.jpg' },
      sk: { S: 'OBJECT' },
      ranchid: { S: 'cedar-creek' },
      yearmo: { S: '2026_11' },
      at: { S: '2026-11-10T12:00:00.000Z' },
    });
    expect(fake.items.get(`RANCH#cedar-creek|PHOTO#${fingerprint}`)).toEqual({
      pk: { S: 'RANCH#cedar-creek' },
      sk: { S: `PHOTO#${fingerprint}` },
      key: { S: 'uploads/public/cedar-creek/a.jpg' },
      at: { S: '2026-11-10T12:00:00.000Z' },
    });
    expect(fake.month('cedar-creek', '2026_11')).toMatchObject({ total: 1, version: 2 });
    await expect(ledger.knownPhotos('cedar-creek', [fingerprint])).resolves.toEqual(new Set([fingerprint]));
    await expect(ledger.knownSizes('cedar-creek', [204800, 204801])).resolves.toEqual(new Set([204800]));

    // Without a fingerprint: the object and the month only.
    await ledger.countObject(object('public/cedar-creek/b.jpg'), countChange(RESERVATION));
    const last = fake.sent.filter((c) => c instanceof TransactWriteItemsCommand).at(-1) as TransactWriteItemsCommand;
    expect(last.input.TransactItems).toHaveLength(2);
  });

  it('writes nothing when the change refuses the object', async () => {
    const { fake, ledger } = await reserved(1, 1);
    await ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION, 1));
    await expect(ledger.countObject(object('public/cedar-creek/b.jpg'), countChange(RESERVATION, 1))).resolves.toBe('over-limit');
    await expect(ledger.countObject(object('public/cedar-creek/c.jpg'), countChange('r-2026_11-made-up-reservation', 1))).resolves.toBe('no-reservation');
    expect(fake.count(TransactWriteItemsCommand)).toBe(1);
    expect(fake.objectItems()).toHaveLength(1);
  });

  it('answers duplicate for an object counted before, without reading the month', async () => {
    const { fake, ledger } = await reserved(2);
    await ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION));
    const change = jest.fn(countChange(RESERVATION));
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), change)).resolves.toBe('duplicate');
    expect(change).not.toHaveBeenCalled();
    expect(fake.count(TransactWriteItemsCommand)).toBe(1);
    expect(fake.month('cedar-creek', '2026_11').total).toBe(1);
  });

  it('answers duplicate when another delivery counts the object between the check and the transaction', async () => {
    const { fake, ledger } = await reserved(2);
    const other = ledgerOn(fake, 2).ledger;
    let raced = false;
    fake.before = async (command) => {
      if (command instanceof TransactWriteItemsCommand && !raced) {
        raced = true;
        await other.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION));
      }
    };
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION))).resolves.toBe('duplicate');
    // All or nothing: the cancelled transaction changed nothing.
    expect(fake.month('cedar-creek', '2026_11')).toMatchObject({ total: 1, version: 2 });
    expect(fake.objectItems()).toHaveLength(1);
  });

  it('tries again after a transaction conflict or a month changed meanwhile', async () => {
    const { fake, ledger, sleeps } = await reserved(5);
    const other = ledgerOn(fake, 2).ledger;
    let racing = false;
    const injected = [
      async () => {
        throw conflict();
      },
      async () => {
        // Another object is counted between this one's read and its transaction.
        racing = true;
        await other.countObject(object('public/cedar-creek/other.jpg'), countChange(RESERVATION));
        racing = false;
      },
      async () => {
        throw Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' });
      },
    ];
    fake.before = async (command) => {
      if (command instanceof TransactWriteItemsCommand && !racing) await injected.shift()?.();
    };
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION))).resolves.toBe('reserved');
    expect(sleeps).toHaveLength(3);
    expect(fake.month('cedar-creek', '2026_11')).toMatchObject({ total: 2, holds: { [RESERVATION]: { slots: 3 } } });
    expect(fake.objectItems()).toHaveLength(2);
  });

  it('gives up after MAX_ATTEMPTS conflicts with the last error, and throws other cancellations at once', async () => {
    const { fake, ledger, sleeps } = await reserved(5);
    const thrown: unknown[] = [];
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand) {
        const error = conflict();
        thrown.push(error);
        throw error;
      }
    };
    const error = await ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION)).catch((e: unknown) => e);
    expect(error).toBe(thrown.at(-1));
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(fake.count(TransactWriteItemsCommand)).toBe(MAX_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_ATTEMPTS - 1);
    expect(fake.objectItems()).toHaveLength(0);

    const other = cancelled(['None', 'None', 'ValidationError']);
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand) throw other;
    };
    sleeps.length = 0;
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg', 'v1-1-00000000000000000000000000000001'), countChange(RESERVATION))).rejects.toBe(other);
    expect(sleeps).toEqual([]);
  });

  it('maps a cancellation from another copy of the SDK by its name', async () => {
    const { fake, ledger } = await reserved(5);
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand) {
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
        });
      }
    };
    await expect(ledger.countObject(object('public/cedar-creek/a.jpg'), countChange(RESERVATION))).resolves.toBe('duplicate');
  });

  it.each([
    [1000, 200],
    [150, 150],
  ])('counts 200 object-created events at once for one ranch exactly (ceiling %i → %i), with 30%% of transactions in conflict', async (ceiling, expected) => {
    const time = new VirtualTime();
    const random = prng(ceiling);
    const fake = new FakeDynamo();
    // 1–20 ms a request, and a conflict in 30% of the transactions.
    fake.latency = () => time.sleep(1 + Math.floor(random() * 20));
    // The retries' time budget runs on the same simulated clock: 20 s, as the object-created function is given.
    const ledger = dynamoLedger(fake, TABLE, { sleep: time.sleep, random: prng(ceiling + 1), now: () => time.now, budgetMs: 20_000 });
    // Four uploaders reserved 50 slots each, as far as the ceiling allows.
    const reservations = [1, 2, 3, 4].map((n) => reservationId('2026_11', `uploader-${n}-0000000000`));
    for (const id of reservations) await time.run(ledger.updateMonth('cedar-creek', '2026_11', grantChange(id, 50, ceiling)));
    expect(fake.month('cedar-creek', '2026_11').total + Object.values(fake.month('cedar-creek', '2026_11').holds).reduce((n, h) => n + h.slots, 0)).toBe(
      Math.min(200, ceiling),
    );
    fake.before = (command) => {
      if (command instanceof TransactWriteItemsCommand && random() < 0.3) throw conflict();
    };

    const keys = Array.from({ length: 200 }, (_, i) => `public/cedar-creek/${String(i).padStart(3, '0')}.jpg`);
    // Each object's event through the object-created function itself (src/object-created/handler.ts), at once.
    const decisions = new Map<string, Decision>();
    const deps: ObjectCreatedDeps = {
      objects: {
        head: async (_bucket, key) => ({
          metadata: { ranchid: 'cedar-creek', reservation: reservations[keys.indexOf(key) % 4]! },
          size: 204_800,
          contentType: 'image/jpg',
        }),
        firstBytes: async () => new Uint8Array([0xff, 0xd8, 0xff]),
        putRanchTag: async () => {},
        remove: async () => {},
      },
      ledger,
      ranches: { maxMonthlyUploads: async () => ceiling },
      clock: { now: () => new Date(NOW + 60_000) },
      log: (line) => decisions.set(line.key, line),
    };
    const calls = keys.map((key) =>
      handleObjectCreated({ Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'uploads' }, object: { key: encodeEventKey(key) } } }] }, deps),
    );
    const results = await time.run(Promise.allSettled(calls));

    const outcomes = keys.map((key) => {
      const d = decisions.get(key);
      return d?.decision === 'counted' ? d.slot : d?.decision === 'refused' ? d.reason : 'threw';
    });
    const isCounted = (o: string | undefined) => o === 'reserved' || o === 'unreserved';
    // Atomic whatever happened: the month's total is the objects recorded, each once, and only those counted.
    const recorded = fake.objectItems().map((item) => item['pk']?.S);
    expect(new Set(recorded).size).toBe(recorded.length);
    expect(recorded.sort()).toEqual(keys.filter((_, i) => isCounted(outcomes[i])).map((k) => `OBJECT#uploads/${k}`));
    expect(fake.month('cedar-creek', '2026_11').total).toBe(recorded.length);
    // No call gave up: every object counted, up to the ceiling.
    const transactions = (key: string) =>
      fake.sent.filter((c) => c instanceof TransactWriteItemsCommand && c.input.TransactItems?.[0]?.Put?.Item?.['pk']?.S === `OBJECT#uploads/${key}`).length;
    const gaveUp = results.flatMap((r, i) => (r.status === 'rejected' ? [`${keys[i]} after ${transactions(keys[i]!)} transactions: ${String(r.reason)}`] : []));
    expect(gaveUp).toEqual([]);
    expect(outcomes.filter(isCounted)).toHaveLength(expected);
    expect(fake.month('cedar-creek', '2026_11').total).toBe(expected);
    // The races happened.
    expect(fake.count(TransactWriteItemsCommand)).toBeGreaterThan(expected * 1.3);
  });
});

describe('knownPhotos', () => {
  const fp = (i: number) => `v1-${1000 + i}-${i.toString(16).padStart(32, '0')}`;

  it('looks 250 fingerprints up in chunks of 100, and asks again for unprocessed keys', async () => {
    const fake = new FakeDynamo();
    const { ledger, sleeps } = ledgerOn(fake);
    // The ranch has every third photo; another ranch has them all.
    for (let i = 0; i < 250; i++) {
      if (i % 3 === 0) fake.items.set(`RANCH#cedar-creek|PHOTO#${fp(i)}`, { pk: { S: 'RANCH#cedar-creek' }, sk: { S: `PHOTO#${fp(i)}` } });
      fake.items.set(`RANCH#mesquite-flats|PHOTO#${fp(i)}`, { pk: { S: 'RANCH#mesquite-flats' }, sk: { S: `PHOTO#${fp(i)}` } });
    }
    // The first answer of each chunk leaves its last 10 keys unprocessed.
    const seen = new Set<string>();
    fake.unprocessed = (keys) => {
      const first = keys.filter((k) => !seen.has(keyOf(k)));
      keys.forEach((k) => seen.add(keyOf(k)));
      return first.length === keys.length ? keys.slice(-10) : [];
    };
    const asked = Array.from({ length: 250 }, (_, i) => fp(i));
    const known = await ledger.knownPhotos('cedar-creek', [...asked, fp(0), fp(3)]);
    expect(known).toEqual(new Set(asked.filter((_, i) => i % 3 === 0)));
    const batches = fake.sent.filter((c): c is BatchGetItemCommand => c instanceof BatchGetItemCommand);
    expect(batches.map((b) => b.input.RequestItems?.[TABLE]?.Keys?.length)).toEqual([100, 100, 50, 10, 10, 10]);
    expect(sleeps).toHaveLength(3);
  });

  it('asks nothing for no fingerprints', async () => {
    const fake = new FakeDynamo();
    await expect(ledgerOn(fake).ledger.knownPhotos('cedar-creek', [])).resolves.toEqual(new Set());
    expect(fake.sent).toEqual([]);
  });

  it('gives up when keys stay unprocessed', async () => {
    const fake = new FakeDynamo();
    const { ledger, sleeps } = ledgerOn(fake);
    fake.unprocessed = (keys) => keys.slice(0, 1);
    await expect(ledger.knownPhotos('cedar-creek', [fp(1), fp(2)])).rejects.toThrow(/1 photo lookups stayed unprocessed/);
    expect(fake.count(BatchGetItemCommand)).toBe(MAX_ATTEMPTS);
    expect(sleeps).toHaveLength(MAX_ATTEMPTS - 1);
  });
});

describe('recordRefusal', () => {
  it('records a refusal as an item of its month', async () => {
    const fake = new FakeDynamo();
    const { ledger } = ledgerOn(fake);
    await ledger.recordRefusal({
      bucket: 'uploads',
      key: 'public/cedar-creek/a.jpg',
      ranchId: 'cedar-creek',
      yearmo: '2026_11',
      reason: 'ranch-mismatch',
      at: '2026-11-10T12:00:00.000Z',
      claimedRanchId: 'mesquite-flats',
    });
    await ledger.recordRefusal({
      bucket: 'uploads',
      key: 'elsewhere/a.jpg',
      ranchId: null,
      yearmo: '2026_11',
      reason: 'outside-layout',
      at: '2026-11-10T12:00:01.000Z',
    });
    expect(fake.sent.map((c) => (c as PutItemCommand).input)).toEqual([
      {
        TableName: TABLE,
        Item: {
          pk: { S: 'REFUSAL#2026_11' },
          sk: { S: 'uploads/public/cedar-creek/a.jpg' },
          bucket: { S: 'uploads' },
          key: { S: 'public/cedar-creek/a.jpg' },
          reason: { S: 'ranch-mismatch' },
          at: { S: '2026-11-10T12:00:00.000Z' },
          ranchid: { S: 'cedar-creek' },
          claimed_ranchid: { S: 'mesquite-flats' },
        },
      },
      {
        TableName: TABLE,
        Item: {
          pk: { S: 'REFUSAL#2026_11' },
          sk: { S: 'uploads/elsewhere/a.jpg' },
          bucket: { S: 'uploads' },
          key: { S: 'elsewhere/a.jpg' },
          reason: { S: 'outside-layout' },
          at: { S: '2026-11-10T12:00:01.000Z' },
        },
      },
    ]);
  });
});

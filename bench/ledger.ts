/**
 * The upload ledger on DynamoDB (infra/src/ledger/dynamo.ts), driven through the real uploads API
 * and object-created handlers, on two engines in one run: DynamoDB Local (Amazon's own
 * implementation, scripts/dynamodb-local.mjs) and the in-memory fake of the tests
 * (infra/test/support/fake-dynamo.ts). One table per section:
 * - reservation latency: a reservation of 500 new photos (then released), and of 500 the ranch
 *   has, one call after another;
 * - count throughput: object-created deliveries for one ranch, 50 at a time (as S3 would invoke
 *   the function at once), every object also delivered a second time;
 * - what each photo costs in DynamoDB requests and capacity units (reserve, count, lookup), read
 *   from DynamoDB Local's answers (`ReturnConsumedCapacity: TOTAL`): the fake computes none.
 * The adapter's retries wait for real here (jittered backoff), as in production.
 * `npm run bench:ledger`; BENCH_CALLS (default 30), BENCH_OBJECTS (default 1,000).
 */
import type { CommandSender } from '../infra/src/ledger/dynamo';
import { dynamoLedger } from '../infra/src/ledger/dynamo';
import { OBJECT_CREATED_RETRY_BUDGET_MS } from '../infra/src/object-created/lambda';
import { createLedgerTable, localDynamoAt } from '../infra/test/support/dynamodb-local';
import { FakeDynamo } from '../infra/test/support/fake-dynamo';
import { fingerprint, UploadWorld } from '../infra/test/support/upload-world';
import { printTable } from './table';

const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 1000);
const CONCURRENCY = 50;
const NOW = Date.parse('2026-11-10T12:00:00Z');

/** Requests and capacity units by operation, as the engine reports them. */
class Meter implements CommandSender {
  requests = 0;
  read = 0;
  write = 0;
  constructor(private readonly inner: CommandSender) {}

  async send(command: object): Promise<unknown> {
    const input = (command as { input?: Record<string, unknown> }).input;
    if (input) input['ReturnConsumedCapacity'] = 'TOTAL';
    this.requests++;
    const answer = (await this.inner.send(command)) as { ConsumedCapacity?: Capacity | Capacity[] };
    const consumed = answer.ConsumedCapacity;
    for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
      // Reads and writes apart when the engine says; a lone total is the command's kind.
      if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
        this.read += c.ReadCapacityUnits ?? 0;
        this.write += c.WriteCapacityUnits ?? 0;
      } else if (/Get|Query|Scan/.test(command.constructor.name)) this.read += c.CapacityUnits ?? 0;
      else this.write += c.CapacityUnits ?? 0;
    }
    return answer;
  }

  take() {
    const taken = { requests: this.requests, read: this.read, write: this.write };
    this.requests = this.read = this.write = 0;
    return taken;
  }
}

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function onEngine(name: string, client: CommandSender, table: string) {
  const meter = new Meter(client);
  // The object-created function's retry budget (the uploads API's is shorter; its calls here never contend).
  const ledger = dynamoLedger(meter, table, { budgetMs: OBJECT_CREATED_RETRY_BUDGET_MS });
  const world = new UploadWorld(ledger, 1_000_000, NOW);
  const fps = (from: number) => Array.from({ length: 500 }, (_, i) => fingerprint(from + i));

  // Reservation latency, and what a reservation and a lookup cost per photo.
  const fresh: number[] = [];
  const known: number[] = [];
  let reserveCost = { requests: 0, read: 0, write: 0 };
  let lookupCost = { requests: 0, read: 0, write: 0 };
  // The ranch has 500 photos (counted earlier).
  const { reservation } = await world.reserve('bench', fps(10_000_000));
  for (let i = 0; i < 500; i++) world.store(`public/cedar-creek/known-${i}.jpg`, reservation!, fingerprint(10_000_000 + i));
  for (let i = 0; i < 500; i++) await world.deliver(`public/cedar-creek/known-${i}.jpg`);
  meter.take();
  for (let call = 0; call < CALLS; call++) {
    let started = performance.now();
    const answer = await world.reserve(`member-${call}`, fps(call * 1000));
    fresh.push(performance.now() - started);
    if (call === 0) reserveCost = meter.take();
    await world.api('DELETE', `/reservations/${answer.reservation}`, `member-${call}`);
    meter.take();
    started = performance.now();
    await world.reserve('bench', fps(10_000_000));
    known.push(performance.now() - started);
    if (call === 0) lookupCost = meter.take();
    meter.take();
  }

  /** Objects stored under reservations of 50 (by four members), `count` of them from `from` on. */
  const stored = async (from: number, count: number) => {
    const keys: string[] = [];
    for (let i = 0; i < count; i += 50) {
      const slice = Array.from({ length: Math.min(50, count - i) }, (_, j) => fingerprint(from + i + j));
      const r = await world.reserve(`uploader-${(from + i) % 200}`, slice);
      slice.forEach((fp, j) => {
        const key = `public/cedar-creek/count-${from + i + j}.jpg`;
        world.store(key, r.reservation!, fp);
        keys.push(key);
      });
    }
    return keys;
  };

  // What a count costs with no contention: 100 objects delivered one after another.
  const alone = await stored(30_000_000, 100);
  meter.take();
  for (const key of alone) await world.deliver(key, NOW + 60_000);
  const aloneCost = meter.take();

  // Count throughput: every object delivered twice, 50 deliveries at a time.
  const keys = await stored(20_000_000, OBJECTS);
  meter.take();
  const deliveries = [...keys, ...keys];
  let next = 0;
  // A delivery that used up its retries fails the invocation, which Lambda retries later (twice).
  let gaveUp = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < deliveries.length) await world.deliver(deliveries[next++]!, NOW + 60_000).catch(() => gaveUp++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const countCost = meter.take();
  const counted = world.decisions.filter((d) => d.decision === 'counted').length - 500 - alone.length;
  const duplicates = world.decisions.filter((d) => d.decision === 'duplicate').length;
  fresh.sort((a, b) => a - b);
  known.sort((a, b) => a - b);
  return {
    latency: [
      [name, 'reservation, 500 new photos', ms(quantile(fresh, 0.5)), ms(quantile(fresh, 0.95)), ms(fresh.at(-1)!)],
      [name, 'reservation, 500 photos the ranch has', ms(quantile(known, 0.5)), ms(quantile(known, 0.95)), ms(known.at(-1)!)],
    ],
    throughput: [
      name,
      String(OBJECTS),
      String(counted),
      String(duplicates),
      String(gaveUp),
      `${seconds.toFixed(1)} s`,
      `${(deliveries.length / seconds).toFixed(0)}/s`,
    ],
    cost: [
      ['reserve (500 new photos, one call)', reserveCost, 500],
      ['count, one delivery at a time', aloneCost, alone.length],
      [`count, ${CONCURRENCY} deliveries at once (a first delivery and its duplicate)`, countCost, OBJECTS],
      ['lookup (500 photos the ranch has, one reservation call)', lookupCost, 500],
    ] as const,
  };
}

async function main() {
  // Imported as the ES module it is (its command line awaits at the top level).
  const { startDynamoDbLocal } = await import('../scripts/dynamodb-local.mjs');
  const local = await startDynamoDbLocal();
  try {
    const client = localDynamoAt(local.endpoint);
    const results = [];
    results.push(await onEngine('DynamoDB Local', client, await createLedgerTable(client)));
    const fake = new FakeDynamo('bench');
    results.push(await onEngine('fake', fake, fake.table));

    console.log(`\nReservation latency (${CALLS} calls each, one after another)\n`);
    printTable([['engine', 'call', 'median', 'p95', 'max'], ...results.flatMap((r) => r.latency)]);
    console.log(`\nCount throughput: ${OBJECTS} objects for one ranch, each delivered twice, ${CONCURRENCY} deliveries at a time\n`);
    printTable([['engine', 'objects', 'counted', 'duplicates', 'gave up (retried by Lambda)', 'time', 'deliveries/s'], ...results.map((r) => r.throughput)]);
    console.log('\nDynamoDB requests and capacity units per photo (DynamoDB Local’s ConsumedCapacity)\n');
    printTable([
      ['operation', 'requests/photo', 'read units/photo', 'write units/photo'],
      ...results[0]!.cost.map(([what, c, photos]) => [what, (c.requests / photos).toFixed(3), (c.read / photos).toFixed(3), (c.write / photos).toFixed(3)]),
    ]);
    client.destroy();
  } finally {
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});

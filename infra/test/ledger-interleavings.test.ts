/**
 * The ledger's invariants under every interleaving we can draw, on both engines
 * (support/ledger-engines.ts). fast-check draws a set of operations on one ranch — grants, renewals
 * and releases by two members, deliveries of six objects (each possibly delivered several times, at
 * different clocks: S3 delivers at least once), photo lookups and metrics — each at one of a few
 * instants around a month's end, and runs them all at once through the real uploads API and
 * object-created handlers over the DynamoDB adapter. Every command the adapter sends waits for
 * fast-check's scheduler, which lets one through at a time in an order it draws; so each run is
 * one interleaving at the grain of DynamoDB requests, and a failing one is shrunk and replayed
 * from its seed. After each run:
 * - no object the ledger counted was removed from the bucket, and every one it refused was;
 * - each month's total is the number of objects counted in it (none counted twice);
 * - no month is over its ceiling: total + live slots ≤ ceiling;
 * - an object counts only in its reservation's month, and only before that month closed
 *   (src/ledger/rules.ts: MONTH_GRACE_MS after its end);
 * - no request failed (a 500, or a delivery that gave up).
 */
import fc from 'fast-check';
import type { CommandSender } from '../src/ledger/dynamo';
import { dynamoLedger, objectFate } from '../src/ledger/dynamo';
import { liveSlots, monthClose, monthEnd, reservationId, reservationMonth, countingMonth } from '../src/ledger/rules';
import { encodeEventKey, handleObjectCreated } from '../src/object-created/handler';
import type { Decision } from '../src/object-created/handler';
import { handleUploadsApi } from '../src/uploads-api/handler';
import { prng } from '../../test-support/prng';
import { ENGINES } from './support/ledger-engines';
import type { LedgerEngine } from './support/ledger-engines';
import { BUCKET, fingerprint, RANCH } from './support/upload-world';

// Hundreds of requests per engine: far more than jest's default 5 s on a busy machine.
jest.setTimeout(600_000);

const MINUTE = 60_000;
const END = monthEnd('2026_11');
/** The instants operations happen at: within the month, around its end, within and past its grace. */
const TIMES = [
  END - 3 * 60 * MINUTE,
  END - 179 * MINUTE,
  END - 160 * MINUTE,
  END - 50 * MINUTE,
  END - 2 * MINUTE,
  END + 5 * MINUTE,
  END + 40 * MINUTE,
  END + 61 * MINUTE,
];
const MEMBERS = ['alice', 'bob'];
const OBJECTS = 6;
/** Objects name the reservation of one of the first GRANTS grants. */
const GRANTS = 3;

type Op =
  | { kind: 'grant'; member: number; photos: number; at: number }
  | { kind: 'renew' | 'release'; member: number; grant: number; at: number }
  | { kind: 'deliver'; object: number; at: number }
  | { kind: 'lookup' | 'metrics'; at: number };

const at = fc.integer({ min: 0, max: TIMES.length - 1 });
const member = fc.integer({ min: 0, max: MEMBERS.length - 1 });
const grantIndex = fc.integer({ min: 0, max: GRANTS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('grant' as const), member, photos: fc.integer({ min: 1, max: 3 }), at }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom('renew' as const, 'release' as const), member, grant: grantIndex, at }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('deliver' as const), object: fc.integer({ min: 0, max: OBJECTS - 1 }), at }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constantFrom('lookup' as const, 'metrics' as const), at }), weight: 1 },
);

/** The reservation id the `n`th grant of a run makes (ids are drawn per grant, not per call order). */
const grantId = (ops: readonly Op[], n: number): string => {
  const grant = ops.filter((op) => op.kind === 'grant')[n];
  return reservationId(countingMonth(new Date(TIMES[grant?.at ?? 0]!)), `grant${n}`.padEnd(16, 'x'));
};

/** Runs one drawn case: every op at once, each adapter command released by the scheduler one at a time. */
async function runCase(engine: LedgerEngine, s: fc.Scheduler, ops: readonly Op[], ceiling: number, seed: number) {
  let inflight: Promise<unknown> = Promise.resolve();
  const client: CommandSender = {
    send: (command) =>
      s.schedule(Promise.resolve(), command.constructor.name).then(() => {
        const answer = engine.client.send(command);
        inflight = answer.catch(() => undefined);
        return answer;
      }),
  };
  // Retries at once, bounded by MAX_ATTEMPTS alone (a slow machine is no reason to give up).
  const ledger = dynamoLedger(client, engine.table, { sleep: async () => {}, random: prng(seed), budgetMs: Number.POSITIVE_INFINITY });
  const bucket = new Map<string, Record<string, string>>();
  const removed = new Set<string>();
  const failures: string[] = [];
  const decisions: Decision[] = [];
  const ranches = { maxMonthlyUploads: async (id: string) => (id === RANCH ? ceiling : null) };
  const key = (j: number) => `public/${RANCH}/photo-${j}.jpg`;
  for (let j = 0; j < OBJECTS; j++) bucket.set(key(j), { ranchid: RANCH, reservation: grantId(ops, j % GRANTS), fingerprint: fingerprint(j) });

  let grants = 0;
  const api = async (
    method: string,
    path: string,
    who: number,
    when: number,
    body?: unknown,
    newId = 'unused-id-000000',
    query: Record<string, string> = {},
  ) => {
    const res = await handleUploadsApi(
      {
        method,
        path: `/ranches/${RANCH}${path}`,
        query,
        body: body === undefined ? null : JSON.stringify(body),
        caller: { ranchId: RANCH, sub: MEMBERS[who]! },
      },
      { ledger, ranches, clock: { now: () => new Date(when) }, newId: () => newId },
      (error) => failures.push(`${method} ${path}: ${String(error)}`),
    );
    if (res.status >= 500) failures.push(`${method} ${path}: ${res.status}`);
    return res;
  };
  const run = (op: Op): Promise<unknown> => {
    const when = TIMES[op.at]!;
    switch (op.kind) {
      case 'grant': {
        const n = grants++;
        const fingerprints = Array.from({ length: op.photos }, (_, i) => fingerprint(100 + 10 * n + i));
        return api('POST', '/reservations', op.member, when, { fingerprints }, `grant${n}`.padEnd(16, 'x'));
      }
      case 'renew':
        return api('POST', `/reservations/${grantId(ops, op.grant)}/renew`, op.member, when);
      case 'release':
        return api('DELETE', `/reservations/${grantId(ops, op.grant)}`, op.member, when);
      case 'lookup':
        return api('POST', '/photo-lookups', 0, when, { fingerprints: [fingerprint(0), fingerprint(1)], sizes: [200_000] });
      case 'metrics':
        return api('GET', '/upload-metrics', 1, when, undefined, undefined, { yearmo: countingMonth(new Date(when)) });
      case 'deliver':
        return handleObjectCreated(
          { Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: BUCKET }, object: { key: encodeEventKey(key(op.object)) } } }] },
          {
            objects: {
              head: async (_b, k) => {
                const metadata = bucket.get(k);
                return metadata ? { metadata, size: 204_800, contentType: 'image/jpg' } : null;
              },
              firstBytes: async (_b, k, count) => (bucket.has(k) ? new Uint8Array([0xff, 0xd8, 0xff]).subarray(0, count) : null),
              range: async () => null,
              putRanchTag: async () => {},
              remove: async (_b, k) => {
                if (bucket.delete(k)) removed.add(k);
              },
            },
            ledger,
            ranches,
            clock: { now: () => new Date(when) },
            log: (line) => decisions.push(line),
          },
        ).catch((error: unknown) => failures.push(`deliver ${key(op.object)}: ${String(error)}`));
    }
  };

  const settled = Promise.allSettled(ops.map(run));
  let done = false;
  void settled.then(() => (done = true));
  while (!done) {
    if (s.count() > 0) {
      await s.waitNext(1);
      await inflight;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }

  // The invariants, from what the engine stores.
  const items = await engine.all();
  const problems = [...failures];
  const counted = new Map<string, string[]>();
  for (const item of items.filter((i) => i['sk']?.S === 'OBJECT')) {
    const k = item['pk']!.S!.slice(`OBJECT#${BUCKET}/`.length);
    const fate = objectFate(item);
    const yearmo = item['yearmo']!.S!;
    if (fate === 'counted') {
      counted.set(yearmo, [...(counted.get(yearmo) ?? []), k]);
      if (removed.has(k)) problems.push(`${k} was counted and removed`);
      const reservation = bucket.get(k)?.['reservation'];
      if (reservation !== undefined && reservationMonth(reservation) !== yearmo)
        problems.push(`${k} counted in ${yearmo}, reserved in ${reservationMonth(reservation)}`);
      if (Date.parse(item['at']!.S!) >= monthClose(yearmo)) problems.push(`${k} counted in ${yearmo} after it closed, at ${item['at']!.S}`);
    } else if (!removed.has(k) && bucket.has(k)) {
      problems.push(`${k} was refused (${fate}) and is still stored`);
    }
  }
  const last = Math.max(...ops.map((op) => TIMES[op.at]!));
  for (const yearmo of ['2026_11', '2026_12']) {
    const month = await engine.month(RANCH, yearmo);
    const n = counted.get(yearmo)?.length ?? 0;
    if (month.total !== n) problems.push(`${yearmo}: total ${month.total}, ${n} objects counted`);
    if (month.total + liveSlots(month, last) > ceiling)
      problems.push(`${yearmo}: ${month.total} counted + ${liveSlots(month, last)} held > ceiling ${ceiling}`);
  }
  return { problems, decisions };
}

describe.each([
  ['the fake', ENGINES[0]![1], 1000],
  ['DynamoDB Local', ENGINES[1]![1], 100],
] as const)('the ledger on %s, under drawn interleavings', (_name, makeEngine, numRuns) => {
  it(`keeps every invariant in ${numRuns} drawn runs of up to 14 operations on one ranch`, async () => {
    let runs = 0;
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(opArb, { minLength: 2, maxLength: 14 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        async (s, ops, ceiling, seed) => {
          runs++;
          const engine = await makeEngine();
          const { problems, decisions } = await runCase(engine, s, ops, ceiling, seed);
          for (const d of decisions)
            outcomes.add(d.decision === 'counted' ? `counted-${d.slot}` : d.decision === 'refused' ? `refused-${d.reason}` : d.decision);
          expect(problems).toEqual([]);
        },
      ),
      // A fixed seed: the same interleavings on every run of the suite. Shrinking on the fake only (DynamoDB Local is slower).
      { numRuns, seed: 20261127, endOnFailure: makeEngine !== ENGINES[0]![1] },
    );
    expect(runs).toBeGreaterThanOrEqual(numRuns);
    // The runs reached every kind of decision the invariants are about.
    expect([...outcomes].sort()).toEqual(
      expect.arrayContaining([
        'counted-reserved',
        'counted-unreserved',
        'duplicate',
        'refused-monthly-limit',
        'refused-no-reservation',
        'refused-month-closed',
      ]),
    );
  });
});

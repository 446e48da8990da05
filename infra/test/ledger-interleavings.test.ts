/**
 * The ledger's invariants under every interleaving we can draw, on three engines
 * (support/ledger-engines.ts): the fake, DynamoDB Local, and DynamoDB Local behind the conflict
 * proxy, where fast-check also draws which writes meet another transaction — a transaction
 * cancelled for a TransactionConflict, a month's PutItem rejected with TransactionConflictException,
 * as DynamoDB answers them (support/dynamodb-conflict-proxy.ts) and DynamoDB Local never does; at
 * most twice in a row for one write, so the adapter's retries (MAX_ATTEMPTS) always get through.
 * fast-check draws a set of operations on one ranch — grants, renewals and releases by two members,
 * deliveries of six objects and of two photos' smaller copies and originals (each possibly
 * delivered several times, at different clocks: S3 delivers at least once), photo lookups and
 * metrics — each at one of a few instants around a month's end, and runs them through the real
 * uploads API and object-created handlers over the DynamoDB adapter: the copies' reservation
 * first (when drawn), then the first few operations one after another (as drawn: a grant before
 * its uploads, a copy before its original), then all the others at once. Every command the
 * adapter sends waits for fast-check's scheduler, which lets one through at a time in an order it
 * draws; so each run is one interleaving at the grain of DynamoDB requests, and a failing one is
 * shrunk and replayed from its seed. After each run:
 * - no object the ledger counted or upgraded was removed from the bucket, each was tagged, and
 *   every one it refused was removed;
 * - each month's total is the number of objects counted in it (none counted twice, an upgrade in none);
 * - no month is over its ceiling: total + live slots ≤ ceiling (copies count as originals do);
 * - an object counts only with a reservation, in its reservation's month, and only before that
 *   month closed (src/ledger/rules.ts: MONTH_GRACE_MS after its end);
 * - smaller copies (infra/docs/server.md#smaller-copies): a photo is upgraded at most once, by an
 *   original, and only once a copy of it was counted; its item says `original` exactly when an
 *   original of it was counted or upgraded it, names its first copy and first original (the
 *   upgrading one when there was one) and the object it was last counted under;
 * - no request failed (a 500, or a delivery that gave up), and the proxy answered every conflict
 *   drawn.
 */
import fc from 'fast-check';
import type { CommandSender } from '../src/ledger/dynamo';
import { dynamoLedger, objectDecisionOf } from '../src/ledger/dynamo';
import type { LedgerPort, ObjectDecision, PhotoForm } from '../src/ledger/port';
import { liveSlots, monthClose, monthEnd, reservationId, reservationMonth, countingMonth } from '../src/ledger/rules';
import { encodeEventKey, handleObjectCreated } from '../src/object-created/handler';
import type { Decision, ObjectCreatedDeps } from '../src/object-created/handler';
import { handleUploadsApi } from '../src/uploads-api/handler';
import { prng } from '../../test-support/prng';
import type { Chooser } from './support/dynamodb-conflict-proxy';
import type { Item } from './support/fake-dynamo';
import { CONFLICT_ENGINE, ENGINES } from './support/ledger-engines';
import type { ConflictEngine, LedgerEngine } from './support/ledger-engines';
import { BUCKET, fingerprint, photo, RANCH } from './support/upload-world';

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
/** Objects without bytes of their own, each under a reservation, with a fingerprint that names another size. */
const OBJECTS = 6;
/** Objects name the reservation of one of the first GRANTS grants. */
const GRANTS = 3;
/** Two photos with their bytes (150 KB: both sampled ranges are read), sent as smaller copies and as originals. */
const PHOTOS = [photo(45, 150_000), photo(46, 150_000)];
/**
 * The copies and originals of PHOTOS: the copies under a reservation asked for them first (or the
 * run's first grant), each original without a reservation (the uploader's upgrade) or with the
 * run's first grant (a device that asked before the copy was stored), as drawn; the first photo's
 * original sent from two devices.
 */
const FORMS: readonly { name: string; photo: number; form: PhotoForm }[] = [
  { name: 'copy-0', photo: 0, form: 'copy' },
  { name: 'original-0', photo: 0, form: 'original' },
  { name: 'original-0-again', photo: 0, form: 'original' },
  { name: 'copy-1', photo: 1, form: 'copy' },
  { name: 'original-1', photo: 1, form: 'original' },
];
const ORIGINALS = FORMS.filter((f) => f.form === 'original').length;
const objectKey = (j: number) => `public/${RANCH}/${j < OBJECTS ? `photo-${j}` : FORMS[j - OBJECTS]!.name}.jpg`;
/** What an object without bytes of its own holds: 200 KB starting as a JPEG. */
const PLAIN = new Uint8Array(204_800);
PLAIN.set([0xff, 0xd8, 0xff]);

type Op =
  | { kind: 'grant'; member: number; photos: number; at: number }
  /** The reservation the copies are sent under, asked for PHOTOS before anything else happens. */
  | { kind: 'copies'; at: number }
  | { kind: 'renew' | 'release'; member: number; grant: number; at: number }
  | { kind: 'deliver'; object: number; at: number }
  | { kind: 'lookup' | 'metrics'; at: number };

const at = fc.integer({ min: 0, max: TIMES.length - 1 });
const member = fc.integer({ min: 0, max: MEMBERS.length - 1 });
const grantIndex = fc.integer({ min: 0, max: GRANTS - 1 });
const deliver = (min: number, max: number) => fc.record({ kind: fc.constant('deliver' as const), object: fc.integer({ min, max }), at });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('grant' as const), member, photos: fc.integer({ min: 1, max: 3 }), at }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constantFrom('renew' as const, 'release' as const), member, grant: grantIndex, at }), weight: 2 },
  { arbitrary: deliver(0, OBJECTS - 1), weight: 4 },
  { arbitrary: deliver(OBJECTS, OBJECTS + FORMS.length - 1), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constantFrom('lookup' as const, 'metrics' as const), at }), weight: 1 },
);

/**
 * Which of a run's writes that can meet a transaction do (null: not; beyond the plan: none), and
 * which of a transaction's items (a mask). Lengths over the whole range: a run sends some tens.
 */
const conflictPlanArb = fc.array(fc.option(fc.nat({ max: 15 }), { nil: null, freq: 2 }), { maxLength: 60, size: 'max' });

/** The reservation id the `n`th grant of a run makes (ids are drawn per grant, not per call order). */
const grantId = (ops: readonly Op[], n: number): string => {
  const grant = ops.filter((op) => op.kind === 'grant')[n];
  return reservationId(countingMonth(new Date(TIMES[grant?.at ?? 0]!)), `grant${n}`.padEnd(16, 'x'));
};

/** The id of the copies' reservation (`copies` op) asked at `at`. */
const copiesReservation = (at: number) => reservationId(countingMonth(new Date(TIMES[at]!)), 'copies'.padEnd(16, 'x'));

interface Stored {
  metadata: Record<string, string>;
  bytes: Uint8Array;
}

/** The bucket's objects of a run, by key: what the uploader stored, before any delivery. */
function storedObjects(ops: readonly Op[], reservedOriginals: readonly boolean[], copiesAt: number | null): Map<string, Stored> {
  const objects = new Map<string, Stored>();
  for (let j = 0; j < OBJECTS; j++) {
    objects.set(objectKey(j), { metadata: { ranchid: RANCH, reservation: grantId(ops, j % GRANTS), fingerprint: fingerprint(j) }, bytes: PLAIN });
  }
  let originals = 0;
  FORMS.forEach((f, i) => {
    const p = PHOTOS[f.photo]!;
    const reservation =
      f.form === 'copy' ? (copiesAt === null ? grantId(ops, 0) : copiesReservation(copiesAt)) : reservedOriginals[originals++] ? grantId(ops, 0) : null;
    const metadata = { ranchid: RANCH, fingerprint: p.fingerprint, photo_form: f.form, ...(reservation ? { reservation } : {}) };
    objects.set(objectKey(OBJECTS + i), { metadata, bytes: f.form === 'copy' ? p.copy : p.original });
  });
  return objects;
}

/**
 * A chooser of the conflict proxy that makes the `n`th write that can meet another transaction —
 * any TransactWriteItems, or a PutItem of a month item (the only item a single write shares with
 * transactions) — meet one as `plan[n]` says, but never one write (by its first item's key) more
 * than twice in a row. Counts what it chose — month writes rejected, transactions cancelled
 * (an upgrade's: an object and its photo's Update; the others decide an object) — and the writes
 * sent again after a conflict.
 */
function plannedConflicts(plan: readonly (number | null)[]) {
  const stats = { months: 0, decisions: 0, upgrades: 0, retried: 0 };
  const streaks = new Map<string, number>();
  let n = 0;
  const chooser: Chooser = (operation, body) => {
    const items = operation === 'TransactWriteItems' ? (body['TransactItems'] as Record<string, { Item?: Item; Key?: Item }>[]) : null;
    const first = items ? Object.values(items[0] ?? {})[0] : (body as { Item?: Item; Key?: Item });
    const key = first?.Item ?? first?.Key;
    if (!(items || (operation === 'PutItem' && key?.['sk']?.S?.startsWith('UPLOADS#')))) return 'forward';
    const id = `${key?.['pk']?.S}|${key?.['sk']?.S}`;
    const streak = streaks.get(id) ?? 0;
    if (streak > 0) stats.retried++;
    const drawn = plan[n++];
    if (drawn === null || drawn === undefined || streak >= 2) {
      streaks.delete(id);
      return 'forward';
    }
    streaks.set(id, streak + 1);
    if (!items) {
      stats.months++;
      return { conflicting: [0] };
    }
    if (items.length === 2 && items[1]?.['Update']?.Key?.['sk']?.S?.startsWith('PHOTO#')) stats.upgrades++;
    else stats.decisions++;
    const mask = (drawn % (2 ** items.length - 1)) + 1;
    return { conflicting: items.flatMap((_, i) => (mask & (1 << i) ? [i] : [])) };
  };
  return { chooser, stats };
}

/** What a run leaves to check. */
interface Run {
  objects: Map<string, Stored>;
  removed: Set<string>;
  tagged: Set<string>;
  failures: string[];
  decisions: Decision[];
}

/** The run's operations, each a call of the real handlers over `ledger`, on its own clock. */
function operations(ledger: LedgerPort, ops: readonly Op[], ceiling: number, run: Run): (op: Op) => Promise<unknown> {
  const present = new Set(run.objects.keys());
  const ranches = { maxMonthlyUploads: async (id: string) => (id === RANCH ? ceiling : null) };
  const stored = (k: string) => (present.has(k) ? run.objects.get(k)! : null);
  const objects: ObjectCreatedDeps['objects'] = {
    head: async (_b, k) => {
      const o = stored(k);
      return o ? { metadata: o.metadata, size: o.bytes.length, contentType: 'image/jpg' } : null;
    },
    firstBytes: async (_b, k, count) => stored(k)?.bytes.slice(0, count) ?? null,
    range: async (_b, k, start, end) => stored(k)?.bytes.slice(start, end) ?? null,
    putRanchTag: async (_b, k) => {
      if (present.has(k)) run.tagged.add(k);
    },
    remove: async (_b, k) => {
      if (present.delete(k)) run.removed.add(k);
    },
  };
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
      (error) => run.failures.push(`${method} ${path}: ${String(error)}`),
    );
    if (res.status >= 500) run.failures.push(`${method} ${path}: ${res.status}`);
    return res;
  };
  const lookedUp = [fingerprint(0), fingerprint(1), ...PHOTOS.map((p) => p.fingerprint)];
  return (op) => {
    const when = TIMES[op.at]!;
    switch (op.kind) {
      case 'grant': {
        const n = grants++;
        const fingerprints = Array.from({ length: op.photos }, (_, i) => fingerprint(100 + 10 * n + i));
        return api('POST', '/reservations', op.member, when, { fingerprints }, `grant${n}`.padEnd(16, 'x'));
      }
      case 'copies':
        return api('POST', '/reservations', 0, when, { fingerprints: PHOTOS.map((p) => p.fingerprint) }, 'copies'.padEnd(16, 'x'));
      case 'renew':
        return api('POST', `/reservations/${grantId(ops, op.grant)}/renew`, op.member, when);
      case 'release':
        return api('DELETE', `/reservations/${grantId(ops, op.grant)}`, op.member, when);
      case 'lookup':
        return api('POST', '/photo-lookups', 0, when, { fingerprints: lookedUp, sizes: [200_000, 150_000] });
      case 'metrics':
        return api('GET', '/upload-metrics', 1, when, undefined, undefined, { yearmo: countingMonth(new Date(when)) });
      case 'deliver':
        return handleObjectCreated(
          { Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: BUCKET }, object: { key: encodeEventKey(objectKey(op.object)) } } }] },
          { objects, ledger, ranches, clock: { now: () => new Date(when) }, log: (line) => run.decisions.push(line) },
        ).catch((error: unknown) => run.failures.push(`deliver ${objectKey(op.object)}: ${String(error)}`));
    }
  };
}

/** One drawn case. */
interface Drawn {
  ops: readonly Op[];
  /** How many of `ops` run one after another before the rest run at once. */
  head: number;
  ceiling: number;
  seed: number;
  /** Which originals carry a reservation. */
  reservedOriginals: readonly boolean[];
  /** When the copies' reservation is asked (null: the copies name the run's first grant). */
  copiesAt: number | null;
}

/** Runs one drawn case: every op at once, each adapter command released by the scheduler one at a time. */
async function runCase(engine: LedgerEngine, s: fc.Scheduler, drawn: Drawn) {
  const { ops, head, ceiling, seed, reservedOriginals, copiesAt } = drawn;
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
  const run: Run = { objects: storedObjects(ops, reservedOriginals, copiesAt), removed: new Set(), tagged: new Set(), failures: [], decisions: [] };
  const perform = operations(ledger, ops, ceiling, run);
  // The copies' reservation, then the first `head` operations one after another (a grant before its uploads, a copy before its original), then the rest at once.
  const settled = (async () => {
    const first: Op[] = [...(copiesAt === null ? [] : [{ kind: 'copies' as const, at: copiesAt }]), ...ops.slice(0, head)];
    for (const op of first) await perform(op).catch(() => undefined);
    await Promise.allSettled(ops.slice(head).map(perform));
  })();
  let done = false;
  void settled.then(() => (done = true));
  while (!done) {
    if (s.count() > 0) {
      await s.waitNext(1);
      await inflight;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const last = Math.max(...ops.map((op) => TIMES[op.at]!), copiesAt === null ? -Infinity : TIMES[copiesAt]!);
  return { problems: await problemsOf(engine, last, ceiling, run), decisions: run.decisions };
}

/** The invariants, from what the engine stores. */
async function problemsOf(engine: LedgerEngine, last: number, ceiling: number, run: Run): Promise<string[]> {
  const items = await engine.all();
  const problems = [...run.failures];
  const decided = new Map<string, { decision: ObjectDecision; item: Item }>();
  for (const item of items.filter((i) => i['sk']?.S === 'OBJECT'))
    decided.set(item['pk']!.S!.slice(`OBJECT#${BUCKET}/`.length), { decision: objectDecisionOf(item)!, item });
  const counted = new Map<string, string[]>();
  for (const [k, { decision, item }] of decided) {
    const yearmo = item['yearmo']!.S!;
    const reservation = run.objects.get(k)?.metadata['reservation'];
    if (decision === 'refused') {
      if (!run.removed.has(k)) problems.push(`${k} was refused and is still stored`);
      continue;
    }
    if (run.removed.has(k)) problems.push(`${k} was ${decision} and removed`);
    if (!run.tagged.has(k)) problems.push(`${k} was ${decision} and not tagged`);
    if (decision === 'upgraded') continue;
    counted.set(yearmo, [...(counted.get(yearmo) ?? []), k]);
    if (reservation === undefined) problems.push(`${k} counted without a reservation`);
    else if (reservationMonth(reservation) !== yearmo) problems.push(`${k} counted in ${yearmo}, reserved in ${reservationMonth(reservation)}`);
    if (Date.parse(item['at']!.S!) >= monthClose(yearmo)) problems.push(`${k} counted in ${yearmo} after it closed, at ${item['at']!.S}`);
  }
  for (const yearmo of ['2026_11', '2026_12']) {
    const month = await engine.month(RANCH, yearmo);
    const n = counted.get(yearmo)?.length ?? 0;
    if (month.total !== n) problems.push(`${yearmo}: total ${month.total}, ${n} objects counted`);
    if (month.total + liveSlots(month, last) > ceiling)
      problems.push(`${yearmo}: ${month.total} counted + ${liveSlots(month, last)} held > ceiling ${ceiling}`);
  }
  return [...problems, ...copyProblems(items, decided, run)];
}

/** The smaller copies' invariants, photo by photo (infra/docs/server.md#smaller-copies). */
function copyProblems(items: Item[], decided: Map<string, { decision: ObjectDecision }>, run: Run): string[] {
  const problems: string[] = [];
  const upgradeLines = run.decisions.filter((d) => d.decision === 'upgraded').map((d) => d.key);
  if (new Set(upgradeLines).size !== upgradeLines.length) problems.push(`an object logged upgraded twice: ${upgradeLines.join(', ')}`);
  PHOTOS.forEach((p, n) => {
    const mine = FORMS.flatMap((f, i) =>
      f.photo === n ? [{ ...f, key: objectKey(OBJECTS + i), decision: decided.get(objectKey(OBJECTS + i))?.decision }] : [],
    );
    const full = (keys: { key: string }[]) => keys.map((o) => `${BUCKET}/${o.key}`);
    const countedOnes = mine.filter((o) => o.decision === 'counted');
    const upgraded = mine.filter((o) => o.decision === 'upgraded');
    const kept = [...countedOnes, ...upgraded];
    const item = items.find((i) => i['pk']?.S === `RANCH#${RANCH}` && i['sk']?.S === `PHOTO#${p.fingerprint}`);
    const says = (attribute: string) => item?.[attribute]?.S;
    const problem = (text: string) => problems.push(`photo ${n}: ${text}`);
    if (upgraded.length > 1) problem(`upgraded by ${upgraded.map((o) => o.key).join(' and ')}`);
    for (const o of upgraded) {
      if (o.form !== 'original') problem(`upgraded by a ${o.form}, ${o.key}`);
      if (!countedOnes.some((c) => c.form === 'copy')) problem(`upgraded by ${o.key}, no copy of it counted`);
      if (says('original_key') !== full([o])[0] || says('upgraded_at') === undefined) problem(`upgraded by ${o.key}, its item says ${JSON.stringify(item)}`);
    }
    for (const o of mine)
      if (upgradeLines.includes(o.key) !== (o.decision === 'upgraded'))
        problem(`${o.key} logged upgraded: ${upgradeLines.includes(o.key)}, decided ${o.decision}`);
    if (!item || kept.length === 0) {
      if (item || kept.length > 0) problem(`its item ${JSON.stringify(item)}, its objects kept: ${kept.map((o) => o.key).join(', ')}`);
      return;
    }
    const form = kept.some((o) => o.form === 'original') ? 'original' : 'copy';
    if ((says('form') ?? 'original') !== form) problem(`its item says ${says('form')}, its objects make it ${form}`);
    const firstOf = (attribute: string, candidates: string[]) => {
      const value = says(attribute);
      if (candidates.length === 0 ? value !== undefined : !candidates.includes(value ?? ''))
        problem(`${attribute} ${value}, not one of ${candidates.join(', ')}`);
    };
    firstOf('copy_key', full(kept.filter((o) => o.form === 'copy')));
    firstOf('original_key', full(kept.filter((o) => o.form === 'original')));
    firstOf('key', full(countedOnes));
    if (upgraded.length === 0 && says('upgraded_at') !== undefined) problem('upgraded_at, but no original upgraded it');
  });
  return problems;
}

describe.each([
  ['the fake', ENGINES[0]![1], 1000],
  ['DynamoDB Local', ENGINES[1]![1], 100],
  [CONFLICT_ENGINE[0], CONFLICT_ENGINE[1], 100],
] as const)('the ledger on %s, under drawn interleavings', (_name, makeEngine, numRuns) => {
  it(`keeps every invariant in ${numRuns} drawn runs of up to 16 operations on one ranch`, async () => {
    let runs = 0;
    const outcomes = new Set<string>();
    const conflicts = { months: 0, decisions: 0, upgrades: 0, retried: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(opArb, { minLength: 2, maxLength: 16 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.boolean(), { minLength: ORIGINALS, maxLength: ORIGINALS }),
        fc.option(at, { nil: null }),
        conflictPlanArb,
        async (s, ops, head, ceiling, seed, reservedOriginals, copiesAt, plan) => {
          runs++;
          const engine = await makeEngine();
          const planned = plannedConflicts(plan);
          const proxy = (engine as Partial<ConflictEngine>).proxy ?? null;
          const answered = proxy?.answered.length ?? 0;
          if (proxy) proxy.chooser = planned.chooser;
          const { problems, decisions } = await runCase(engine, s, { ops, head, ceiling, seed, reservedOriginals, copiesAt });
          for (const d of decisions)
            outcomes.add(d.decision === 'counted' ? `counted-${d.slot}` : d.decision === 'refused' ? `refused-${d.reason}` : d.decision);
          if (proxy) {
            const { months, decisions: cancelled, upgrades, retried } = planned.stats;
            Object.assign(conflicts, {
              months: conflicts.months + months,
              decisions: conflicts.decisions + cancelled,
              upgrades: conflicts.upgrades + upgrades,
              retried: conflicts.retried + retried,
            });
            const chosen = months + cancelled + upgrades;
            if (proxy.answered.length - answered !== chosen) problems.push(`the proxy answered ${proxy.answered.length - answered} conflicts of ${chosen}`);
            problems.push(...proxy.failures.splice(0));
          }
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
        'upgraded',
        'refused-monthly-limit',
        'refused-no-reservation',
        'refused-month-closed',
      ]),
    );
    // Behind the proxy, month writes were rejected and decisions' and upgrades' transactions cancelled, and the adapter sent them again.
    if (makeEngine === CONFLICT_ENGINE[1]) {
      for (const kind of ['months', 'decisions', 'upgrades', 'retried'] as const) expect([kind, conflicts[kind]]).toEqual([kind, expect.any(Number)]);
      expect(Math.min(conflicts.months, conflicts.decisions, conflicts.upgrades, conflicts.retried)).toBeGreaterThan(0);
    }
  });
});

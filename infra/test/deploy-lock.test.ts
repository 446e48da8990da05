/**
 * The deploy lock (src/deploy/lock.ts): one deploy or rollback of an app at a time, for the whole
 * deploy, through a conditional write of `_releases/deploy.lock` (If-None-Match: *). Against the
 * S3 emulator (support/s3-emulator.ts, patched for conditional writes: s3-emulator.test.ts): a
 * deploy while the lock is held is refused naming who holds it and since when, and leaves the
 * bucket alone; of writers racing for the lock exactly one wins, and deploys started at once never
 * overlap; a stale lock is broken only with --break-lock and only once not renewed for 30 minutes;
 * the lock is gone after a deploy, a failed one too. With an in-memory bucket and a fake clock: the
 * lock is renewed while held and its staleness counts from the last renewal, it is released only
 * by its holder, and a holder whose lock was broken finds it out at its next check.
 * deploy-stops.test.ts races two deploys after --break-lock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { s3Store } from '../src/deploy/aws';
import { deploy } from '../src/deploy/deploy';
import { rollback } from '../src/deploy/rollback';
import type { DeployOptions } from '../src/deploy/deploy';
import { acquireLock, LOCK_FRESH_MS, LOCK_KEY, LOCK_RENEW_EVERY_MS, LOCK_STALE_AFTER_MS, LockError } from '../src/deploy/lock';
import type { LockPort } from '../src/deploy/lock';
import { emulatorDeploy, S3RVER_KEYS, startS3Emulator } from './support/s3-emulator';
import type { S3Emulator } from './support/s3-emulator';
import { fakeClock } from './support/deploy-faults';
import { writeFixtureRelease, writeShellHost } from './support/fixture-release';
import type { FixtureRelease } from './support/fixture-release';

let s3: S3Emulator;
let work: string;
let release: FixtureRelease;
let shellHost: string;

beforeAll(async () => {
  s3 = await startS3Emulator('locked');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-deploy-lock-'));
  release = writeFixtureRelease(path.join(work, 'A'), 'A');
  shellHost = writeShellHost(path.join(work, 'live-shell', 'federation-host.json'));
});
afterAll(async () => {
  await s3?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const options = (prefix: string, extra: Partial<DeployOptions> = {}): DeployOptions => ({
  app: 'uploader-remote',
  distDir: release.dir,
  shell: shellHost,
  ...emulatorDeploy(s3, prefix),
  ...extra,
});

async function keys(prefix: string): Promise<string[]> {
  const res = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => (m[1] as string).slice(prefix.length)).sort();
}

/** Another deploy's lock, as it writes it. */
async function holdLock(prefix: string, acquiredAt: Date, holder = 'ana@ci-runner-7 (pid 4242)') {
  const body = JSON.stringify({ format: 1, app: 'uploader-remote', operation: 'deploy', holder, acquiredAt: acquiredAt.toISOString(), token: 'theirs' });
  const res = await fetch(s3.url(prefix + LOCK_KEY), { method: 'PUT', body, headers: { 'If-None-Match': '*' } });
  expect(res.status).toBe(200);
}

describe('against the S3 emulator', () => {
  test('a deploy while another holds the lock is refused, naming who and since when, and writes nothing', async () => {
    const prefix = 'held/';
    const since = new Date();
    await holdLock(prefix, since);
    const error = await deploy(options(prefix)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockError);
    expect((error as LockError).message).toBe(
      `Another deploy of uploader-remote holds the lock s3://locked/held/_releases/deploy.lock: ana@ci-runner-7 (pid 4242), a deploy of uploader-remote, since ${(error as LockError).message.match(/since (\S+) /)?.[1]} (under a minute ago). ` +
        'Wait for it to finish and try again. A running deploy renews its lock every 5 minutes; a lock left by a deploy that was killed can be broken with --break-lock once not renewed for 30 minutes.',
    );
    expect(Math.abs(Date.parse((error as LockError).message.match(/since (\S+) /)![1]!) - since.getTime())).toBeLessThan(2000);
    await expect(rollback(options(prefix))).rejects.toThrow(/Another deploy of uploader-remote holds the lock/);
    expect(await keys(prefix)).toEqual([LOCK_KEY]);
  });

  test('--break-lock breaks only a stale lock, and says whose it broke', async () => {
    const prefix = 'stale/';
    await holdLock(prefix, new Date());
    await expect(deploy(options(prefix, { breakLock: true }))).rejects.toThrow(/not stale yet, --break-lock breaks only a lock not renewed for 30 minutes/);
    // Half an hour later (the deploy's clock; the lock's own time and S3's are both older).
    const warnings: string[] = [];
    const later = new Date(Date.now() + LOCK_STALE_AFTER_MS + 60_000);
    const refused = await deploy(options(prefix, { now: later })).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/The lock has not been renewed for 30 minutes: if that deploy was killed, break the lock with --break-lock\./);
    const { result } = await deploy(options(prefix, { now: later, breakLock: true, warn: (line) => warnings.push(line) }));
    expect(result.uploaded.files).toBeGreaterThan(0);
    expect(warnings).toEqual([expect.stringMatching(/^broke the stale lock s3:\/\/locked\/stale\/_releases\/deploy\.lock of ana@ci-runner-7 \(pid 4242\)/)]);
    expect(await keys(prefix)).not.toContain(LOCK_KEY);
  });

  test('deploys started at once never run at the same time: each runs alone or is refused by the lock', async () => {
    const prefix = 'race/';
    const spans: { start: number; end: number }[] = [];
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map(async (n) => {
        let start = 0;
        // The first progress line comes after the lock was taken and the bucket read.
        const done = await deploy(options(prefix, { keep: 10, lockHolder: `runner-${n}`, releaseId: `00000${n}`, log: () => (start ||= performance.now()) }));
        spans.push({ start: start || performance.now(), end: performance.now() });
        return done;
      }),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const { reason } of lost) expect(reason).toBeInstanceOf(LockError);
    spans.sort((a, b) => a.start - b.start);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    expect((await keys(prefix)).filter((k) => /^_releases\/[^/]+\.json$/.test(k))).toHaveLength(won.length);
    expect(await keys(prefix)).not.toContain(LOCK_KEY);
  });

  test('a race for the lock object itself: one writer wins, whatever S3 answers the others (412 or 409)', async () => {
    const store = s3Store({ bucket: s3.bucket, prefix: 'bare/' }, { endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS });
    try {
      const attempts = await Promise.allSettled(
        Array.from({ length: 8 }, (_, n) => acquireLock(store.lock, { app: 'shell', operation: 'deploy', holder: `h${n}`, where: 'bare', retryDelayMs: 20 })),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      for (const a of attempts) if (a.status === 'rejected') expect(a.reason).toBeInstanceOf(LockError);
      const winner = attempts.find((a) => a.status === 'fulfilled')!.value;
      expect(JSON.parse((await store.lock.read(LOCK_KEY))!.text)).toMatchObject({ holder: winner.info.holder, token: winner.info.token });
      expect(await winner.release()).toBeUndefined();
      expect(await store.lock.read(LOCK_KEY)).toBeUndefined();
    } finally {
      store.destroy();
    }
  });

  test("the lock object is deleted only on the ETag it was read with, as S3's conditional delete does", async () => {
    const store = s3Store({ bucket: s3.bucket, prefix: 'conditional/' }, { endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS });
    expect(await store.lock.create(LOCK_KEY, Buffer.from('{"holder":"old"}'))).toBe('created');
    const old = (await store.lock.read(LOCK_KEY))!;
    expect(await store.lock.replace(LOCK_KEY, Buffer.from('{"holder":"new"}'), old.etag)).toBe(true);
    expect(await store.lock.remove(LOCK_KEY, old.etag)).toBe('changed');
    expect(JSON.parse((await store.lock.read(LOCK_KEY))!.text)).toEqual({ holder: 'new' });
    expect(await store.lock.remove(LOCK_KEY, (await store.lock.read(LOCK_KEY))!.etag)).toBe('removed');
    expect(await store.lock.read(LOCK_KEY)).toBeUndefined();
    expect(await store.lock.remove(LOCK_KEY, old.etag)).toBe('gone');
  });

  test('a dry run takes no lock; it warns that a real deploy would be refused now', async () => {
    const prefix = 'dry/';
    await holdLock(prefix, new Date());
    const warnings: string[] = [];
    const { result } = await deploy(options(prefix, { dryRun: true, warn: (line) => warnings.push(line) }));
    expect(result.dryRun).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(/^s3:\/\/locked\/dry\/_releases\/deploy\.lock is held \(.*ana@ci-runner-7.*\): a real deploy would be refused now\.$/),
    ]);
  });
});

/** A bucket's lock object in memory, with S3's answers; counts reads and writes. */
function memoryPort(): LockPort & { object?: { text: string; etag: string }; reads: number; writes: number } {
  let n = 0;
  const port: LockPort & { object?: { text: string; etag: string }; reads: number; writes: number } = {
    reads: 0,
    writes: 0,
    async create(_key, body) {
      if (port.object) return 'exists';
      port.writes += 1;
      port.object = { text: body.toString(), etag: `e${++n}` };
      return 'created';
    },
    async replace(_key, body, etag) {
      if (port.object?.etag !== etag) return false;
      port.writes += 1;
      port.object = { text: body.toString(), etag: `e${++n}` };
      return true;
    },
    async read() {
      port.reads += 1;
      return port.object ? { ...port.object } : undefined;
    },
    async remove(_key, etag) {
      if (!port.object) return 'gone';
      if (port.object.etag !== etag) return 'changed';
      delete port.object;
      return 'removed';
    },
  };
  return port;
}

describe('the lock’s rules', () => {
  const base = { app: 'auth-remote' as const, operation: 'deploy' as const, where: 's3://b/_releases/deploy.lock' };

  test('broken while held: the holder’s confirm fails (no pruning then) and its release leaves the new holder’s lock', async () => {
    const port = memoryPort();
    const t0 = new Date('2026-05-01T10:00:00Z');
    const first = await acquireLock(port, { ...base, holder: 'first', clock: fakeClock(t0) });
    await expect(first.confirm()).resolves.toBeUndefined();
    const late = new Date(t0.getTime() + LOCK_STALE_AFTER_MS);
    const second = await acquireLock(port, { ...base, holder: 'second', clock: fakeClock(late), breakStale: true });
    expect(second.broke).toMatch(/^first, a deploy of auth-remote, since 2026-05-01T10:00:00.000Z \(30 minutes ago\)$/);
    await expect(first.confirm()).rejects.toThrow(
      /^the lock s3:\/\/b\/_releases\/deploy\.lock was broken while this ran and is now held by second, a deploy of auth-remote/,
    );
    expect(await first.release()).toBe("the lock s3://b/_releases/deploy.lock was broken while this ran; the new holder's lock is left in place.");
    expect(JSON.parse(port.object!.text)).toMatchObject({ holder: 'second' });
    expect(await second.release()).toBeUndefined();
    expect(port.object).toBeUndefined();
  });

  test('a release that stalls between its read and its delete leaves the lock a deploy took meanwhile: the delete is on the ETag it read', async () => {
    const port = memoryPort();
    const t0 = new Date('2026-05-01T10:00:00Z');
    const first = await acquireLock(port, { ...base, holder: 'first', clock: fakeClock(t0) });
    const remove = port.remove.bind(port);
    // The stall: after release() read the lock as its own, 30 minutes pass and another deploy breaks it.
    port.remove = async (key, etag) => {
      await acquireLock(port, { ...base, holder: 'second', clock: fakeClock(new Date(t0.getTime() + LOCK_STALE_AFTER_MS)), breakStale: true });
      return remove(key, etag);
    };
    expect(await first.release()).toBe("the lock s3://b/_releases/deploy.lock was broken while this ran; the new holder's lock is left in place.");
    expect(JSON.parse(port.object!.text)).toMatchObject({ holder: 'second' });
  });

  test('an unreadable lock object is still a lock', async () => {
    const port = memoryPort();
    port.object = { text: 'not json', etag: 'x' };
    await expect(acquireLock(port, { ...base, holder: 'me' })).rejects.toThrow(
      /holds the lock s3:\/\/b\/_releases\/deploy\.lock: an unreadable lock, written /,
    );
  });

  test('held for the whole deploy: renewed every 5 minutes, and stale only 30 minutes after the last renewal', async () => {
    const port = memoryPort();
    const t0 = new Date('2026-05-01T10:00:00Z');
    const clock = fakeClock(t0);
    const held = await acquireLock(port, { ...base, holder: 'slow', clock });
    held.keepRenewing();
    await clock.advance(25 * 60_000);
    expect(JSON.parse(port.object!.text)).toMatchObject({ holder: 'slow', acquiredAt: '2026-05-01T10:00:00.000Z', renewedAt: '2026-05-01T10:25:00.000Z' });
    // 31 minutes after it was taken, 6 after its last renewal: not stale.
    const early = fakeClock(new Date(t0.getTime() + 31 * 60_000));
    await expect(acquireLock(port, { ...base, holder: 'eager', clock: early, breakStale: true })).rejects.toThrow(
      /held by slow, a deploy of auth-remote, since 2026-05-01T10:00:00\.000Z \(31 minutes ago\), last renewed 6 minutes ago: not stale yet/,
    );
    // Its process stops (no more renewals); 30 minutes after the last one the lock may be broken.
    const late = fakeClock(new Date(t0.getTime() + (25 + 30) * 60_000));
    const breaker = await acquireLock(port, { ...base, holder: 'breaker', clock: late, breakStale: true });
    expect(breaker.broke).toMatch(/^slow, .* last renewed 30 minutes ago$/);
    // The slow deploy's next renewal finds the lock taken: every later check fails at once.
    await clock.advance(LOCK_RENEW_EVERY_MS);
    const reads = port.reads;
    await expect(held.check()).rejects.toThrow(/was broken while this ran and is now held by breaker/);
    await expect(held.renew()).rejects.toThrow(LockError);
    expect(port.reads).toBe(reads);
    expect(JSON.parse(port.object!.text)).toMatchObject({ holder: 'breaker' });
    expect(await held.release()).toMatch(/was broken while this ran; the new holder's lock is left in place/);
    expect(clock.timers()).toBe(0);
  });

  test('before an entry file’s write: renewed when the last renewal is a minute old, else only read; renewals one at a time', async () => {
    const port = memoryPort();
    const clock = fakeClock(new Date('2026-05-01T10:00:00Z'));
    const held = await acquireLock(port, { ...base, holder: 'me', clock });
    const writes = () => port.writes;
    const before = writes();
    await clock.advance(LOCK_FRESH_MS - 1000);
    await held.check();
    expect(writes()).toBe(before);
    await clock.advance(1000);
    await held.check();
    expect(writes()).toBe(before + 1);
    expect(JSON.parse(port.object!.text).renewedAt).toBe('2026-05-01T10:01:00.000Z');
    // Three renewals at once: each reads the lock it last wrote, so none mistakes another for a thief.
    await Promise.all([held.renew(), held.renew(), held.renew()]);
    expect(writes()).toBe(before + 4);
    expect(await held.release()).toBeUndefined();
  });

  test('a release that meets S3’s 409 (a deploy trying to take the lock just then) deletes it on a later attempt, not leaving it behind', async () => {
    const port = memoryPort();
    const lock = await acquireLock(port, { ...base, holder: 'me', retryDelayMs: 0 });
    const remove = port.remove.bind(port);
    let conflicts = 2;
    port.remove = async (key, etag) => (conflicts-- > 0 ? 'conflict' : remove(key, etag));
    expect(await lock.release()).toBeUndefined();
    expect(port.object).toBeUndefined();
    // Only ever 409: the release gives up after its attempts and says what to do.
    const again = await acquireLock(port, { ...base, holder: 'me', retryDelayMs: 0 });
    port.remove = async () => 'conflict';
    expect(await again.release()).toMatch(/could not be deleted: other deploys kept trying to take it\. Delete it, or break it with --break-lock/);
  });

  test('S3’s 409 (another write of the lock under way) is retried, then the lock is taken', async () => {
    const port = memoryPort();
    const create = port.create.bind(port);
    let conflicts = 2;
    port.create = async (key, body) => (conflicts-- > 0 ? 'conflict' : create(key, body));
    const lock = await acquireLock(port, { ...base, holder: 'me', retryDelayMs: 1 });
    expect(lock.info.holder).toBe('me');
  });
});

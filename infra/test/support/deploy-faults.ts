/**
 * Faults for the deploy tests, injected where a deploy meets the world: the bucket's adapter
 * (src/deploy/aws.ts BucketStore, through DeployOptions.wrapStore) and the lock's clock
 * (src/deploy/lock.ts LockClock). No real waits: a stopped deploy fails its next write at once, a
 * paused one waits on a promise the test resolves, and time moves only when the test says so.
 */
import type { BucketStore } from '../../src/deploy/aws';
import type { LockClock } from '../../src/deploy/lock';

/** The keys written through a wrapped store, in the order their writes were let through. */
export interface WriteLog {
  landed: string[];
}

/**
 * A store whose first `n` writes (PUTs) go through and every later one fails without writing, as
 * a deploy killed after its n-th write leaves the bucket (the lock and the reads are untouched).
 */
export function stopAfter(n: number, log: WriteLog = { landed: [] }): (store: BucketStore) => BucketStore {
  return (store) => ({
    ...store,
    async put(key, body, headers, condition) {
      if (log.landed.length >= n) throw new Error(`the deploy was stopped after write ${n}`);
      log.landed.push(key);
      await store.put(key, body, headers, condition);
    },
  });
}

/**
 * A store that pauses its deploy after its n-th write: that write lands, then neither it nor any
 * later write returns or starts until `resume()`. `paused` resolves once the n-th write landed.
 */
export function pauseAfter(n: number): { wrap: (store: BucketStore) => BucketStore; paused: Promise<void>; resume(): void; log: WriteLog } {
  const log: WriteLog = { landed: [] };
  let resume!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((resolve) => (resume = resolve));
  const paused = new Promise<void>((resolve) => (reached = resolve));
  let started = 0;
  return {
    log,
    paused,
    resume: () => resume(),
    wrap: (store) => ({
      ...store,
      async put(key, body, headers, condition) {
        const index = ++started;
        if (index > n) await gate;
        await store.put(key, body, headers, condition);
        log.landed.push(key);
        if (index === n) {
          reached();
          await gate;
        }
      },
    }),
  };
}

/** A clock that moves only when told: `advance` fires each due timer in time order. */
export function fakeClock(start: Date): LockClock & { advance(ms: number): Promise<void>; timers(): number } {
  let now = start.getTime();
  const timers = new Set<{ ms: number; tick: () => void; next: number }>();
  // Lets the promises a tick started settle (the memory ports answer in microtasks).
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => new Date(now),
    every(ms, tick) {
      const timer = { ms, tick, next: now + ms };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        due.tick();
        await settle();
      }
      now = end;
      await settle();
    },
    timers: () => timers.size,
  };
}

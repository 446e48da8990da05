/**
 * The shared uplink's pacing on jest's fake clock: how long senders take to push their bytes
 * through one `SharedLink`, in emulated milliseconds (no sockets, no real waiting).
 */
import { burstFor, bytesPerSecond, PIECE_BYTES } from '../src/link';
import { SharedLink } from '../src/link-proxy';
import { fakeLinkClock } from './support/link-clock';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const MBIT = 8;
const rate = bytesPerSecond(MBIT); // 1,000,000 bytes/s: 1,000 bytes per ms
const BYTES = 1_000_000;
/** One piece's time on the link, in ms. */
const pieceMs = (PIECE_BYTES / rate) * 1000;

/** Sends `bytes` through the link a piece at a time, as the proxy does; resolves with when it ended (ms). */
async function send(link: SharedLink, bytes: number): Promise<number> {
  for (let at = 0; at < bytes; at += PIECE_BYTES) await link.transmit(Math.min(PIECE_BYTES, bytes - at));
  return jest.now();
}

/** Runs the senders on the fake clock until all are done; their end times (ms from the start). */
async function race(senders: Promise<number>[]): Promise<number[]> {
  const start = jest.now();
  await jest.runAllTimersAsync();
  return (await Promise.all(senders)).map((end) => end - start);
}

it('gives one sender alone the whole link (after the small burst an idle link banks)', async () => {
  const link = new SharedLink({ mbit: MBIT, rttMs: 0 }, fakeLinkClock);
  const [alone] = await race([send(link, BYTES)]);
  const expected = ((BYTES - burstFor(rate)) / rate) * 1000; // 967 ms
  expect(alone).toBeGreaterThanOrEqual(expected - 1);
  expect(alone).toBeLessThanOrEqual(expected + 1);
  expect(link.sent).toBe(BYTES);
});

it('shares the link: two senders each take twice as long, and finish within a piece of each other', async () => {
  const link = new SharedLink({ mbit: MBIT, rttMs: 0 }, fakeLinkClock);
  const [a, b] = await race([send(link, BYTES), send(link, BYTES)]);
  const both = ((2 * BYTES - burstFor(rate)) / rate) * 1000; // 1,967 ms: the link full all along
  for (const end of [a!, b!]) {
    expect(end).toBeGreaterThanOrEqual(both - pieceMs - 1);
    expect(end).toBeLessThanOrEqual(both + 1);
  }
  expect(link.sent).toBe(2 * BYTES);
});

it('a faster link carries the same bytes in proportionally less time', async () => {
  const slow = new SharedLink({ mbit: MBIT, rttMs: 0 }, fakeLinkClock);
  const fast = new SharedLink({ mbit: 4 * MBIT, rttMs: 0 }, fakeLinkClock);
  const [slowEnd, fastEnd] = await race([send(slow, BYTES), send(fast, BYTES)]);
  const fastRate = bytesPerSecond(4 * MBIT);
  expect(fastEnd).toBeGreaterThanOrEqual(((BYTES - burstFor(fastRate)) / fastRate) * 1000 - 1);
  expect(fastEnd).toBeLessThanOrEqual(((BYTES - burstFor(fastRate)) / fastRate) * 1000 + 1);
  expect(slowEnd! / fastEnd!).toBeGreaterThan(3.9);
});

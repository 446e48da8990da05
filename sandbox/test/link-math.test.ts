/** The link emulator's pure parts: the spec parser, the shared token bucket, delivery times. */
import { parseArgs } from '../src/cli';
import { burstFor, bytesPerSecond, deliveryTime, parseLink, PIECE_BYTES, TokenBucket } from '../src/link';

describe('parseLink', () => {
  it('reads <mbit>[:<rttMs>]', () => {
    expect(parseLink('20:80')).toEqual({ link: { mbit: 20, rttMs: 80 } });
    expect(parseLink(' 2.5 : 40 ')).toEqual({ link: { mbit: 2.5, rttMs: 40 } });
    expect(parseLink('100')).toEqual({ link: { mbit: 100, rttMs: 0 } });
    expect(parseLink('20mbit:80ms')).toEqual({ link: { mbit: 20, rttMs: 80 } });
  });
  it('reads off', () => {
    for (const off of ['', 'off', 'OFF', '0', 'none']) expect(parseLink(off)).toEqual({ link: null });
  });
  it('explains bad specs', () => {
    expect(parseLink('fast')).toEqual({ error: expect.stringMatching(/expected <mbit>\[:<rttMs>\]/) });
    expect(parseLink('0:80')).toEqual({ error: expect.stringMatching(/bandwidth/) });
    expect(parseLink('20:99999')).toEqual({ error: expect.stringMatching(/round-trip/) });
    expect(parseLink('20:-5')).toEqual({ error: expect.stringMatching(/expected/) });
  });
  it('is what --link takes', () => {
    expect(parseArgs(['--link', '20:80'])).toMatchObject({ link: '20:80' });
    expect(parseArgs(['--link=off'])).toMatchObject({ link: 'off' });
    expect(parseArgs(['--link', 'fast'])).toMatch(/bad link/);
    expect(parseArgs(['--link'])).toMatch(/--link needs/);
  });
});

describe('TokenBucket (one queue for every connection)', () => {
  const rate = bytesPerSecond(8); // 1,000,000 bytes/s: 1 byte per µs, 1000 bytes per ms
  it('converts megabits to bytes per second', () => {
    expect(rate).toBe(1_000_000);
    expect(bytesPerSecond(20)).toBe(2_500_000);
  });
  it('lets a burst through at once, then queues at the link rate', () => {
    const b = new TokenBucket(rate, 10_000, 0);
    expect(b.reserve(10_000, 0)).toBe(0);
    expect(b.reserve(5_000, 0)).toBeCloseTo(5, 6); // 5,000 bytes behind an empty bucket: 5 ms
    expect(b.reserve(5_000, 0)).toBeCloseTo(10, 6); // queued behind the previous reservation
    expect(b.available(10)).toBeCloseTo(0, 6); // both have crossed by t = 10 ms
  });
  it('serves reservations from several senders in call order, sharing the rate', () => {
    const b = new TokenBucket(rate, 0, 0);
    // Two senders alternate one piece at a time: each sees its pieces cleared every 2 pieces' time.
    const waits = [b.reserve(PIECE_BYTES, 0), b.reserve(PIECE_BYTES, 0), b.reserve(PIECE_BYTES, 0), b.reserve(PIECE_BYTES, 0)];
    const piece = (PIECE_BYTES / rate) * 1000;
    expect(waits.map((w) => w / piece)).toEqual([1, 2, 3, 4].map((n) => expect.closeTo(n, 6)));
  });
  it('does not bank more than the burst while idle', () => {
    const b = new TokenBucket(rate, 2_000, 0);
    expect(b.available(60_000)).toBe(2_000);
    expect(b.reserve(3_000, 60_000)).toBeCloseTo(1, 6);
  });
  it('carries a sustained sender at exactly the link rate over time', () => {
    const b = new TokenBucket(rate, burstFor(rate), 0);
    let now = 0;
    let sent = 0;
    // A sender that waits what it is told (plus 1 ms of timer lateness each time) still gets the whole rate.
    while (now < 10_000) {
      const wait = b.reserve(PIECE_BYTES, now);
      sent += PIECE_BYTES;
      now += wait + 1;
    }
    const share = sent / ((rate * now) / 1000);
    expect(share).toBeGreaterThan(0.95);
    expect(share).toBeLessThan(1.05);
  });
  it('refuses a non-positive rate', () => {
    expect(() => new TokenBucket(0, 0, 0)).toThrow();
  });
});

describe('deliveryTime', () => {
  it('adds half the round trip each way, and one round trip for a new connection', () => {
    expect(deliveryTime(1000, 80)).toBe(1040);
    expect(deliveryTime(1000, 80, 990)).toBe(1110); // handshake (990 + 80) + 40
    expect(deliveryTime(2000, 80, 990)).toBe(2040);
    expect(deliveryTime(1000, 0, 1000)).toBe(1000);
  });
});

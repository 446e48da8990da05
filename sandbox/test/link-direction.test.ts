/**
 * How the proxy applies a profile (link-direction.ts: what link-proxy.ts runs for each connection
 * and direction), on jest's fake clock: the shared rate follows the timeline, the delay follows
 * its RTT, an outage holds both directions (and the connection stays usable after it), a loss
 * burst stalls the flow for a retransmission timeout, and a long outage costs its backoff.
 */
import { PIECE_BYTES } from '../src/link';
import { createLinkDirection, SharedLink } from '../src/link-direction';
import type { LinkDirection } from '../src/link-direction';
import { linkTimeline, timelineOf } from '../src/link-profile';
import type { LinkSegment, LinkTimeline } from '../src/link-profile';
import { fakeLinkClock } from './support/link-clock';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const base = { mbit: 8, downMbit: 100, rttMs: 0, loss: 0, down: false, queueBytes: 100_000 };
const made = (...steps: Partial<Omit<LinkSegment, 'endMs'>>[]): LinkTimeline =>
  timelineOf(
    { mbit: 8, rttMs: 0 },
    steps.map((s) => ({ ...base, startMs: 0, ...s })),
  );

/** A direction whose deliveries are recorded: when (link time) and how many bytes. */
function recorded(link: SharedLink, opts: { shaped: boolean; handshakeAt?: number }) {
  const arrivals: { at: number; bytes: number }[] = [];
  let finishedAt: number | undefined;
  const direction: LinkDirection = createLinkDirection(link, opts, {
    deliver: (chunk) => arrivals.push({ at: link.elapsed(), bytes: chunk.length }),
    finished: () => (finishedAt = link.elapsed()),
    released: () => undefined,
  });
  const deliveredBy = (t: number) => arrivals.filter((a) => a.at <= t).reduce((n, a) => n + a.bytes, 0);
  return { direction, arrivals, deliveredBy, finished: () => finishedAt };
}

/** Runs the fake clock to link time `t`. */
async function runTo(link: SharedLink, t: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(Math.max(0, t - link.elapsed()));
}

it('follows the timeline’s rate, carrying nothing while the link is down', async () => {
  // 8 Mbit/s (1,000 bytes/ms) for 1 s, 2 Mbit/s for 1 s, down for 1 s, 8 Mbit/s again.
  const timeline = made({ startMs: 0, mbit: 8 }, { startMs: 1_000, mbit: 2 }, { startMs: 2_000, down: true }, { startMs: 3_000, mbit: 8 });
  const link = new SharedLink({ mbit: 8, rttMs: 0 }, fakeLinkClock, timeline);
  const up = recorded(link, { shaped: true });
  up.direction.push(Buffer.alloc(2_000_000));
  await runTo(link, 999);
  // What 1 s at 8 Mbit/s carries, give or take the burst and the piece in flight.
  expect(up.deliveredBy(999)).toBeGreaterThan(1_000_000 - 2 * PIECE_BYTES);
  expect(up.deliveredBy(999)).toBeLessThanOrEqual(1_000_000 + 2 * PIECE_BYTES);
  await runTo(link, 1_999);
  expect(up.deliveredBy(1_999) - up.deliveredBy(999)).toBeGreaterThan(250_000 - 2 * PIECE_BYTES);
  expect(up.deliveredBy(1_999) - up.deliveredBy(999)).toBeLessThan(250_000 + 2 * PIECE_BYTES);
  const beforeOutage = up.deliveredBy(2_000);
  await runTo(link, 2_999);
  expect(up.deliveredBy(2_999)).toBe(beforeOutage);
  await runTo(link, 10_000);
  expect(up.deliveredBy(10_000)).toBe(2_000_000);
  // The rest (750 KB, 750 ms at 8 Mbit/s) after the flow's retry: its RTO is 200 ms (an RTT of 0
  // plus Linux's floor), so it retries 200, 600 and 1,400 ms after the outage began, at 3,400 ms
  // (less what went without waiting: the bursts the idle link banked at the start and while the
  // flow waited, two pieces each, and the piece that waited through the outage).
  const end = up.arrivals.at(-1)!.at;
  expect(end).toBeGreaterThanOrEqual(3_400 + 750 - (5 * PIECE_BYTES) / 1_000 - 1);
  expect(end).toBeLessThanOrEqual(3_400 + 750 + 1);
  expect(up.arrivals.filter((a) => a.at > 2_000 && a.at < 3_400)).toEqual([]);
});

it('delays by half the RTT of the moment, in order', async () => {
  const timeline = made({ startMs: 0, rttMs: 100 }, { startMs: 1_000, rttMs: 400 });
  const link = new SharedLink({ mbit: 8, rttMs: 100 }, fakeLinkClock, timeline);
  const down = recorded(link, { shaped: false });
  down.direction.push(Buffer.alloc(100));
  await runTo(link, 1_500);
  down.direction.push(Buffer.alloc(100));
  await runTo(link, 3_000);
  expect(down.arrivals.map((a) => a.at)).toEqual([50, 1_700]);
});

it('holds both directions through an outage; the connection goes on after it', async () => {
  // RTT 40 ms; down from 1,000 to 1,100 ms.
  const timeline = made({ startMs: 0, rttMs: 40 }, { startMs: 1_000, rttMs: 40, down: true }, { startMs: 1_100, rttMs: 40 });
  const link = new SharedLink({ mbit: 8, rttMs: 40 }, fakeLinkClock, timeline);
  const up = recorded(link, { shaped: true });
  const down = recorded(link, { shaped: false });
  await runTo(link, 1_010);
  up.direction.push(Buffer.alloc(1_000));
  down.direction.push(Buffer.alloc(1_000));
  await runTo(link, 1_099);
  expect(up.deliveredBy(1_099)).toBe(0);
  expect(down.deliveredBy(1_099)).toBe(0);
  await runTo(link, 2_000);
  // The response was only waiting for the link: out as it is back. The upload's flow resumes at
  // its retransmission 240 ms (RTT + 200 ms) after the outage began, then half an RTT to arrive.
  expect(down.arrivals).toEqual([{ at: 1_100, bytes: 1_000 }]);
  expect(up.arrivals).toEqual([{ at: 1_260, bytes: 1_000 }]);
  // And the same connection carries on afterwards.
  up.direction.push(Buffer.alloc(1_000));
  up.direction.end();
  await runTo(link, 3_000);
  expect(up.arrivals.at(-1)).toEqual({ at: 2_020, bytes: 1_000 });
  expect(up.finished()).toBe(2_020);
});

it('stalls a flow for a retransmission timeout in a loss burst', async () => {
  // 100 % loss for 300 ms (a handover's burst, made certain), RTT 40 ms: the piece, its fast
  // retransmission at 40 ms and the RTO at 240 ms are lost; the backoff at 720 ms gets through.
  const timeline = made({ startMs: 0, rttMs: 40, loss: 1 }, { startMs: 300, rttMs: 40 });
  const link = new SharedLink({ mbit: 8, rttMs: 40 }, fakeLinkClock, timeline);
  const up = recorded(link, { shaped: true });
  up.direction.push(Buffer.alloc(1_000));
  await runTo(link, 2_000);
  expect(up.arrivals).toEqual([{ at: 740, bytes: 1_000 }]);
  expect(link.stalls).toBe(1);
});

it('after a 60 s hole, a flow that was sending resumes only at its backed-off retry (~102 s)', async () => {
  const timeline = made({ startMs: 0 }, { startMs: 1_000, down: true }, { startMs: 61_000 });
  const link = new SharedLink({ mbit: 8, rttMs: 0 }, fakeLinkClock, timeline);
  const up = recorded(link, { shaped: true });
  up.direction.push(Buffer.alloc(3_000_000));
  await runTo(link, 100_000);
  const during = up.deliveredBy(100_000);
  // Nothing between the hole's start and the retry at 1,000 + 102,200 ms.
  expect(up.arrivals.filter((a) => a.at > 1_000 && a.at < 103_200)).toEqual([]);
  await runTo(link, 120_000);
  expect(up.deliveredBy(120_000)).toBe(3_000_000);
  expect(up.arrivals.find((a) => a.at > 1_000)!.at).toBeCloseTo(103_200, 0);
  expect(during).toBeLessThan(3_000_000);
});

it('waits for the handshake before the first byte', async () => {
  const link = new SharedLink({ mbit: 8, rttMs: 100 }, fakeLinkClock, made({ rttMs: 100 }));
  const handshakeAt = link.handshakeDone();
  expect(handshakeAt).toBe(100);
  const up = recorded(link, { shaped: true, handshakeAt });
  up.direction.push(Buffer.alloc(10));
  await runTo(link, 1_000);
  expect(up.arrivals).toEqual([{ at: 150, bytes: 10 }]);
});

it('through starlink itself: no byte crosses in an obstruction outage, the link is busy around it', async () => {
  const timeline = linkTimeline({ profile: 'starlink', seed: 1 });
  const link = new SharedLink({ profile: 'starlink', seed: 1 }, fakeLinkClock);
  const up = recorded(link, { shaped: true });
  // Four senders (as the uploader's connections) with more than the first 4 minutes can carry.
  const senders = [up, recorded(link, { shaped: true }), recorded(link, { shaped: true }), recorded(link, { shaped: true })];
  for (const s of senders) s.direction.push(Buffer.alloc(200_000_000));
  await runTo(link, 240_000);
  const outage = timeline.outageDuring(0, 240_000)!;
  for (const s of senders) expect(s.arrivals.filter((a) => a.at > outage.startMs + 30 && a.at < outage.endMs)).toEqual([]);
  const carried = senders.reduce((n, s) => n + s.deliveredBy(240_000), 0);
  // Loss bursts and retries cost some (each sender is held in turn), never more than the link carries.
  expect(carried).toBeLessThanOrEqual(timeline.capacityBytes(0, 240_000) + 4 * PIECE_BYTES);
  expect(carried).toBeGreaterThan(0.8 * timeline.capacityBytes(0, 240_000));
  for (const s of senders) s.direction.stop();
});

/**
 * What loss and outages do to a TCP flow, as the proxy emulates them (link-flow.ts): Linux's
 * retransmission timers over hand-made timelines (link-profile.ts timelineOf). Randomness is a
 * sequence given by the test; losses of 0 and 1 make the outcome certain.
 */
import { arrivalTime, handshakeDoneAt, lossRecoveredAt, outageRecoveredAt, retransmittedAt, rtoFor, RTO_MAX_MS } from '../src/link-flow';
import { timelineOf } from '../src/link-profile';
import type { LinkSegment } from '../src/link-profile';

const base = { mbit: 8, downMbit: 100, rttMs: 40, loss: 0, down: false, queueBytes: 100_000 };
type Step = Omit<LinkSegment, 'endMs'>;
const made = (...steps: Partial<Step>[]) =>
  timelineOf(
    { mbit: 8, rttMs: 40 },
    steps.map((s) => ({ ...base, startMs: 0, ...s })),
  );
/** Draws that always lose where loss > 0 (each draw is below any positive probability)… */
const alwaysLost = () => 0;
/** …and never lose unless the loss is certain. */
const neverLost = () => 0.999_999;

describe('rtoFor', () => {
  it('is the round trip plus Linux’s 200 ms floor, capped at 120 s', () => {
    expect(rtoFor(45)).toBe(245);
    expect(rtoFor(680)).toBe(880);
    expect(rtoFor(500_000)).toBe(RTO_MAX_MS);
  });
});

describe('retransmittedAt', () => {
  it('after a 60 s hole, backs off from 200 ms to the retry at 102.2 s', () => {
    const hole = made({ startMs: 0, down: true }, { startMs: 60_000 });
    expect(retransmittedAt(0, 200, hole, neverLost)).toBeCloseTo(102_200, 6);
  });
  it('gets through at the first retry when the link is back by then', () => {
    const blip = made({ startMs: 0, down: true }, { startMs: 150 });
    expect(retransmittedAt(0, 245, blip, neverLost)).toBe(245);
  });
  it('caps each interval at 120 s', () => {
    const long = made({ startMs: 0, down: true }, { startMs: 400_000 });
    // 200 ms doubling passes 120 s after 10 doublings (204.8 s > 120 s), then steps of 120 s.
    const at = retransmittedAt(0, 200, long, neverLost);
    expect(at).toBeGreaterThanOrEqual(400_000);
    expect(at - 400_000).toBeLessThan(RTO_MAX_MS);
  });
});

describe('lossRecoveredAt', () => {
  it('goes on at once where nothing is lost', () => {
    expect(lossRecoveredAt(1_000, 16_384, made({}), alwaysLost)).toBe(1_000);
    expect(lossRecoveredAt(1_000, 16_384, made({ loss: 0.01 }), neverLost)).toBe(1_000);
  });
  it('costs one round trip when the fast retransmission gets through', () => {
    const once = made({ startMs: 0, loss: 1 }, { startMs: 10 });
    expect(lossRecoveredAt(0, 16_384, once, neverLost)).toBe(40);
  });
  it('waits out a loss burst on the retransmission timeout and its backoffs', () => {
    // 100 % loss for 300 ms (as a handover's burst, made certain): the fast retransmission at 40 ms
    // and the RTO at 240 ms are lost, the backed-off one at 240 + 480 = 720 ms gets through.
    const burst = made({ startMs: 0, loss: 1 }, { startMs: 300 });
    expect(lossRecoveredAt(0, 16_384, burst, alwaysLost)).toBe(720);
  });
});

describe('outageRecoveredAt', () => {
  const outage = made({ startMs: 0 }, { startMs: 1_000, down: true }, { startMs: 1_100 });
  it('resumes a flow that waited through an outage at its first retry after it', () => {
    // Down 1,000–1,100 ms, RTO 240 ms from the outage's start: the retry at 1,240 ms.
    expect(outageRecoveredAt(900, 1_100, outage, neverLost)).toBe(1_240);
    expect(outageRecoveredAt(1_050, 1_100, outage, neverLost)).toBe(1_240);
  });
  it('leaves a flow alone when no outage came', () => {
    expect(outageRecoveredAt(100, 900, outage, alwaysLost)).toBe(900);
  });
});

describe('handshakeDoneAt', () => {
  it('takes one round trip', () => {
    expect(handshakeDoneAt(500, made({}), alwaysLost)).toBe(540);
  });
  it('retries a SYN sent into an outage after 1, 2, 3 s', () => {
    const down = made({ startMs: 0, down: true }, { startMs: 2_500 });
    expect(handshakeDoneAt(0, down, neverLost)).toBe(3_040);
  });
});

describe('arrivalTime', () => {
  const rtts = made({ startMs: 0, rttMs: 100 }, { startMs: 1_000, rttMs: 400 }, { startMs: 2_000, down: true }, { startMs: 2_500, rttMs: 400 });
  it('adds half the round trip of the moment', () => {
    expect(arrivalTime(0, rtts)).toBe(50);
    expect(arrivalTime(1_500, rtts)).toBe(1_700);
  });
  it('keeps order, waits for the handshake, and holds data while the link is down', () => {
    expect(arrivalTime(990, rtts, { after: 1_200 })).toBe(1_200);
    expect(arrivalTime(0, rtts, { handshakeAt: 100 })).toBe(150);
    expect(arrivalTime(1_900, rtts)).toBe(2_500);
  });
});

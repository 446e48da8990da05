/**
 * What packet loss and outages do to a TCP flow, seen from the application — which is all a TCP
 * proxy (link-proxy.ts) can emulate: it terminates TCP on each side, so it cannot drop a packet;
 * it can only hold a connection's data for as long as the lost packet would have held the flow.
 * Pure (time is the timeline's: ms since the link started; randomness is passed in), so each rule
 * is unit-tested; why this is close enough is sandbox/README.md#loss-and-outages-in-the-proxy.
 *
 * The timers are Linux's, the TCP of a member's router and of the browser's machine:
 * - an RTO of the round trip plus 200 ms (srtt + max(4·rttvar, TCP_RTO_MIN = 200 ms) on a steady
 *   path), doubling on each unanswered retransmission, capped at TCP_RTO_MAX = 120 s;
 * - a SYN retried after 1 s, four times linearly (tcp_syn_linear_timeouts, Linux 6.5+), then doubling.
 */
import type { LinkTimeline } from './link-profile';

export const RTO_MIN_MS = 200;
export const RTO_MAX_MS = 120_000;
/** A TCP segment's payload on a 1500-byte MTU (with timestamps). */
export const SEGMENT_BYTES = 1448;
/** When a SYN is (re)sent, ms after connect(): 1 s linear four times, then doubling. */
export const SYN_SCHEDULE_MS = [0, 1_000, 2_000, 3_000, 4_000, 5_000, 7_000, 11_000, 19_000, 35_000, 67_000, 131_000];

/** The retransmission timeout of a flow on a path of `rttMs`. */
export function rtoFor(rttMs: number): number {
  return Math.min(RTO_MAX_MS, rttMs + RTO_MIN_MS);
}

/** Whether one packet is lost where the loss probability is `p` (no draw when it cannot be). */
function lost(p: number, random: () => number): boolean {
  return p > 0 && random() < p;
}

/**
 * When a packet lost at `lostAt` finally gets through: retransmitted after `rtoMs`, then after
 * twice as long each time (capped at RTO_MAX_MS), each try failing while the link is down or to
 * the loss of its moment. After an outage this is when the flow resumes: a flow silent through a
 * 60 s hole at RTO 200 ms retries at 0.2, 0.6, 1.4, … 51, 102.2 s, so it resumes at 102 s.
 */
export function retransmittedAt(lostAt: number, rtoMs: number, timeline: LinkTimeline, random: () => number): number {
  let interval = rtoMs;
  let t = lostAt + interval;
  for (let tries = 0; tries < 64; tries++) {
    const seg = timeline.segmentAt(t);
    if (!seg.down && !lost(seg.loss, random)) return t;
    interval = Math.min(2 * interval, RTO_MAX_MS);
    t += interval;
  }
  return t;
}

/**
 * When a flow can go on after sending `bytes` at `sentAt`: at once (`sentAt`) unless one of its
 * packets is lost; then one round trip later if the fast retransmission (three duplicate ACKs
 * from the packets behind it) gets through, else at its retransmission timeout and its backoffs —
 * what a loss burst does (50 % for 300 ms at a Starlink handover: the retransmission is likely
 * lost too, and the flow waits an RTO).
 */
export function lossRecoveredAt(sentAt: number, bytes: number, timeline: LinkTimeline, random: () => number): number {
  const seg = timeline.segmentAt(sentAt);
  if (seg.loss <= 0) return sentAt;
  const packets = Math.max(1, Math.ceil(bytes / SEGMENT_BYTES));
  if (!lost(1 - (1 - seg.loss) ** packets, random)) return sentAt;
  const fast = sentAt + seg.rttMs;
  const fastSeg = timeline.segmentAt(fast);
  if (!fastSeg.down && !lost(fastSeg.loss, random)) return fast;
  return retransmittedAt(sentAt, rtoFor(seg.rttMs), timeline, random);
}

/**
 * When a flow with data waiting over [from, to] goes on: if the link was down meanwhile, the data
 * it had in flight when the outage began was lost, and the flow resumes at its first backed-off
 * retransmission after the link is up again; else at `to`.
 */
export function outageRecoveredAt(from: number, to: number, timeline: LinkTimeline, random: () => number): number {
  const outage = timeline.outageDuring(from, to);
  if (!outage) return to;
  const rtt = timeline.segmentAt(Math.max(0, outage.startMs - 1)).rttMs;
  return Math.max(to, retransmittedAt(outage.startMs, rtoFor(rtt), timeline, random));
}

/**
 * When a connection opened at `openedAt` is established: its SYN and the SYN-ACK take one round
 * trip; a SYN sent while the link is down, or lost, is sent again on SYN_SCHEDULE_MS.
 */
export function handshakeDoneAt(openedAt: number, timeline: LinkTimeline, random: () => number): number {
  for (const after of SYN_SCHEDULE_MS) {
    const seg = timeline.segmentAt(openedAt + after);
    if (!seg.down && !lost(seg.loss, random)) return openedAt + after + seg.rttMs;
  }
  return openedAt + SYN_SCHEDULE_MS.at(-1)! + timeline.segmentAt(openedAt).rttMs;
}

/**
 * When data that has crossed the link at `sentAt` is seen at the far end: half the round trip of
 * that moment later, never before the connection's handshake is done plus that half (`handshakeAt`),
 * never before what was sent earlier on the connection (`after`: TCP delivers in order), and never
 * while the link is down (it waits for the link to come back).
 */
export function arrivalTime(sentAt: number, timeline: LinkTimeline, opts: { handshakeAt?: number; after?: number } = {}): number {
  const oneWay = timeline.segmentAt(sentAt).rttMs / 2;
  const due = Math.max(sentAt + oneWay, opts.handshakeAt === undefined ? -Infinity : opts.handshakeAt + oneWay, opts.after ?? -Infinity);
  return timeline.nextUp(due);
}

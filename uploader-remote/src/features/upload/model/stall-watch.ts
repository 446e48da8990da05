/**
 * When an upload is given up as stalled: only when its bytes really stopped moving
 * (docs/architecture.md#uploads-that-fit-the-link). Pure: the engine passes what it saw.
 *
 * An upload's progress events tell when the browser handed its bytes to the socket, not when the
 * link carried them. The socket's buffers hold megabytes: at the end of a photo — or all of a
 * photo, when it fits — the events stop while the buffered bytes still cross the link, for as
 * long as that takes at the upload's share of it. And when the link itself goes quiet (a Starlink
 * dish obstructed, an LTE coverage hole), every upload is quiet together; the connections
 * survive, and TCP carries on once its next retransmission gets through — which after a minute's
 * hole can be another minute later. Aborting then gains nothing (the retry cannot get through
 * either) and throws away what was sent.
 *
 * So an upload quiet for at least `quietMs` is given up when either
 * - the link is moving (other uploads progress or are answered, with no gap of `ACTIVE_GAP_MS`),
 *   and while it moved the others delivered `drainFactor` times what they could have while this
 *   one's bytes drained at its fair share: TCP shares a link about evenly, so by the time n − 1
 *   others have delivered n − 1 times its buffered bytes, its own have crossed too. The link
 *   works, this connection does not. Counted from when the link last started moving again, not
 *   from when the upload went quiet: after an outage each connection resumes at its own
 *   retransmission, seconds or a minute apart; or
 * - nothing at all has moved for `silenceMs` while the browser says it is online: the connections
 *   are taken for dead (a middlebox that dropped them, a server that hung), and sent again.
 */

/** A link with no movement for this long is not "moving" (uploads' progress comes many times a second while bytes flow). */
export const ACTIVE_GAP_MS = 5_000;

export interface StallPolicy {
  /** No upload quiet for less than this is given up (`?stall=N`; 60 s by default). */
  quietMs: number;
  /** Nothing moved on the link for this long: every quiet upload is given up. */
  silenceMs: number;
  /** How many times its fair share of the link the others must deliver while an upload stays quiet. */
  drainFactor: number;
}

/** The silence bound is this many times the quiet bound: 3 min by default, past an LTE hole and TCP's backoff after it. */
export const SILENCE_FACTOR = 3;

export function stallPolicy(quietMs: number): StallPolicy {
  return { quietMs, silenceMs: SILENCE_FACTOR * quietMs, drainFactor: 4 };
}

/** One upload in flight, as the engine saw it. */
export interface FlightView {
  id: string;
  /** When its last progress came (or it started, before any). */
  quietSince: number;
  /** Bytes it has handed to the browser's socket so far. */
  written: number;
  /** The link's `delivered` when it went quiet. */
  deliveredBefore: number;
  /** The most uploads that shared the link with it (itself included) since it went quiet. */
  peers: number;
}

/**
 * When the link last moved, since when it has been moving with no gap of ACTIVE_GAP_MS, and the
 * bytes completed uploads delivered (in all, and by the time it started moving again).
 */
export class LinkActivity {
  movedAt: number;
  activeSince: number;
  delivered = 0;
  deliveredAtActive = 0;

  constructor(now: number) {
    this.movedAt = this.activeSince = now;
  }

  /** Something moved at `now`: progress of any upload, or an answer (`bytes`: a completed upload's). */
  moved(now: number, bytes = 0): void {
    if (now - this.movedAt > ACTIVE_GAP_MS) {
      this.activeSince = now;
      this.deliveredAtActive = this.delivered;
    }
    this.movedAt = Math.max(this.movedAt, now);
    this.delivered += Math.max(0, bytes);
  }

  /** After a pause: moving again from `now`. */
  restart(now: number): void {
    this.movedAt = this.activeSince = now;
    this.deliveredAtActive = this.delivered;
  }
}

/** The link as the engine saw it (LinkActivity's, at `now`). */
export type LinkView = Pick<LinkActivity, 'movedAt' | 'activeSince' | 'delivered' | 'deliveredAtActive'> & { now: number };

export interface Stalled {
  id: string;
  /** How long it had been quiet. */
  quietMs: number;
}

/** The uploads to give up now. */
export function stalledFlights(flights: readonly FlightView[], link: LinkView, policy: StallPolicy): Stalled[] {
  const stalled: Stalled[] = [];
  const silent = link.now - link.movedAt >= policy.silenceMs;
  const moving = link.now - link.movedAt <= ACTIVE_GAP_MS;
  for (const f of flights) {
    const quietMs = link.now - f.quietSince;
    if (quietMs < policy.quietMs) continue;
    const quietWhileMoving = link.now - Math.max(f.quietSince, link.activeSince);
    const othersDelivered = link.delivered - Math.max(f.deliveredBefore, link.deliveredAtActive);
    const fairShare = Math.max(1, f.peers - 1) * Math.max(1, f.written);
    const dead = moving && quietWhileMoving >= policy.quietMs && othersDelivered >= policy.drainFactor * fairShare;
    if (silent || dead) stalled.push({ id: f.id, quietMs });
  }
  return stalled;
}

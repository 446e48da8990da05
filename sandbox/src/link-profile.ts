/**
 * Link profiles: what the emulated uplink is at each moment. A profile is a deterministic (seeded)
 * timeline of segments — rate, round trip, packet loss, outage, queue depth — so a run can be
 * repeated, and both emulators (the sandbox's TCP proxy, link-proxy.ts, and the bench's packet
 * emulator, bench/netem/) show the same link: the packet emulator reads these segments as JSON
 * (`timelineJson`). Pure: no clocks or sockets, time is `t`, milliseconds since the link started.
 *
 * The figures are the published ones of the links members upload from (sandbox/README.md#link-profiles
 * says which source gives which; docs/performance.md#links--npm-run-benchlinks lists them).
 */
import { normalAt, unitAt } from './link-random';

/** A clean pipe: `mbit` megabits per second (10^6 bits) from the site to S3, and a round-trip time. */
export interface CleanLink {
  mbit: number;
  rttMs: number;
}

export const PROFILE_NAMES = ['starlink', 'geo', 'lte'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** A profiled link: a named timeline drawn from `seed`. */
export interface ProfileLink {
  profile: ProfileName;
  seed: number;
}

/** The emulated uplink: a clean pipe or a profile (tell them apart with `'profile' in link`). */
export type LinkSpec = CleanLink | ProfileLink;

/** The link during one stretch of time. */
export interface LinkSegment {
  /** From (inclusive) and to (exclusive), ms since the link started. */
  startMs: number;
  endMs: number;
  /** Uplink rate while up (Mbit/s). */
  mbit: number;
  /** Downlink rate while up (Mbit/s): responses and ACKs. */
  downMbit: number;
  rttMs: number;
  /** Probability that a packet is lost, 0–1. */
  loss: number;
  /** An outage: nothing crosses, either way. */
  down: boolean;
  /** The uplink's drop-tail queue: the bytes it holds before it drops (the modem's buffer). */
  queueBytes: number;
}

/** An outage: from its start to the moment the link is up again. */
export interface Outage {
  startMs: number;
  endMs: number;
}

/** A link over time. Every `t` is ms since the link started. */
export interface LinkTimeline {
  readonly link: LinkSpec;
  /** The segment that holds `t`. */
  segmentAt(t: number): LinkSegment;
  /** The segments over [t0, t1), cut at t0 and t1. */
  segments(t0: number, t1: number): LinkSegment[];
  /** Bytes the uplink can carry over [t0, t1] at its rate, outages counting zero. */
  capacityBytes(t0: number, t1: number): number;
  /** When `bytes` more have crossed the uplink if it starts carrying them at `t0`. */
  timeToCarry(t0: number, bytes: number): number;
  /** The first moment at or after `t` when the link is up. */
  nextUp(t: number): number;
  /** The last outage that overlaps [t0, t1], if any (it may have begun before t0). */
  outageDuring(t0: number, t1: number): Outage | undefined;
}

/** A profile's shape: fixed-length slots, each one's segments drawn from the seed and its index alone. */
interface SlotPlan {
  /** Where slot 0 starts (ms; may be before the link started). */
  offsetMs: number;
  slotMs: number;
  /** Slot k's segments, in order, covering exactly [offset + k·slot, offset + (k+1)·slot). */
  slot(k: number): LinkSegment[];
}

const bytesPerMs = (mbit: number) => (mbit * 1e6) / 8 / 1000;

/** Starlink (sandbox/README.md#link-profiles). */
export const STARLINK = {
  slotMs: 15_000,
  /** Handovers at seconds 12, 27, 42 and 57 of each minute of the link's clock. */
  firstHandoverMs: 12_000,
  medianMbit: 16.4,
  sigma: 0.35,
  minMbit: 6,
  maxMbit: 35,
  rttMinMs: 35,
  rttSpreadMs: 20,
  jumpMinMs: 30,
  jumpMaxMs: 80,
  burstMinMs: 200,
  burstMaxMs: 400,
  burstLoss: 0.5,
  loss: 0.001,
  queueMs: 150,
  downMbit: 100,
  /** One obstruction outage in every this many slots (2 minutes), of 2–7 s. */
  outageEverySlots: 8,
  outageMinMs: 2_000,
  outageMaxMs: 7_000,
} as const;

/** Geostationary satellite, HughesNet / Viasat (sandbox/README.md#link-profiles). */
export const GEO = { mbit: 2.5, rttMs: 680, loss: 0.0002, queueMs: 1_500, downMbit: 25 } as const;

/** A rural LTE hotspot (sandbox/README.md#link-profiles). */
export const LTE = {
  slotMs: 2_000,
  medianMbit: 3.45,
  sigma: 0.55,
  minMbit: 1,
  maxMbit: 8,
  rttMinMs: 45,
  rttSpreadMs: 40,
  loss: 0.001,
  queueBytes: 300_000,
  downMbit: 20,
  /** One coverage hole of 10–60 s in every window of this length (3 minutes). */
  holeWindowMs: 180_000,
  holeMinMs: 10_000,
  holeMaxMs: 60_000,
} as const;

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const between = (u: number, lo: number, hi: number) => lo + u * (hi - lo);

/** A clean link's queue: one bandwidth-delay product, at least 100 ms of its rate and 64 KiB. */
export function cleanQueueBytes(link: CleanLink): number {
  return Math.round(Math.max(64 * 1024, bytesPerMs(link.mbit) * Math.max(link.rttMs, 100)));
}

/** Cuts `base` at the outage [downFrom, downTo) (clipped to base): up, down, up pieces. */
function withOutage(base: LinkSegment[], downFrom: number, downTo: number): LinkSegment[] {
  const out: LinkSegment[] = [];
  for (const seg of base) {
    const a = Math.max(seg.startMs, downFrom);
    const b = Math.min(seg.endMs, downTo);
    if (a >= b) {
      out.push(seg);
      continue;
    }
    if (seg.startMs < a) out.push({ ...seg, endMs: a });
    out.push({ ...seg, startMs: a, endMs: b, down: true });
    if (b < seg.endMs) out.push({ ...seg, startMs: b });
  }
  return out;
}

function cleanPlan(link: CleanLink): SlotPlan {
  const slotMs = 3_600_000;
  return {
    offsetMs: 0,
    slotMs,
    slot: (k) => [
      {
        startMs: k * slotMs,
        endMs: (k + 1) * slotMs,
        mbit: link.mbit,
        downMbit: 10_000,
        rttMs: link.rttMs,
        loss: 0,
        down: false,
        queueBytes: cleanQueueBytes(link),
      },
    ],
  };
}

function geoPlan(): SlotPlan {
  const slotMs = 60_000;
  const queueBytes = Math.round(bytesPerMs(GEO.mbit) * GEO.queueMs);
  return {
    offsetMs: 0,
    slotMs,
    slot: (k) => [
      { startMs: k * slotMs, endMs: (k + 1) * slotMs, mbit: GEO.mbit, downMbit: GEO.downMbit, rttMs: GEO.rttMs, loss: GEO.loss, down: false, queueBytes },
    ],
  };
}

function starlinkPlan(seed: number): SlotPlan {
  const S = STARLINK;
  const offsetMs = S.firstHandoverMs - S.slotMs;
  const slot = (k: number): LinkSegment[] => {
    const start = offsetMs + k * S.slotMs;
    const end = start + S.slotMs;
    const mbit = clamp(S.medianMbit * Math.exp(S.sigma * normalAt(seed, 1, k)), S.minMbit, S.maxMbit);
    const rttMs = Math.round(S.rttMinMs + unitAt(seed, 2, k) * S.rttSpreadMs);
    const jump = Math.round(between(unitAt(seed, 3, k), S.jumpMinMs, S.jumpMaxMs));
    const burst = Math.round(between(unitAt(seed, 4, k), S.burstMinMs, S.burstMaxMs));
    const common = { mbit, downMbit: S.downMbit, down: false, queueBytes: Math.round(bytesPerMs(mbit) * S.queueMs) };
    const segments: LinkSegment[] = [
      { ...common, startMs: start, endMs: start + burst, rttMs: rttMs + jump, loss: S.burstLoss },
      { ...common, startMs: start + burst, endMs: end, rttMs, loss: S.loss },
    ];
    // One obstruction outage per window of slots, in a slot chosen by the seed (never the partial
    // slot before the first handover, so the first minutes meet one too), after the handover's burst.
    const window = Math.floor(k / S.outageEverySlots);
    const first = window === 0 ? 1 : 0;
    const chosen = window * S.outageEverySlots + first + Math.floor(unitAt(seed, 5, window) * (S.outageEverySlots - first));
    if (chosen !== k) return segments;
    const length = Math.round(between(unitAt(seed, 6, window), S.outageMinMs, S.outageMaxMs));
    const from = start + burst + Math.round(unitAt(seed, 7, window) * (S.slotMs - burst - length));
    return withOutage(segments, from, from + length);
  };
  return { offsetMs, slotMs: S.slotMs, slot };
}

/** Value noise: normals at every `period` slots, linearly interpolated between them. */
function smoothNoise(seed: number, salt: number, k: number, period: number): number {
  const i = Math.floor(k / period);
  const f = k / period - i;
  return (1 - f) * normalAt(seed, salt, i) + f * normalAt(seed, salt, i + 1);
}

/** Where window w's coverage hole lies [from, to), ms since the link started. */
export function lteHole(seed: number, w: number): Outage {
  const L = LTE;
  const length = Math.round(between(unitAt(seed, 12, w), L.holeMinMs, L.holeMaxMs));
  // Never in the first 20 s, when a run signs in.
  const earliest = w === 0 ? 20_000 : 0;
  const startMs = w * L.holeWindowMs + earliest + Math.round(unitAt(seed, 13, w) * (L.holeWindowMs - earliest - length));
  return { startMs, endMs: startMs + length };
}

function ltePlan(seed: number): SlotPlan {
  const L = LTE;
  const slot = (k: number): LinkSegment[] => {
    const start = k * L.slotMs;
    const end = start + L.slotMs;
    // A slow wander (a minute) and a fast one (10 s), as signal and cell load change.
    const z = 0.8 * smoothNoise(seed, 10, k, 30) + 0.6 * smoothNoise(seed, 11, k, 5);
    const mbit = clamp(L.medianMbit * Math.exp(L.sigma * z), L.minMbit, L.maxMbit);
    const rttMs = Math.round(L.rttMinMs + unitAt(seed, 14, k) * L.rttSpreadMs);
    const base: LinkSegment[] = [{ startMs: start, endMs: end, mbit, downMbit: L.downMbit, rttMs, loss: L.loss, down: false, queueBytes: L.queueBytes }];
    const hole = lteHole(seed, Math.floor(start / L.holeWindowMs));
    return withOutage(base, hole.startMs, hole.endMs);
  };
  return { offsetMs: 0, slotMs: L.slotMs, slot };
}

function planFor(link: LinkSpec): SlotPlan {
  if (!('profile' in link)) return cleanPlan(link);
  switch (link.profile) {
    case 'starlink':
      return starlinkPlan(link.seed);
    case 'geo':
      return geoPlan();
    case 'lte':
      return ltePlan(link.seed);
  }
}

/** How far forward the timeline's searches look (a link down longer than this is treated as gone). */
const SEARCH_LIMIT_MS = 24 * 3_600_000;

/** The timeline of `link`. */
export function linkTimeline(link: LinkSpec): LinkTimeline {
  return timelineFromPlan(link, planFor(link));
}

/**
 * A timeline of given segments, in order from t = 0 (the last one lasting for ever): a link made
 * by hand, for tests of what reads timelines.
 */
export function timelineOf(link: LinkSpec, segments: readonly Omit<LinkSegment, 'endMs'>[]): LinkTimeline {
  const forever = 1e12;
  const cut = segments.map((seg, i) => ({ ...seg, endMs: segments[i + 1]?.startMs ?? forever }));
  const first = cut[0]!;
  const last = cut.at(-1)!;
  return timelineFromPlan(link, {
    offsetMs: 0,
    slotMs: forever,
    slot: (k) => (k === 0 ? cut : [{ ...(k < 0 ? first : last), startMs: k * forever, endMs: (k + 1) * forever }]),
  });
}

function timelineFromPlan(link: LinkSpec, plan: SlotPlan): LinkTimeline {
  const cache = new Map<number, LinkSegment[]>();
  const slotSegments = (k: number): LinkSegment[] => {
    let segments = cache.get(k);
    if (!segments) {
      if (cache.size > 256) cache.clear();
      segments = plan.slot(k);
      cache.set(k, segments);
    }
    return segments;
  };
  const slotOf = (t: number) => Math.floor((t - plan.offsetMs) / plan.slotMs);
  /** Every segment from the one holding `t` onwards, uncut, until `until`. */
  function* from(t: number, until = t + SEARCH_LIMIT_MS): Generator<LinkSegment> {
    for (let k = slotOf(t); plan.offsetMs + k * plan.slotMs < until; k++) {
      for (const seg of slotSegments(k)) if (seg.endMs > t) yield seg;
    }
  }
  const timeline: LinkTimeline = {
    link,
    segmentAt: (t) => from(t).next().value as LinkSegment,
    segments(t0, t1) {
      const out: LinkSegment[] = [];
      for (const seg of from(t0, t1)) if (seg.startMs < t1) out.push({ ...seg, startMs: Math.max(seg.startMs, t0), endMs: Math.min(seg.endMs, t1) });
      return out;
    },
    capacityBytes(t0, t1) {
      if (!(t1 > t0)) return 0;
      let bytes = 0;
      for (const seg of timeline.segments(t0, t1)) if (!seg.down) bytes += bytesPerMs(seg.mbit) * (seg.endMs - seg.startMs);
      return bytes;
    },
    timeToCarry(t0, bytes) {
      let left = bytes;
      if (left <= 0) return t0;
      for (const seg of from(t0)) {
        if (seg.down) continue;
        const a = Math.max(seg.startMs, t0);
        const can = bytesPerMs(seg.mbit) * (seg.endMs - a);
        if (can >= left) return a + left / bytesPerMs(seg.mbit);
        left -= can;
      }
      return Infinity;
    },
    nextUp(t) {
      for (const seg of from(t)) if (!seg.down) return Math.max(t, seg.startMs);
      return Infinity;
    },
    outageDuring(t0, t1) {
      let last: LinkSegment | undefined;
      for (const seg of from(t0, t1 + 1e-6)) if (seg.down && seg.startMs <= t1) last = seg;
      if (!last) return undefined;
      // Walk back to where this outage began (it may span segments and slots).
      let startMs = last.startMs;
      for (let steps = 0; steps < 100_000; steps++) {
        const before = slotSegments(slotOf(startMs - 1e-6)).find((seg) => Math.abs(seg.endMs - startMs) < 1e-6);
        if (!before?.down) break;
        startMs = before.startMs;
      }
      return { startMs, endMs: timeline.nextUp(last.startMs) };
    },
  };
  return timeline;
}

/** What the packet emulator reads (bench/netem/): the segments over [0, horizonMs), merged where nothing changes. */
export function timelineJson(link: LinkSpec, horizonMs: number): { segments: LinkSegment[] } {
  const segments: LinkSegment[] = [];
  for (const seg of linkTimeline(link).segments(0, horizonMs)) {
    const last = segments.at(-1);
    const same =
      last &&
      last.mbit === seg.mbit &&
      last.downMbit === seg.downMbit &&
      last.rttMs === seg.rttMs &&
      last.loss === seg.loss &&
      last.down === seg.down &&
      last.queueBytes === seg.queueBytes;
    if (same) last.endMs = seg.endMs;
    else segments.push({ ...seg });
  }
  return { segments };
}

/** What a profile is, in a line (for the sandbox's banner and a bench's table). */
export function describeProfile(link: ProfileLink): string {
  switch (link.profile) {
    case 'starlink':
      return `starlink (seed ${link.seed}): ~17 Mbit/s up, a new rate each 15 s slot; ~45 ms RTT, +30–80 ms and 50 % loss for 200–400 ms at each handover (seconds 12, 27, 42, 57 of each minute); a 2–7 s obstruction outage every 2 min`;
    case 'geo':
      return `geo (seed ${link.seed}): ${GEO.mbit} Mbit/s up, ${GEO.rttMs} ms RTT, a ${GEO.queueMs / 1000} s queue, ${GEO.loss * 100} % loss`;
    case 'lte':
      return `lte (seed ${link.seed}): 1–8 Mbit/s up, wandering (mean ~3.7), 45–85 ms RTT, a 10–60 s coverage hole every 3 min`;
  }
}

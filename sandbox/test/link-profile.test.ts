/**
 * The link profiles' timelines (pure: no clock, no sockets): what `--link starlink|geo|lte` gives
 * at each moment, deterministic by seed, with the figures sandbox/README.md#link-profiles states,
 * and the capacity integral a bench divides by.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { linkLine, parseArgs } from '../src/cli';
import { formatLink, parseCleanLink, parseLink } from '../src/link';
import { cleanQueueBytes, GEO, linkTimeline, LTE, STARLINK, timelineJson, timelineOf } from '../src/link-profile';
import type { LinkSegment, LinkSpec, LinkTimeline } from '../src/link-profile';

const HOUR = 3_600_000;
const starlink = linkTimeline({ profile: 'starlink', seed: 1 });
const geo = linkTimeline({ profile: 'geo', seed: 1 });
const lte = linkTimeline({ profile: 'lte', seed: 1 });

/** The outages of a timeline over [t0, t1): merged runs of down segments. */
function outages(timeline: LinkTimeline, t0: number, t1: number): { startMs: number; endMs: number }[] {
  const runs: { startMs: number; endMs: number }[] = [];
  for (const seg of timeline.segments(t0, t1)) {
    if (!seg.down) continue;
    const last = runs.at(-1);
    if (last && last.endMs === seg.startMs) last.endMs = seg.endMs;
    else runs.push({ startMs: seg.startMs, endMs: seg.endMs });
  }
  return runs;
}

/** The mean uplink rate while up, weighted by time. */
function meanUpMbit(segments: LinkSegment[]): number {
  let ms = 0;
  let weighted = 0;
  for (const seg of segments.filter((s) => !s.down)) {
    ms += seg.endMs - seg.startMs;
    weighted += seg.mbit * (seg.endMs - seg.startMs);
  }
  return weighted / ms;
}

describe('parseLink with profiles', () => {
  it('reads a profile, with seed 1 unless one is given', () => {
    expect(parseLink('starlink')).toEqual({ link: { profile: 'starlink', seed: 1 } });
    expect(parseLink(' GEO ')).toEqual({ link: { profile: 'geo', seed: 1 } });
    expect(parseLink('lte:7')).toEqual({ link: { profile: 'lte', seed: 7 } });
  });
  it('says what is wrong with a bad one', () => {
    expect(parseLink('startlink')).toEqual({ error: expect.stringContaining('"startlink" is not a profile') });
    expect(parseLink('startlink')).toEqual({ error: expect.stringContaining('starlink, geo or lte') });
    expect(parseLink('lte:x')).toEqual({ error: 'bad link "lte:x": the seed after "lte:" must be a whole number from 0 to 4294967295' });
    expect(parseLink('lte:99999999999')).toEqual({ error: expect.stringMatching(/the seed after "lte:"/) });
  });
  it('parseCleanLink refuses a profile where a rate and an RTT are needed (a bench of its own)', () => {
    expect(parseCleanLink('20:80')).toEqual({ link: { mbit: 20, rttMs: 80 } });
    expect(parseCleanLink('off')).toEqual({ link: null });
    expect(parseCleanLink('geo')).toEqual({ error: 'bad link "geo": a clean <mbit>[:<rttMs>] link is needed here (e.g. 20:80), not the geo profile' });
  });
  it('is what --link takes, and what the banner says', () => {
    expect(parseArgs(['--link', 'starlink'])).toMatchObject({ link: 'starlink' });
    expect(parseArgs(['--link=lte:3'])).toMatchObject({ link: 'lte:3' });
    expect(parseArgs(['--link', 'satellite'])).toMatch(/bad link "satellite": "satellite" is not a profile/);
    expect(parseArgs(['--link'])).toMatch(/a profile \(starlink, geo, lte\)/);
    expect(linkLine('geo')).toBe(`S3 behind an emulated link: ${formatLink({ profile: 'geo', seed: 1 })}`);
    expect(linkLine('20:80')).toBe('S3 behind an emulated link: 20 Mbit/s, 80 ms RTT');
    expect(linkLine(undefined)).toBe('S3 on plain loopback (no link emulator)');
  });
  it('stops the sandbox command (as npm start runs it) with the message and exit code 2', () => {
    const cli = path.resolve(__dirname, '../src/cli.ts');
    const tsx = path.resolve(__dirname, '../../node_modules/tsx/dist/cli.mjs');
    const bad = spawnSync(process.execPath, [tsx, cli, '--check', '--link', 'starlnk'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('bad link "starlnk": "starlnk" is not a profile; expected <mbit>[:<rttMs>]');
    const good = spawnSync(process.execPath, [tsx, cli, '--check', '--link', 'starlink'], { encoding: 'utf8' });
    expect(good.status).toBe(0);
    expect(good.stdout).toContain('S3 behind an emulated link: starlink (seed 1)');
  });
});

describe('linkTimeline', () => {
  it('is the same for the same seed, whatever was asked first, and another for another seed', () => {
    const late = linkTimeline({ profile: 'starlink', seed: 1 }).segmentAt(40 * 60_000);
    expect(starlink.segmentAt(40 * 60_000)).toEqual(late);
    expect(linkTimeline({ profile: 'lte', seed: 1 }).segments(0, HOUR)).toEqual(lte.segments(0, HOUR));
    expect(linkTimeline({ profile: 'lte', seed: 2 }).segments(0, HOUR)).not.toEqual(lte.segments(0, HOUR));
  });

  it('keeps a clean link clean: its rate and RTT for ever, no loss, one BDP of queue (at least 64 KiB)', () => {
    const clean = linkTimeline({ mbit: 20, rttMs: 80 });
    for (const t of [0, 12_345, 5 * HOUR]) expect(clean.segmentAt(t)).toMatchObject({ mbit: 20, rttMs: 80, loss: 0, down: false });
    expect(cleanQueueBytes({ mbit: 3, rttMs: 600 })).toBe(225_000);
    expect(cleanQueueBytes({ mbit: 1, rttMs: 10 })).toBe(64 * 1024);
    expect(clean.capacityBytes(0, 10_000)).toBeCloseTo(25_000_000, 3);
  });

  it('starlink: hands over at seconds 12, 27, 42 and 57 of each minute, with a latency jump and a 50 % loss burst of 200–400 ms', () => {
    for (let k = 0; k < 40; k++) {
      const at = STARLINK.firstHandoverMs + k * STARLINK.slotMs;
      expect((at / 1000) % 60).toBe([12, 27, 42, 57][k % 4]);
      const burst = starlink.segmentAt(at);
      expect(burst.startMs).toBe(at);
      expect(burst.loss).toBe(0.5);
      expect(burst.endMs - at).toBeGreaterThanOrEqual(200);
      expect(burst.endMs - at).toBeLessThanOrEqual(400);
      const after = starlink.segmentAt(burst.endMs);
      expect(burst.rttMs - after.rttMs).toBeGreaterThanOrEqual(30);
      expect(burst.rttMs - after.rttMs).toBeLessThanOrEqual(80);
      expect(after.loss).toBe(STARLINK.loss);
      // The rate holds for the slot (a new one at the next handover).
      expect(starlink.segmentAt(at + STARLINK.slotMs - 1).mbit).toBe(burst.mbit);
    }
    expect(starlink.segmentAt(0).loss).toBe(STARLINK.loss);
    expect(starlink.segmentAt(STARLINK.firstHandoverMs - 1).endMs).toBe(STARLINK.firstHandoverMs);
  });

  it('starlink: ~17 Mbit/s (a new rate per slot) at ~45 ms, about 150 ms of queue', () => {
    const hour = starlink.segments(0, HOUR);
    expect(meanUpMbit(hour)).toBeGreaterThan(15.5);
    expect(meanUpMbit(hour)).toBeLessThan(18.5);
    expect(new Set(hour.map((s) => s.mbit)).size).toBeGreaterThan(200);
    const quiet = hour.filter((s) => s.loss < 0.5 && !s.down);
    const meanRtt = quiet.reduce((n, s) => n + s.rttMs * (s.endMs - s.startMs), 0) / quiet.reduce((n, s) => n + s.endMs - s.startMs, 0);
    expect(meanRtt).toBeGreaterThan(40);
    expect(meanRtt).toBeLessThan(50);
    const seg = starlink.segmentAt(30_000);
    expect(seg.queueBytes / ((seg.mbit * 1e6) / 8)).toBeCloseTo(0.15, 2);
  });

  it('starlink: an obstruction outage of 2–7 s in every 2 minutes, so any 4 minutes meet one', () => {
    const found = outages(starlink, 0, HOUR);
    expect(found).toHaveLength(30);
    for (const o of found) {
      expect(o.endMs - o.startMs).toBeGreaterThanOrEqual(2_000);
      expect(o.endMs - o.startMs).toBeLessThanOrEqual(7_000);
    }
    for (let t = 0; t < HOUR - 240_000; t += 5_000) expect(found.some((o) => o.startMs >= t && o.endMs <= t + 240_000)).toBe(true);
    expect(starlink.capacityBytes(found[0]!.startMs, found[0]!.endMs)).toBe(0);
  });

  it('geo: 2.5 Mbit/s, 680 ms, over a second of queue, rare loss, never down', () => {
    for (const t of [0, 61_000, HOUR]) {
      const seg = geo.segmentAt(t);
      expect(seg).toMatchObject({ mbit: 2.5, rttMs: 680, down: false });
      expect(seg.queueBytes / ((seg.mbit * 1e6) / 8)).toBeGreaterThan(1);
      expect(seg.loss).toBeGreaterThan(0);
      expect(seg.loss).toBeLessThanOrEqual(0.001);
    }
    expect(outages(geo, 0, HOUR)).toEqual([]);
    expect(GEO.queueMs).toBeGreaterThan(1000);
  });

  it('lte: a rate wandering between 1 and 8 Mbit/s, mean near 3.7, RTT with jitter', () => {
    for (const seed of [1, 2, 3]) {
      const hour = linkTimeline({ profile: 'lte', seed }).segments(0, HOUR);
      expect(Math.min(...hour.map((s) => s.mbit))).toBeGreaterThanOrEqual(LTE.minMbit);
      expect(Math.max(...hour.map((s) => s.mbit))).toBeLessThanOrEqual(LTE.maxMbit);
      expect(meanUpMbit(hour)).toBeGreaterThan(3.2);
      expect(meanUpMbit(hour)).toBeLessThan(4.2);
    }
    const rtts = lte.segments(0, 60_000).map((s) => s.rttMs);
    expect(Math.max(...rtts) - Math.min(...rtts)).toBeGreaterThan(20);
  });

  it('lte: a 10–60 s coverage hole now and then, so any 6 minutes meet a whole one', () => {
    const found = outages(lte, 0, HOUR);
    expect(found).toHaveLength(20);
    for (const o of found) {
      expect(o.endMs - o.startMs).toBeGreaterThanOrEqual(10_000);
      expect(o.endMs - o.startMs).toBeLessThanOrEqual(60_000);
    }
    for (let t = 0; t < HOUR - 360_000; t += 5_000) expect(found.some((o) => o.startMs >= t && o.endMs <= t + 360_000)).toBe(true);
    expect(found[0]!.startMs).toBeGreaterThanOrEqual(20_000);
  });
});

describe('capacity and its inverse', () => {
  const links: LinkSpec[] = [
    { mbit: 3, rttMs: 600 },
    { profile: 'starlink', seed: 1 },
    { profile: 'geo', seed: 1 },
    { profile: 'lte', seed: 4 },
  ];

  it('counts the bytes of each segment at its rate, outages as zero', () => {
    for (const link of links) {
      const timeline = linkTimeline(link);
      const expected = timeline.segments(1_000, 600_000).reduce((n, s) => n + (s.down ? 0 : (s.mbit * 1e6 * (s.endMs - s.startMs)) / 8000), 0);
      expect(timeline.capacityBytes(1_000, 600_000)).toBeCloseTo(expected, 3);
      expect(timeline.capacityBytes(5_000, 5_000)).toBe(0);
      expect(timeline.capacityBytes(0, 600_000)).toBeCloseTo(timeline.capacityBytes(0, 200_000) + timeline.capacityBytes(200_000, 600_000), 3);
    }
  });

  it('timeToCarry is when capacityBytes reaches the bytes (across slots and outages)', () => {
    for (const link of links) {
      const timeline = linkTimeline(link);
      for (const [t0, bytes] of [
        [0, 1],
        [3_000, 5_000_000],
        [100_000, 40_000_000],
      ] as const) {
        const end = timeline.timeToCarry(t0, bytes);
        expect(timeline.capacityBytes(t0, end)).toBeCloseTo(bytes, 0);
      }
    }
  });

  it('nextUp and outageDuring find the outage around a moment, even one begun before it', () => {
    const [first] = outages(lte, 0, HOUR);
    const middle = (first!.startMs + first!.endMs) / 2;
    expect(lte.nextUp(middle)).toBe(first!.endMs);
    expect(lte.nextUp(first!.endMs + 5)).toBe(first!.endMs + 5);
    expect(lte.outageDuring(middle, middle + 1)).toEqual(first);
    expect(lte.outageDuring(first!.startMs - 3_000, first!.startMs + 1)).toEqual(first);
    expect(lte.outageDuring(first!.endMs, first!.endMs + 1_000)).toBeUndefined();
  });

  it('timelineOf: a hand-made link of given segments, the last for ever', () => {
    const base = { downMbit: 100, loss: 0, down: false, queueBytes: 100_000 };
    const made = timelineOf({ mbit: 8, rttMs: 100 }, [
      { ...base, startMs: 0, mbit: 8, rttMs: 100 },
      { ...base, startMs: 1_000, mbit: 8, rttMs: 100, down: true },
      { ...base, startMs: 2_000, mbit: 2, rttMs: 400 },
    ]);
    expect(made.capacityBytes(0, 3_000)).toBeCloseTo(1_250_000, 3);
    expect(made.segmentAt(10 * HOUR)).toMatchObject({ mbit: 2, rttMs: 400 });
    expect(made.outageDuring(500, 1_500)).toEqual({ startMs: 1_000, endMs: 2_000 });
  });
});

describe('timelineJson (what the packet emulator reads)', () => {
  it('covers [0, horizon) without a gap, merged where nothing changes, as the timeline says', () => {
    for (const link of [
      { mbit: 20, rttMs: 80 },
      { profile: 'starlink' as const, seed: 1 },
      { profile: 'lte' as const, seed: 1 },
    ]) {
      const { segments } = timelineJson(link, HOUR);
      expect(segments[0]!.startMs).toBe(0);
      expect(segments.at(-1)!.endMs).toBe(HOUR);
      for (let i = 1; i < segments.length; i++) expect(segments[i]!.startMs).toBe(segments[i - 1]!.endMs);
      const timeline = linkTimeline(link);
      for (const seg of segments) expect(timeline.segmentAt((seg.startMs + seg.endMs) / 2)).toMatchObject({ mbit: seg.mbit, rttMs: seg.rttMs, down: seg.down });
    }
    expect(timelineJson({ mbit: 20, rttMs: 80 }, HOUR).segments).toHaveLength(1);
  });
});

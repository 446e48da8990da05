import { progressDetail, SpeedMeter, speedText } from '../src/features/upload/model/speed-meter';

const MB = 1024 * 1024;
const MINUTE = 60_000;

/** Feeds `meter` a steady `rate` (bytes/s) every `stepMs` from `from` for `ms`; returns the end time and total. */
function feed(meter: SpeedMeter, from: number, total: number, rate: number, ms: number, stepMs = 1000): { at: number; total: number } {
  let at = from;
  let sent = total;
  for (let t = stepMs; t <= ms; t += stepMs) {
    at = from + t;
    sent = total + (rate * t) / 1000;
    meter.sample(at, sent);
  }
  return { at, total: sent };
}

describe('SpeedMeter', () => {
  it('gives no speed during the warm-up, by time and by bytes', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    feed(meter, 0, 0, 1 * MB, 4000);
    expect(meter.rate()).toBeNull();
    expect(meter.timeLeft(10 * MB)).toBeNull();
    const slow = new SpeedMeter();
    slow.sample(0, 0);
    feed(slow, 0, 0, 100 * 1024, 10_000);
    expect(slow.rate()).toBeNull();
    feed(slow, 10_000, 1000 * 1024, 100 * 1024, 11_000);
    expect(slow.rate()).toBeCloseTo(100 * 1024, 0);
  });

  it('starts from the warm-up average and converges to a constant rate', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    feed(meter, 0, 0, 1.4 * MB, 5000);
    expect(meter.rate()).toBeCloseTo(1.4 * MB, 0);
    feed(meter, 5000, 7 * MB, 1.4 * MB, 120_000, 700);
    expect(meter.rate()).toBeCloseTo(1.4 * MB, 0);
  });

  it('is time-weighted: irregular samples of one rate give that rate', () => {
    const meter = new SpeedMeter({ warmupMs: 0, warmupBytes: 0 });
    let at = 0;
    let sent = 0;
    meter.sample(at, sent);
    for (const step of [100, 5000, 300, 12_000, 50, 2000]) {
      at += step;
      sent += (MB * step) / 1000;
      meter.sample(at, sent);
    }
    expect(meter.rate()).toBeCloseTo(MB, 0);
  });

  it('smooths a burst and follows a lasting change', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    let { at, total } = feed(meter, 0, 0, MB, 60_000);
    at += 1000;
    total += 10 * MB;
    meter.sample(at, total);
    expect(meter.rate()!).toBeGreaterThan(MB);
    expect(meter.rate()!).toBeLessThan(1.5 * MB);
    feed(meter, at, total, 2 * MB, 120_000);
    expect(meter.rate()!).toBeGreaterThan(1.95 * MB);
  });

  it('never goes negative when bytes are taken back', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    const { at, total } = feed(meter, 0, 0, MB, 30_000);
    const retracted = total - 8 * MB;
    meter.sample(at + 1000, retracted);
    expect(meter.rate()!).toBeGreaterThanOrEqual(0);
    expect(meter.rate()!).toBeLessThan(MB);
    for (let i = 2; i <= 20; i++) meter.sample(at + i * 1000, retracted);
    expect(meter.rate()!).toBeGreaterThanOrEqual(0);
    feed(meter, at + 20_000, retracted, MB, 120_000);
    expect(meter.rate()!).toBeGreaterThan(0.98 * MB);
    expect(meter.rate()!).toBeLessThanOrEqual(MB);
  });

  it('does not average in a pause after reset, keeps its speed and warms up again', () => {
    const paused = new SpeedMeter();
    const notPaused = new SpeedMeter();
    paused.sample(0, 0);
    notPaused.sample(0, 0);
    const { at, total } = feed(paused, 0, 0, MB, 60_000);
    feed(notPaused, 0, 0, MB, 60_000);
    const resumeAt = at + 30 * MINUTE;
    paused.reset(resumeAt);
    expect(paused.rate()).toBeCloseTo(MB, 0);
    // The first second after resuming is slow (new connections): part of the new warm-up, not shown alone.
    paused.sample(resumeAt + 1000, total + 0.5 * MB);
    notPaused.sample(resumeAt + 1000, total + 0.5 * MB);
    expect(paused.rate()).toBeCloseTo(MB, 0);
    feed(paused, resumeAt + 1000, total + 0.5 * MB, MB, 10_000);
    expect(paused.rate()!).toBeGreaterThan(0.98 * MB);
    expect(notPaused.rate()!).toBeLessThan(0.01 * MB);
  });

  it('warms up again from the start when reset before its first speed', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    feed(meter, 0, 0, MB, 3000);
    meter.reset(60_000);
    meter.sample(61_000, 4 * MB);
    expect(meter.rate()).toBeNull();
    feed(meter, 61_000, 4 * MB, MB, 4000);
    expect(meter.rate()).toBeCloseTo((5 * MB) / 5, 0);
  });

  it('averages in a gap when it was not a pause', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    const { at, total } = feed(meter, 0, 0, MB, 60_000);
    meter.sample(at + 5 * MINUTE, total + MB);
    expect(meter.rate()!).toBeLessThan(0.01 * MB);
  });

  it('tells the time left from the smoothed speed', () => {
    const meter = new SpeedMeter();
    meter.sample(0, 0);
    feed(meter, 0, 0, 2 * MB, 20_000);
    expect(meter.timeLeft(2 * MB * 48 * 60)).toBeCloseTo(48 * 60, 3);
    expect(meter.timeLeft(0)).toBe(0);
    expect(new SpeedMeter().timeLeft(MB)).toBeNull();
  });

  it('has no time left to tell on a stalled link', () => {
    const meter = new SpeedMeter({ warmupMs: 0, warmupBytes: 0 });
    meter.sample(0, 0);
    meter.sample(1000, 0);
    expect(meter.rate()).toBe(0);
    expect(meter.timeLeft(MB)).toBeNull();
  });
});

describe('speedText and progressDetail', () => {
  it('shows speeds by the size rules', () => {
    expect(speedText(1.4 * MB)).toBe('1.4 MB/s');
    expect(speedText(320 * 1024)).toBe('320 KB/s');
    expect(speedText(Number.NaN)).toBe('—');
  });
  it('is the speed and the time left, or an honest wait', () => {
    expect(progressDetail({ rate: 1.4 * MB, secondsLeft: 48 * 60 })).toBe('1.4 MB/s · about 48 min left');
    expect(progressDetail({ rate: 1.4 * MB, secondsLeft: null })).toBe('1.4 MB/s');
    expect(progressDetail({ rate: null, secondsLeft: null })).toBe('Measuring speed…');
    expect(progressDetail({ rate: 320 * 1024, secondsLeft: 26 * 3600 })).toBe('320 KB/s · about 26 h left');
  });
});

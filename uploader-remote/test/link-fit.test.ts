import { DEFAULT_FIT, LinkFit, type FitPolicy } from '../src/features/upload/model/link-fit';

const policy: FitPolicy = { ...DEFAULT_FIT, minEpochMs: 10_000 };

/**
 * Drives `fit` over a link that delivers `rateAt(level)` bytes/s with photos of `bytes`: each
 * completion comes when the link has carried one more photo at the level the fit asks for. Returns
 * the level after each completion.
 */
function drive(fit: LinkFit, rateAt: (level: number) => number, completions: number, bytes = 1_000_000): number[] {
  const levels: number[] = [];
  let now = 0;
  for (let i = 0; i < completions; i++) {
    now += (bytes * 1000) / rateAt(fit.limit());
    fit.delivered(bytes, now);
    levels.push(fit.limit());
  }
  return levels;
}

describe('LinkFit', () => {
  it('starts with two uploads in flight', () => {
    expect(new LinkFit(policy).limit()).toBe(2);
  });

  it('adds uploads while each one added raises what the link delivers, up to six', () => {
    // A link with room to spare: every upload adds its own 100 KB/s (a long round trip per photo).
    const fit = new LinkFit(policy);
    const levels = drive(fit, (level) => level * 100_000, 200);
    expect(Math.max(...levels)).toBe(6);
    expect(levels.at(-1)).toBe(6);
    // One step at a time.
    for (let i = 1; i < levels.length; i++) expect(Math.abs(levels[i]! - levels[i - 1]!)).toBeLessThanOrEqual(1);
  });

  it('on a link already full, tries one more, finds it does not pay, and goes back', () => {
    const fit = new LinkFit(policy);
    const levels = drive(fit, () => 375_000, 200);
    expect(Math.max(...levels)).toBe(3);
    // Most of the time at two: a try at three only after a hold of several epochs.
    expect(levels.filter((l) => l === 2).length).toBeGreaterThan(levels.length * 0.6);
    expect(levels.at(-1)).toBeLessThanOrEqual(3);
  });

  it('keeps an added upload only when it raises the rate by at least the gain', () => {
    // Three deliver 5 % more than two: not worth a third connection's buffers.
    const fit = new LinkFit(policy);
    const levels = drive(fit, (level) => (level >= 3 ? 315_000 : 300_000), 300);
    expect(Math.max(...levels)).toBe(3);
    expect(levels.filter((l) => l === 3).length).toBeLessThan(levels.length / 3);
  });

  it('settles where the link fills: a link that needs four', () => {
    const fit = new LinkFit(policy);
    const levels = drive(fit, (level) => Math.min(level, 4) * 200_000, 400);
    expect(Math.max(...levels)).toBe(5);
    const late = levels.slice(200);
    expect(late.filter((l) => l === 4).length).toBeGreaterThan(late.length * 0.6);
  });

  it('halves on a setback and holds before climbing again', () => {
    const fit = new LinkFit(policy);
    drive(fit, (level) => level * 100_000, 200);
    expect(fit.limit()).toBe(6);
    fit.setback();
    expect(fit.limit()).toBe(3);
    fit.setback();
    expect(fit.limit()).toBe(1);
    fit.setback();
    expect(fit.limit()).toBe(1);
    // The hold: three epochs at one (each at least three completions over 10 s) before trying two.
    const levels = drive(fit, (level) => level * 100_000, 9);
    expect(levels.every((l) => l === 1)).toBe(true);
    expect(Math.max(...drive(fit, (level) => level * 100_000, 40))).toBeGreaterThan(1);
  });

  it('needs the epoch’s time as well as its completions: a burst of small copies decides nothing', () => {
    const fit = new LinkFit(policy);
    for (let i = 0; i < 50; i++) fit.delivered(200_000, i * 10); // 50 copies in half a second
    expect(fit.limit()).toBe(2);
    fit.delivered(200_000, 10_500);
    expect(fit.limit()).toBe(3);
  });

  it('after a pause, what was being measured is forgotten', () => {
    const fit = new LinkFit(policy);
    fit.delivered(1_000_000, 0);
    fit.delivered(1_000_000, 5_000);
    fit.delivered(1_000_000, 9_000);
    fit.restart();
    // The pause's hour would read as a dead link: the epoch starts again with the next completion.
    fit.delivered(1_000_000, 3_600_000);
    fit.delivered(1_000_000, 3_605_000);
    fit.delivered(1_000_000, 3_610_000);
    expect(fit.limit()).toBe(2);
    fit.delivered(1_000_000, 3_615_000);
    expect(fit.limit()).toBe(3);
  });

  it('stays within its bounds whatever it is told', () => {
    const fit = new LinkFit({ ...policy, initial: 40 });
    expect(fit.limit()).toBe(6);
    for (let i = 0; i < 10; i++) fit.setback();
    expect(fit.limit()).toBe(1);
    fit.delivered(-5, Number.NaN);
    expect(fit.limit()).toBe(1);
    // The bad report poisoned nothing: the climb goes on after the hold.
    expect(Math.max(...drive(fit, (level) => level * 100_000, 60))).toBeGreaterThan(1);
  });
});

describe('the bytes floor', () => {
  it('keeps at least a megabyte of typical photos in flight: five 230 KB copies, one 4 MB original (the climb decides above it)', () => {
    const copies = new LinkFit(policy);
    for (let i = 0; i < 3; i++) copies.sized(230_000);
    expect(copies.limit()).toBe(5);
    const originals = new LinkFit(policy);
    originals.sized(4_000_000);
    expect(originals.limit()).toBe(2);
  });

  it('follows the typical size, within the policy’s bounds, and ignores sizes that are not real', () => {
    const fit = new LinkFit(policy);
    fit.sized(10_000);
    expect(fit.limit()).toBe(6);
    fit.sized(Number.NaN);
    fit.sized(0);
    expect(fit.limit()).toBe(6);
  });

  it('gives way to a setback’s halving until the hold is over, then lifts the level again', () => {
    const fit = new LinkFit(policy);
    fit.sized(230_000);
    expect(fit.limit()).toBe(5);
    fit.setback();
    expect(fit.limit()).toBe(2);
    fit.sized(230_000);
    expect(fit.limit()).toBe(2);
    // Three epochs of held level (each enough completions over 10 s), then the floor again.
    let t = 0;
    for (let epoch = 0; epoch < 3; epoch++) for (let i = 0; i < 5; i++) fit.delivered(230_000, (t += 3_000));
    fit.sized(230_000);
    expect(fit.limit()).toBe(5);
  });
});

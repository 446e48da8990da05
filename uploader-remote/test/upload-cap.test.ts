import { capNote, mbitText } from '../src/features/upload/model/messages';
import { capRate, cappedSpeed, measuresTheLink, NO_CAP, PaceBucket, parseCap, parseMbit, storedCap } from '../src/features/upload/model/upload-cap';

describe('parseCap', () => {
  it('reads what storedCap wrote', () => {
    for (const cap of [NO_CAP, { kind: 'mbit', mbit: 1.5 } as const, { kind: 'share', share: 0.25 } as const]) expect(parseCap(storedCap(cap))).toEqual(cap);
  });

  it('takes anything else for no cap', () => {
    for (const stored of [null, 'fast', 3, [], { mbit: 0 }, { mbit: -2 }, { mbit: 5000 }, { mbit: '2' }, { share: 1 }, { share: 0 }, { share: Number.NaN }]) {
      expect(parseCap(stored)).toEqual(NO_CAP);
    }
  });
});

describe('parseMbit', () => {
  it('reads a speed as typed', () => {
    expect(parseMbit('1.5')).toBe(1.5);
    expect(parseMbit(' 3 ')).toBe(3);
    expect(parseMbit('2,5')).toBe(2.5);
    expect(parseMbit('.5')).toBe(0.5);
  });

  it('refuses what is not a speed the cap can be', () => {
    for (const text of ['', 'fast', '0', '0.05', '1e3', '-1', '1001', '1.2.3', 'Infinity']) expect(parseMbit(text)).toBeNull();
  });
});

describe('capRate', () => {
  it('is the speed in bytes per second, or a share of the measured link', () => {
    expect(capRate({ kind: 'mbit', mbit: 2 }, null)).toBe(250_000);
    expect(capRate({ kind: 'share', share: 0.5 }, 375_000)).toBe(187_500);
    expect(capRate(NO_CAP, 375_000)).toBeNull();
  });

  it('caps nothing while the link a share is of has not been measured', () => {
    expect(capRate({ kind: 'share', share: 0.5 }, null)).toBeNull();
  });
});

describe('cappedSpeed', () => {
  it('holds an estimate’s speed to the cap, and leaves an unmeasured one unknown', () => {
    expect(cappedSpeed(375_000, 125_000)).toBe(125_000);
    expect(cappedSpeed(100_000, 125_000)).toBe(100_000);
    expect(cappedSpeed(375_000, null)).toBe(375_000);
    expect(cappedSpeed(null, 125_000)).toBeNull();
  });
});

describe('measuresTheLink', () => {
  it('takes an uncapped batch’s speed, and a capped one’s only when well below its cap', () => {
    expect(measuresTheLink(375_000, null)).toBe(true);
    expect(measuresTheLink(185_000, 187_500)).toBe(false);
    expect(measuresTheLink(100_000, 187_500)).toBe(true);
  });
});

describe('PaceBucket', () => {
  it('lets an attempt start at once, then makes the next wait until its bytes are paid at the cap', () => {
    const bucket = new PaceBucket(0);
    expect(bucket.waitMs(1_000_000, 0)).toBe(0);
    bucket.take(4_000_000, 1_000_000, 0);
    expect(bucket.waitMs(1_000_000, 0)).toBe(4_000);
    expect(bucket.waitMs(1_000_000, 3_000)).toBe(1_000);
    expect(bucket.waitMs(1_000_000, 4_000)).toBe(0);
  });

  it('over a long run sends at most the cap, plus one second of it banked', () => {
    const bucket = new PaceBucket(0);
    const rate = 500_000;
    let now = 0;
    let sent = 0;
    while (now < 600_000) {
      now += bucket.waitMs(rate, now);
      bucket.take(3_000_000, rate, now);
      sent += 3_000_000;
    }
    // Each start charged before its bytes crossed: the last one's bytes are in flight at the end.
    expect(sent).toBeLessThanOrEqual(rate * (now / 1000) + 3_000_000 + rate);
    expect(sent).toBeGreaterThanOrEqual(rate * (now / 1000));
  });

  it('banks at most a second of idle time: a pause does not buy a burst', () => {
    const bucket = new PaceBucket(0);
    bucket.take(1_000_000, 1_000_000, 0);
    expect(bucket.waitMs(1_000_000, 600_000)).toBe(0);
    bucket.take(1_000_000, 1_000_000, 600_000);
    bucket.take(1_000_000, 1_000_000, 600_000);
    expect(bucket.waitMs(1_000_000, 600_000)).toBe(1_000);
  });

  it('follows the cap as it changes, and never waits without one', () => {
    const bucket = new PaceBucket(0);
    bucket.take(2_000_000, 1_000_000, 0);
    expect(bucket.waitMs(1_000_000, 0)).toBe(2_000);
    expect(bucket.waitMs(4_000_000, 0)).toBe(500);
    expect(bucket.waitMs(null, 0)).toBe(0);
  });
});

describe('capNote', () => {
  it('says what the uploader will use, from the measured link', () => {
    expect(capNote(NO_CAP, 3)).toBe('Uploading uses all of the connection. Choose a limit to leave room for everyone else on it.');
    expect(capNote({ kind: 'share', share: 0.5 }, 3)).toBe(
      'At most about 1.5 Mbit/s: half of the 3 Mbit/s measured here. The rest stays free for everyone else on the connection.',
    );
    expect(capNote({ kind: 'share', share: 0.25 }, null)).toBe(
      'At most a quarter of what the connection gives, measured when sending starts. The rest stays free for everyone else on the connection.',
    );
    expect(capNote({ kind: 'mbit', mbit: 1.5 }, 17.4)).toBe(
      'At most 1.5 Mbit/s of the 17 Mbit/s measured here. The rest stays free for everyone else on the connection.',
    );
    expect(capNote({ kind: 'mbit', mbit: 20 }, 17.4)).toBe('At most 20 Mbit/s: more than the 17 Mbit/s measured here, so uploading may use all of it.');
  });

  it('writes speeds with one decimal under 10 Mbit/s', () => {
    expect(mbitText(2.44)).toBe('2.4 Mbit/s');
    expect(mbitText(17.4)).toBe('17 Mbit/s');
    expect(mbitText(1234)).toBe('1,234 Mbit/s');
  });
});

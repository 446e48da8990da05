import { COPY_LONG_EDGE, copyDimensions, copyPlan, scaledDecode, WORTH_SENDING_RATIO, worthSending } from '../src/features/upload/model/smaller-copy';

describe('copyDimensions', () => {
  it('brings a landscape photo to the long edge, keeping its aspect', () => {
    expect(copyDimensions(4608, 3456)).toEqual({ width: COPY_LONG_EDGE, height: Math.round((3456 * COPY_LONG_EDGE) / 4608) });
    expect(copyDimensions(4000, 3000, 2048)).toEqual({ width: 2048, height: 1536 });
    expect(copyDimensions(5184, 2916, 2048)).toEqual({ width: 2048, height: 1152 });
  });

  it('brings a portrait photo to the long edge on its height', () => {
    expect(copyDimensions(3000, 4000, 2048)).toEqual({ width: 1536, height: 2048 });
  });

  it('makes a square photo square', () => {
    expect(copyDimensions(4000, 4000, 2048)).toEqual({ width: 2048, height: 2048 });
  });

  it('rounds odd sizes to whole pixels, never below one', () => {
    expect(copyDimensions(4001, 2999, 2048)).toEqual({ width: 2048, height: 1535 }); // 1535.1
    expect(copyDimensions(3001, 4003, 1600)).toEqual({ width: 1200, height: 1600 }); // 1199.50…
    expect(copyDimensions(100_000, 3, 2048)).toEqual({ width: 2048, height: 1 });
  });

  it('is null for a photo already no larger than the copy (never upscaled)', () => {
    expect(copyDimensions(2048, 1536, 2048)).toBeNull();
    expect(copyDimensions(1536, 2048, 2048)).toBeNull();
    expect(copyDimensions(640, 480, 2048)).toBeNull();
    expect(copyDimensions(2049, 100, 2048)).toEqual({ width: 2048, height: 100 });
  });

  it('is null for sizes that are not real', () => {
    for (const [w, h] of [
      [0, 3000],
      [4000, 0],
      [-4000, 3000],
      [Number.NaN, 3000],
      [Number.POSITIVE_INFINITY, 3000],
    ] as const)
      expect(copyDimensions(w, h, 2048)).toBeNull();
  });
});

describe('worthSending', () => {
  it(`sends a copy smaller than ${WORTH_SENDING_RATIO * 100} % of the original`, () => {
    expect(worthSending(4_000_000, 600_000)).toBe(true);
    expect(worthSending(1000, 799)).toBe(true);
  });

  it('sends the original when the copy is not clearly smaller', () => {
    expect(worthSending(1000, 800)).toBe(false);
    expect(worthSending(1000, 1000)).toBe(false);
    expect(worthSending(1000, 5000)).toBe(false);
  });

  it('sends the original for sizes that are not real', () => {
    expect(worthSending(0, 0)).toBe(false);
    expect(worthSending(1000, 0)).toBe(false);
    expect(worthSending(Number.NaN, 10)).toBe(false);
  });
});

describe('scaledDecode', () => {
  it('takes the smallest eighth whose long edge still covers the copy', () => {
    // 4608 × 3/8 = 1728 is short of 2048; 4/8 = 2304 covers it.
    expect(scaledDecode(4608, 3456, 2048)).toEqual({ numerator: 4, width: 2304, height: 1728 });
    expect(scaledDecode(5376, 3024, 2048)).toEqual({ numerator: 4, width: 2688, height: 1512 });
    expect(scaledDecode(5120, 3840, 2048)).toEqual({ numerator: 4, width: 2560, height: 1920 });
    // 4000 × 4/8 = 2000 is 48 px short: 5/8.
    expect(scaledDecode(4000, 3000, 2048)).toEqual({ numerator: 5, width: 2500, height: 1875 });
    // A 24 MP photo: 3/8.
    expect(scaledDecode(6000, 4000, 2048)).toEqual({ numerator: 3, width: 2250, height: 1500 });
  });

  it('takes an eighth that lands exactly on the long edge', () => {
    expect(scaledDecode(4096, 3072, 2048)).toEqual({ numerator: 4, width: 2048, height: 1536 });
    expect(scaledDecode(16384, 12288, 2048)).toEqual({ numerator: 1, width: 2048, height: 1536 });
  });

  it('measures the long edge whichever way the photo is stored', () => {
    expect(scaledDecode(3456, 4608, 2048)).toEqual({ numerator: 4, width: 1728, height: 2304 });
  });

  it('rounds odd sizes up, as the decoder writes them', () => {
    expect(scaledDecode(4001, 2999, 2048)).toEqual({ numerator: 5, width: 2501, height: 1875 });
  });

  it('decodes at full size a photo only a little larger than the copy', () => {
    expect(scaledDecode(2100, 1400, 2048)).toEqual({ numerator: 8, width: 2100, height: 1400 });
    // 2592 × 6/8 = 1944 is short: 7/8.
    expect(scaledDecode(2592, 1944, 2048)).toEqual({ numerator: 7, width: 2268, height: 1701 });
  });

  it('is very small at a small long edge', () => {
    expect(scaledDecode(5120, 3840, 96)).toEqual({ numerator: 1, width: 640, height: 480 });
  });

  it('is null where no copy is made', () => {
    expect(scaledDecode(2048, 1536, 2048)).toBeNull();
    expect(scaledDecode(640, 480, 2048)).toBeNull();
    expect(scaledDecode(0, 3000, 2048)).toBeNull();
    expect(scaledDecode(Number.NaN, 3000, 2048)).toBeNull();
  });
});

describe('copyPlan', () => {
  it('decodes a large JPEG at its DCT scale where a scaled decoder exists', () => {
    expect(copyPlan({ width: 4608, height: 3456 }, 2048, true)).toEqual({
      kind: 'scaled',
      stored: { width: 4608, height: 3456 },
      decode: { numerator: 4, width: 2304, height: 1728 },
    });
  });

  it('sends a JPEG no larger than the copy as it is, undecoded', () => {
    expect(copyPlan({ width: 1600, height: 1200 }, 2048, true)).toEqual({ kind: 'small' });
    expect(copyPlan({ width: 1536, height: 2048 }, 2048, true)).toEqual({ kind: 'small' });
  });

  it('decodes whole what has no readable frame header (not a JPEG, whatever its name)', () => {
    expect(copyPlan(null, 2048, true)).toEqual({ kind: 'whole' });
  });

  it('decodes whole where the engine has no scaled decoder, whatever the header says', () => {
    expect(copyPlan({ width: 4608, height: 3456 }, 2048, false)).toEqual({ kind: 'whole' });
    expect(copyPlan({ width: 1600, height: 1200 }, 2048, false)).toEqual({ kind: 'whole' });
    expect(copyPlan(null, 2048, false)).toEqual({ kind: 'whole' });
  });
});

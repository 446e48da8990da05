import { COPY_LONG_EDGE, copyDimensions, WORTH_SENDING_RATIO, worthSending } from '../src/features/upload/model/smaller-copy';

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

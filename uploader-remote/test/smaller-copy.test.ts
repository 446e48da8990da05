import type { QuarterTurn } from '../src/features/upload/model/photo-exif';
import {
  COPY_LONG_EDGE,
  copyDimensions,
  copyDrawing,
  copyPlan,
  scaledDecode,
  WORTH_SENDING_RATIO,
  worthSending,
  type CopyDrawing,
} from '../src/features/upload/model/smaller-copy';

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

/** Where the drawing puts a point of the image drawn at `draw` size: translate, then rotate, as the canvas applies them. */
function onCanvas({ transform }: CopyDrawing, [x, y]: [number, number]): [number, number] {
  if (!transform) return [x, y];
  const [cos, sin] = [Math.cos(transform.radians), Math.sin(transform.radians)];
  // Rounded, as cos(π/2) is 6e-17, not 0; `+ 0` makes -0 a 0.
  return [Math.round(x * cos - y * sin + transform.x) + 0, Math.round(x * sin + y * cos + transform.y) + 0];
}

describe('copyDrawing', () => {
  it('draws an unturned photo as copyDimensions says, with no transform', () => {
    expect(copyDrawing(4608, 3456, undefined, 2048)).toEqual({ width: 2048, height: 1536, transform: null, draw: { width: 2048, height: 1536 } });
    expect(copyDrawing(3000, 4000, undefined)).toEqual({ ...copyDimensions(3000, 4000), transform: null, draw: copyDimensions(3000, 4000) });
  });

  it('makes a landscape photo turned a quarter a portrait copy, the image drawn at its own aspect', () => {
    for (const turn of [90, 270] as const) {
      const drawing = copyDrawing(4608, 3456, turn, 2048)!;
      expect(drawing).toMatchObject({ width: 1536, height: 2048, draw: { width: 2048, height: 1536 } });
      expect(drawing.transform?.radians).toBeCloseTo((turn * Math.PI) / 180);
    }
    expect(copyDrawing(4608, 3456, 90, 2048)?.transform).toMatchObject({ x: 1536, y: 0 });
    expect(copyDrawing(4608, 3456, 270, 2048)?.transform).toMatchObject({ x: 0, y: 2048 });
  });

  it('keeps the size for a half turn, drawn from the bottom-right corner', () => {
    const drawing = copyDrawing(4608, 3456, 180, 2048)!;
    expect(drawing).toMatchObject({ width: 2048, height: 1536, draw: { width: 2048, height: 1536 }, transform: { x: 2048, y: 1536 } });
    expect(drawing.transform?.radians).toBeCloseTo(Math.PI);
  });

  it('turns clockwise and covers the canvas exactly: the image’s top-left corner lands where the turn takes it', () => {
    // The image's corners, clockwise from its top-left, and the canvas corner each turn takes the top-left to.
    const corners = (d: CopyDrawing): [number, number][] => [
      [0, 0],
      [d.draw.width, 0],
      [d.draw.width, d.draw.height],
      [0, d.draw.height],
    ];
    const expected: Record<QuarterTurn, [number, number]> = { 90: [1536, 0], 180: [2048, 1536], 270: [0, 2048] };
    for (const turn of [90, 180, 270] as const) {
      const drawing = copyDrawing(4608, 3456, turn, 2048)!;
      const { width: w, height: h } = drawing;
      const mapped = corners(drawing).map((c) => onCanvas(drawing, c));
      expect(mapped[0]).toEqual(expected[turn]);
      // The four corners of the image are the four corners of the canvas, still in clockwise order.
      const canvas: [number, number][] = [
        [0, 0],
        [w, 0],
        [w, h],
        [0, h],
      ];
      const start = canvas.findIndex(([x, y]) => x === mapped[0]![0] && y === mapped[0]![1]);
      expect(mapped).toEqual([0, 1, 2, 3].map((i) => canvas[(start + i) % 4]));
    }
  });

  it('takes the long edge of the turned photo: a portrait photo turned a quarter is a landscape copy', () => {
    expect(copyDrawing(3000, 4000, 90, 2048)).toMatchObject({ width: 2048, height: 1536, draw: { width: 1536, height: 2048 } });
  });

  it('treats what is not a quarter turn as none', () => {
    for (const turn of [0, 45, 360, -90, Number.NaN])
      expect(copyDrawing(4608, 3456, turn as QuarterTurn, 2048)).toEqual(copyDrawing(4608, 3456, undefined, 2048));
  });

  it('is null where no copy is made, turned or not', () => {
    expect(copyDrawing(1536, 2048, 90, 2048)).toBeNull();
    expect(copyDrawing(0, 3000, 180, 2048)).toBeNull();
  });
});

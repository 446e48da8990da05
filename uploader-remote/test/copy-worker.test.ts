import { Blob as NodeBlob } from 'node:buffer';
import { readExif } from '../src/features/upload/services/files/exif';
import {
  copyDecoder,
  imageDecoderScaled,
  makeCopy,
  serveCopies,
  type CopyDecoder,
  type ImageDecoderConstructor,
} from '../src/features/upload/services/files/copy.worker';
import type { CopyRequest, CopyResponse } from '../src/features/upload/services/files/copy-protocol';
import { buildJpeg } from '../../test-support/jpeg';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
// jsdom's Blob cannot be read back (no arrayBuffer()): the copies are made as Node's.
const jsdomBlob = globalThis.Blob;
beforeAll(() => Object.assign(globalThis, { Blob: NodeBlob }));
afterAll(() => Object.assign(globalThis, { Blob: jsdomBlob }));
const flush = () => jest.advanceTimersByTimeAsync(10);

const SETTINGS = { longEdge: 2048, quality: 0.8 };
/** What the fake canvas encodes: a JPEG as a canvas writes it (SOI, JFIF APP0, SOS, EOI), of `bytes` bytes. */
function encodedJpeg(bytes: number): Blob {
  return new NodeBlob([buildJpeg({ jfif: true, scan: true, padTo: bytes })], { type: 'image/jpeg' }) as unknown as Blob;
}
const original = (bytes: number): Blob => new NodeBlob([new Uint8Array(bytes)], { type: 'image/jpeg' }) as unknown as Blob;
/** A JPEG of `bytes` bytes whose frame header says `width` × `height` (SOI, SOF0, SOS, then filler). */
function storedJpeg(width: number, height: number, bytes = 4_000_000): Blob {
  return new NodeBlob([buildJpeg({ frame: { width, height }, scan: true, padTo: bytes })], { type: 'image/jpeg' }) as unknown as Blob;
}
/** A file that cannot be read (gone from the card since it was picked). */
const unreadable = (): Blob =>
  ({ size: 4_000_000, type: 'image/jpeg', arrayBuffer: () => Promise.reject(new DOMException('gone', 'NotReadableError')) }) as unknown as Blob;

interface FakeOptions {
  /** The whole decode's upright size. */
  width?: number;
  height?: number;
  encodedBytes?: number;
  undecodable?: boolean;
  type?: string;
  /** A scaled JPEG decoder: `turned` for a photo stored a quarter turn from upright; `fails` rejects. */
  scaled?: { turned?: boolean; fails?: boolean };
}

/** A decoder whose photos are `width` × `height` and whose canvas encodes `encodedBytes`; it records what was done. */
function fakeDecoder({ width = 4608, height = 3456, encodedBytes = 600_000, undecodable = false, type = 'image/jpeg', scaled }: FakeOptions = {}) {
  const log: string[] = [];
  const decoder: CopyDecoder = {
    createImageBitmap: async (_image, options) => {
      log.push(`decode ${options?.imageOrientation}`);
      if (undecodable) throw new DOMException('The source image could not be decoded.', 'InvalidStateError');
      return { width, height, close: () => log.push('close bitmap') };
    },
    OffscreenCanvas: class {
      constructor(
        public width: number,
        public height: number,
      ) {
        log.push(`canvas ${width}x${height}`);
      }
      getContext() {
        return {
          set imageSmoothingQuality(quality: string) {
            log.push(`smoothing ${quality}`);
          },
          translate: (x: number, y: number) => log.push(`translate ${x},${y}`),
          rotate: (radians: number) => log.push(`rotate ${Math.round((radians * 180) / Math.PI)}°`),
          drawImage: (_b: unknown, _x: number, _y: number, w: number, h: number) => log.push(`draw ${w}x${h}`),
        };
      }
      async convertToBlob(options: ImageEncodeOptions) {
        log.push(`encode ${options.type} ${options.quality}`);
        return type === 'image/jpeg' ? encodedJpeg(encodedBytes) : new NodeBlob([new Uint8Array(10)], { type });
      }
    } as unknown as CopyDecoder['OffscreenCanvas'],
    decodeScaledJpeg: scaled
      ? async (bytes, size) => {
          log.push(`decode scaled ${size.width}x${size.height} from ${bytes.byteLength} bytes`);
          if (scaled.fails) throw new DOMException('Failed to decode frame at index 0', 'EncodingError');
          const [w, h] = scaled.turned ? [size.height, size.width] : [size.width, size.height];
          return { bitmap: { width: w, height: h, close: () => log.push('close bitmap') } as unknown as ImageBitmap, turned: scaled.turned ?? false };
        }
      : null,
  };
  return { decoder, log };
}

describe('makeCopy', () => {
  it('decodes upright, draws at the copy size with high-quality smoothing, encodes and writes the EXIF', async () => {
    const { decoder, log } = fakeDecoder();
    const result = await makeCopy(original(4_000_000), { make: 'Browning' }, SETTINGS, decoder);
    expect(log).toEqual(['decode from-image', 'canvas 2048x1536', 'smoothing high', 'draw 2048x1536', 'close bitmap', 'encode image/jpeg 0.8']);
    expect(result).toMatchObject({ kind: 'copy', width: 2048, height: 1536 });
    const bytes = new Uint8Array(await (result as { blob: Blob }).blob.arrayBuffer());
    expect(await readExif(bytes)).toEqual({ make: 'Browning' });
  });

  it('sends a photo no larger than the copy as it is, and one it cannot decode', async () => {
    const small = fakeDecoder({ width: 1600, height: 1200 });
    expect(await makeCopy(original(500_000), null, SETTINGS, small.decoder)).toEqual({ kind: 'original', reason: 'small' });
    expect(small.log).toContain('close bitmap');
    expect(await makeCopy(original(500_000), null, SETTINGS, fakeDecoder({ undecodable: true }).decoder)).toEqual({ kind: 'original', reason: 'undecodable' });
  });

  it('sends the original when the copy is not clearly smaller', async () => {
    const { decoder } = fakeDecoder({ encodedBytes: 900_000 });
    expect(await makeCopy(original(1_000_000), null, SETTINGS, decoder)).toEqual({ kind: 'original', reason: 'not-smaller' });
  });

  it('makes no copy without a decoder or a JPEG encoder', async () => {
    expect(await makeCopy(original(4_000_000), null, SETTINGS, null)).toEqual({ kind: 'original', reason: 'unavailable' });
    expect(await makeCopy(original(4_000_000), null, SETTINGS, fakeDecoder({ type: 'image/png' }).decoder)).toEqual({
      kind: 'original',
      reason: 'unavailable',
    });
  });

  it('stops between steps once cancelled, still closing the decoded photo', async () => {
    const { decoder, log } = fakeDecoder();
    expect(await makeCopy(original(4_000_000), null, SETTINGS, decoder, () => true)).toBeNull();
    // Cancelled before it started: nothing decoded.
    expect(log).toEqual([]);
    let calls = 0;
    expect(await makeCopy(original(4_000_000), null, SETTINGS, decoder, () => ++calls > 1)).toBeNull();
    expect(log).toEqual(['decode from-image', 'close bitmap']);
  });
});

describe('makeCopy turned by the member', () => {
  it('turns a landscape photo a quarter clockwise into a portrait copy, the rotation done on the canvas', async () => {
    const { decoder, log } = fakeDecoder();
    const result = await makeCopy(original(4_000_000), { make: 'Browning', turn: 90 }, SETTINGS, decoder);
    expect(log).toEqual([
      'decode from-image',
      'canvas 1536x2048',
      'smoothing high',
      'translate 1536,0',
      'rotate 90°',
      'draw 2048x1536',
      'close bitmap',
      'encode image/jpeg 0.8',
    ]);
    expect(result).toMatchObject({ kind: 'copy', width: 1536, height: 2048 });
    // The pixels are turned, not the EXIF: it still says Orientation 1 (exif-writer.test.ts) and reads back as it was.
    expect(await readExif(new Uint8Array(await (result as { blob: Blob }).blob.arrayBuffer()))).toEqual({ make: 'Browning' });
  });

  it('keeps the size for a half turn and turns the other quarter from the bottom-left', async () => {
    const half = fakeDecoder();
    expect(await makeCopy(original(4_000_000), { turn: 180 }, SETTINGS, half.decoder)).toMatchObject({ kind: 'copy', width: 2048, height: 1536 });
    expect(half.log).toEqual(expect.arrayContaining(['canvas 2048x1536', 'translate 2048,1536', 'rotate 180°', 'draw 2048x1536']));
    const back = fakeDecoder();
    expect(await makeCopy(original(4_000_000), { turn: 270 }, SETTINGS, back.decoder)).toMatchObject({ kind: 'copy', width: 1536, height: 2048 });
    expect(back.log).toEqual(expect.arrayContaining(['canvas 1536x2048', 'translate 0,2048', 'rotate 270°', 'draw 2048x1536']));
  });

  it('turns a photo decoded at a DCT scale the same way, on top of its EXIF orientation', async () => {
    const plain = fakeDecoder({ scaled: {} });
    expect(await makeCopy(storedJpeg(4608, 3456), { turn: 90 }, SETTINGS, plain.decoder)).toMatchObject({ kind: 'copy', width: 1536, height: 2048 });
    expect(plain.log).toEqual([
      'decode scaled 2304x1728 from 4000000 bytes',
      'canvas 1536x2048',
      'smoothing high',
      'translate 1536,0',
      'rotate 90°',
      'draw 2048x1536',
      'close bitmap',
      'encode image/jpeg 0.8',
    ]);
    // Stored sideways (EXIF orientation 6: decoded upright as a portrait), then turned a quarter by the member: a landscape copy.
    const sideways = fakeDecoder({ scaled: { turned: true } });
    expect(await makeCopy(storedJpeg(4608, 3456), { turn: 90 }, SETTINGS, sideways.decoder)).toMatchObject({ kind: 'copy', width: 2048, height: 1536 });
    expect(sideways.log).toEqual(expect.arrayContaining(['canvas 2048x1536', 'translate 2048,0', 'rotate 90°', 'draw 1536x2048']));
  });

  it('draws as decoded without a turn: no transform', async () => {
    const { decoder, log } = fakeDecoder({ scaled: {} });
    expect(await makeCopy(storedJpeg(4608, 3456), { make: 'Browning' }, SETTINGS, decoder)).toMatchObject({ kind: 'copy', width: 2048, height: 1536 });
    expect(log.filter((l) => l.startsWith('translate') || l.startsWith('rotate'))).toEqual([]);
  });
});

describe('makeCopy at a DCT scale', () => {
  it('decodes a large JPEG at the smallest eighth covering the copy, then draws, encodes and writes the EXIF as a whole decode does', async () => {
    const { decoder, log } = fakeDecoder({ scaled: {} });
    const result = await makeCopy(storedJpeg(4608, 3456), { make: 'Browning' }, SETTINGS, decoder);
    expect(log).toEqual([
      'decode scaled 2304x1728 from 4000000 bytes',
      'canvas 2048x1536',
      'smoothing high',
      'draw 2048x1536',
      'close bitmap',
      'encode image/jpeg 0.8',
    ]);
    expect(result).toMatchObject({ kind: 'copy', width: 2048, height: 1536 });
    const bytes = new Uint8Array(await (result as { blob: Blob }).blob.arrayBuffer());
    expect(await readExif(bytes)).toEqual({ make: 'Browning' });
  });

  it('makes a sideways photo’s copy upright: the copy takes the turned size', async () => {
    const { decoder, log } = fakeDecoder({ scaled: { turned: true } });
    expect(await makeCopy(storedJpeg(4608, 3456), null, SETTINGS, decoder)).toMatchObject({ kind: 'copy', width: 1536, height: 2048 });
    expect(log).toContain('canvas 1536x2048');
  });

  it('sends a JPEG no larger than the copy as it is, without decoding it', async () => {
    const { decoder, log } = fakeDecoder({ scaled: {} });
    expect(await makeCopy(storedJpeg(1600, 1200, 500_000), null, SETTINGS, decoder)).toEqual({ kind: 'original', reason: 'small' });
    expect(log).toEqual([]);
  });

  it('decodes whole what has no JPEG frame header, whatever its name says', async () => {
    const { decoder, log } = fakeDecoder({ scaled: {} });
    expect(await makeCopy(original(4_000_000), null, SETTINGS, decoder)).toMatchObject({ kind: 'copy', width: 2048, height: 1536 });
    expect(log[0]).toBe('decode from-image');
    expect(log.some((l) => l.startsWith('decode scaled'))).toBe(false);
  });

  it('answers undecodable for a JPEG the scaled decoder refuses, without a second decode', async () => {
    const { decoder, log } = fakeDecoder({ scaled: { fails: true } });
    expect(await makeCopy(storedJpeg(4608, 3456), null, SETTINGS, decoder)).toEqual({ kind: 'original', reason: 'undecodable' });
    expect(log).toEqual(['decode scaled 2304x1728 from 4000000 bytes']);
  });

  it('answers undecodable for a file that cannot be read, as a whole decode does', async () => {
    expect(await makeCopy(unreadable(), null, SETTINGS, fakeDecoder({ scaled: {} }).decoder)).toEqual({ kind: 'original', reason: 'undecodable' });
  });

  it('does not read the file where there is no scaled decoder: the whole decode takes it as it is', async () => {
    const { decoder, log } = fakeDecoder();
    expect(await makeCopy(unreadable(), null, SETTINGS, decoder)).toMatchObject({ kind: 'copy' });
    expect(log[0]).toBe('decode from-image');
  });

  it('stops once cancelled, still closing the decoded photo', async () => {
    const { decoder, log } = fakeDecoder({ scaled: {} });
    let calls = 0;
    // Not yet cancelled when the plan is made; cancelled by the time the photo is decoded.
    expect(await makeCopy(storedJpeg(4608, 3456), null, SETTINGS, decoder, () => ++calls > 1)).toBeNull();
    expect(log).toEqual(['decode scaled 2304x1728 from 4000000 bytes', 'close bitmap']);
  });
});

/** An ImageDecoder whose frame is turned `rotation` degrees; it records what it was given and what was closed. */
function fakeImageDecoder(rotation: number, fails = false) {
  const log: string[] = [];
  const inits: ImageDecoderInit[] = [];
  const ImageDecoder = class {
    constructor(init: ImageDecoderInit) {
      inits.push(init);
    }
    async decode() {
      if (fails) throw new DOMException('Failed to decode frame at index 0', 'EncodingError');
      return { image: { rotation, close: () => log.push('close frame') } };
    }
    close() {
      log.push('close decoder');
    }
  } as unknown as ImageDecoderConstructor;
  const createImageBitmap = async (image: unknown) => {
    log.push(`bitmap of a frame turned ${(image as { rotation: number }).rotation}`);
    return { width: 2304, height: 1728, close: () => undefined } as unknown as ImageBitmap;
  };
  return { ImageDecoder, createImageBitmap, log, inits };
}

describe('imageDecoderScaled', () => {
  it('asks ImageDecoder for the scaled size, hands it the bytes, and makes the frame a bitmap before closing both', async () => {
    const fake = fakeImageDecoder(0);
    const bytes = new ArrayBuffer(16);
    const decoded = await imageDecoderScaled(fake.ImageDecoder, fake.createImageBitmap)(bytes, { width: 2304, height: 1728 });
    expect(fake.inits).toEqual([{ data: bytes, type: 'image/jpeg', desiredWidth: 2304, desiredHeight: 1728, transfer: [bytes] }]);
    expect(fake.log).toEqual(['bitmap of a frame turned 0', 'close frame', 'close decoder']);
    expect(decoded).toMatchObject({ bitmap: { width: 2304, height: 1728 }, turned: false });
  });

  it('says a frame turned a quarter either way is turned, and one turned half is not', async () => {
    const turned = async (rotation: number) => {
      const fake = fakeImageDecoder(rotation);
      return (await imageDecoderScaled(fake.ImageDecoder, fake.createImageBitmap)(new ArrayBuffer(16), { width: 2304, height: 1728 })).turned;
    };
    expect([await turned(90), await turned(270), await turned(180), await turned(0)]).toEqual([true, true, false, false]);
  });

  it('rejects for a JPEG it cannot decode, still closing the decoder', async () => {
    const fake = fakeImageDecoder(0, true);
    await expect(imageDecoderScaled(fake.ImageDecoder, fake.createImageBitmap)(new ArrayBuffer(16), { width: 2304, height: 1728 })).rejects.toThrow(
      'Failed to decode',
    );
    expect(fake.log).toEqual(['close decoder']);
  });
});

describe('copyDecoder', () => {
  const base = { createImageBitmap: () => Promise.reject(new Error('unused')), OffscreenCanvas: class {} };
  // As in the engines: accessors on the prototype.
  class VideoFrameWithTurns {
    get rotation() {
      return 0;
    }
    get flip() {
      return false;
    }
  }

  it('decodes scaled where the engine has ImageDecoder and frames that say how they are turned', () => {
    expect(copyDecoder({ ...base, ImageDecoder: class {}, VideoFrame: VideoFrameWithTurns })?.decodeScaledJpeg).toEqual(expect.any(Function));
  });

  it('decodes whole where frames do not say how they are turned, or there is no ImageDecoder (an insecure page)', () => {
    expect(copyDecoder({ ...base, ImageDecoder: class {}, VideoFrame: class {} })?.decodeScaledJpeg).toBeNull();
    expect(copyDecoder({ ...base, VideoFrame: VideoFrameWithTurns })?.decodeScaledJpeg).toBeNull();
  });

  it('is null without createImageBitmap or OffscreenCanvas', () => {
    expect(copyDecoder({ OffscreenCanvas: class {} })).toBeNull();
    expect(copyDecoder({ createImageBitmap: base.createImageBitmap })).toBeNull();
  });
});

describe('serveCopies', () => {
  it('answers each copy once, and a cancelled one as cancelled', async () => {
    const posted: CopyResponse[] = [];
    const scope = { onmessage: null as ((event: MessageEvent<CopyRequest>) => void) | null, postMessage: (m: CopyResponse) => posted.push(m) };
    serveCopies(scope, fakeDecoder().decoder);
    const send = (data: CopyRequest) => scope.onmessage!({ data } as MessageEvent<CopyRequest>);
    send({ kind: 'copy', id: 1, file: original(4_000_000), exif: null, ...SETTINGS });
    send({ kind: 'copy', id: 2, file: original(4_000_000), exif: null, ...SETTINGS });
    send({ kind: 'cancel', id: 2 });
    // A cancel for a copy already answered is ignored.
    send({ kind: 'cancel', id: 99 });
    await flush();
    expect(posted.sort((a, b) => a.id - b.id)).toEqual([
      { id: 1, result: expect.objectContaining({ kind: 'copy' }) as unknown },
      { id: 2, cancelled: true },
    ]);
  });
});

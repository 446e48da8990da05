import { Blob as NodeBlob } from 'node:buffer';
import { readExif } from '../src/features/upload/services/files/exif';
import { makeCopy, serveCopies, type CopyDecoder } from '../src/features/upload/services/files/copy.worker';
import type { CopyRequest, CopyResponse } from '../src/features/upload/services/files/copy-protocol';

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
  const jpeg = new Uint8Array(bytes);
  jpeg.set([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xda, 0, 2]);
  jpeg.set([0xff, 0xd9], bytes - 2);
  return new NodeBlob([jpeg], { type: 'image/jpeg' }) as unknown as Blob;
}
const original = (bytes: number): Blob => new NodeBlob([new Uint8Array(bytes)], { type: 'image/jpeg' }) as unknown as Blob;

/** A decoder whose photos are `width` × `height` and whose canvas encodes `encodedBytes`; it records what was done. */
function fakeDecoder({ width = 4608, height = 3456, encodedBytes = 600_000, undecodable = false, type = 'image/jpeg' } = {}) {
  const log: string[] = [];
  const decoder: CopyDecoder = {
    createImageBitmap: async (_image, options) => {
      log.push(`decode ${options.imageOrientation}`);
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
          drawImage: (_b: unknown, _x: number, _y: number, w: number, h: number) => log.push(`draw ${w}x${h}`),
        };
      }
      async convertToBlob(options: ImageEncodeOptions) {
        log.push(`encode ${options.type} ${options.quality}`);
        return type === 'image/jpeg' ? encodedJpeg(encodedBytes) : new NodeBlob([new Uint8Array(10)], { type });
      }
    } as unknown as CopyDecoder['OffscreenCanvas'],
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
    expect(log).toEqual(['decode from-image', 'close bitmap']);
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

import { jpegFrame } from '../src/features/upload/model/jpeg-frame';
import { exifSegment } from '../src/features/upload/model/exif-writer';

/** A segment: marker, big-endian length (counting itself), payload. */
const segment = (marker: number, payload: number[]) => [0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload];
/** A frame header of `width` × `height`, 3 components (Y, Cb, Cr; 4:2:0), 8 bits. */
const sof = (marker: number, width: number, height: number) =>
  segment(marker, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
const APP0 = segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
const DQT = segment(0xdb, [0, ...new Array<number>(64).fill(1)]);
const SOS = [0xff, 0xda, 0, 12, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0, 0x12, 0x34];
const jpeg = (...parts: number[][]) => new Uint8Array([0xff, 0xd8, ...parts.flat(), ...SOS, 0xff, 0xd9]);

describe('jpegFrame', () => {
  it('reads the stored size from a baseline frame header, after the metadata segments', () => {
    const exif = Array.from(exifSegment({ make: 'Browning' }, { orientation: 6 }));
    expect(jpegFrame(jpeg(APP0, exif, DQT, sof(0xc0, 4608, 3456)))).toEqual({ width: 4608, height: 3456 });
  });

  it('reads extended and progressive frames too', () => {
    expect(jpegFrame(jpeg(sof(0xc1, 5120, 3840)))).toEqual({ width: 5120, height: 3840 });
    expect(jpegFrame(jpeg(DQT, sof(0xc2, 4000, 3000)))).toEqual({ width: 4000, height: 3000 });
  });

  it('steps over fill bytes and the Huffman tables, whose marker sits among the frame markers', () => {
    const dht = segment(0xc4, [0, ...new Array<number>(16).fill(0)]);
    expect(jpegFrame(jpeg(DQT, [0xff, 0xff], dht, sof(0xc0, 640, 480)))).toEqual({ width: 640, height: 480 });
  });

  it('is null for frames DCT scaling is not for: lossless, hierarchical, arithmetic-coded', () => {
    for (const marker of [0xc3, 0xc5, 0xc9, 0xca]) expect(jpegFrame(jpeg(sof(marker, 4608, 3456)))).toBeNull();
  });

  it('is null for what is not a JPEG', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(jpegFrame(png)).toBeNull();
    expect(jpegFrame(new Uint8Array([0xff, 0xd8]))).toBeNull();
    expect(jpegFrame(new Uint8Array())).toBeNull();
  });

  it('is null without a frame header before the image data', () => {
    expect(jpegFrame(jpeg(APP0, DQT))).toBeNull();
  });

  it('is null for a size that is not a real one (a height left to a DNL segment)', () => {
    expect(jpegFrame(jpeg(sof(0xc0, 4608, 0)))).toBeNull();
    expect(jpegFrame(jpeg(sof(0xc0, 0, 3456)))).toBeNull();
  });

  it('is null when the header is cut off or a segment is malformed, never throwing', () => {
    const whole = jpeg(APP0, DQT, sof(0xc0, 4608, 3456));
    const sofAt = 2 + APP0.length + DQT.length;
    expect(jpegFrame(whole.subarray(0, sofAt + 6))).toBeNull();
    expect(jpegFrame(whole.subarray(0, 10))).toBeNull();
    // A segment whose length runs past the end.
    expect(jpegFrame(new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff, 0, 0]))).toBeNull();
    // A length too short to be one, and bytes where a marker should be.
    expect(jpegFrame(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 0xff, 0xc0]))).toBeNull();
    expect(jpegFrame(new Uint8Array([0xff, 0xd8, 0x12, 0x34, 0, 0, 0, 0]))).toBeNull();
  });
});

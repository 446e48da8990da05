import { extensionOf, hasJpegSignature, MAX_FILE_BYTES, precheckSelection } from '../src/features/upload/model/file-filter';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff]);
const file = (name: string, size = 1000, lastModified = 1) => ({ name, size, lastModified });

describe('precheckSelection', () => {
  it('accepts files named as JPEGs (their first bytes are checked afterwards)', () => {
    const files = [file('a.jpg'), file('B.JPEG')];
    const r = precheckSelection(files);
    expect(r.accepted).toEqual(files);
    expect(r.skipped).toEqual([]);
  });
  it('skips zero-byte files', () => expect(precheckSelection([file('a.jpg', 0)]).skipped).toEqual([{ name: 'a.jpg', reason: 'empty' }]));
  it('skips videos and system files by extension', () => {
    const r = precheckSelection([file('IMG_0001.MP4'), file('Thumbs.db'), file('.DS_Store')]);
    expect(r.accepted).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['not-jpeg', 'not-jpeg', 'not-jpeg']);
  });
  it('skips files over 50 MB', () =>
    expect(precheckSelection([file('huge.jpg', MAX_FILE_BYTES + 1), file('max.jpg', MAX_FILE_BYTES)])).toEqual({
      accepted: [file('max.jpg', MAX_FILE_BYTES)],
      skipped: [{ name: 'huge.jpg', reason: 'too-large' }],
    }));
  it('keeps the selection order of both lists', () => {
    const r = precheckSelection([file('z.mp4'), file('b.jpg'), file('a.jpg', 0), file('a.jpg')]);
    expect(r.accepted.map((f) => f.name)).toEqual(['b.jpg', 'a.jpg']);
    expect(r.skipped.map((f) => f.name)).toEqual(['z.mp4', 'a.jpg']);
  });
});

describe('hasJpegSignature and extensionOf', () => {
  it('needs FF D8 FF', () => {
    expect(hasJpegSignature(JPEG)).toBe(true);
    expect(hasJpegSignature(new Uint8Array([0xff, 0xd8]))).toBe(false);
    expect(hasJpegSignature(new Uint8Array([0x89, 0x50, 0x4e]))).toBe(false);
  });
  it('keeps the original extension, lower-cased', () => {
    expect(extensionOf('IMG_0001.JPG')).toBe('.jpg');
    expect(extensionOf('photo.jpeg')).toBe('.jpeg');
    expect(extensionOf('noext')).toBe('');
  });
});

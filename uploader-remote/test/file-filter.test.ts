import { extensionOf, filterSelection, hasJpegSignature, MAX_FILE_BYTES } from '../src/features/upload/model/file-filter';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff]);
const file = (name: string, size = 1000, lastModified = 1) => ({ name, size, lastModified });

describe('filterSelection', () => {
  it('accepts JPEGs by extension and first bytes', () => {
    const files = [file('a.jpg'), file('B.JPEG')];
    const r = filterSelection(files, new Map([[0, JPEG], [1, JPEG]]), new Set());
    expect(r.accepted).toEqual(files);
    expect(r.skipped).toEqual([]);
  });
  it('skips zero-byte files', () => expect(filterSelection([file('a.jpg', 0)], new Map(), new Set()).skipped).toEqual([{ name: 'a.jpg', reason: 'empty' }]));
  it('skips videos and system files by extension', () => {
    const r = filterSelection([file('IMG_0001.MP4'), file('Thumbs.db'), file('.DS_Store')], new Map(), new Set());
    expect(r.skipped.map((s) => s.reason)).toEqual(['not-jpeg', 'not-jpeg', 'not-jpeg']);
  });
  it('skips a .jpg whose first bytes are not a JPEG', () =>
    expect(filterSelection([file('fake.jpg')], new Map([[0, new Uint8Array([0x89, 0x50, 0x4e])]]), new Set()).skipped).toEqual([{ name: 'fake.jpg', reason: 'not-jpeg' }]));
  it('skips files over 50 MB', () =>
    expect(filterSelection([file('huge.jpg', MAX_FILE_BYTES + 1)], new Map([[0, JPEG]]), new Set()).skipped).toEqual([{ name: 'huge.jpg', reason: 'too-large' }]));
  it('skips duplicates of listed files and within the selection (same name, size, modified time)', () => {
    const listed = new Set([`a.jpg\u00001000\u00001`]);
    const r = filterSelection([file('a.jpg'), file('b.jpg'), file('b.jpg'), file('b.jpg', 1000, 2)], new Map([[0, JPEG], [1, JPEG], [2, JPEG], [3, JPEG]]), listed);
    expect(r.accepted.map((f) => `${f.name}@${f.lastModified}`)).toEqual(['b.jpg@1', 'b.jpg@2']);
    expect(r.skipped).toEqual([
      { name: 'a.jpg', reason: 'duplicate' },
      { name: 'b.jpg', reason: 'duplicate' },
    ]);
  });
});

describe('hasJpegSignature and extensionOf', () => {
  it('needs FF D8 FF', () => {
    expect(hasJpegSignature(JPEG)).toBe(true);
    expect(hasJpegSignature(new Uint8Array([0xff, 0xd8]))).toBe(false);
  });
  it('keeps the original extension, lower-cased', () => {
    expect(extensionOf('IMG_0001.JPG')).toBe('.jpg');
    expect(extensionOf('photo.jpeg')).toBe('.jpeg');
    expect(extensionOf('noext')).toBe('');
  });
});

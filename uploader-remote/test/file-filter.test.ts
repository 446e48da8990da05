import {
  extensionOf,
  hasJpegSignature,
  hasVideoExtension,
  isHiddenOrSystemFile,
  MAX_FILE_BYTES,
  precheck,
  precheckSelection,
} from '../src/features/upload/model/file-filter';

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
  it('skips videos and system files, each with its own reason', () => {
    const r = precheckSelection([file('IMG_0001.MP4'), file('Thumbs.db'), file('.DS_Store'), file('notes.txt')]);
    expect(r.accepted).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['video', 'hidden', 'hidden', 'not-jpeg']);
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

const at = (path: string, size = 1000) => ({ ...file(path.split('/').pop()!, size), path });

describe('hidden and system files', () => {
  it.each(['.DS_Store', '._IMG_0001.JPG', '._.Trashes', '.hidden.jpg', 'Thumbs.db', 'THUMBS.DB', 'desktop.ini', 'Desktop.ini', 'ehthumbs.db'])(
    '%s is hidden',
    (name) => {
      expect(isHiddenOrSystemFile(name)).toBe(true);
      expect(precheck(file(name))).toBe('hidden');
    },
  );
  it.each([
    'DCIM/.Trashes/501/IMG_0001.JPG',
    'CARD/.Spotlight-V100/Store-V2/x.jpg',
    '.fseventsd/0000001.jpg',
    'CARD/System Volume Information/IndexerVolumeGuid.jpg',
    'CARD/system volume information/x.jpg',
    'CARD/$RECYCLE.BIN/S-1-5-21/$RABC123.JPG',
  ])('a file inside a hidden or system folder is hidden: %s', (path) => expect(precheck(at(path))).toBe('hidden'));
  it('judges folders by the path and the file by its name', () => {
    expect(precheck(at('DCIM/100MEDIA/IMG_0001.JPG'))).toBeNull();
    expect(precheck(at('My.Photos/IMG_0001.JPG'))).toBeNull();
    expect(precheck(at('IMG_0001.JPG'))).toBeNull();
    expect(precheck({ ...file('IMG_0001.JPG'), path: '' })).toBeNull();
    expect(isHiddenOrSystemFile('Thumbs.db.jpg')).toBe(false);
    expect(isHiddenOrSystemFile('IMG_0001.JPG', 'DCIM/.Trashes/IMG_0001.JPG')).toBe(true);
  });
  it('an AppleDouble "._" file named as a JPEG is hidden, not listed for its bytes to decide', () => {
    const r = precheckSelection([at('DCIM/100MEDIA/IMG_0001.JPG'), at('DCIM/100MEDIA/._IMG_0001.JPG', 4096)]);
    expect(r.accepted.map((f) => f.name)).toEqual(['IMG_0001.JPG']);
    expect(r.skipped).toEqual([{ name: '._IMG_0001.JPG', reason: 'hidden' }]);
  });
});

describe('videos', () => {
  it.each(['a.mp4', 'A.MOV', 'PICT0001.AVI', 'x.mts', 'x.M2TS', 'x.3gp', 'x.mkv', 'x.wmv', 'x.m4v', 'x.mpg', 'x.MPEG', 'x.asf'])('%s is a video', (name) => {
    expect(hasVideoExtension(name)).toBe(true);
    expect(precheck(file(name))).toBe('video');
  });
  it.each(['a.jpg', 'a.png', 'mp4', 'a.mp4.jpg', 'a.mp3'])('%s is not', (name) => expect(hasVideoExtension(name)).toBe(false));
});

describe('precedence: hidden, empty, video, not-jpeg, too-large', () => {
  const big = MAX_FILE_BYTES + 1;
  it.each([
    [file('._IMG_0001.JPG', 0), 'hidden'],
    [file('.DS_Store', big), 'hidden'],
    [at('.Trashes/clip.mp4', big), 'hidden'],
    [file('clip.mp4', 0), 'empty'],
    [file('notes.txt', 0), 'empty'],
    [file('clip.AVI', big), 'video'],
    [file('scan.png', big), 'not-jpeg'],
    [file('huge.jpg', big), 'too-large'],
    [file('ok.jpg'), null],
  ] as const)('%j → %s', (facts, reason) => expect(precheck(facts)).toBe(reason));
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

import { decodeMetadataValue, encodeMetadataValue } from '../src/features/upload/model/metadata-encoding';

const isAsciiHeaderValue = (v: string) => /^[\x20-\x7e]*$/.test(v);

describe('encodeMetadataValue', () => {
  it('sends plain ASCII names as they are', () => {
    expect(encodeMetadataValue('North Feeder')).toBe('North Feeder');
    expect(encodeMetadataValue('')).toBe('');
  });
  it('encodes an emoji or an accent as RFC 2047 UTF-8 words, pure ASCII', () => {
    expect(encodeMetadataValue('Hog pen 🐗')).toBe('=?UTF-8?B?SG9nIHBlbiDwn5CX?=');
    expect(encodeMetadataValue('Réservoir')).toBe('=?UTF-8?B?UsOpc2Vydm9pcg==?=');
    for (const name of ['Hog pen 🐗', 'Réservoir', 'Étang du Moulin — côté nord', 'line\nbreak'])
      expect(isAsciiHeaderValue(encodeMetadataValue(name))).toBe(true);
  });
  it('encodes what a decoder or a server would misread: "=?", control characters, edge spaces', () => {
    expect(encodeMetadataValue('=?UTF-8?B?x?=')).toMatch(/^=\?UTF-8\?B\?/);
    expect(encodeMetadataValue('tab\there')).toMatch(/^=\?UTF-8\?B\?/);
    expect(encodeMetadataValue(' padded ')).toMatch(/^=\?UTF-8\?B\?/);
  });
  it('keeps each encoded-word within 75 characters, never splitting a character', () => {
    const long = '🐗'.repeat(40) + 'é'.repeat(30);
    const encoded = encodeMetadataValue(long);
    for (const word of encoded.split(' ')) expect(word.length).toBeLessThanOrEqual(75);
    expect(decodeMetadataValue(encoded)).toBe(long);
  });
  it('round-trips through the decoder', () => {
    for (const name of ['Hog pen 🐗', 'Réservoir', 'North Feeder', ' padded ', '=?UTF-8?B?x?=', 'a\u0000b']) {
      expect(decodeMetadataValue(encodeMetadataValue(name))).toBe(name);
    }
  });
});

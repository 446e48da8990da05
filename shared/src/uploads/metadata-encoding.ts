/**
 * S3 user metadata (`x-amz-meta-*` headers) must be US-ASCII: a browser sends "Réservoir" as
 * Latin-1 bytes, which break the request's SigV4 signature, and refuses "Hog pen 🐗" outright
 * (not a valid header value). Camera names are the user's own words, so a value that is not plain
 * printable ASCII is sent as RFC 2047 encoded-words of its UTF-8 bytes, the encoding S3 itself
 * uses when it returns such metadata:
 *
 *   "Hog pen 🐗"  →  "=?UTF-8?B?SG9nIHBlbiDwn5CX?="
 *
 * A reader of the object's metadata (the object-created function, the ranch's processing) decodes
 * it with any RFC 2047 decoder, or `decodeMetadataValue` below. The uploader encodes with this
 * module, the object-created function (infra/src/object-created/handler.ts) decodes with it. Plain ASCII values are sent as they are.
 */

/** Bytes of UTF-8 per encoded-word: 45 bytes are 60 base64 characters, under RFC 2047's 75 per word. */
const WORD_BYTES = 45;

/** Printable ASCII, with no "=?" that a decoder could take for an encoded-word, and no edge spaces a server would trim. */
function isPlainAscii(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value) && !value.includes('=?') && value.trim() === value;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A metadata value as S3 accepts it: itself if plain ASCII, else RFC 2047 B-encoded UTF-8 words. */
export function encodeMetadataValue(value: string): string {
  if (isPlainAscii(value)) return value;
  const bytes = new TextEncoder().encode(value);
  const words: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(bytes.length, start + WORD_BYTES);
    // Never split a character: back off over UTF-8 continuation bytes (10xxxxxx).
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    words.push(`=?UTF-8?B?${base64(bytes.subarray(start, end))}?=`);
    start = end;
  }
  // Adjacent encoded-words separated by white space decode as one text (RFC 2047 §6.2).
  return words.join(' ');
}

/** The text of a metadata value encoded by `encodeMetadataValue` (or any UTF-8 B/Q encoded-words). */
export function decodeMetadataValue(value: string): string {
  const word = /=\?UTF-8\?([BQ])\?([^?]*)\?=/gi;
  if (!word.test(value)) return value;
  word.lastIndex = 0;
  const bytes: number[] = [];
  let last = 0;
  let out = '';
  const flush = () => {
    out += new TextDecoder().decode(new Uint8Array(bytes));
    bytes.length = 0;
  };
  for (const m of value.matchAll(word)) {
    const between = value.slice(last, m.index);
    // White space between two encoded-words is not part of the text.
    if (!/^\s*$/.test(between) || last === 0) {
      flush();
      out += between;
    }
    const [, kind, text] = m as unknown as [string, string, string];
    if (kind.toUpperCase() === 'B') for (const c of atob(text)) bytes.push(c.charCodeAt(0));
    else
      for (const c of text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))) bytes.push(c.charCodeAt(0));
    last = m.index + m[0].length;
  }
  flush();
  return out + value.slice(last);
}

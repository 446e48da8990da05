/**
 * A small valid JPEG for tests that store photos: the object-created function refuses an object
 * that does not start as a JPEG does (infra/src/object-created/handler.ts), so a test's photo must
 * be one. SOI, a JFIF APP0 segment, a comment segment holding `seed` (so every file is distinct),
 * `padding` bytes of random filler in further comment segments, and EOI.
 */
import crypto from 'node:crypto';

export function jpegBytes(seed: string, padding = 0): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const segment = (payload: Buffer) => {
    const head = Buffer.from([0xff, 0xfe, 0, 0]);
    head.writeUInt16BE(payload.length + 2, 2);
    return Buffer.concat([head, payload]);
  };
  const parts = [Buffer.from([0xff, 0xd8]), app0, segment(Buffer.from(`trailsense-e2e ${seed}`))];
  let left = padding;
  while (left > 0) {
    const n = Math.min(left, 65_000);
    parts.push(segment(crypto.randomBytes(n)));
    left -= n;
  }
  parts.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

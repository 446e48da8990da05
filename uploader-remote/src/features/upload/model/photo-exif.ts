import type { QuarterTurn } from '@trailsense/shared/uploads-wire';

/**
 * What a photo's EXIF says about when and with which camera it was taken, tidied into plain
 * strings. Pure: no exifr here (services/files/exif.ts reads the tags), so the rules are testable and the
 * values travel from the probe worker to the page by postMessage as they are.
 */
export interface PhotoExif {
  /** DateTimeOriginal as the camera wrote it, in the camera's local time, ISO-like without zone: "2024-10-03T05:12:44". */
  captureTime?: string;
  /** OffsetTimeOriginal when present, e.g. "-05:00". */
  captureOffset?: string;
  /** The camera's own DateTimeOriginal (same form as captureTime) when a stage corrected the capture time: captureTime is then the corrected one. */
  cameraCaptureTime?: string;
  /** Clockwise degrees that turn the photo upright (a camera strapped sideways), chosen by the member; absent: as stored. */
  turn?: QuarterTurn;
  make?: string;
  model?: string;
  serial?: string;
}

/** A quarter turn clockwise, in degrees (PhotoExif.turn): the wire's (`photo_turn`), and types only, so the workers import no shared code. */
export type { QuarterTurn };

/** The longest value kept: enough for any real make, model or serial; junk in a broken tag stays bounded. */
export const EXIF_TEXT_MAX = 64;

/** "YYYY:MM:DD HH:MM:SS" as EXIF writes it; a few cameras use "-" in the date or a "T". */
const EXIF_DATE_TIME = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;
/** Our own captureTime form, for captureDate. */
const CAPTURE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const OFFSET = /^([+-])(\d{2}):(\d{2})$/;

/**
 * Normalises the tags exifr returns with `reviveValues: false` (dates still strings), keyed by tag
 * name: DateTimeOriginal, OffsetTimeOriginal, Make, Model, and the serial from BodySerialNumber,
 * else SerialNumber, else InternalSerialNumber. Null when none of them gives a usable value.
 *
 * Cameras write a lot of junk: padding NULs, spaces, "0000:00:00 00:00:00" for an unset clock.
 * What is not a real value is left out rather than kept half-right, because the capture time and
 * the camera pick the photo's camera and date on the server.
 */
export function exifFromTags(tags: Record<string, unknown> | undefined | null): PhotoExif | null {
  if (!tags || typeof tags !== 'object') return null;
  const exif: PhotoExif = {};
  const captureTime = captureTimeOf(tags['DateTimeOriginal']);
  if (captureTime) {
    exif.captureTime = captureTime;
    // An offset without the time it qualifies says nothing.
    const offset = offsetOf(tags['OffsetTimeOriginal']);
    if (offset) exif.captureOffset = offset;
  }
  const make = textOf(tags['Make']);
  if (make) exif.make = make;
  const model = textOf(tags['Model']);
  if (model) exif.model = model;
  const serial = textOf(tags['BodySerialNumber']) ?? textOf(tags['SerialNumber']) ?? textOf(tags['InternalSerialNumber']);
  if (serial) exif.serial = serial;
  return Object.keys(exif).length > 0 ? exif : null;
}

/**
 * The capture time as a Date whose *UTC* fields are the camera's clock: "2024-10-03T05:12:44"
 * gives 2024-10-03T05:12:44.000Z. It is not the instant the photo was taken (the camera's zone is
 * unknown, or only in captureOffset): it is a wall-clock time carried in a Date so that it sorts
 * and compares. Read it with getUTC* or format it with `timeZone: 'UTC'` to show the camera's own
 * clock in every browser; getHours() or a format in the browser's zone would shift it.
 * Null without a (valid) captureTime.
 */
export function captureDate(exif: PhotoExif | null | undefined): Date | null {
  const m = exif?.captureTime ? CAPTURE_TIME.exec(exif.captureTime) : null;
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return wallClock(y, mo, d, h, mi, s);
}

/** The Date with these UTC fields, or null when they name no real time (month 13, February 30). */
function wallClock(y: number, mo: number, d: number, h: number, mi: number, s: number): Date | null {
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? date : null;
}

function captureTimeOf(value: unknown): string | undefined {
  const text = textOf(value);
  const m = text ? EXIF_DATE_TIME.exec(text) : null;
  if (!m) return undefined;
  const parts = m.slice(1) as [string, string, string, string, string, string];
  const [y, mo, d, h, mi, s] = parts.map(Number) as [number, number, number, number, number, number];
  if (!wallClock(y, mo, d, h, mi, s)) return undefined;
  return `${parts[0]}-${parts[1]}-${parts[2]}T${parts[3]}:${parts[4]}:${parts[5]}`;
}

function offsetOf(value: unknown): string | undefined {
  const text = textOf(value);
  const m = text ? OFFSET.exec(text) : null;
  if (!m) return undefined;
  // Real zones run from -12:00 to +14:00.
  return Number(m[2]) <= 14 && Number(m[3]) <= 59 ? m[0] : undefined;
}

/**
 * A tag's text, tidied: cut at the first NUL (EXIF strings are NUL-terminated; what follows is
 * padding or junk), other control characters dropped, trimmed, at most EXIF_TEXT_MAX characters.
 * A number (some serials) is spelled in decimal. Undefined when nothing is left.
 */
function textOf(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) text = String(value);
  else return undefined;
  text = text.replace(/^[\s\0]+/, '');
  const nul = text.indexOf('\0');
  if (nul >= 0) text = text.slice(0, nul);
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  text = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  // By code points, so a cut never splits a surrogate pair.
  const chars = Array.from(text);
  if (chars.length > EXIF_TEXT_MAX) text = chars.slice(0, EXIF_TEXT_MAX).join('').trimEnd();
  return text === '' ? undefined : text;
}

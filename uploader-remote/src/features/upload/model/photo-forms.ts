/**
 * A photo's two forms (docs/uploader.md#smaller-copies): the camera's original, or a smaller copy
 * made in the browser ("Send smaller copies"). Pure rules of which form goes, under which key,
 * and what the ranch already has — the copies stage of the run applies them
 * (controller/stages/copies/copies-stage.ts). The photo is one photo either way: its fingerprint is always the original file's,
 * and the server counts it once (infra/docs/server.md#the-ledger).
 */
import type { PhotoForm } from '@trailsense/shared/uploads-wire';
import type { JournalEntry } from './journal-records';

export type { PhotoForm };

/**
 * The object key a photo's copy is stored under: its listed key with `-copy` before a `.jpg`
 * extension ("3f2a….JPG" → "3f2a…-copy.jpg"). Copies and originals never share a key, because
 * the bucket never overwrites (`If-None-Match: *`): the original of a photo sent as a copy goes
 * to the listed key itself, which nothing of that photo used before.
 */
export function copyKeyOf(key: string): string {
  const dot = key.lastIndexOf('.');
  const stem = dot > 0 ? key.slice(0, dot) : key;
  return `${stem}-copy.jpg`;
}

/** The key a photo is sent under in `form`: copies under `copyKeyOf`, originals under the listed key. */
export function keyFor(key: string, form: PhotoForm): string {
  return form === 'copy' ? copyKeyOf(key) : key;
}

/** What the ranch has of a photo, as far as this browser knows. */
export type OnRecord =
  /** Nothing: it is sent (and counted). */
  | 'new'
  /** Its original (or, when copies are what is sent, any form): skipped as already uploaded. */
  | 'had'
  /** Only its smaller copy, and originals are what is sent now: its original goes, without a slot, not counted again. */
  | 'upgrade';

/**
 * What the ranch has of a photo, from this browser's journal and the server's answer:
 * - sending copies (`sendCopies`), any form the ranch has is enough: `had`;
 * - sending originals, a photo the ranch has only as a copy (the server says so, or, when the
 *   server did not answer for it, this browser's journal) is an `upgrade`; one it has as an
 *   original is `had`.
 * The server's word wins over the journal: another device may have sent the original since.
 */
export function onRecord(input: {
  entry: Pick<JournalEntry, 'status' | 'form'> | undefined;
  /** The server has the photo (any form). */
  known: boolean;
  /** The server has it only as a copy. */
  copyOnly: boolean;
  /** Whether the server's answer is known for it. */
  asked: boolean;
  sendCopies: boolean;
}): OnRecord {
  const { entry, known, copyOnly, asked, sendCopies } = input;
  const journalHas = entry?.status === 'uploaded';
  const journalCopy = journalHas && entry?.form === 'copy';
  if (sendCopies) return known || journalHas ? 'had' : 'new';
  if (asked && known) return copyOnly ? 'upgrade' : 'had';
  if (journalCopy) return 'upgrade';
  return journalHas ? 'had' : 'new';
}

/**
 * What a copy is expected to weigh, in bytes, for the estimate before Upload: the mean copy of
 * the 3–5 MB test photos at COPY_LONG_EDGE and COPY_QUALITY (226 KB: model/smaller-copy.ts,
 * docs/performance.md#smaller-copies), rounded up — a member's noisier photos may make larger
 * copies, and an estimate that is a little long disappoints less. A photo smaller than that is
 * sent as it is.
 */
export const TYPICAL_COPY_BYTES = 250_000;

/**
 * How much faster a card goes as copies, for the choice's one line. Measured at 3 Mbit/s 600 ms:
 * 15× the photos per hour on the generated 3–5 MB photos (bench/copies-link.ts,
 * docs/performance.md#smaller-copies); said as 10×, because a member's photos carry more sensor
 * noise than the generated ones and so make larger copies.
 */
export const COPY_SPEEDUP = 10;

/** From how long (seconds) sending the originals is "more than a few hours": the uploader then shows both estimates and suggests copies. */
export const SUGGEST_COPIES_AFTER_S = 3 * 3600;

/** The bytes a selection would send as copies: each photo as a typical copy, or as it is when smaller. */
export function copyBytesOf(sizes: Iterable<number>): number {
  let bytes = 0;
  for (const size of sizes) bytes += Math.min(size, TYPICAL_COPY_BYTES);
  return bytes;
}

/** The form the ranch has each of some photos in, from the server's answer: those it has (`known`), and of those, the ones it has only as copies. */
export function formsOnServer(known: readonly string[], copies: readonly string[] = []): Map<string, PhotoForm> {
  const copyOnly = new Set(copies);
  return new Map(known.map((fingerprint): [string, PhotoForm] => [fingerprint, copyOnly.has(fingerprint) ? 'copy' : 'original']));
}

/** A batch's photos sent as smaller copies, and the bytes their originals would have added (the outcome event's `copies` and `bytesSaved`). */
export interface CopyTally {
  copies: number;
  bytesSaved: number;
}

export const NO_COPIES: CopyTally = { copies: 0, bytesSaved: 0 };

/** `tally` with one copy of `copyBytes` sent, of an original of `originalBytes`. */
export function tallyCopy(tally: CopyTally, copyBytes: number, originalBytes: number): CopyTally {
  return { copies: tally.copies + 1, bytesSaved: tally.bytesSaved + Math.max(0, originalBytes - copyBytes) };
}

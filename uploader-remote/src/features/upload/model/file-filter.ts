/** SPEC.md-adjacent limits of what the uploader accepts (issue 5). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** What the filter needs of a chosen file: plain data, so it runs without a DOM. */
export interface FileFacts {
  name: string;
  size: number;
  lastModified: number;
}

/**
 * Why a chosen file is not sent: the instant checks (empty, not named as a JPEG, too large) and
 * those that read the file (not a JPEG's bytes, unreadable, the same photo listed twice, or
 * already uploaded for this ranch according to the journal).
 */
export type SkipReason = 'empty' | 'not-jpeg' | 'too-large' | 'duplicate' | 'unreadable' | 'already-uploaded';

export interface SkippedFile {
  name: string;
  reason: SkipReason;
}

/** `.jpg` / `.jpeg` in any case. */
export function hasJpegExtension(name: string): boolean {
  return /\.jpe?g$/i.test(name);
}

/** A JPEG starts with the SOI marker FF D8 followed by a marker's FF. */
export function hasJpegSignature(head: Uint8Array): boolean {
  return head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
}

/** The original extension, lower-cased, with its dot (".jpg"); "" if none. */
export function extensionOf(name: string): string {
  const m = /\.[A-Za-z0-9]{1,10}$/.exec(name);
  return m ? m[0].toLowerCase() : '';
}

/**
 * The checks that need no bytes: empty, too large, not named as a JPEG. `null` means the file's
 * first bytes decide.
 */
export function precheck(file: FileFacts): SkipReason | null {
  if (file.size === 0) return 'empty';
  if (!hasJpegExtension(file.name)) return 'not-jpeg';
  if (file.size > MAX_FILE_BYTES) return 'too-large';
  return null;
}

export interface PrecheckResult<F> {
  /** Worth reading: their first bytes and fingerprints are checked afterwards. */
  accepted: F[];
  skipped: SkippedFile[];
}

/**
 * The instant part of filtering a selection: everything that needs no bytes (`precheck`). Reading
 * 10,000 files' first bytes takes seconds, so it must not stand between the picker and the list;
 * duplicates and photos already uploaded are told by their fingerprints, which follow.
 */
export function precheckSelection<F extends FileFacts>(files: readonly F[]): PrecheckResult<F> {
  const accepted: F[] = [];
  const skipped: SkippedFile[] = [];
  for (const file of files) {
    const reason = precheck(file);
    if (reason) skipped.push({ name: file.name, reason });
    else accepted.push(file);
  }
  return { accepted, skipped };
}

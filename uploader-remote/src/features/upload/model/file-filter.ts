/** SPEC.md-adjacent limits of what the uploader accepts (issue 5). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** What the filter needs of a chosen file: plain data, so it runs without a DOM. */
export interface FileFacts {
  name: string;
  size: number;
  lastModified: number;
}

export type SkipReason = 'empty' | 'not-jpeg' | 'too-large' | 'duplicate';

export interface SkippedFile {
  name: string;
  reason: SkipReason;
}

/** A file's identity for duplicate detection: same name, size and modified time. */
export function fileIdentity(file: FileFacts): string {
  return `${file.name}\u0000${file.size}\u0000${file.lastModified}`;
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
  /** Listed at once; their first bytes are checked afterwards (`hasJpegSignature`). */
  accepted: F[];
  skipped: SkippedFile[];
}

/**
 * The instant part of filtering a selection: everything but the first bytes (`precheck` and
 * duplicates of `listed` identities or within the selection). Reading 10,000 files' first bytes
 * takes seconds, so it must not stand between the picker and the list; the byte check follows
 * in the background and drops what fails it.
 */
export function precheckSelection<F extends FileFacts>(files: readonly F[], listed: ReadonlySet<string>): PrecheckResult<F> {
  const accepted: F[] = [];
  const skipped: SkippedFile[] = [];
  const seen = new Set(listed);
  for (const file of files) {
    const identity = fileIdentity(file);
    const reason = precheck(file) ?? (seen.has(identity) ? 'duplicate' : null);
    if (reason) {
      skipped.push({ name: file.name, reason });
      continue;
    }
    seen.add(identity);
    accepted.push(file);
  }
  return { accepted, skipped };
}
